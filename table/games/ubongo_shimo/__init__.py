"""Ubongo Shimo: task-card points, gems and rounds (the cards and pieces stay physical)."""

from table.games.contract import Game
from table.games.ubongo_shimo.engine import ENGINE

GAME = Game(ENGINE, "table.display.games.ubongo_shimo:RENDERER", catalogue="table.games.ubongo_shimo", lobby_order=10)
"""Ubongo Shimo as the table registers it (entry point ``table.games``): first in the lobby."""

__all__ = ["ENGINE", "GAME"]
