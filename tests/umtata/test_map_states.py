"""The map's highlight pictures, painted the quick way (cut-outs over the dimmed map; the
labelled map repainted only around marked labels), equal a plain full drawing pixel for
pixel: every pixel's country from the raster, every marker and label drawn in order."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import random

import numpy as np
import pygame
import pytest

import table.display.umtata_map as um
from table.games.umtata.board import load_board


def reference(width: int, height: int, marked: set[str], focus: str | None, dim: bool) -> np.ndarray:
    """The state's map drawn the slow, obvious way (no cut-outs, no labelled backdrop)."""
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
    um._paint_outlines(surface, src, width, height, everything, focus, dim)
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
