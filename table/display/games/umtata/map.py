"""The Umtata map: Europe drawn from the shipped asset ``umtata/europe.json``.

The asset (built once by ``tools/umtata/build_map.py`` from Natural Earth) holds
projected, simplified polygons in frame kilometres, so drawing needs only pygame and
numpy. Every board country is filled with its board colour and carries its region's
pattern (north triangles, south waves, east dots, west stripes), so the colours can be
told apart without colour vision; neighbours off the board are grey; region borders are
thick white lines and the region names are written in the sea; Greenland sits in an
inset. Countries too small to point at get a round marker in their colour.

Labels: a country's name goes inside it when it fits there (at a size no smaller than
``min_label_px``), else on a coloured tag touching it (or its marker), with a short
leader line to it. :func:`label_layout` computes the placement for one size; no two labels
overlap, and a label without a leader line lies wholly inside its own country.

Cost: every static layer (the raster of which country covers each pixel, the filled and
patterned map, the labels, the dimmed copy) is drawn once per size, and each highlight
state (the answer, a knob sector, the focus) is composed once and kept in a small LRU
cache, so drawing a frame is one blit whatever the number of polygons.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import pygame

from table.common.checks import load_json
from table.common.datafiles import data_file
from table.common.errors import TableError
from table.common.i18n import language
from table.common.memory import LAYOUTS, RENDERED_LABELS, SCREEN_SIZES, SIZE_ARRAYS, STATE_PICTURES
from table.display.games import screen_palette
from table.display.layers import merge_rects, offscreen
from table.display.theme import Theme, note_text, noting, open_font
from table.games.umtata.board import BOARD_FILE, MAP_LIMIT, Board, load_board

if TYPE_CHECKING:  # numpy loads with the first map drawn, not with the table
    import numpy as np

Colour = tuple[int, int, int]
Point = tuple[int, int]

MAP_FILE = "umtata/europe.json"
"""The map asset among the data files (:func:`table.common.datafiles.data_file`)."""

SEA: Colour = (22, 44, 78)
GREY_LAND: Colour = (84, 88, 98)
GREY_TEXT: Colour = (236, 238, 242)  # neighbours outside the game: still readable from 3 m
OUTLINE: Colour = (24, 26, 34)
GREY_OUTLINE: Colour = (60, 63, 72)
REGION_LINE: Colour = (255, 255, 255)
REGION_TAG: Colour = (136, 166, 214)
LEADER: Colour = (236, 236, 236)
FOCUS: Colour = (255, 64, 64)
TILE_COLOURS = screen_palette(__file__, "tiles")
"""The board's colours: a country's fill by its tile colour (``[palette.tiles]`` of ``screen.toml``)."""
DIM_LABEL: Colour = (205, 205, 205)
"""A name on a darkened tile (outside the knob's sector): 4.5:1 even on dark yellow."""
LABEL_ON = screen_palette(__file__, "tile_names")
"""A country's name on its tile colour (``[palette.tile_names]`` of ``screen.toml``)."""
MARKER_KM2 = 3000.0
"""Countries smaller than this (Monaco, Liechtenstein, Malta, Luxembourg, the Faroes) get a
marker at every size; any other country gets one when it covers too few pixels."""
GREY_ID0 = 100
"""Raster values: 0 sea, 1..48 the board's countries in board order, 100+ grey land."""


class MapError(TableError):
    """The map asset is missing or malformed."""


@dataclass(frozen=True)
class Shape:
    """One country (or grey neighbour) in frame kilometres."""

    key: str
    rings: tuple[tuple[tuple[int, int], ...], ...]
    anchor: Point
    area_km2: float


@dataclass(frozen=True)
class EuropeMap:
    """The map asset: the frame (km), the shapes, the region lines and tags, the inset box,
    and the land borders among the board's countries derived from the full polygons."""

    frame: tuple[int, int]
    countries: dict[str, Shape]
    grey: tuple[Shape, ...]
    region_lines: tuple[tuple[tuple[int, int], ...], ...]
    region_tags: dict[str, Point]
    inset: tuple[int, int, int, int]
    land: tuple[tuple[str, str], ...]


def _ring(flat: Sequence[int]) -> tuple[tuple[int, int], ...]:
    return tuple((int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat) - 1, 2))


def load_map() -> EuropeMap:
    """The map asset (config directory, else shipped); raises :class:`MapError`."""
    return _read_map(data_file(MAP_FILE))


@cache
def _read_map(path: Path) -> EuropeMap:
    try:
        data = load_json(path.read_text(encoding="utf-8"), size=MAP_LIMIT)  # bounded: no RecursionError
        countries = {
            cid: Shape(
                cid,
                tuple(_ring(r) for r in c["rings"]),
                (int(c["anchor"][0]), int(c["anchor"][1])),
                float(c["area"]),
            )
            for cid, c in data["countries"].items()
        }
        grey = tuple(
            Shape(str(g["name"]), tuple(_ring(r) for r in g["rings"]), (int(g["anchor"][0]), int(g["anchor"][1])),
                  float(g["area"]))
            for g in data["grey"]
        )
        land = tuple((p.split("-")[0], p.split("-")[1]) for p in data["land"])
        return EuropeMap(
            frame=(int(data["frame"][0]), int(data["frame"][1])),
            countries=countries,
            grey=grey,
            region_lines=tuple(_ring(r) for r in data["region_lines"]),
            region_tags={str(k): (int(v[0]), int(v[1])) for k, v in data["region_tags"].items()},
            inset=(int(data["inset"]["box"][0]), int(data["inset"]["box"][1]), int(data["inset"]["box"][2]),
                   int(data["inset"]["box"][3])),
            land=land,
        )
    except OSError as exc:
        raise MapError(f"cannot read the Umtata map {path}: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise MapError(f"the Umtata map {path} is malformed ({exc!r}); rebuild it with tools/umtata/build_map.py"
                       ) from None


Sources = tuple[Path, Path, str]
"""The map asset's and the board's files and the language of the labels: every cached
layer is keyed by them as well as by size, so a process that switches config directories
or languages never draws a stale map."""


def _sources() -> Sources:
    return data_file(MAP_FILE), data_file(BOARD_FILE), language()


def map_rect_for(area: pygame.Rect) -> pygame.Rect:
    """The largest rectangle inside ``area`` with the map's proportions, centred."""
    fw, fh = load_map().frame
    scale = min(area.w / fw, area.h / fh)
    rect = pygame.Rect(0, 0, max(1, int(fw * scale)), max(1, int(fh * scale)))
    if area.w - rect.w <= 1 and area.h - rect.h <= 1:
        return area.copy()  # already the map's shape (say, a rect this function returned)
    rect.center = area.center
    return rect


