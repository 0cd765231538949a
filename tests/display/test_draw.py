"""The drawing helpers that take a rect never paint outside it: a part's rect is where
its paint may touch (the composer repaints only there), so a helper that spills leaves
stale pixels round it. Each helper is painted into a rect on a larger surface of noise,
and every pixel outside the rect must be as it was (and something inside must change,
so a helper that drew nothing would not pass)."""

from __future__ import annotations

import os
from collections.abc import Callable

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import numpy as np
import pygame
import pytest

from table.display import draw
from table.display.theme import ACCENT, PANEL

Helper = Callable[[pygame.Surface, pygame.Rect], None]

HELPERS: dict[str, Helper] = {
    "veil black": lambda s, r: draw.veil(s, r, 150),
    "veil coloured": lambda s, r: draw.veil(s, r, 120, (40, 80, 160)),
    "panel": lambda s, r: draw.panel(s, r, PANEL),
    "panel outlined": lambda s, r: draw.panel(s, r, PANEL, 9, ACCENT, 5),
    "hourglass full": lambda s, r: draw.hourglass(s, r, 1.0, ACCENT),
    "hourglass running": lambda s, r: draw.hourglass(s, r, 0.4, ACCENT),
    "hourglass blinking": lambda s, r: draw.hourglass(s, r, 0.05, ACCENT, blink=True),
    "hourglass empty": lambda s, r: draw.hourglass(s, r, 0.0, ACCENT),
}

RECTS = (pygame.Rect(57, 43, 131, 171), pygame.Rect(200, 20, 60, 240), pygame.Rect(10, 250, 300, 31),
         pygame.Rect(301, 7, 23, 41))
"""Tall, wide, narrow and odd-sized rects (odd widths round differently)."""


def noise(size: tuple[int, int]) -> pygame.Surface:
    """A surface of random pixels, none black: any paint over one shows."""
    pixels = np.random.default_rng(7).integers(16, 256, (*size, 3), dtype=np.uint8)
    return pygame.surfarray.make_surface(pixels)


@pytest.mark.parametrize("rect", RECTS, ids=lambda r: f"{r.w}x{r.h}")
@pytest.mark.parametrize("name", list(HELPERS))
def test_a_draw_helper_paints_only_inside_its_rect(name: str, rect: pygame.Rect) -> None:
    surface = noise((340, 300))
    before = pygame.surfarray.array3d(surface)
    HELPERS[name](surface, rect)
    after = pygame.surfarray.array3d(surface)
    changed = np.any(before != after, axis=2)  # indexed [x, y]
    inside = np.zeros_like(changed)
    inside[rect.left:rect.right, rect.top:rect.bottom] = True
    outside = np.argwhere(changed & ~inside)
    assert not len(outside), f"{name} painted {len(outside)} pixels outside {rect}, e.g. at {outside[0].tolist()}"
    assert changed[inside].any(), f"{name} painted nothing inside {rect}"


def test_a_draw_helper_keeps_the_clip_it_was_given() -> None:
    """The hourglass clips itself to its rect while it draws: the caller's clip (a
    composer's region) is what it finds afterwards, and it is respected meanwhile."""
    surface = noise((340, 300))
    region = pygame.Rect(60, 50, 40, 40)
    surface.set_clip(region)
    before = pygame.surfarray.array3d(surface)
    draw.hourglass(surface, RECTS[0], 0.5, ACCENT)
    assert surface.get_clip() == region
    changed = np.any(before != pygame.surfarray.array3d(surface), axis=2)
    inside = np.zeros_like(changed)
    inside[region.left:region.right, region.top:region.bottom] = True
    assert not (changed & ~inside).any()
