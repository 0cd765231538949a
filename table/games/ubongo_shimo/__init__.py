"""Ubongo Shimo: task-card points, gems and rounds (the cards and pieces stay physical).

The rules (:mod:`table.games.ubongo_shimo.engine`) are imported when a game of it is
played, not when the table starts (:class:`table.games.contract.LazyEngine`).
"""

from table.games.contract import Game, LazyEngine

GAME = Game(LazyEngine("table.games.ubongo_shimo.engine:ENGINE", name="ubongo_shimo", title="Ubongo Shimo",
                       variants=("standard", "running-sand", "advanced", "advanced-running-sand"),
                       min_stations=1, max_stations=4,
                       option_names=frozenset({"levels", "card_points", "sand_seconds", "countdown_seconds",
                                               "tie_window_ms", "next_round_after", "results_hold_seconds",
                                               "colours"})),
            "table.display.games.ubongo_shimo:RENDERER", catalogue="table.games.ubongo_shimo", lobby_order=10)
"""Ubongo Shimo as the table registers it (entry point ``table.games``): first in the lobby."""

__all__ = ["GAME"]
