"""The map's highlight pictures, painted the quick way (cut-outs over the dimmed map; the
labelled map repainted only around marked labels), equal a plain full drawing pixel for
pixel: every pixel's country from the raster, every marker and label drawn in order."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import itertools
import random

import numpy as np
import pygame
import pytest

import table.display.games.umtata.map as um
from table.games.umtata.board import load_board

pytestmark = pytest.mark.heavy  # draws: left out of the fast tier


def reference(width: int, height: int, marked: set[str], focus: str | None, dim: bool) -> np.ndarray:
    """The state's map drawn the slow, obvious way (no cut-outs, no labelled backdrop, no
    outline stamps)."""
    src = um._sources()
    board = load_board(src[1])
    layout = um._layout(src, width, height)
    surface = um._base(src, width, height).copy()
    everything = marked | ({focus} if focus else set())
    dim = dim and bool(everything)
    if dim:
        ids = um._raster(src, width, height)  # [y, x]
        plain = pygame.surfarray.array3d(um._base(src, width, height))
        pixels = (plain.astype(np.uint16) * 2 // 5).astype(np.uint8)
        for i, c in enumerate(board.countries):
            if c.id in everything:
                mine = (ids == i + 1).T
                pixels[mine] = plain[mine]
        pygame.surfarray.blit_array(surface, pixels)
    um._draw_labels(surface, layout, board, everything, dim)
    um._paint_outlines(surface, src, width, height, everything, focus, dim, stamps=False)
    return pygame.surfarray.array3d(surface)


@pytest.mark.parametrize("size", [(1060, 950), (700, 630)])
def test_highlights_equal_a_plain_full_drawing(size: tuple[int, int]) -> None:
    pygame.display.init()
    pygame.display.set_mode((10, 10))
    board = load_board(um._sources()[1])
    ids = [c.id for c in board.countries]
    rng = random.Random(5)
    cases: list[tuple[set[str], str | None, bool]] = [(set(), None, False)]
    cases += [(set(rng.sample(ids, k)), None, True) for k in (1, 3, 8, 16)]
    cases += [(set(), rng.choice(ids), False), (set(rng.sample(ids, 3)), rng.choice(ids), False)]
    cases += [(set(rng.sample(ids, 4)), rng.choice(ids), True)]
    for marked, focus, dim in cases:
        want = reference(*size, marked, focus, dim)
        got = pygame.surfarray.array3d(um._state(um._sources(), *size, frozenset(marked), focus, dim))
        differ = int((want != got).any(axis=2).sum())
        assert differ == 0, f"{differ} pixels differ for {sorted(marked)} focus {focus} dim {dim}"


def test_a_highlight_painted_inside_a_clip_equals_the_full_drawing_there() -> None:
    """A highlight is painted straight onto the screen, inside the clip the composer set
    (the regions :func:`um.map_damage` names): inside the clip it is the full drawing,
    outside nothing is touched; and the damage between two sectors covers every pixel
    in which their pictures differ."""
    pygame.display.init()
    pygame.display.set_mode((10, 10))
    from table.display.theme import Theme

    theme = Theme(1280, 720)
    area = pygame.Rect(30, 20, 800, 680)
    rect = um.map_rect_for(area)
    board = load_board(um._sources()[1])
    ids = [c.id for c in board.countries]
    rng = random.Random(9)
    sentinel = (1, 2, 3)
    pictures = []
    for marked in (set(rng.sample(ids, 4)), set(rng.sample(ids, 7)), {ids[0]}):
        want = reference(rect.w, rect.h, marked, None, True)
        pictures.append((marked, want))
        for _ in range(3):
            clip = pygame.Rect(rect.x + rng.randrange(rect.w // 2), rect.y + rng.randrange(rect.h // 2),
                               rng.randrange(20, rect.w // 2), rng.randrange(20, rect.h // 2))
            screen = pygame.Surface((1280, 720))
            screen.fill(sentinel)
            screen.set_clip(clip)
            um.draw_map(screen, area, theme, highlight=marked, dim_others=True)
            screen.set_clip(None)
            got = pygame.surfarray.array3d(screen)
            inside = got[clip.left:clip.right, clip.top:clip.bottom]
            expect = want[clip.left - rect.x:clip.right - rect.x, clip.top - rect.y:clip.bottom - rect.y]
            assert int((inside != expect).any(axis=2).sum()) == 0, f"{sorted(marked)} differs inside {clip}"
            outside = got.copy()
            outside[clip.left:clip.right, clip.top:clip.bottom] = sentinel
            assert (outside == sentinel).all(), "painted outside the clip"
    for (before, old), (after, new) in itertools.pairwise(pictures):
        covered = np.zeros(old.shape[:2], dtype=bool)
        for damage in um.map_damage(area, before, after) or []:
            d = damage.move(-rect.x, -rect.y).clip(pygame.Rect(0, 0, rect.w, rect.h))
            covered[d.left:d.right, d.top:d.bottom] = True
        differ = (old != new).any(axis=2)
        assert not (differ & ~covered).any(), f"{int((differ & ~covered).sum())} changed pixels outside the damage"
    assert um.map_damage(area, {"de", "fr"}, {"fr", "de"}) == []
    assert um.map_damage(area, {"de"}, set()) is None  # an empty sector shows the map undimmed


def test_the_focus_draws_only_inside_the_rect_it_declares() -> None:
    """The knob's focus is a part of its own: everything it draws (its outline and the
    names it crosses, leader lines included) lies inside :func:`um.focus_rect`."""
    pygame.display.init()
    pygame.display.set_mode((10, 10))
    board = load_board(um._sources()[1])
    area = pygame.Rect(40, 30, 900, 660)
    sentinel = (255, 0, 255)
    for sector in range(16):
        countries = [c.id for c in board.in_sector(sector)]
        for focus in countries:
            screen = pygame.Surface((1280, 720))
            screen.fill(sentinel)
            um.draw_focus(screen, area, focus, countries)
            drawn = (pygame.surfarray.array3d(screen) != sentinel).any(axis=2)
            declared = um.focus_rect(area, focus, countries)
            inside = np.zeros_like(drawn)
            inside[declared.left:declared.right, declared.top:declared.bottom] = True
            assert not (drawn & ~inside).any(), f"{focus} draws outside {declared}"
