"""Per-game renderers, discovered like the engines.

Each module here defines ``RENDERER``: an object with ``game`` (the engine name) and
``draw(surface, view, ctx)`` where ``view`` is ``engine.view(state, None)`` (the
public display view, JSON-compatible) and ``ctx`` a :class:`RenderContext`.
``draw`` must not change anything but the surface.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import pygame

from table.display.theme import Theme


@dataclass(frozen=True)
class RenderContext:
    """What a renderer needs besides the view: the theme and the game time now."""

    theme: Theme
    now: float
    paused: bool = False


class Renderer(Protocol):
    game: str

    def draw(self, surface: pygame.Surface, view: dict[str, Any], ctx: RenderContext) -> None: ...


@cache
def renderers() -> dict[str, Renderer]:
    found: dict[str, Renderer] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        renderer = getattr(module, "RENDERER", None)
        if renderer is not None:
            found[renderer.game] = renderer
    return found
