"""Per-game renderers, discovered like the engines.

Each module here defines ``RENDERER``: an object with ``game`` (the engine name),
``parts(view, theme, paused)``, the screen as :class:`~table.display.layers.Part`
objects whose times are the game's (what the table draws, repainting only what
changed), and ``draw(surface, view, ctx)``, all of them painted from scratch. ``view``
is ``engine.view(state, None)`` (the public display view, JSON-compatible) and ``ctx``
a :class:`RenderContext`. Neither may change anything but the surface.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Protocol

import pygame

from table.display.layers import Part
from table.display.theme import Theme
from table.i18n import language


@dataclass(frozen=True)
class RenderContext:
    """What a renderer needs besides the view: the theme and the game time now."""

    theme: Theme
    now: float
    paused: bool = False


class Renderer(Protocol):
    """A game's renderer. It may also have ``prepare(theme)``, a generator that builds
    ahead, a step per ``next``, what its first frames at this theme (size and language
    in force) would otherwise stop to build; the table runs it while nobody uses it
    (:func:`preparations`)."""

    game: str

    def draw(self, surface: pygame.Surface, view: dict[str, Any], ctx: RenderContext) -> None: ...

    def parts(self, view: dict[str, Any], theme: Theme, paused: bool = False) -> list[Part]: ...


def preparations(theme: Theme) -> Iterator[None]:
    """Every renderer's ``prepare(theme)`` steps, one after the other."""
    for renderer in renderers().values():
        prepare = getattr(renderer, "prepare", None)
        if prepare is not None:
            yield from prepare(theme)


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


def renderer_parts(renderer: Renderer, view: dict[str, Any], theme: Theme, paused: bool = False) -> list[Part]:
    """``renderer.parts``, or for a renderer that only has ``draw``, the whole screen as
    one part repainted on every frame (correct, just not cheap)."""
    parts = getattr(renderer, "parts", None)
    if parts is not None:
        # Every word on a game screen follows the table's language: a part's picture
        # follows from its key and the language in force.
        lang = language()
        return [replace(part, key=(part.key, lang)) for part in parts(view, theme, paused)]
    whole = pygame.Rect(0, 0, theme.width, theme.height)

    def paint(surface: pygame.Surface, t: float) -> None:
        renderer.draw(surface, view, RenderContext(theme, t, paused))

    return [Part(f"{renderer.game}:whole", whole, language(), paint, base=True,
                 live=None if paused else (lambda t: (t, whole)))]