# -- geometry at one size ------------------------------------------------------------------


@dataclass(frozen=True)
class Label:
    """A placed label: its text box on the map, and for a label outside its country the
    leader line's end inside the country (or at its marker)."""

    key: str
    text: str
    rect: pygame.Rect
    leader_to: Point | None
    size: int
    grey: bool = False


@dataclass(frozen=True)
class Marker:
    """The round marker of a country too small to see at this size."""

    key: str
    centre: Point
    radius: int


@dataclass(frozen=True)
class Layout:
    """Everything placed at one map size: pixels per km, markers, labels, tags."""

    size: tuple[int, int]
    scale: float
    markers: dict[str, Marker]
    labels: tuple[Label, ...]
    tags: tuple[tuple[str, pygame.Rect], ...]


def _scale(src: Sources, size: tuple[int, int]) -> float:
    fw, fh = _read_map(src[0]).frame
    return min(size[0] / fw, size[1] / fh)


def _pts(ring: Iterable[tuple[int, int]], scale: float) -> list[tuple[float, float]]:
    return [(x * scale, y * scale) for x, y in ring]


def min_label_px(height: int) -> int:
    """The smallest label size used at a map ``height`` px high: readable from 3 m (the
    default font's line is two thirds of its nominal size: 24 px lines at 1080p)."""
    return max(15, height // 28 + 1)


def max_label_px(height: int) -> int:
    return max(18, height // 25)


@lru_cache(maxsize=RENDERED_LABELS)
def _text(message: str, px: int, colour: Colour) -> pygame.Surface:
    """A label's text, rendered once (a highlight redraws all 48 labels)."""
    return _font(px).render(message, True, colour)


def _font(px: int) -> pygame.font.Font:
    """The labels' bold font at ``px``."""
    return open_font(px, bold=True)


def raster(width: int, height: int) -> np.ndarray:
    """Which shape covers each pixel of a map ``width`` x ``height`` px (see ``_raster``)."""
    return _raster(_sources(), width, height)


@lru_cache(maxsize=SIZE_ARRAYS)
def _raster(src: Sources, width: int, height: int) -> np.ndarray:
    """Which shape covers each pixel (``[y, x]``): 0 sea, 1..48 board countries in board
    order, ``GREY_ID0`` and up the grey neighbours. Larger shapes are drawn first, so an
    enclave (San Marino, the Vatican) stays on top of the country around it."""
    import numpy as np

    europe = _read_map(src[0])
    board = load_board(src[1])
    scale = _scale(src, (width, height))
    surface = pygame.Surface((width, height))
    surface.fill((0, 0, 0))
    shapes: list[tuple[float, int, Shape]] = []
    for i, c in enumerate(board.countries):
        if c.id in europe.countries:
            shapes.append((europe.countries[c.id].area_km2, i + 1, europe.countries[c.id]))
    for j, g in enumerate(europe.grey):
        shapes.append((g.area_km2, GREY_ID0 + j, g))
    for _, value, shape in sorted(shapes, key=lambda s: -s[0]):
        for ring in shape.rings:
            pygame.draw.polygon(surface, (value, 0, 0), _pts(ring, scale))
    return np.array(pygame.surfarray.pixels_red(surface)).T.copy()


def _pattern_masks(width: int, height: int) -> dict[str, np.ndarray]:
    """The printed board's faint region patterns over the whole map, one mask per region."""
    import numpy as np

    step = max(7, height // 45)
    out: dict[str, np.ndarray] = {}
    for region in ("north", "south", "east", "west"):
        s = pygame.Surface((width, height))
        s.fill((0, 0, 0))
        white = (255, 255, 255)
        if region == "west":  # stripes
            for off in range(-height, width, step):
                pygame.draw.line(s, white, (off, height), (off + height, 0), 1)
        elif region == "east":  # dots
            r = max(1, step // 7)
            for yy in range(step // 2, height, step):
                for xx in range(step // 2 + (yy // step % 2) * step // 2, width, step):
                    pygame.draw.circle(s, white, (xx, yy), r)
        elif region == "north":  # triangles
            r = max(2, step // 5)
            for yy in range(step // 2, height, step):
                for xx in range(step // 2, width, step):
                    pygame.draw.polygon(s, white, [(xx, yy - r), (xx - r, yy + r), (xx + r, yy + r)], 1)
        else:  # waves
            half = max(2, step // 2)
            for yy in range(step // 2, height, step):
                pts = [(xx, yy + (2 if (xx // half) % 2 else -2)) for xx in range(0, width + half, half)]
                pygame.draw.lines(s, white, False, pts, 1)
        out[region] = np.array(pygame.surfarray.pixels_red(s)).T > 0
    return out


@lru_cache(maxsize=SIZE_ARRAYS)
def _base(src: Sources, width: int, height: int) -> pygame.Surface:
    """The plain map at one size: sea, land in colours with patterns, outlines, region lines,
    the inset's frame, region names. No labels and no markers (they go on top)."""
    import numpy as np

    europe = _read_map(src[0])
    board = load_board(src[1])
    scale = _scale(src, (width, height))
    ids = _raster(src, width, height)
    palette = np.zeros((256, 3), dtype=np.uint8)
    palette[0] = SEA
    palette[GREY_ID0:] = GREY_LAND
    region_lut = np.full(256, -1, dtype=np.int16)
    regions = ("north", "south", "east", "west")
    for i, c in enumerate(board.countries):
        palette[i + 1] = TILE_COLOURS[c.colour]
        region_lut[i + 1] = regions.index(c.region)
    rgb = palette[ids]
    region_of_px = region_lut[ids]
    for k, mask in _pattern_masks(width, height).items():
        sel = mask & (region_of_px == regions.index(k))
        rgb[sel] = (rgb[sel].astype(np.uint16) * 4 // 5).astype(np.uint8)
    surface = pygame.Surface((width, height))
    pygame.surfarray.blit_array(surface, rgb.transpose(1, 0, 2))
    # Outlines: grey neighbours faintly, board countries darker.
    for g in europe.grey:
        for ring in g.rings:
            pygame.draw.polygon(surface, GREY_OUTLINE, _pts(ring, scale), 1)
    for shape in europe.countries.values():
        for ring in shape.rings:
            pygame.draw.polygon(surface, OUTLINE, _pts(ring, scale), 1)
    thick = max(2, height // 260)
    for line in europe.region_lines:
        pygame.draw.lines(surface, REGION_LINE, False, _pts(line, scale), thick)
        for end in (line[0], line[-1]):
            pygame.draw.circle(surface, REGION_LINE, (end[0] * scale, end[1] * scale), max(1, thick // 2))
    x, y, w, h = europe.inset
    pygame.draw.rect(surface, (120, 130, 150), pygame.Rect(int(x * scale), int(y * scale), int(w * scale),
                                                           int(h * scale)), 1)
    layout = _layout(src, width, height)
    for region, rect in layout.tags:
        img = _font(_tag_px(height)).render(board.region_name(region, src[2]).upper(), True, REGION_TAG)
        surface.blit(img, img.get_rect(center=rect.center))
    return surface


def _tag_px(height: int) -> int:
    return max(16, height // 18)


def _fits(mask: np.ndarray, w: int, h: int) -> np.ndarray:
    """For each top-left corner (y, x), whether a ``w`` x ``h`` box there lies wholly in ``mask``."""
    import numpy as np

    if mask.shape[0] < h or mask.shape[1] < w:
        return np.zeros((0, 0), dtype=bool)
    ii = np.zeros((mask.shape[0] + 1, mask.shape[1] + 1), dtype=np.int32)
    ii[1:, 1:] = mask.astype(np.int32).cumsum(0).cumsum(1)
    sums = ii[h:, w:] - ii[:-h, w:] - ii[h:, :-w] + ii[:-h, :-w]
    return np.asarray(sums == w * h)


Box = tuple[int, int, int, int]


def _box(shape: Shape, scale: float, width: int, height: int) -> Box:
    """The pixels a shape can cover (x0, y0, x1, y1): searching only there keeps the first
    draw quick (whole-map scans per label cost seconds on a Pi)."""
    xs = [x for ring in shape.rings for x, _ in ring]
    ys = [y for ring in shape.rings for _, y in ring]
    return (max(0, int(min(xs) * scale) - 2), max(0, int(min(ys) * scale) - 2),
            min(width, int(max(xs) * scale) + 3), min(height, int(max(ys) * scale) + 3))


def _inside_spot(ids: np.ndarray, value: int, box: Box, anchor: Point, w: int, h: int) -> pygame.Rect | None:
    """The box of ``w`` x ``h`` wholly inside the shape ``value`` nearest to ``anchor``."""
    import numpy as np

    x0, y0, x1, y1 = box
    fits = _fits(ids[y0:y1, x0:x1] == value, w, h)
    if fits.size == 0 or not fits.any():
        return None
    fy, fx = np.nonzero(fits)
    cx = fx + x0 + w / 2
    cy = fy + y0 + h / 2
    best = int(np.argmin((cx - anchor[0]) ** 2 + (cy - anchor[1]) ** 2))
    return pygame.Rect(int(fx[best] + x0), int(fy[best] + y0), w, h)


def _nearest_pixel(ids: np.ndarray, value: int, box: Box, anchor: Point) -> Point | None:
    import numpy as np

    ax, ay = anchor
    if 0 <= ay < ids.shape[0] and 0 <= ax < ids.shape[1] and ids[ay, ax] == value:
        return anchor
    x0, y0, x1, y1 = box
    ys, xs = np.nonzero(ids[y0:y1, x0:x1] == value)
    if len(xs) == 0:
        return None
    k = int(np.argmin((xs + x0 - ax) ** 2 + (ys + y0 - ay) ** 2))
    return int(xs[k] + x0), int(ys[k] + y0)


DRIFT = 4.0
"""What a tag's middle one tag height further from its country's middle costs, against
hiding a whole neighbour (60): a tag on its own country beats one merely touching it."""


def tag_near(height: int) -> int:
    """How far (px) a tag may stand from its country or marker on a map ``height`` px high:
    it touches it, up to the gap that keeps it off the marker and the coast's outline."""
    return max(4, height // 130)


def _sums(a: np.ndarray, w: int, h: int) -> np.ndarray:
    """For each top-left corner (y, x), the sum of ``a`` over the ``w`` x ``h`` box there."""
    import numpy as np

    ii = np.zeros((a.shape[0] + 1, a.shape[1] + 1), dtype=np.float64)
    ii[1:, 1:] = a.astype(np.float64).cumsum(0).cumsum(1)
    return np.asarray(ii[h:, w:] - ii[:-h, w:] - ii[h:, :-w] + ii[:-h, :-w])


ON_OWN = 1000.0
"""What a tag that covers none of its own country costs (less the more it covers, nothing
once half the tag, or the whole of a smaller country, is under it): a spot on the
country beats every spot beside it (a name beside a small country, out at sea or on a
neighbour, reads as the neighbour's: Kosovo's and Montenegro's in the Adriatic)."""


def _touching_spot(own: np.ndarray, taken: np.ndarray, cover: np.ndarray, value: int, ids: np.ndarray,
                   anchor: Point, w: int, h: int, near: int, on_own: bool = False) -> pygame.Rect | None:
    """The best free ``w`` x ``h`` box within ``near`` px of the ``own`` pixels (a country
    or its marker), else within twice, four times... that; ``None`` when the map has no
    free box at all. Cost: the share of each other country it hides (its own is free:
    a name on its country is the aim), :data:`DRIFT` for the distance of its middle
    from ``anchor``; with ``on_own``, up to :data:`ON_OWN` for a box with fewer ``own``
    pixels under it than half its own, or than all of them if they are fewer."""
    import numpy as np

    height, width = own.shape
    ys, xs = np.nonzero(own)
    while near <= max(width, height):
        x0, y0 = max(1, int(xs.min()) - w - near), max(1, int(ys.min()) - h - near)
        x1, y1 = min(width - 1, int(xs.max()) + w + near + 1), min(height - 1, int(ys.max()) + h + near + 1)
        if x1 - x0 > w and y1 - y0 > h:
            busy = _sums(taken[y0:y1, x0:x1], w, h) > 0
            # Touching: the box grown by ``near`` on every side meets the own pixels.
            grown = np.zeros((y1 - y0 + 2 * near, x1 - x0 + 2 * near), dtype=bool)
            sub = own[max(0, y0 - near) : y1 + near, max(0, x0 - near) : x1 + near]
            oy, ox = max(0, y0 - near) - (y0 - near), max(0, x0 - near) - (x0 - near)
            grown[oy : oy + sub.shape[0], ox : ox + sub.shape[1]] = sub
            touching = _sums(grown, w + 2 * near, h + 2 * near)[: busy.shape[0], : busy.shape[1]] > 0
            ok = touching & ~busy
            if ok.any():
                weights = cover[y0:y1, x0:x1].copy()
                weights[ids[y0:y1, x0:x1] == value] = 0.0
                cost = _sums(weights, w, h)
                gy, gx = np.mgrid[0 : busy.shape[0], 0 : busy.shape[1]]
                cost += np.hypot(gx + x0 + w / 2 - anchor[0], gy + y0 + h / 2 - anchor[1]) * (DRIFT / h)
                if on_own:
                    # On its country: half the tag on it, or all of a country smaller than
                    # that under it; the further short of that, the dearer.
                    need = max(1.0, min(float(len(xs)), float(w * h) / 2))
                    under = _sums(own[y0:y1, x0:x1], w, h)[: cost.shape[0], : cost.shape[1]]
                    cost += ON_OWN * np.maximum(0.0, need - under) / need
                cost[~ok] = np.inf
                k = int(np.argmin(cost))
                fy, fx = divmod(k, cost.shape[1])
                return pygame.Rect(x0 + fx, y0 + fy, w, h)
        near *= 2
    return None


def _nearest_own(own: np.ndarray, rect: pygame.Rect) -> Point:
    """Where a tag's leader line ends: the pixel of ``own`` nearest to the tag ``rect``
    (one under it, if any), of those the one nearest to its middle."""
    import numpy as np

    ys, xs = np.nonzero(own)
    gap = np.hypot(np.maximum(np.maximum(rect.left - xs, xs - (rect.right - 1)), 0),
                   np.maximum(np.maximum(rect.top - ys, ys - (rect.bottom - 1)), 0))
    middle = np.hypot(xs - rect.centerx, ys - rect.centery)
    k = int(np.argmin(gap * 10 * (own.shape[0] + own.shape[1]) + middle))
    return int(xs[k]), int(ys[k])


def label_layout(width: int, height: int) -> Layout:
    """Where labels, markers and region names go on a map ``width`` x ``height`` px (see ``_layout``)."""
    return _layout(_sources(), width, height)


@lru_cache(maxsize=SIZE_ARRAYS)
def _layout(src: Sources, width: int, height: int) -> Layout:
    """Where every label, marker and region name goes on a map ``width`` x ``height`` px.

    Labels go inside their country at the largest size from ``max_label_px`` down to
    ``min_label_px`` that fits; the rest, smallest country first, go on a tag touching
    their country or marker (:func:`_touching_spot`), with a short leader line to it.
    Nothing placed overlaps anything placed before it, unless the map is so small that no
    free spot is left (far below 1280x720), where a tag then overlaps rather than fails.
    """
    import numpy as np

    europe = _read_map(src[0])
    board = load_board(src[1])
    scale = _scale(src, (width, height))
    ids = _raster(src, width, height)
    taken = np.zeros((height, width), dtype=bool)
    # No name along the map's edges: the map may meet the screen's, where a celebration's
    # glow runs (thinner than this band).
    edge = max(2, height // 50)
    taken[:edge, :] = taken[-edge:, :] = True
    taken[:, :edge] = taken[:, -edge:] = True
    pad = max(2, height // 300)

    def take(rect: pygame.Rect) -> None:
        r = rect.inflate(2 * pad, 2 * pad).clip(pygame.Rect(0, 0, width, height))
        taken[r.top : r.bottom, r.left : r.right] = True

    def free(rect: pygame.Rect) -> bool:
        if rect.left < 1 or rect.top < 1 or rect.right > width - 1 or rect.bottom > height - 1:
            return False
        return not taken[rect.top : rect.bottom, rect.left : rect.right].any()

    # Region names first: they sit in the sea at fixed places.
    tags: list[tuple[str, pygame.Rect]] = []
    for region, (x, y) in europe.region_tags.items():
        w, h = _font(_tag_px(height)).size(board.region_name(region, src[2]).upper())
        rect = pygame.Rect(0, 0, w, int(h * 0.8))
        rect.center = (int(x * scale), int(y * scale))
        rect.clamp_ip(pygame.Rect(0, 0, width, height))
        tags.append((region, rect))
        take(rect)

    # Markers for the countries too small to point at.
    markers: dict[str, Marker] = {}
    boxes: dict[str, Box] = {}
    area_px = np.ones(256, dtype=np.float64)  # pixels of each board country
    radius = max(5, height // 110)
    for i, c in enumerate(board.countries):
        shape = europe.countries.get(c.id)
        if shape is None:
            continue
        x0, y0, x1, y1 = boxes[c.id] = _box(shape, scale, width, height)
        pixels = int((ids[y0:y1, x0:x1] == i + 1).sum())
        area_px[i + 1] = max(1, pixels)
        if shape.area_km2 < MARKER_KM2 or pixels < radius * radius * 3:
            centre = (int(shape.anchor[0] * scale), int(shape.anchor[1] * scale))
            markers[c.id] = Marker(c.id, centre, radius)
            take(pygame.Rect(centre[0] - radius, centre[1] - radius, 2 * radius + 1, 2 * radius + 1))

    labels: list[Label] = []
    lo, hi = min_label_px(height), max_label_px(height)
    outside: list[tuple[float, int, str]] = []
    for i, c in enumerate(board.countries):
        shape = europe.countries.get(c.id)
        if shape is None:
            continue
        anchor = (int(shape.anchor[0] * scale), int(shape.anchor[1] * scale))
        placed = False
        if c.id not in markers:
            for px in range(hi, lo - 1, -1):
                w, h = _font(px).size(board.label(c.id, src[2]))
                h = max(1, h - px // 5)  # the font's line box has room below the baseline
                spot = _inside_spot(ids, i + 1, boxes[c.id], anchor, w, h)
                if spot is not None and free(spot):
                    labels.append(Label(c.id, board.label(c.id, src[2]), spot, None, px))
                    take(spot)
                    placed = True
                    break
        if not placed:
            outside.append((shape.area_km2, i, c.id))

    # Grey neighbours' names, only where they fit inside.
    grey_px = max(lo, hi * 3 // 4)
    for j, g in enumerate(europe.grey):
        if g.area_km2 < 20000:
            continue
        grey_name = board.neighbour_name(g.key, src[2])
        w, h = _font(grey_px).size(grey_name)
        h = max(1, h - grey_px // 5)
        anchor = (int(g.anchor[0] * scale), int(g.anchor[1] * scale))
        spot = _inside_spot(ids, GREY_ID0 + j, _box(g, scale, width, height), anchor, w, h)
        if spot is not None and free(spot):
            labels.append(Label(g.key, grey_name, spot, None, grey_px, grey=True))
            take(spot)

    # Tags, smallest country first (it has the fewest good spots). A tag touches its own
    # country (or its marker): a name far away on a long leader line reads as a
    # neighbour's (Croatia's in the Black Sea). It may cover its own country, hides as
    # little of the others as it can and keeps close to the country's middle.
    px = min_label_px(height)
    lut = np.zeros(256, dtype=np.float64)
    lut[1 : len(board.countries) + 1] = 60.0 / area_px[1 : len(board.countries) + 1]
    cover = lut[ids]
    for _, i, cid in sorted(outside):
        shape = europe.countries[cid]
        marker = markers.get(cid)
        anchor = marker.centre if marker is not None else (int(shape.anchor[0] * scale), int(shape.anchor[1] * scale))
        own = ids == i + 1
        if marker is not None:
            own = np.zeros_like(own)
            r = marker.radius
            own[max(0, anchor[1] - r) : anchor[1] + r + 1, max(0, anchor[0] - r) : anchor[0] + r + 1] = True
        elif not own[boxes[cid][1] : boxes[cid][3], boxes[cid][0] : boxes[cid][2]].any():
            # Drawn too small to show a pixel: give it a marker after all.
            markers[cid] = marker = Marker(cid, anchor, radius)
            own = np.zeros_like(own)
            own[max(0, anchor[1] - radius) : anchor[1] + radius + 1,
                max(0, anchor[0] - radius) : anchor[0] + radius + 1] = True
        w, h = _font(px).size(board.label(cid, src[2]))
        w, h = w + 2 * pad + 2, h - px // 5 + 2 * pad
        spot = _touching_spot(own, taken, cover, i + 1, ids, anchor, w, h, tag_near(height), marker is None)
        if spot is None:  # a display far too small: overlap rather than fail mid-game
            spot = pygame.Rect(anchor[0] + radius, anchor[1] - h // 2, w, h)
            spot.clamp_ip(pygame.Rect(0, 0, width, height))
        rect = spot
        end = marker.centre if marker is not None else _nearest_own(own, rect)
        labels.append(Label(cid, board.label(cid, src[2]), rect, end, px))
        take(rect)
    return Layout((width, height), scale, markers, tuple(labels), tuple(tags))


def _draw_label(surface: pygame.Surface, label: Label, colour_name: str | None, dim: bool) -> None:
    if label.grey:
        img = _text(label.text, label.size, GREY_TEXT)
        surface.blit(img, img.get_rect(center=label.rect.center))
        return
    assert colour_name is not None
    fill = TILE_COLOURS[colour_name]
    ink = LABEL_ON[colour_name]
    if dim:
        fill = (fill[0] * 2 // 5, fill[1] * 2 // 5, fill[2] * 2 // 5)
        ink = DIM_LABEL
    if label.leader_to is not None:
        rect = label.rect
        ex, ey = label.leader_to
        start = (min(max(ex, rect.left), rect.right - 1), min(max(ey, rect.top), rect.bottom - 1))
        pygame.draw.line(surface, OUTLINE, start, label.leader_to, 3)
        pygame.draw.line(surface, (150, 150, 150) if dim else LEADER, start, label.leader_to, 1)
        pygame.draw.rect(surface, fill, rect, border_radius=max(2, rect.h // 4))
        pygame.draw.rect(surface, OUTLINE, rect, 1, border_radius=max(2, rect.h // 4))
    img = _text(label.text, label.size, ink)
    surface.blit(img, img.get_rect(center=(label.rect.centerx, label.rect.centery + label.size // 12)))


def _draw_marker(surface: pygame.Surface, marker: Marker, colour_name: str, dim: bool) -> None:
    fill = TILE_COLOURS[colour_name]
    if dim:
        fill = (fill[0] * 2 // 5, fill[1] * 2 // 5, fill[2] * 2 // 5)
    pygame.draw.circle(surface, OUTLINE, marker.centre, marker.radius + 1)
    pygame.draw.circle(surface, fill, marker.centre, marker.radius)
    pygame.draw.circle(surface, (150, 150, 150) if dim else REGION_LINE, marker.centre, marker.radius, 1)


def _draw_labels(surface: pygame.Surface, layout: Layout, board: Board, marked: set[str], dim: bool) -> None:
    """Markers and labels on top of the map; with ``dim``, those not ``marked`` darkened."""
    for marker in layout.markers.values():
        _draw_marker(surface, marker, board.get(marker.key).colour, dim and marker.key not in marked)
    # Dimmed labels first, so a bright tag is never hidden under a dark one's leader line.
    for label in sorted(layout.labels, key=lambda lb: lb.key in marked):
        colour = None if label.grey else board.get(label.key).colour
        _draw_label(surface, label, colour, dim and label.key not in marked)


@lru_cache(maxsize=SCREEN_SIZES)
def _dimmed(src: Sources, width: int, height: int) -> pygame.Surface:
    """The plain map darkened, the backdrop of a highlight."""
    import numpy as np

    pixels = pygame.surfarray.array3d(_base(src, width, height))
    surface = pygame.Surface((width, height))
    pygame.surfarray.blit_array(surface, (pixels.astype(np.uint16) * 2 // 5).astype(np.uint8))
    return surface


CUTOUT_KEY = (255, 0, 255)
"""The colour key of the outline stamps' scratch pictures (the map never uses it)."""


@lru_cache(maxsize=SCREEN_SIZES)
def _country_masks(src: Sources, width: int, height: int) -> dict[str, tuple[pygame.Rect, pygame.mask.Mask]]:
    """Each board country's box on the map (every pixel its shape can cover) and which
    pixels of the box are the country's (by :func:`_raster`): a highlight copies those
    from the plain map onto the dimmed one. A bit per pixel, about 0.2 MB for all 48 at
    1920x1080, where pictures of the countries would take 6 MB."""
    import numpy as np

    europe = _read_map(src[0])
    board = load_board(src[1])
    scale = _scale(src, (width, height))
    ids = _raster(src, width, height)
    scratch = pygame.Surface((width, height), depth=8)
    out: dict[str, tuple[pygame.Rect, pygame.mask.Mask]] = {}
    for i, c in enumerate(board.countries):
        if c.id not in europe.countries:
            continue
        x0, y0, x1, y1 = _box(europe.countries[c.id], scale, width, height)
        if x1 <= x0 or y1 <= y0:
            continue
        box = pygame.Rect(x0, y0, x1 - x0, y1 - y0)
        part = scratch.subsurface(box)
        part.set_colorkey(0)
        pygame.surfarray.blit_array(part, (ids[y0:y1, x0:x1] == i + 1).T.astype(np.uint8))
        out[c.id] = (box, pygame.mask.from_surface(part))
    return out


@lru_cache(maxsize=SCREEN_SIZES)
def _labelled(src: Sources, width: int, height: int) -> pygame.Surface:
    """The plain map with every marker and label drawn: a state without a knob sector
    paints only where it differs from this."""
    surface = _base(src, width, height).copy()
    _draw_labels(surface, _layout(src, width, height), load_board(src[1]), set(), False)
    return surface


@lru_cache(maxsize=SCREEN_SIZES)
def _dimmed_labelled(src: Sources, width: int, height: int) -> pygame.Surface:
    """The dimmed map with every marker and label drawn dimmed: a highlight paints only
    around its marked countries where it differs from this."""
    surface = _dimmed(src, width, height).copy()
    _draw_labels(surface, _layout(src, width, height), load_board(src[1]), set(), True)
    return surface


def _marker_rect(marker: Marker) -> pygame.Rect:
    """Every pixel :func:`_draw_marker` can touch."""
    r = marker.radius + 2
    return pygame.Rect(round(marker.centre[0]) - r, round(marker.centre[1]) - r, 2 * r + 1, 2 * r + 1)


def _label_rect(label: Label) -> pygame.Rect:
    """Every pixel :func:`_draw_label` can touch: its box, its text and its leader line."""
    rect = label.rect.inflate(label.size, label.size // 2 + 4)
    if label.leader_to is not None:
        ex, ey = label.leader_to
        rect = rect.union(pygame.Rect(round(ex) - 3, round(ey) - 3, 7, 7))
    return rect


def name_box(label: Label) -> pygame.Rect:
    """The pixels of a label's name: its tag, or the text itself on its country. No
    outline is drawn over them (an outline through "Irland" read "I land")."""
    if label.leader_to is not None:
        return label.rect.copy()
    box = pygame.Rect((0, 0), _font(label.size).size(label.text))
    box.center = (label.rect.centerx, label.rect.centery + label.size // 12)
    return box


def _keep_names(surface: pygame.Surface, labels: Iterable[Label], offset: tuple[int, int] = (0, 0)
                ) -> list[tuple[pygame.Rect, pygame.Surface]]:
    """Copies of the names' pixels as ``surface`` has them now (inside its clip), to put
    back with :func:`_put_back` once the outlines are drawn."""
    clip = surface.get_clip()
    kept = []
    for label in labels:
        box = name_box(label).move(offset).clip(clip)
        if box.w > 0 and box.h > 0:
            kept.append((box, surface.subsurface(box).copy()))
    return kept


def _put_back(surface: pygame.Surface, kept: Iterable[tuple[pygame.Rect, pygame.Surface]]) -> None:
    for box, picture in kept:
        surface.blit(picture, box)


class _StatePictures:
    """The map pictures of the last states drawn from a picture (``STATE_PICTURES``;
    those without a darkened highlight: a highlight is painted straight onto the screen,
    see :func:`draw_map`), kept while shown. Each is a screen-sized surface
    (5 MB at 1080p); a new state is painted into the surface of the one it replaces, so
    changing state writes the pixels once and allocates nothing."""

    KEEP = STATE_PICTURES

    def __init__(self) -> None:
        self.items: dict[tuple[object, ...], pygame.Surface] = {}

    def get(self, key: tuple[object, ...], size: tuple[int, int]) -> tuple[pygame.Surface, bool]:
        """The picture for ``key`` and whether it is already painted."""
        picture = self.items.pop(key, None)
        if picture is not None:
            self.items[key] = picture  # most recently used last
            return picture, True
        reuse = None
        if len(self.items) >= self.KEEP:
            oldest = next(iter(self.items))
            reuse = self.items.pop(oldest)
            if reuse.get_size() != size:
                reuse = None
        picture = reuse if reuse is not None else offscreen(size)
        self.items[key] = picture
        return picture, False

    def clear(self) -> None:
        self.items.clear()


_pictures = _StatePictures()


def _state(
    src: Sources, width: int, height: int, highlight: frozenset[str], focus: str | None, dim: bool
) -> pygame.Surface:
    """The map with its labels and countries highlighted, composed once per state and
    kept while it is shown (see :class:`_StatePictures`)."""
    surface, ready = _pictures.get((src, width, height, highlight, focus, dim), (width, height))
    if not ready:
        _paint_state(surface, src, width, height, highlight, focus, dim)
    return surface


def _paint_state(
    surface: pygame.Surface, src: Sources, width: int, height: int, highlight: frozenset[str], focus: str | None,
    dim: bool,
) -> None:
    board = load_board(src[1])
    layout = _layout(src, width, height)
    marked = set(highlight) | ({focus} if focus else set())
    dim = dim and bool(marked)
    # Everything below stays inside the clip the surface came with.
    bounds = surface.get_clip()
    if dim:
        # The dimmed map with every marker and label dimmed; around each marked country
        # (its box, its marker, its label) it is painted again exactly as a full draw
        # paints it: the dimmed map, the marked countries' own pixels put back from the
        # plain map (through each one's mask), then the markers and labels there in
        # their order, the marked ones bright.
        surface.blit(_dimmed_labelled(src, width, height), (0, 0))
        dimmed = _dimmed(src, width, height)
        plain = _base(src, width, height)
        masks = _country_masks(src, width, height)
        lit = [masks[cid] for cid in sorted(marked) if cid in masks]
        regions = [box for box, _ in lit]
        regions += [_marker_rect(m) for m in layout.markers.values() if m.key in marked]
        regions += [_label_rect(lb) for lb in layout.labels if lb.key in marked]
        labels = sorted(layout.labels, key=lambda lb: lb.key in marked)
        for region in merge_rects(regions, bounds, full_share=2.0):
            surface.set_clip(region)
            # A mask's copy ignores the clip: it goes onto a picture of the region.
            region = region.clip(surface.get_rect())
            part = pygame.Surface(region.size)
            part.blit(dimmed, (0, 0), region)
            for box, mask in lit:
                if box.colliderect(region):
                    mask.to_surface(part, setsurface=plain.subsurface(box), unsetcolor=None,
                                    dest=(box.x - region.x, box.y - region.y))
            surface.blit(part, region)
            for marker in layout.markers.values():
                if region.colliderect(_marker_rect(marker)):
                    _draw_marker(surface, marker, board.get(marker.key).colour, marker.key not in marked)
            for label in labels:
                if region.colliderect(_label_rect(label)):
                    _draw_label(surface, label, None if label.grey else board.get(label.key).colour,
                                label.key not in marked)
        surface.set_clip(bounds)
    else:
        # The plain map with every marker and label already drawn; only around the marked
        # ones is it painted again exactly as a full draw paints it (restored from the
        # unlabelled map, then the markers and labels there redrawn in their order).
        surface.blit(_labelled(src, width, height), (0, 0))
        regions = [_marker_rect(m) for m in layout.markers.values() if m.key in marked]
        regions += [_label_rect(lb) for lb in layout.labels if lb.key in marked]
        plain = _base(src, width, height)
        labels = sorted(layout.labels, key=lambda lb: lb.key in marked)
        for region in merge_rects(regions, bounds, full_share=2.0):
            surface.set_clip(region)
            surface.blit(plain, region, region)
            for marker in layout.markers.values():
                if region.colliderect(_marker_rect(marker)):
                    _draw_marker(surface, marker, board.get(marker.key).colour, False)
            for label in labels:
                if region.colliderect(_label_rect(label)):
                    _draw_label(surface, label, None if label.grey else board.get(label.key).colour, False)
        surface.set_clip(bounds)
    _paint_outlines(surface, src, width, height, marked, focus, dim)


def _outline_style(cid: str, focus: str | None, height: int) -> tuple[Colour, int]:
    """The colour and line width of a marked country's outline (the focus thicker, red)."""
    line = max(3, height // 180)
    return (FOCUS, line * 2) if cid == focus else (REGION_LINE, line)


def _trace_outline(
    surface: pygame.Surface, src: Sources, width: int, height: int, cid: str, colour: Colour, w: int
) -> pygame.Rect | None:
    """Draw one country's outline, the ring round its marker and the frame of its leader
    label; returns the rect of the pixels drawn (``None``: the map has no such shape)."""
    europe = _read_map(src[0])
    layout = _layout(src, width, height)
    shape = europe.countries.get(cid)
    if shape is None:
        return None
    drawn: list[pygame.Rect] = []
    for ring in shape.rings:
        pts = _pts(ring, layout.scale)
        if len(pts) >= 3:
            drawn.append(pygame.draw.polygon(surface, colour, pts, w))
    marker = layout.markers.get(cid)
    if marker is not None:
        drawn.append(pygame.draw.circle(surface, colour, marker.centre, marker.radius + w + 2, w))
    for label in layout.labels:
        if label.key == cid and label.leader_to is not None:
            radius = max(2, label.rect.h // 4)
            drawn.append(pygame.draw.rect(surface, colour, label.rect.inflate(4, 4), 2, border_radius=radius))
    drawn = [r for r in drawn if r.w > 0 and r.h > 0]
    return drawn[0].unionall(drawn[1:]) if drawn else None


@dataclass(frozen=True)
class Stamp:
    """One country's outline drawn once: the 8-bit picture (keyed to transparency), where
    it goes on the map, and the countries whose names its pixels run across."""

    picture: pygame.Surface
    pos: tuple[int, int]
    crosses: frozenset[str]

    @property
    def rect(self) -> pygame.Rect:
        return pygame.Rect(self.pos, self.picture.get_size())


@lru_cache(maxsize=SCREEN_SIZES)
def _outline_stamps(src: Sources, width: int, height: int) -> dict[tuple[str, bool], Stamp]:
    """Every board country's outline, plain and as the focus, drawn once into a small
    8-bit surface, keyed by (country, focus): a highlight blits these instead of scaling
    and drawing the polygons of a dozen countries on every state (1 byte a pixel: all of
    them together take about as much memory as one map picture)."""
    board = load_board(src[1])
    layout = _layout(src, width, height)
    scratch = pygame.Surface((width, height), 0, 8)
    out: dict[tuple[str, bool], Stamp] = {}
    for c in board.countries:
        for focus in (False, True):
            colour, w = _outline_style(c.id, c.id if focus else None, height)
            scratch.set_palette([CUTOUT_KEY, colour] + [CUTOUT_KEY] * 254)
            scratch.fill(0)
            box = _trace_outline(scratch, src, width, height, c.id, colour, w)
            if box is None:
                continue
            box = box.clip(scratch.get_rect())
            drawn = pygame.surfarray.array2d(scratch.subsurface(box)) != 0  # [x, y]
            crosses = set()
            for label in layout.labels:
                over = _label_rect(label).clip(box)
                if over.w > 0 and over.h > 0 and drawn[over.x - box.x:over.right - box.x,
                                                       over.y - box.y:over.bottom - box.y].any():
                    crosses.add(label.key)
            picture = pygame.Surface(box.size, 0, 8)
            picture.set_palette([CUTOUT_KEY, colour] + [CUTOUT_KEY] * 254)
            picture.blit(scratch, (0, 0), box)
            picture.set_colorkey(0, pygame.RLEACCEL)
            out[(c.id, focus)] = Stamp(picture, box.topleft, frozenset(crosses))
    return out


def _paint_outlines(
    surface: pygame.Surface, src: Sources, width: int, height: int, marked: set[str], focus: str | None,
    dim: bool = False, stamps: bool = True,
) -> None:
    """The marked countries' outlines (the focus thicker, in red), rings round their
    markers and boxes, and the names they cross again on top (``dim``: the unmarked
    ones darkened, as the map under them). With ``stamps`` (the table's way) each
    outline is a blit of :func:`_outline_stamps`; without, it is drawn (the reference
    the stamps are tested against). The names an outline crosses come from its stamp
    either way."""
    cached = _outline_stamps(src, width, height)
    crossed: set[str] = set()
    for cid in marked:
        stamp = cached.get((cid, cid == focus))
        crossed |= stamp.crosses if stamp is not None else set()
    # The names the outlines run across, as they are before: put back over the outlines.
    kept = _keep_names(surface, [lb for lb in _layout(src, width, height).labels if lb.key in crossed])
    for cid in sorted(marked, key=lambda k: k == focus):
        stamp = cached.get((cid, cid == focus))
        if stamp is None:
            continue
        if stamps:
            surface.blit(stamp.picture, stamp.pos)
        else:
            colour, w = _outline_style(cid, focus, height)
            _trace_outline(surface, src, width, height, cid, colour, w)
    _put_back(surface, kept)
    _draw_crossed_names(surface, src, width, height, marked, crossed, dim)


def _draw_crossed_names(
    surface: pygame.Surface, src: Sources, width: int, height: int, marked: Iterable[str],
    crossed: Iterable[str], dim: bool,
) -> None:
    """Names stay readable above the outlines: the marked ones, and those of the
    countries in ``crossed``, whose names an outline runs across (Italy's red line cut
    through the Balkans' names beside the Adriatic), the unmarked ones darkened with
    ``dim``. Names outside the surface's clip are skipped (they would draw nothing)."""
    board = load_board(src[1])
    lit = set(marked)
    redraw = set(crossed)
    bounds = surface.get_clip()
    for label in sorted(_layout(src, width, height).labels, key=lambda lb: lb.key in lit):
        if label.key in lit:
            if label.leader_to is not None:
                continue
        elif label.key not in redraw:
            continue
        if not _label_rect(label).colliderect(bounds):
            continue
        colour_name = None if label.grey else board.get(label.key).colour
        _draw_label(surface, label, colour_name, dim and label.key not in lit)


def draw_map(
    surface: pygame.Surface,
    area: pygame.Rect,
    theme: Theme,
    highlight: Iterable[str] = (),
    focus: str | None = None,
    dim_others: bool = False,
) -> pygame.Rect:
    """Draw the map into ``area``; returns the rectangle actually used.

    ``highlight`` countries get a white outline; ``focus`` a thicker red one; with
    ``dim_others`` every country not marked is darkened (to show a knob sector).
    Without a highlight, one blit of a cached picture; a highlight is painted from
    cached layers (the darkened map with and without its names, the plain map, the
    countries' masks and outline stamps) inside the surface's clip, so its cost follows
    the area repainted.
    """
    del theme  # sizes follow the map's own height
    rect = map_rect_for(area)
    marked = frozenset(highlight)
    if dim_others and (marked or focus):
        # A highlight is painted straight onto the surface, only inside its clip: the
        # composer clips it to what changed (see :func:`map_damage`), which is a small
        # part of the map when the knob moves from one sector to the next.
        clip = surface.get_clip().clip(rect)
        if clip.w > 0 and clip.h > 0:
            view = surface.subsurface(rect)
            view.set_clip(clip.move(-rect.x, -rect.y))
            _paint_state(view, _sources(), rect.w, rect.h, marked, focus, True)
    else:
        surface.blit(_state(_sources(), rect.w, rect.h, marked, focus, dim_others), rect.topleft)
    if not noting():
        return rect
    layout = _layout(_sources(), rect.w, rect.h)
    for region, tag in layout.tags:
        note_text(tag.move(rect.topleft), region.upper(), _font(_tag_px(rect.h)).get_height())
    for label in layout.labels:
        note_text(label.rect.move(rect.topleft), label.text, _font(label.size).get_height())
    return rect


def prepare(area: pygame.Rect) -> Iterator[None]:
    """Build every cached layer the map needs at ``area``'s size in the language in force,
    one layer per step (the generator yields between them): where the names go (the
    longest step, about 0.13 s at 1920x1080 here), the plain map and its names, the
    outlines, the darkened map and the countries' masks (what the first highlight of a
    game would otherwise pay). The table runs the steps while nobody is using it, so a
    game's first frames find them made."""
    rect = map_rect_for(area)
    src = _sources()
    for build in (_raster, _layout, _base, _labelled, _outline_stamps, _dimmed, _country_masks, _dimmed_labelled,
                  _country_damage):
        build(src, rect.w, rect.h)
        yield


@lru_cache(maxsize=SCREEN_SIZES)
def _country_damage(src: Sources, width: int, height: int) -> dict[str, pygame.Rect]:
    """Per country, every pixel a highlight of it can change on the map: its box,
    its outline (plain or as the focus), its marker and its names, and the names its
    outline crosses (drawn again above it)."""
    layout = _layout(src, width, height)
    boxes = {cid: box for cid, (box, _) in _country_masks(src, width, height).items()}
    stamps = _outline_stamps(src, width, height)
    out: dict[str, pygame.Rect] = {}
    for c in load_board(src[1]).countries:
        rects = [boxes[c.id].copy()] if c.id in boxes else []
        mine = [stamp for key, stamp in stamps.items() if key[0] == c.id]
        rects += [stamp.rect for stamp in mine]
        if c.id in layout.markers:
            rects.append(_marker_rect(layout.markers[c.id]))
        named = {c.id}.union(*(stamp.crosses for stamp in mine))
        rects += [_label_rect(lb) for lb in layout.labels if lb.key in named]
        if rects:
            out[c.id] = rects[0].unionall(rects[1:])
    return out


def map_damage(area: pygame.Rect, before: Iterable[str], after: Iterable[str]) -> list[pygame.Rect] | None:
    """Where a highlighted map (``dim_others``, no focus) changes on the screen when its
    marked countries go from ``before`` to ``after``: around every country of either
    (its rect in :func:`_country_damage`); nothing when they are the same; ``None``
    (all of the map) when either is empty, since an empty highlight is not dimmed."""
    old, new = set(before), set(after)
    if not old or not new:
        return None
    if old == new:
        return []
    rect = map_rect_for(area)
    damage = _country_damage(_sources(), rect.w, rect.h)
    return [damage[c].move(rect.topleft) for c in sorted(old | new) if c in damage]


@lru_cache(maxsize=LAYOUTS)
def _focus_labels(
    src: Sources, width: int, height: int, focus: str, marked: frozenset[str]
) -> tuple[Label, ...]:
    """The names :func:`draw_focus` draws again above the focus outline, in their order:
    those it crosses (as :func:`_paint_outlines` finds them), but not a marked country's
    name beside it on a leader line. Kept: the renderer asks for the focus's rect on
    every frame."""
    stamp = _outline_stamps(src, width, height).get((focus, True))
    if stamp is None:
        return ()
    labels = sorted(_layout(src, width, height).labels, key=lambda lb: lb.key in marked)
    return tuple(label for label in labels
                 if label.key in stamp.crosses and not (label.key in marked and label.leader_to is not None))


def focus_rect(area: pygame.Rect, focus: str, marked: Iterable[str]) -> pygame.Rect:
    """Every pixel :func:`draw_focus` can touch on the screen (empty: nothing to draw)."""
    rect = map_rect_for(area)
    src = _sources()
    stamp = _outline_stamps(src, rect.w, rect.h).get((focus, True))
    if stamp is None:
        return pygame.Rect(rect.topleft, (0, 0))
    box = stamp.rect
    for label in _focus_labels(src, rect.w, rect.h, focus, frozenset(marked)):
        box.union_ip(_label_rect(label))
    return box.move(rect.topleft).clip(rect)


def draw_focus(surface: pygame.Surface, area: pygame.Rect, focus: str, marked: Iterable[str]) -> None:
    """The focus's thick red outline over a map :func:`draw_map` drew with the focus among
    ``marked`` (as a plain highlight), and the names it crosses again on top.

    This lets a knob turn among a sector's countries repaint only the outline that moves
    (a blit of its stamp) instead of the whole map. Drawn over the plain outline, the
    focus comes out as :func:`draw_map` with ``focus`` draws it, up to the names it
    crosses, which are drawn a second time (their anti-aliased edges a shade firmer)."""
    rect = map_rect_for(area)
    src = _sources()
    stamp = _outline_stamps(src, rect.w, rect.h).get((focus, True))
    if stamp is None:
        return
    lit = frozenset(marked)
    crossed = [lb for lb in _layout(src, rect.w, rect.h).labels if lb.key in stamp.crosses]
    kept = _keep_names(surface, crossed, rect.topleft)
    surface.blit(stamp.picture, (rect.x + stamp.pos[0], rect.y + stamp.pos[1]))
    _put_back(surface, kept)
    board = load_board(src[1])
    for label in _focus_labels(src, rect.w, rect.h, focus, lit):
        end = label.leader_to
        moved = replace(label, rect=label.rect.move(rect.topleft),
                        leader_to=None if end is None else (end[0] + rect.x, end[1] + rect.y))
        # Only a highlight has a focus: the names outside it are darkened.
        _draw_label(surface, moved, None if label.grey else board.get(label.key).colour, label.key not in lit)
