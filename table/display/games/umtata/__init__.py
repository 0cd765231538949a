"""The screen of the game ``umtata``."""

from table.display.games.umtata.screen import RENDERER

__all__ = ["RENDERER"]
