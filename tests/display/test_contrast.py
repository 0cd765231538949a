"""Every line of text on every rendered screen stands out from what is behind it: a
contrast ratio (WCAG 2's formula) of at least 4.5:1 between the line's glyphs and the
pixels under them, measured on the pictures of all games, the table's own screens and
the menu's flows, in both languages, at both display sizes.

4.5:1 is WCAG's bar for body text. Our smallest lines would count as "large text" there
(3:1), but a table is read from 3 m on a television across a lit room, so the stricter bar
holds everywhere.

How: each screen is painted twice, once as it is and once with every line of text drawn
transparent (layout unchanged). For each line still visible (not covered by a panel drawn
later, nor dimmed on purpose by a veil drawn later, as behind the paused sign), the fully
covered pixels of its glyphs are compared between the two pictures: the
first holds the text's colour as shown (veils and all), the second what is behind it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import numpy as np
import pygame
import pytest

from display.textfit import SIZES, game_screens
from table.common.i18n import LANGUAGES, set_language
from table.display import draw
from table.display import theme as theme_module
from table.display.games.umtata import map as umtata_map
from table.display.theme import PANEL, TextDrawn, Theme, record_text, recording, text
from table.loop.snapshots import all_moments

MIN_CONTRAST = 4.5
CORE_ALPHA = 200
"""Glyph pixels at least this opaque are the text's own colour (the rest is antialiasing)."""
DIMS = 120
"""A veil at least this opaque puts what it covers in the background (the game behind
"Paused"): that text is not meant to be read until the veil goes."""
QUANTILE = 0.2
"""A line's contrast is that of its 20 % least contrasting glyph pixels: a line half over a
dark and half over a light patch fails on the light half."""

Paint = Callable[[pygame.Surface], None]


def luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2 relative luminance of sRGB pixels (..., 3) in 0..255."""
    c = rgb.astype(np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def contrast(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """WCAG 2 contrast ratio (1..21) between pixels ``a`` and ``b``."""
    la, lb = luminance(a), luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


def _invisible(message: str, size: str, colour: theme_module.Colour, bold: bool, height: int,
               max_width: int | None, scale: float = 1.0,
               _fitted: Callable[..., pygame.Surface] = theme_module._fitted) -> pygame.Surface:
    """The line's picture as usual, but fully transparent: the same layout, no text."""
    img = _fitted(message, size, colour, bold, height, max_width, scale)
    blank = pygame.Surface(img.get_size(), pygame.SRCALPHA)
    blank.fill((0, 0, 0, 0))
    return blank


def low_contrast(name: str, paint: Paint, size: tuple[int, int]) -> list[str]:
    """Every visible line of ``paint``'s picture whose glyphs contrast less than
    :data:`MIN_CONTRAST` with what is behind them, as sentences."""
    lines: list[TextDrawn] = []
    dimmed: list[tuple[int, pygame.Rect]] = []  # (lines drawn before, where)
    veil = draw.veil

    def noting_veil(surface: pygame.Surface, rect: pygame.Rect, alpha: int, *args: object) -> None:
        if alpha >= DIMS:
            dimmed.append((len(lines), rect.clip(surface.get_clip())))
        veil(surface, rect, alpha, *args)  # type: ignore[arg-type]

    shown = pygame.Surface(size)
    draw.veil = noting_veil  # type: ignore[assignment]
    try:
        with recording() as visible, record_text(lines.append):
            paint(shown)
    finally:
        draw.veil = veil
    seen = {(tuple(d.rect), d.message) for d in visible}
    behind = pygame.Surface(size)
    original = theme_module._fitted
    theme_module._fitted = _invisible  # type: ignore[assignment]
    try:
        paint(behind)
    finally:
        theme_module._fitted = original
    front = pygame.surfarray.pixels3d(shown)
    back = pygame.surfarray.pixels3d(behind)
    screen = shown.get_rect()
    out = []
    done = set()
    for k, d in enumerate(lines):
        if any(k < before and area.contains(d.ink) for before, area in dimmed):
            continue
        if d.image is None or d.surface.size != size or not d.message.strip():
            continue
        rect = d.image.get_rect(topleft=d.topleft)
        key = (tuple(rect), d.message)
        if key not in seen or key in done:
            continue
        done.add(key)
        area = rect.clip(d.clip).clip(screen)
        if not area.w or not area.h:
            continue
        alpha = pygame.surfarray.pixels_alpha(d.image)[area.x - rect.x:area.right - rect.x,
                                                       area.y - rect.y:area.bottom - rect.y]
        core = alpha >= min(CORE_ALPHA, int(alpha.max()))
        if not core.any():
            continue
        a = front[area.x:area.right, area.y:area.bottom][core]
        b = back[area.x:area.right, area.y:area.bottom][core]
        ratio = float(np.quantile(contrast(a, b), QUANTILE))
        if ratio < MIN_CONTRAST:
            colour = tuple(int(v) for v in np.median(a, axis=0))
            under = tuple(int(v) for v in np.median(b, axis=0))
            out.append(f"{name} {size[0]}x{size[1]}: {d.message!r} ({d.size}) {ratio:.1f}:1, "
                       f"{colour} on {under} at {tuple(rect)}")
    del front, back
    return out


def screens() -> Iterator[tuple[str, Paint]]:
    yield from all_moments()
    yield from game_screens()


@pytest.fixture(autouse=True)
def _display() -> Iterator[None]:
    pygame.display.init()
    pygame.font.init()
    yield
    set_language(LANGUAGES[0])


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_line_of_text_contrasts_with_what_is_behind_it(size: tuple[int, int], lang: str) -> None:
    set_language(lang)
    problems: list[str] = []
    count = 0
    for name, paint in screens():
        problems += low_contrast(name, paint, size)
        count += 1
    assert count > 80
    assert not problems, f"{len(problems)} lines:\n" + "\n".join(problems)


def test_the_measure_catches_grey_on_grey_and_passes_white_on_dark() -> None:
    theme = Theme(1280, 720)

    def grey(surface: pygame.Surface) -> None:
        surface.fill(PANEL)
        text(surface, theme, "no gems yet", (100, 100), "small", (90, 96, 112))

    def white(surface: pygame.Surface) -> None:
        surface.fill(PANEL)
        text(surface, theme, "no gems yet", (100, 100), "small", (240, 240, 235))

    found = low_contrast("grey", grey, (1280, 720))
    assert len(found) == 1 and "'no gems yet'" in found[0]
    assert low_contrast("white", white, (1280, 720)) == []


def test_the_umtata_map_labels_contrast_with_their_tiles() -> None:
    """The map's country names are drawn into its cached picture, not line by line: their
    colour pairs are checked here, the dimmed ones (a knob's sector shown) included."""
    pairs = {"grey": (umtata_map.GREY_TEXT, umtata_map.GREY_LAND)}
    for name, fill in umtata_map.TILE_COLOURS.items():
        pairs[name] = (umtata_map.LABEL_ON[name], fill)
        pairs[f"{name}, darkened"] = (umtata_map.DIM_LABEL, tuple(c * 2 // 5 for c in fill))
    for name, (ink, fill) in pairs.items():
        ratio = float(contrast(np.array(ink), np.array(fill)))
        assert ratio >= MIN_CONTRAST, f"{name}: {ink} on {fill} is {ratio:.1f}:1"
