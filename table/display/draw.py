"""Drawing helpers shared by the screens: cached text, panels, the on-screen hourglass.

Rendering text is the most expensive thing a frame does, so rendered lines are
cached by (text, size, colour, bold); screens stay free to draw every line each frame.
"""

from __future__ import annotations

import math
from functools import lru_cache

import pygame

from table.common.memory import SMALL_MEMOS
from table.display.theme import ACCENT, PANEL, Colour, Theme, note_cover, text, text_rect
from table.display.theme import OneSize as OneSize
from table.display.theme import one_size as one_size

label = text
"""One line of text, cached (see :func:`table.display.theme.text`)."""

label_rect = text_rect
"""Where :func:`label` would draw (see :func:`table.display.theme.text_rect`)."""

# one_size / OneSize (re-exported above): a panel's lines shrunk together to one scale.


VEIL_TILE = 256
VEIL_HIDES = 200
"""A veil at least this opaque hides the text under it (for the layout test: text on
top of it does not collide with what it covers)."""


@lru_cache(maxsize=SMALL_MEMOS)
def _veil_tile(alpha: int, colour: Colour) -> pygame.Surface:
    surface = pygame.Surface((VEIL_TILE, VEIL_TILE), pygame.SRCALPHA)
    surface.fill((*colour, alpha))
    return surface


def veil(surface: pygame.Surface, rect: pygame.Rect, alpha: int, colour: Colour = (0, 0, 0)) -> None:
    """Darken ``rect`` of ``surface`` with a translucent ``colour``, only over the part the
    surface's clip lets through.

    A black veil (all of the table's) is a multiply: every channel scaled by
    ``255 - alpha``, one pass over the pixels with no alpha blending (a third of the
    cost of blending a translucent layer; entering pause repaints the whole screen
    under it). Other colours are blended from one small tile kept per alpha, so a kiosk
    keeps its memory flat."""
    area = rect.clip(surface.get_clip())
    if area.width <= 0 or area.height <= 0:
        return
    if alpha >= VEIL_HIDES:
        note_cover(area)
    if colour == (0, 0, 0):
        keep = 255 - alpha
        surface.fill((keep, keep, keep), area, special_flags=pygame.BLEND_MULT)
        return
    tile = _veil_tile(alpha, colour)
    for y in range(area.top, area.bottom, VEIL_TILE):
        for x in range(area.left, area.right, VEIL_TILE):
            piece = pygame.Rect(x, y, min(VEIL_TILE, area.right - x), min(VEIL_TILE, area.bottom - y))
            surface.blit(tile, piece, pygame.Rect(0, 0, piece.width, piece.height))


def wrap(font: pygame.font.Font, message: str, width: int) -> list[str]:
    """Split ``message`` into lines that fit ``width`` pixels in ``font`` (a word
    longer than the width gets a line of its own)."""
    lines: list[str] = []
    line = ""
    for word in message.split():
        trial = f"{line} {word}".strip()
        if font.size(trial)[0] <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def dialog(surface: pygame.Surface, theme: Theme, width_units: float, height_units: float,
           veil_alpha: int = 170) -> pygame.Rect:
    """Darken the whole surface and draw a centred, outlined box; returns the box."""
    veil(surface, surface.get_rect(), veil_alpha)
    box = dialog_box(surface.get_size(), theme, width_units, height_units)
    panel(surface, box, PANEL, theme.px(2), ACCENT, theme.px(0.5))
    return box


