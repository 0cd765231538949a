"""Colours, station colours and a type scale readable across a table.

Sizes scale with the display height, so 1920x1080 and 1280x720 look the same.
The fonts are pygame's bundled default font, so nothing is downloaded.
"""

from __future__ import annotations

import io
import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import pygame

from table.common.memory import FONTS, TEXT_CACHE_BYTES

Colour = tuple[int, int, int]

BACKGROUND: Colour = (16, 20, 32)
PANEL: Colour = (32, 38, 56)
PANEL_LIGHT: Colour = (52, 60, 84)
TEXT: Colour = (240, 240, 235)
TEXT_DIM: Colour = (200, 205, 220)  # secondary lines: still 4.5:1 on every panel
ACCENT: Colour = (255, 196, 64)
GOOD: Colour = (96, 208, 120)
BAD: Colour = (255, 132, 120)

# Station colours, chosen to stay apart for the common colour-vision deficiencies
# (after the Okabe-Ito palette, its green and purple lightened so that a name in them
# keeps 4.5:1 against the lighter panels); a station is also always labelled by name.
STATION_COLOURS: tuple[Colour, ...] = (
    (230, 159, 0),  # orange
    (86, 180, 233),  # sky blue
    (56, 200, 150),  # bluish green
    (228, 150, 194),  # reddish purple
    (240, 228, 66),  # yellow
)


INK_DARK: Colour = (18, 20, 26)
"""Dark letters, for text on a light fill (a die face, a banner in a player's colour)."""


def luminance(colour: Colour) -> float:
    """The relative luminance of an sRGB colour, 0 (black) to 1 (white), as WCAG 2 defines it."""

    def linear(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Colour, b: Colour) -> float:
    """The WCAG 2 contrast ratio between two colours: 1 (none) to 21 (black on white)."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def ink_on(fill: Colour) -> Colour:
    """Light or dark letters, whichever stands out more from ``fill``."""
    return TEXT if contrast(TEXT, fill) >= contrast(INK_DARK, fill) else INK_DARK


def station_colour(station: int) -> Colour:
    """The colour of ``station`` (wraps if there are more stations than colours)."""
    return STATION_COLOURS[station % len(STATION_COLOURS)]


# pygame draws its default face at this part of the size asked for (``Font(None, px)``);
# the fonts below are made from the face's bytes, so they apply the same factor themselves.
_DEFAULT_FACE_SCALE = 0.6875


@lru_cache(maxsize=1)
def _face() -> bytes:
    """pygame's default face (freesansbold.ttf), read once."""
    return Path(pygame.__file__).with_name(pygame.font.get_default_font()).read_bytes()


def open_font(px: int, bold: bool = False) -> pygame.font.Font:
    """pygame's default face as ``Font(None, px)`` draws it, bold or not: one cache of
    ``FONTS`` fonts for every screen, the station displays and the map. Each font reads
    the face from memory, so no file stays open however many are kept; a ``pygame.quit()``
    closes the kept fonts, and they are opened again on the next call."""
    font = _kept_font(px, bold)
    try:
        font.get_height()
    except pygame.error:
        _kept_font.cache_clear()
        font = _kept_font(px, bold)
    return font


@lru_cache(maxsize=FONTS)
def _kept_font(px: int, bold: bool) -> pygame.font.Font:
    if not pygame.font.get_init():
        pygame.font.init()
    font = pygame.font.Font(io.BytesIO(_face()), max(1, int(px * _DEFAULT_FACE_SCALE)))
    font.set_bold(bold)
    return font


