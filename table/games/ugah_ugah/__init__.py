"""Ugah Ugah!: the circle of chips, the hunters, the spoils and everyone's pile."""

from table.games.contract import Game
from table.games.ugah_ugah.engine import ENGINE, config_options

GAME = Game(ENGINE, "table.display.games.ugah_ugah:RENDERER", data_options=config_options,
            catalogue="table.games.ugah_ugah", lobby_order=40)
"""Ugah Ugah! as the table registers it (entry point ``table.games``)."""

__all__ = ["ENGINE", "GAME", "config_options"]
