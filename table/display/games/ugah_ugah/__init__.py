"""The screen of the game ``ugah_ugah``."""

from table.display.games.ugah_ugah.screen import RENDERER

__all__ = ["RENDERER"]