def dialog_box(size: tuple[int, int], theme: Theme, width_units: float, height_units: float) -> pygame.Rect:
    """Where :func:`dialog` puts its box on a surface of ``size``."""
    box = pygame.Rect(0, 0, theme.px(width_units), theme.px(height_units))
    box.center = (size[0] // 2, size[1] // 2)
    return box


def panel(surface: pygame.Surface, rect: pygame.Rect, colour: Colour = PANEL, radius: int = 0,
          border: Colour | None = None, width: int = 0) -> None:
    """A filled rounded rectangle, optionally outlined (it hides the text under it)."""
    pygame.draw.rect(surface, colour, rect, border_radius=radius)
    note_cover(rect)
    if border is not None and width > 0:
        pygame.draw.rect(surface, border, rect, width=width, border_radius=radius)


def _glass(rect: pygame.Rect) -> tuple[int, int, int, int]:
    """:func:`hourglass`'s frame in ``rect``: the bars' thickness, the glass outline's
    width, and the first and last rows of the bulbs (between the bars)."""
    bar = max(3, rect.width // 25)
    return bar, max(2, rect.width // 40), rect.top + bar, rect.bottom - 1 - bar


def hourglass_sand(rect: pygame.Rect, fraction_left: float) -> tuple[int | None, int | None]:
    """The rows of the sand's surfaces in :func:`hourglass`'s picture of ``rect`` with
    ``fraction_left`` of the sand on top: the top bulb's (None: empty) and the bottom
    bulb's (None: empty). Whole pixels: the picture follows from them (and the blink),
    so a part keyed by them repaints only when a surface moves by a pixel."""
    f = min(1.0, max(0.0, fraction_left))
    _bar, _line, top, bottom = _glass(rect)
    mid = (top + bottom) // 2
    h = mid - top
    upper = round(mid - h * math.sqrt(f)) if f > 0 else None
    lower = None if f >= 1 else mid if f == 0 else max(round(bottom - h * (1 - math.sqrt(f))), mid)
    return upper, lower


def hourglass(surface: pygame.Surface, rect: pygame.Rect, fraction_left: float, colour: Colour,
              glass: Colour = (200, 210, 230), blink: bool = False) -> None:
    """A sand glass in ``rect`` (nothing outside it): a bar across its top and bottom,
    two bulbs between them, ``fraction_left`` of the sand (0..1) still on top (drawn at
    the rows :func:`hourglass_sand` gives)."""
    bar, line, top, bottom = _glass(rect)
    if rect.width < 4 * line or bottom - top < 4:
        return  # too small to show a glass
    clip = surface.get_clip()
    surface.set_clip(rect.clip(clip))  # the outlines' corners would reach past the sides
    cx, mid = rect.centerx, (top + bottom) // 2
    half_w = rect.width // 2 - line // 2 - 1
    neck = max(2, rect.width // 14)
    upper = [(cx - half_w, top), (cx + half_w, top), (cx + neck, mid), (cx - neck, mid)]
    lower = [(cx - neck, mid), (cx + neck, mid), (cx + half_w, bottom), (cx - half_w, bottom)]
    sand = (255, 255, 255) if blink else colour
    h = mid - top
    on_top, below = hourglass_sand(rect, fraction_left)
    if on_top is not None:
        # Sand on top: a trapezoid whose surface sinks as the fraction falls.
        w_at = neck + (half_w - neck) * (mid - on_top) / h
        pygame.draw.polygon(surface, sand, [(cx - w_at, on_top), (cx + w_at, on_top), (cx + neck, mid),
                                            (cx - neck, mid)])
        pygame.draw.line(surface, sand, (cx, mid), (cx, bottom - 2), max(2, neck // 2))
    if below is not None:
        w_at = neck + (half_w - neck) * (below - mid) / h
        pygame.draw.polygon(surface, sand, [(cx - w_at, below), (cx + w_at, below), (cx + half_w, bottom),
                                            (cx - half_w, bottom)])
    pygame.draw.polygon(surface, glass, upper, width=line)
    pygame.draw.polygon(surface, glass, lower, width=line)
    surface.fill(glass, pygame.Rect(rect.left, rect.top, rect.width, bar))
    surface.fill(glass, pygame.Rect(rect.left, rect.bottom - bar, rect.width, bar))
    surface.set_clip(clip)


def gem(surface: pygame.Surface, centre: tuple[float, float], radius: float, value: int) -> None:
    """A gem: amber (1) a circle, emerald (2) a square, sapphire (3) a diamond.

    Shapes as well as colours, so the three values stay apart for colour-blind players.
    """
    colours = {1: (255, 176, 32), 2: (32, 200, 110), 3: (60, 130, 255)}
    c = colours.get(value, (200, 200, 200))
    x, y = centre
    r = radius
    if value == 1:
        pygame.draw.circle(surface, c, (x, y), r)
    elif value == 2:
        pygame.draw.rect(surface, c, pygame.Rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7), border_radius=3)
    else:
        pygame.draw.polygon(surface, c, [(x, y - r * 1.1), (x + r, y), (x, y + r * 1.1), (x - r, y)])
    pygame.draw.circle(surface, (255, 255, 255), (x - r * 0.3, y - r * 0.35), max(2, r * 0.18))
