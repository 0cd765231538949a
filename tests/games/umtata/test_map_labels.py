"""Every name on the Umtata map sits on its country or right beside it: a tag with a
leader line touches its country (or the marker of a micro-state), in both languages, at
the table's display sizes, on the game screens' map and the full-screen one. A name far
off on a long leader line reads as a neighbour's (the Balkans, where the names are many)."""

from __future__ import annotations

import numpy as np
import pygame
import pytest

from table.common import i18n
from table.display.games.umtata.map import label_layout, map_rect_for, raster
from table.display.games.umtata.screen import map_area
from table.display.theme import Theme
from table.games.umtata.board import load_board


def _gap(rect: pygame.Rect, xs: np.ndarray, ys: np.ndarray) -> float:
    """The distance in px from ``rect`` to the nearest of the points (0: one is under it)."""
    dx = np.maximum(np.maximum(rect.left - xs, xs - (rect.right - 1)), 0)
    dy = np.maximum(np.maximum(rect.top - ys, ys - (rect.bottom - 1)), 0)
    return float(np.hypot(dx, dy).min())


@pytest.mark.heavy  # lays out and draws the map
@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_every_label_is_on_its_country_or_touches_it(size: tuple[int, int], language: str) -> None:
    pygame.init()
    i18n.set_language(language)
    try:
        board = load_board()
        for area in (map_area(Theme(*size)), map_rect_for(pygame.Rect(0, 0, *size))):
            few = max(8, area.h // 80)  # a few pixels: the gap between a tag and its coast
            layout = label_layout(area.w, area.h)
            ids = raster(area.w, area.h)
            far = []
            for label in layout.labels:
                if label.grey:
                    continue
                value = [c.id for c in board.countries].index(label.key) + 1
                ys, xs = np.nonzero(ids == value)
                gap = _gap(label.rect, xs, ys) if len(xs) else np.inf
                marker = layout.markers.get(label.key)
                if marker is not None:  # a micro-state: its marker (a disc) stands for it
                    centre = np.array([marker.centre[0]]), np.array([marker.centre[1]])
                    gap = min(gap, max(0.0, _gap(label.rect, *centre) - marker.radius))
                if label.leader_to is not None:
                    # The leader line is short: from the tag to its country, a few px.
                    end = np.array([label.leader_to[0]]), np.array([label.leader_to[1]])
                    reach = marker.radius if marker is not None and marker.centre == label.leader_to else 0
                    gap = max(gap, _gap(label.rect, *end) - reach)
                if gap > few:
                    far.append(f"{label.key} {label.text!r} {gap:.0f} px off")
            assert not far, f"{language} {area.size}: {far}"
    finally:
        i18n.set_language("en")


NEAR = [(dx / 2, dy / 2) for dx in range(-2, 5) for dy in range(-2, 5)]
"""Points of a pixel and of the pixels round it: the raster fills a country's edge pixels,
and a small country drawn over its larger neighbour's edge keeps them."""


def _inside(point: tuple[float, float], rings: list[list[tuple[float, float]]]) -> bool:
    """Whether ``point`` lies inside the shape (even-odd rule over all its rings)."""
    x, y = point
    inside = False
    for ring in rings:
        for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1], strict=True):
            if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
                inside = not inside
    return inside


@pytest.mark.heavy  # lays out the map
@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_every_label_is_anchored_inside_its_country(size: tuple[int, int], language: str) -> None:
    """Each label's anchor, the point it names (the middle of a name on its country, the
    end of a tag's leader line, a micro-state's marker), lies inside its country's
    polygon; and a tag of a country without a marker lies on its country (at least a
    tenth of the tag, or of the country if smaller; a quarter for Kosovo and Montenegro): never beside it at sea, where
    Kosovo's and Montenegro's names once stood in the Adriatic."""
    from table.display.games.umtata.map import load_map

    pygame.init()
    i18n.set_language(language)
    try:
        board = load_board()
        europe = load_map()
        for cid, shape in europe.countries.items():  # the stored anchors, in km
            assert _inside(shape.anchor, [list(r) for r in shape.rings]), cid
        for area in (map_area(Theme(*size)), map_rect_for(pygame.Rect(0, 0, *size))):
            layout = label_layout(area.w, area.h)
            ids = raster(area.w, area.h)
            off = []
            for label in layout.labels:
                if label.grey:
                    continue
                scale = layout.scale
                rings = [[(x * scale, y * scale) for x, y in r] for r in europe.countries[label.key].rings]
                anchor = label.rect.center if label.leader_to is None else label.leader_to
                marker = layout.markers.get(label.key)
                if marker is not None and anchor == marker.centre:
                    continue  # the stored anchor, checked above: a micro-state may be under a pixel
                if not any(_inside((anchor[0] + dx, anchor[1] + dy), rings) for dx, dy in NEAR):
                    off.append(f"{label.key}: anchor {anchor} outside")
                if label.leader_to is not None and marker is None:
                    value = [c.id for c in board.countries].index(label.key) + 1
                    own = ids == value
                    under = int(own[label.rect.top:label.rect.bottom, label.rect.left:label.rect.right].sum())
                    share = under / min(int(own.sum()), label.rect.w * label.rect.h)
                    # Croatia's crescent leaves its tag little room on it in German.
                    if share < (1 / 4 if label.key in ("xk", "me") else 1 / 10):
                        off.append(f"{label.key}: tag beside its country ({under} px on it)")
            assert not off, f"{language} {area.size}: {off}"
            assert {"xk", "me"} <= {lb.key for lb in layout.labels}
    finally:
        i18n.set_language("en")


@pytest.mark.heavy  # draws the map 96 times
@pytest.mark.parametrize("language", ["en", "de"])
def test_the_reveal_never_draws_over_the_answers_name(language: str) -> None:
    """The answer's thick red outline runs round its name, not through it ("Irland" once
    read "I land"): on the reveal of each of the 48, no pixel of its name is the red."""
    from table.display.games.umtata.map import FOCUS, draw_map, name_box

    pygame.init()
    i18n.set_language(language)
    try:
        size = (1280, 720)
        area = map_area(Theme(*size))
        layout = label_layout(area.w, area.h)
        crossed = []
        for c in load_board().countries:
            surface = pygame.Surface(size)
            used = draw_map(surface, area, Theme(*size), highlight=[c.id], focus=c.id, dim_others=True)
            label = next(lb for lb in layout.labels if lb.key == c.id)
            box = name_box(label).move(used.topleft)
            pixels = pygame.surfarray.array3d(surface.subsurface(box))
            if (pixels == np.array(FOCUS)).all(axis=2).any():
                crossed.append(c.id)
        assert not crossed, f"{language}: the red outline crosses the names of {crossed}"
    finally:
        i18n.set_language("en")
