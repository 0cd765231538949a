"""Wo ist bitte Umtata?: the board, the question deck and the rules engine.

The rules (:mod:`table.games.umtata.engine`) are imported when a game of it is played,
not when the table starts (:class:`table.games.contract.LazyEngine`).
"""

from table.games.contract import Game, LazyEngine

GAME = Game(LazyEngine("table.games.umtata.engine:ENGINE", name="umtata", title="Wo ist bitte Umtata?",
                       variants=("standard",), min_stations=2, max_stations=5,
                       option_names=frozenset({"target", "first_reader", "deck", "whole_deck", "colours",
                                               "language"})),
            "table.display.games.umtata:RENDERER", commands="table.games.umtata.commands:register",
            catalogue="table.games.umtata", lobby_order=30, secret_knob=True)
"""Umtata as the table registers it (entry point ``table.games``), with its ``deck`` command."""

__all__ = ["GAME"]
