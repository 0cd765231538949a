"""Ugah Ugah!: the circle of chips, the hunters, the spoils and everyone's pile.

The rules (:mod:`table.games.ugah_ugah.engine`) are imported when a game of it is played,
not when the table starts (:class:`table.games.contract.LazyEngine`); the chip set file is
read at the start by :mod:`table.games.ugah_ugah.chips` alone.
"""

from table.games.contract import Game, LazyEngine
from table.games.ugah_ugah.chips import config_options

GAME = Game(LazyEngine("table.games.ugah_ugah.engine:ENGINE", name="ugah_ugah", title="Ugah Ugah!",
                       variants=("standard", "uncertain-hunting"), min_stations=2, max_stations=4,
                       option_names=frozenset({"chips", "pips", "dice_reader", "colours"})),
            "table.display.games.ugah_ugah:RENDERER", data_options=config_options,
            catalogue="table.games.ugah_ugah", lobby_order=40)
"""Ugah Ugah! as the table registers it (entry point ``table.games``)."""

__all__ = ["GAME", "config_options"]
