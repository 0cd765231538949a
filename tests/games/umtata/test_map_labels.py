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
