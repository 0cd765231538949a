"""The Umtata map: a stylised tile map of Europe drawn from ``config/umtata/map.toml``.

Every game country is one or more grid cells in its board colour, labelled with its
short name; grey cells are non-game countries for orientation; white lines mark the
region borders (as the solid white lines of the printed board), and each region's
tiles carry the printed board's faint pattern (north triangles, south waves, east
dots, west stripes). Highlights (the answer at the reveal, the countries a Tataaa
player is choosing from) are drawn on top.

The plain map for a given size is drawn once and reused (``_base_map`` is a memo of a
pure function); ``draw`` itself changes nothing but the target surface.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import pygame

from table.datafiles import data_file
from table.display.theme import Theme
from table.games.umtata.board import load_board

Colour = tuple[int, int, int]

SEA: Colour = (20, 36, 62)
CONTEXT: Colour = (78, 82, 92)
CONTEXT_TEXT: Colour = (150, 154, 164)
REGION_LINE: Colour = (255, 255, 255)
REGION_TAG: Colour = (120, 150, 200)
TILE_COLOURS: dict[str, Colour] = {
    "orange": (240, 140, 44),
    "yellow": (242, 212, 62),
    "green": (92, 184, 84),
    "purple": (150, 96, 200),
}
LABEL_ON: dict[str, Colour] = {
    "orange": (20, 20, 20),
    "yellow": (20, 20, 20),
    "green": (12, 12, 12),
    "purple": (255, 255, 255),
}


@dataclass(frozen=True)
class MapLayout:
    """Grid cells: ``cells[(col, row)]`` is a country id, a context code, or absent (sea)."""

    cols: int
    rows: int
    cells: dict[tuple[int, int], str]
    context: dict[str, str]
    region_tags: dict[str, tuple[int, int]]

    def cells_of(self, code: str) -> list[tuple[int, int]]:
        return sorted(c for c, v in self.cells.items() if v == code)


def load_layout() -> MapLayout:
    """The map grid from ``umtata/map.toml`` (config directory, else shipped)."""
    return _read_layout(data_file("umtata/map.toml"))


@cache
def _read_layout(path: Path) -> MapLayout:
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    rows = [str(r).split() for r in data["rows"]]
    cells: dict[tuple[int, int], str] = {}
    for y, row in enumerate(rows):
        for x, code in enumerate(row):
            if code != "..":
                cells[(x, y)] = code
    return MapLayout(
        cols=max(len(r) for r in rows),
        rows=len(rows),
        cells=cells,
        context={str(k): str(v) for k, v in data.get("context", {}).items()},
        region_tags={str(k): (int(v[0]), int(v[1])) for k, v in data.get("regions", {}).items()},
    )


def _cell_rect(area: pygame.Rect, layout: MapLayout, x: int, y: int) -> pygame.Rect:
    left = area.x + x * area.w // layout.cols
    right = area.x + (x + 1) * area.w // layout.cols
    top = area.y + y * area.h // layout.rows
    bottom = area.y + (y + 1) * area.h // layout.rows
    return pygame.Rect(left, top, right - left, bottom - top)


def label_anchor(area: pygame.Rect, layout: MapLayout, code: str) -> tuple[pygame.Rect, int]:
    """Where a country's label goes: the widest run of cells in the row nearest its middle.

    Returns the rectangle of that run and the number of cells in it.
    """
    cells = layout.cells_of(code)
    mid_y = sum(y for _, y in cells) / len(cells)
    # Prefer a run of two or more cells, then the row nearest the middle.
    best: tuple[tuple[int, float, int, int], int] | None = None
    for y in sorted({y for _, y in cells}):
        xs = sorted(x for x, yy in cells if yy == y)
        start = xs[0]
        for i, x in enumerate(xs):
            end = xs[i + 1] if i + 1 < len(xs) else None
            if end != x + 1:
                width = x - start + 1
                key = (-min(width, 2), abs(y - mid_y), y, start)
                if best is None or key < best[0]:
                    best = (key, width)
                if end is not None:
                    start = end
    assert best is not None
    (_, _, y, x0), width = best
    first = _cell_rect(area, layout, x0, y)
    last = _cell_rect(area, layout, x0 + width - 1, y)
    return first.union(last), width


@cache
def _fitted_font(max_px: int, text: str, width: int) -> pygame.font.Font:
    px = max_px
    while px > 9:
        font = _font(px)
        if font.size(text)[0] <= width:
            return font
        px -= 1
    return _font(9)


@cache
def _font(px: int) -> pygame.font.Font:
    if not pygame.font.get_init():
        pygame.font.init()
    font = pygame.font.Font(None, px)
    font.set_bold(True)
    return font


def _pattern(surface: pygame.Surface, rect: pygame.Rect, region: str, colour: Colour, step: int) -> None:
    """The faint region pattern of the printed board, clipped to one tile."""
    shade = tuple(max(0, int(c * 0.8)) for c in colour)
    clip = surface.get_clip()
    surface.set_clip(rect.clip(clip) if clip else rect)
    s = max(4, step)
    if region == "west":  # stripes
        for off in range(-rect.h, rect.w, s):
            pygame.draw.line(surface, shade, (rect.x + off, rect.bottom), (rect.x + off + rect.h, rect.y), 1)
    elif region == "east":  # dots
        for yy in range(rect.y + s // 2, rect.bottom, s):
            for xx in range(rect.x + s // 2 + (yy // s % 2) * s // 2, rect.right, s):
                pygame.draw.circle(surface, shade, (xx, yy), max(1, s // 7))
    elif region == "north":  # triangles
        for yy in range(rect.y + s // 2, rect.bottom, s):
            for xx in range(rect.x + s // 2, rect.right, s):
                r = max(2, s // 5)
                pygame.draw.polygon(surface, shade, [(xx, yy - r), (xx - r, yy + r), (xx + r, yy + r)], 1)
    elif region == "south":  # waves
        for yy in range(rect.y + s // 2, rect.bottom, s):
            pts = [
                (xx, yy + (2 if (xx // (s // 2 or 1)) % 2 else -2))
                for xx in range(rect.x, rect.right + 1, max(2, s // 2))
            ]
            if len(pts) > 1:
                pygame.draw.lines(surface, shade, False, pts, 1)
    surface.set_clip(clip)


@cache
def _base_map(width: int, height: int) -> pygame.Surface:
    """The plain map at one size: tiles, patterns, region borders, labels."""
    layout = load_layout()
    board = load_board()
    surface = pygame.Surface((width, height))
    surface.fill(SEA)
    area = pygame.Rect(0, 0, width, height)
    gap = max(1, width // 320)
    step = max(6, height // 40)
    region_of: dict[tuple[int, int], str] = {}
    for (x, y), code in layout.cells.items():
        rect = _cell_rect(area, layout, x, y)
        if board.has(code):
            country = board.get(code)
            colour = TILE_COLOURS[country.colour]
            region_of[(x, y)] = country.region
            tile = rect.copy()
            # Cells of one country join up; a gap shows only between different countries.
            if layout.cells.get((x + 1, y)) != code:
                tile.w -= gap
            if layout.cells.get((x, y + 1)) != code:
                tile.h -= gap
            pygame.draw.rect(surface, colour, tile)
            _pattern(surface, tile, country.region, colour, step)
        else:
            tile = rect.copy()
            if layout.cells.get((x + 1, y)) != code:
                tile.w -= gap
            if layout.cells.get((x, y + 1)) != code:
                tile.h -= gap
            pygame.draw.rect(surface, CONTEXT, tile)
    # Region borders: a white line on every cell side where the region changes.
    thick = max(2, height // 160)
    for (x, y), region in region_of.items():
        rect = _cell_rect(area, layout, x, y)
        for dx, dy, a, b in (
            (1, 0, rect.topright, rect.bottomright),
            (0, 1, rect.bottomleft, rect.bottomright),
            (-1, 0, rect.topleft, rect.bottomleft),
            (0, -1, rect.topleft, rect.topright),
        ):
            other = region_of.get((x + dx, y + dy))
            if other is not None and other != region:
                pygame.draw.line(surface, REGION_LINE, a, b, thick)
    # Labels last, so that no line crosses them.
    cell_w = width // layout.cols
    max_px = max(12, min(cell_w // 3, height // 22))
    for country in board.countries:
        if not layout.cells_of(country.id):
            continue
        run, _ = label_anchor(area, layout, country.id)
        font = _fitted_font(max_px, country.label, run.w - 2 * gap - 2)
        img = font.render(country.label, True, LABEL_ON[country.colour])
        surface.blit(img, img.get_rect(center=run.center))
    tag_font = _font(max(14, height // 14))
    for region, (x, y) in layout.region_tags.items():
        cell = _cell_rect(area, layout, x, y)
        img = tag_font.render(region.upper(), True, REGION_TAG)
        rect = img.get_rect(midleft=(cell.x + gap * 2, cell.centery))
        surface.blit(img, rect)
    for code, name in layout.context.items():
        cells_ = layout.cells_of(code)
        if not cells_:
            continue
        run, _ = label_anchor(area, layout, code)
        font = _fitted_font(max(10, max_px * 3 // 4), name, run.w - 4)
        img = font.render(name, True, CONTEXT_TEXT)
        surface.blit(img, img.get_rect(center=run.center))
    return surface


@lru_cache(maxsize=2)
def _dimmed_map(width: int, height: int) -> pygame.Surface:
    """The plain map with every cell that holds a country darkened (see ``draw_map``)."""
    layout = load_layout()
    surface = _base_map(width, height).copy()
    area = pygame.Rect(0, 0, width, height)
    for x, y in layout.cells:
        cell = _cell_rect(area, layout, x, y)
        surface.blit(_shade_tile(cell.w, cell.h), cell.topleft)
    return surface


def map_rect_for(area: pygame.Rect) -> pygame.Rect:
    """The largest rectangle inside ``area`` with the map's proportions, centred."""
    layout = load_layout()
    aspect = layout.cols * 1.25 / layout.rows  # cells a little wider than tall
    w = min(area.w, int(area.h * aspect))
    h = min(area.h, int(w / aspect))
    rect = pygame.Rect(0, 0, w, h)
    rect.center = area.center
    return rect