@dataclass(frozen=True)
class Theme:
    """The type scale for one display size.

    ``unit`` is 1/100 of the display height; all layout should be expressed in units
    so that screens work at 1280x720 and 1920x1080 alike. Text sizes: ``huge`` for
    one or two words seen from any seat (timer, die symbol), ``title``, ``body``
    (the smallest text a player must read), ``small`` (hints such as the key map).
    """

    width: int
    height: int
    colours: tuple[Colour, ...] = field(default=STATION_COLOURS)

    @property
    def unit(self) -> float:
        return self.height / 100.0

    def px(self, units: float) -> int:
        return max(1, round(units * self.unit))

    def font(self, size: str, bold: bool = False, scale: float = 1.0) -> pygame.font.Font:
        """The font of type ``size``; ``scale`` below 1: the same face at that part of its
        size (a panel's one scale, see :func:`one_size`), in whole pixels."""
        return open_font(max(1, int(self.font_px(size) * scale + 1e-9)), bold)

    def font_px(self, size: str) -> int:
        """The pixel size of type ``size`` at this display height."""
        # pygame's default font renders small for its nominal size, hence the factors.
        return self.px({"huge": 22.0, "title": 9.0, "large": 6.5, "body": 5.0, "small": 3.6}[size])

    def station_colour(self, station: int) -> Colour:
        return self.colours[station % len(self.colours)]


class SurfaceCache:
    """A least-recently-used map from keys to surfaces, bounded by the pixels' bytes.

    Contract: ``get`` returns what ``put`` stored under an equal key (and counts as a
    use), or ``None``; after ``put`` the surfaces held weigh at most ``limit`` bytes,
    except that the newest one is always kept. Nothing else holds on to an evicted
    surface, so memory stays flat however many distinct lines an evening shows.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.bytes = 0
        self._items: OrderedDict[object, pygame.Surface] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    @staticmethod
    def weight(img: pygame.Surface) -> int:
        return img.get_width() * img.get_height() * img.get_bytesize()

    def get(self, key: object) -> pygame.Surface | None:
        img = self._items.get(key)
        if img is not None:
            self._items.move_to_end(key)
        return img

    def put(self, key: object, img: pygame.Surface) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.bytes -= self.weight(old)
        self._items[key] = img
        self.bytes += self.weight(img)
        while self.bytes > self.limit and len(self._items) > 1:
            _, gone = self._items.popitem(last=False)
            self.bytes -= self.weight(gone)

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0


_lines = SurfaceCache(TEXT_CACHE_BYTES)
"""Coloured lines, as drawn."""
_shapes = SurfaceCache(TEXT_CACHE_BYTES)
"""Lines in black, the source of every colour of the same line."""
_shrunk = SurfaceCache(TEXT_CACHE_BYTES)
"""Lines scaled down to fit a width. It holds only the scaled picture: an earlier
version also kept the full-size line it came from, which outlived the line cache's
eviction and grew an evening's memory by tens of megabytes."""


def rendered(message: str, size: str, colour: Colour, bold: bool, height: int, scale: float = 1.0) -> pygame.Surface:
    """One line of text for a display ``height`` pixels high, at ``scale`` of its type
    size (cached; do not draw on it)."""
    key = (message, size, colour, bold, height, scale)
    img = _lines.get(key)
    if img is not None:
        return img
    img = _shape(message, size, bold, height, scale).copy()
    # An antialiased line is its colour everywhere with the glyphs' coverage as alpha, so
    # adding the colour to the black rendering gives exactly what rendering in that
    # colour gives: a line is rendered once per string and size, whatever its colours
    # (the demo's pulsing title takes a new colour every frame).
    img.fill((*colour, 0), special_flags=pygame.BLEND_RGBA_ADD)
    _lines.put(key, img)
    return img


def _shape(message: str, size: str, bold: bool, height: int, scale: float = 1.0) -> pygame.Surface:
    """One line rendered in black (cached, bounded like the coloured lines)."""
    key = (message, size, bold, height, scale)
    img = _shapes.get(key)
    if img is not None:
        return img
    img = Theme(1, height).font(size, bold, scale).render(message, True, (0, 0, 0))
    _shapes.put(key, img)
    return img


