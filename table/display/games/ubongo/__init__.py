"""The screen of the game ``ubongo``."""

from table.display.games.ubongo.screen import RENDERER

__all__ = ["RENDERER"]
