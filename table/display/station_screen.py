"""A station's private display: its own view as a one-bit 128 x 64 picture.

The same picture goes to the OLED at the station (:mod:`table.hardware.oled`) and to
the simulator's stations bar (:func:`draw_station_picture`), so what the simulator
shows is what the station would show. The lines come from the game's renderer
(:meth:`table.display.games.GameRenderer.station_lines`), which reads only the
station's own view (``engine.view(state, station)``): nothing another station hides
can reach this screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import pygame

from table.display.theme import open_font

StationLine = tuple[str, str]
"""One line of a station display: its text and its size, ``"big"`` or ``"small"``."""

SIZES = {"big": 26, "small": 14}
"""Pixel sizes of pygame's default font that stay readable on a 0.96" OLED."""
OLED_LIT = (120, 210, 255)
"""The simulator's colour for a lit pixel (the common blue-white OLED)."""


class OneBitPicture(Protocol):
    """Any one-bit picture of that shape (what a station display was last given)."""

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def pixels(self) -> bytes: ...


@dataclass(frozen=True)
class StationPicture:
    """A one-bit picture: ``width`` x ``height`` pixels, row by row from the top left,
    one byte per pixel (0: dark, 1: lit) - the shape the hardware's station displays take."""

    width: int
    height: int
    pixels: bytes

    def lit(self, x: int, y: int) -> bool:
        return bool(self.pixels[y * self.width + x])


def _fit(text: str, size: str, width: int) -> pygame.Surface:
    """``text`` rendered without smoothing (an OLED pixel is on or off), cut with an
    ellipsis, then stepped down to the small size, until it fits ``width``."""
    font = open_font(SIZES[size])
    img = font.render(text, False, (255, 255, 255))
    if img.get_width() <= width:
        return img
    if size == "big":
        return _fit(text, "small", width)
    while len(text) > 1 and img.get_width() > width:
        text = text[:-1]
        img = font.render(text.rstrip() + "…", False, (255, 255, 255))
    return img


def _wrapped(lines: Sequence[StationLine], width: int) -> list[StationLine]:
    """``lines`` with each small line too wide for ``width`` broken between words into
    as many small lines as it takes (a hint is read whole, never cut); a single word
    wider than the display is still cut by :func:`_fit`."""
    out: list[StationLine] = []
    for text, kind in lines:
        font = open_font(SIZES[kind])
        if kind != "small" or font.size(text)[0] <= width:
            out.append((text, kind))
            continue
        line = ""
        for word in text.split():
            longer = f"{line} {word}" if line else word
            if line and font.size(longer)[0] > width:
                out.append((line, kind))
                line = word
            else:
                line = longer
        if line:
            out.append((line, kind))
    return out


def station_picture(lines: Sequence[StationLine], size: tuple[int, int] = (128, 64),
                    wait: str | None = None) -> StationPicture:
    """The lines, top down and centred, as a one-bit picture of ``size``; a small line
    too wide is wrapped between words; lines that no longer fit below are left out (the
    first lines matter most). ``wait``: the word of the wait sign (an input seen but
    taken by nothing), drawn dark on a lit band across the middle, over the lines."""
    w, h = size
    surface = pygame.Surface(size)
    surface.fill((0, 0, 0))
    y = 0
    for text, kind in _wrapped(lines, w - 2):
        img = _fit(text, kind, w - 2)
        if y + img.get_height() > h + 2:
            break
        surface.blit(img, ((w - img.get_width()) // 2, y))
        y += img.get_height() + (2 if kind == "big" else 1)
    if wait is not None:
        img = _fit(wait, "big", w - 8)
        band = pygame.Rect(0, 0, w, img.get_height() + 6)
        band.center = (w // 2, h // 2)
        surface.fill((255, 255, 255), band)
        img.set_colorkey((0, 0, 0))
        mask = pygame.mask.from_surface(img)  # the letters, dark on the band
        mask.to_surface(surface, setcolor=(0, 0, 0), unsetcolor=None,
                        dest=((w - img.get_width()) // 2, band.top + 3))
    # Rows first, one byte a pixel: 1 where the red channel is lit (the text is white).
    red = pygame.image.tobytes(surface, "RGBX")[0::4]
    return StationPicture(w, h, red.translate(_LIT))


_LIT = bytes(int(v > 127) for v in range(256))
"""A byte's brightness to a one-bit pixel (``bytes.translate`` table)."""


def draw_station_picture(surface: pygame.Surface, rect: pygame.Rect, picture: OneBitPicture) -> pygame.Rect:
    """Draw ``picture`` into ``rect`` as the OLED shows it (lit pixels on black), as large
    as fits (whole multiples when it fits at least once); returns where it went."""
    import numpy as np

    rgb = np.zeros((picture.width, picture.height, 3), dtype=np.uint8)
    lit = np.frombuffer(picture.pixels, dtype=np.uint8).reshape(picture.height, picture.width).T != 0
    rgb[lit] = OLED_LIT
    small = pygame.surfarray.make_surface(rgb)
    fit = min(rect.width / picture.width, rect.height / picture.height)
    scale = float(int(fit)) if fit >= 1 else fit
    shown = pygame.transform.scale(small, (round(picture.width * scale), round(picture.height * scale)))
    where = shown.get_rect(center=rect.center)
    surface.blit(shown, where)
    return where


def check_pattern(station: int, size: tuple[int, int] = (128, 64)) -> StationPicture:
    """The self-test's picture: a frame round the edge (every edge pixel lit, so a display
    mounted off its window shows it), a checkered corner, and the station's name."""
    w, h = size
    base = station_picture([("", "small"), (f"S{station + 1}", "big")], size)
    pixels = bytearray(base.pixels)
    for x in range(w):
        pixels[x] = pixels[(h - 1) * w + x] = 1
    for y in range(h):
        pixels[y * w] = pixels[y * w + w - 1] = 1
    for y in range(2, 14):
        for x in range(2, 14):
            pixels[y * w + x] = (x // 2 + y // 2) % 2
    return StationPicture(w, h, bytes(pixels))
