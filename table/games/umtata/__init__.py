"""Wo ist bitte Umtata?: the board, the question deck and the rules engine."""

from table.games.contract import Game
from table.games.umtata.engine import ENGINE, UmtataEngine
from table.games.umtata.state import UmtataState

GAME = Game(ENGINE, "table.display.games.umtata:RENDERER", commands="table.games.umtata.commands:register",
            catalogue="table.games.umtata", lobby_order=30, secret_knob=True)
"""Umtata as the table registers it (entry point ``table.games``), with its ``deck`` command."""

__all__ = ["ENGINE", "GAME", "UmtataEngine", "UmtataState"]
