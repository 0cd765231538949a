"""Pieces a game screen is composed of, shared by every game: the paused veil, and
where the players' panels go (side by side along the bottom, or stacked in a column).

A game's screen keeps what is its own (what a panel says, its header's words); the
pieces here fix what every screen does alike, so the screens read as one table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pygame

from table.common.i18n import _
from table.display import draw
from table.display.layers import Part, whole
from table.display.theme import ACCENT, Theme


@dataclass(frozen=True)
class PausedLook:
    """How a screen shows the pause: the veil's opacity (0..255) and the size of the
    word "Paused" in the middle (a theme text size)."""

    alpha: int = 150
    size: str = "title"


PAUSED = PausedLook(150, "title")
"""The pause as most screens show it."""

PAUSED_LARGE = PausedLook(160, "huge")
"""A darker veil and a larger word, for a screen full of small print (a map)."""

PAUSED_LOOKS = (PAUSED, PAUSED_LARGE)
"""The looks the game screens use; :func:`prepare_paused` renders their words ahead."""


def paint_paused(surface: pygame.Surface, theme: Theme, look: PausedLook = PAUSED) -> None:
    """The whole surface veiled (a multiply: one pass, no blending) and "Paused" in
    its middle, never wider than the screen less four units."""
    w, h = surface.get_size()
    draw.veil(surface, surface.get_rect(), look.alpha)
    draw.label(surface, theme, _("Paused"), (w / 2, h / 2), look.size, ACCENT, "center", bold=True,
               max_width=w - theme.px(4))


def paused_part(name: str, theme: Theme, look: PausedLook = PAUSED) -> Part:
    """The pause as the top part of a screen, named ``name``. Its key holds only the look
    (the word follows the language, which the game screen adds to every key), so a
    screen whose other parts keep their keys enters the pause by laying this part over
    the picture as it is: one veil pass and a cached line, no repaint under it."""
    return Part(name, whole((theme.width, theme.height)), look, lambda s, t: paint_paused(s, theme, look),
                base=True)


def prepare_paused(theme: Theme) -> Iterator[None]:
    """Render the word of every look at this theme's size into the text cache (a step
    per look), so that the first pause of a game costs a veil pass and a blit, not the
    word's rendering (at 720p that doubled the frame)."""
    for look in PAUSED_LOOKS:
        # Measuring the line renders it into the cache, and draws (and records) nothing.
        draw.label_rect(theme, _("Paused"), (0, 0), look.size, ACCENT, "center", bold=True,
                        max_width=theme.width - theme.px(4))
        yield


def side_by_side(area: pygame.Rect, count: int, gap: int) -> list[pygame.Rect]:
    """``count`` panels of equal width across ``area`` (its full height), ``gap`` pixels
    apart, the first at its left edge; the pixels a division leaves stay on the right."""
    width = (area.width - gap * (count - 1)) // max(1, count)
    return [pygame.Rect(area.left + k * (width + gap), area.top, width, area.height) for k in range(count)]


def stacked(area: pygame.Rect, count: int, gap: int, tallest: int) -> list[pygame.Rect]:
    """``count`` rows of ``area``'s width stacked from its top, ``gap`` pixels apart, each
    as tall as ``area`` allows and at most ``tallest`` pixels."""
    height = min(tallest, (area.height - gap * (count - 1)) // max(1, count))
    return [pygame.Rect(area.left, area.top + k * (height + gap), area.width, height) for k in range(count)]
