"""The screen of the game ``ubongo_shimo``."""

from table.display.games.ubongo_shimo.screen import RENDERER

__all__ = ["RENDERER"]