@dataclass(frozen=True)
class OneSize:
    """The one scale at which every line of a panel is drawn (see :func:`one_size`)."""

    scale: float
    """1: full size; below 1, every line of the panel shrinks by this factor."""
    panel: tuple[int, int, int, int]
    """The panel the lines belong to (what the text-fit test groups them by)."""


Line = tuple[str, str, bool, int | None]
"""A line as :func:`one_size` measures it: ``(message, size, bold, max_width)``."""


def one_size(theme: Theme, panel: pygame.Rect, lines: Iterable[Line]) -> OneSize:
    """The largest scale (at most 1) at which each of ``lines`` fits its own
    ``max_width``: the panel's lines drawn with it (``text(..., fit=...)``) keep their
    sizes in proportion, so two labels side by side never end at two sizes because one
    is a longer word. A line without a width does not constrain the scale.

    The lines are drawn in the same face at the smaller size, not scaled pictures of
    the full-size lines: strokes stay crisp and keep their contrast."""
    measured = [line for line in lines if line[3] is not None and line[3] > 0 and line[0]]
    scale = 1.0
    for message, size, bold, max_width in measured:
        width = _shape(message, size, bold, theme.height).get_width()
        assert max_width is not None
        if width > max_width:
            scale = min(scale, max_width / width)
    scale = _step(scale)
    # A face at a smaller size is not exactly a scaled picture of it: step down until
    # every line fits (a few steps at most).
    for _attempt in range(40):
        if scale >= 1.0 or all(_shape(m, sz, b, theme.height, scale).get_width() <= (w or 0)
                               for m, sz, b, w in measured):
            break
        scale = _step(scale - 0.01)
    return OneSize(scale, (panel.x, panel.y, panel.width, panel.height))


def _step(scale: float) -> float:
    """``scale`` rounded down to a step the caches can key on."""
    return min(1.0, max(0.05, math.floor(scale * 1000) / 1000))


def text(
    surface: pygame.Surface,
    theme: Theme,
    message: str,
    pos: tuple[float, float],
    size: str = "body",
    colour: Colour = TEXT,
    anchor: str = "topleft",
    bold: bool = False,
    max_width: int | None = None,
    box: pygame.Rect | None = None,
    fit: OneSize | None = None,
) -> pygame.Rect:
    """Draw ``message`` with its ``anchor`` point (a ``pygame.Rect`` attribute) at ``pos``,
    shrunk to ``max_width`` pixels if it is wider.

    ``fit``: the scale of the panel the line belongs to (:func:`one_size`), so that its
    lines shrink together, not one by one; ``max_width`` still holds (a line measured
    for the panel never needs it).

    ``box`` is the rectangle the line belongs in (a panel, a row); without one, the
    surface. Drawing never depends on it: it is what :func:`record_text` hands to a
    recorder, so the text-fit test can tell a line that runs out of its box.

    Rendered lines are cached (rendering text is the costliest part of most frames)."""
    img = _fitted(message, size, colour, bold, theme.height, max_width, fit.scale if fit is not None else 1.0)
    rect = img.get_rect(**{anchor: (round(pos[0]), round(pos[1]))})
    surface.blit(img, rect)
    note_text(rect, message)
    if _recorders:
        ink = img.get_bounding_rect().move(rect.topleft)
        for recorder in _recorders:
            recorder(TextDrawn(message, ink, box, surface.get_clip(), surface.get_rect(), size,
                               img.get_height() / max(1, rendered(message, size, colour, bold, theme.height)
                                                      .get_height()), colour, img, rect.topleft,
                               fit.panel if fit is not None else None))
    return rect