@lru_cache(maxsize=16)
def _shade_tile(w: int, h: int) -> pygame.Surface:
    """A cell-sized darkening tile. Tiles, not a whole-map mask: a mask per knob sector
    weighs megabytes, and a kiosk that runs all evening keeps its memory flat."""
    tile = pygame.Surface((w, h), pygame.SRCALPHA)
    tile.fill((0, 0, 0, 150))
    return tile


def draw_map(
    surface: pygame.Surface,
    area: pygame.Rect,
    theme: Theme,
    highlight: Iterable[str] = (),
    focus: str | None = None,
    dim_others: bool = False,
) -> pygame.Rect:
    """Draw the map into ``area``; returns the rectangle actually used.

    ``highlight`` countries get a thick white frame; ``focus`` a thicker accent frame;
    ``dim_others`` darkens every country not highlighted (to show a knob sector).
    """
    rect = map_rect_for(area)
    layout = load_layout()
    marked = set(highlight)
    if dim_others and marked:
        # The map with every country darkened, then the marked ones from the plain map:
        # the same pixels as darkening the others cell by cell (cells never overlap),
        # for a few blits instead of one per cell.
        plain = _base_map(rect.w, rect.h)
        surface.blit(_dimmed_map(rect.w, rect.h), rect.topleft)
        local = pygame.Rect(0, 0, rect.w, rect.h)
        for code in marked:
            for x, y in layout.cells_of(code):
                cell = _cell_rect(local, layout, x, y)
                surface.blit(plain, cell.move(rect.topleft), cell)
    else:
        surface.blit(_base_map(rect.w, rect.h), rect.topleft)
    width = max(3, theme.px(0.6))
    for code in marked | ({focus} if focus else set()):
        colour = (255, 64, 64) if code == focus else (255, 255, 255)
        w = width * 2 if code == focus else width
        for x, y in layout.cells_of(code):
            cell = _cell_rect(rect, layout, x, y)
            for dx, dy, a, b in (
                (1, 0, cell.topright, cell.bottomright),
                (0, 1, cell.bottomleft, cell.bottomright),
                (-1, 0, cell.topleft, cell.bottomleft),
                (0, -1, cell.topleft, cell.topright),
            ):
                if layout.cells.get((x + dx, y + dy)) != code:
                    pygame.draw.line(surface, colour, a, b, w)
    return rect