@dataclass(frozen=True)
class TextDrawn:
    """One line as :func:`text` drew it: ``ink`` is the rectangle of its painted pixels,
    ``box`` the rectangle it was given (``None``: none given), ``clip`` and ``surface``
    the surface's clip and extent then, ``scale`` how far it was shrunk to fit (1: not),
    ``colour`` the colour asked for, ``image`` the picture blitted (do not draw on it) at
    ``topleft``: the contrast test reads the glyphs' coverage from it; ``panel`` the panel
    whose common scale it shares, if any."""

    message: str
    ink: pygame.Rect
    box: pygame.Rect | None
    clip: pygame.Rect
    surface: pygame.Rect
    size: str
    scale: float
    colour: Colour = TEXT
    image: pygame.Surface | None = None
    topleft: tuple[int, int] = (0, 0)
    panel: tuple[int, int, int, int] | None = None
    """The panel whose one scale it was drawn at (:func:`one_size`), if any."""


_recorders: list[Callable[[TextDrawn], None]] = []


@contextmanager
def record_text(recorder: Callable[[TextDrawn], None]) -> Iterator[None]:
    """Call ``recorder`` with a :class:`TextDrawn` for every line drawn inside the block."""
    _recorders.append(recorder)
    try:
        yield
    finally:
        _recorders.remove(recorder)


def _fitted(message: str, size: str, colour: Colour, bold: bool, height: int, max_width: int | None,
            scale: float = 1.0) -> pygame.Surface:
    # A panel's one scale (see one_size): the face at that size, so every line of one
    # type size in the panel is the same height.
    img = rendered(message, size, colour, bold, height, _step(scale) if scale < 1.0 else 1.0)
    if max_width is not None and img.get_width() > max_width > 0:
        # Shrunk lines are cached too, under their own key (which fixes the picture):
        # a frame never rescales.
        key = (message, size, colour, bold, height, max_width, scale)
        small = _shrunk.get(key)
        if small is None:
            factor = max_width / img.get_width()
            small = pygame.transform.smoothscale(img, (max_width, max(1, int(img.get_height() * factor))))
            _shrunk.put(key, small)
        return small
    return img


def text_rect(
    theme: Theme,
    message: str,
    pos: tuple[float, float],
    size: str = "body",
    colour: Colour = TEXT,
    anchor: str = "topleft",
    bold: bool = False,
    max_width: int | None = None,
    box: pygame.Rect | None = None,
    fit: OneSize | None = None,
) -> pygame.Rect:
    """The rect :func:`text` with the same arguments draws into (nothing is drawn)."""
    img = _fitted(message, size, colour, bold, theme.height, max_width, fit.scale if fit is not None else 1.0)
    return img.get_rect(**{anchor: (round(pos[0]), round(pos[1]))})


# -- recording what was drawn (the layout test) ------------------------------------------


class Drawn(NamedTuple):
    """One line of text as drawn: its box on the screen and what it says."""

    rect: pygame.Rect
    message: str
    height: int
    """The line height of the text as drawn (shrunk text counts as its shrunk height)."""


_record: list[Drawn] | None = None


@contextmanager
def recording() -> Iterator[list[Drawn]]:
    """Collect every line of text drawn meanwhile (with :func:`note_text`), minus what
    an opaque panel or a dark veil drawn later covers: the text a viewer can read.

    Drawing code calls :func:`note_text` for each line and :func:`note_cover` for each
    opaque fill above earlier text; outside ``recording`` both cost one comparison."""
    global _record
    outer, _record = _record, []
    try:
        yield _record
    finally:
        _record = outer


def noting() -> bool:
    """Whether drawn text is being recorded (see :func:`recording`): a caller that notes
    many lines computes their boxes only then."""
    return _record is not None


def note_text(rect: pygame.Rect, message: str, height: int | None = None) -> None:
    """Record a line of text drawn into ``rect`` (screen coordinates) in a font whose
    line is ``height`` px high (default: the rect's height)."""
    if _record is not None and message.strip():
        _record.append(Drawn(pygame.Rect(rect), message, rect.height if height is None else height))


def note_cover(rect: pygame.Rect) -> None:
    """Text recorded so far that lies inside ``rect`` is hidden by what was drawn over it."""
    if _record is not None:
        _record[:] = [d for d in _record if not rect.contains(d.rect)]
