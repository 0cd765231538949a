"""Umtata timings: drawing the map screen at 1920x1080, and from the last station
acting to the reveal screen being drawn.

Run: SDL_VIDEODRIVER=dummy python bench/bench_umtata.py
Baseline (same run): copying one full 1920x1080 frame (``Surface.blit``), the least a
frame costs; figures are printed in milliseconds and as a ratio to it.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pygame

from table.display.games import RenderContext
from table.display.games.umtata import RENDERER
from table.display.theme import Theme
from table.display.umtata_map import _base_map, draw_map, map_rect_for
from table.games.base import Action
from table.games.umtata.engine import ENGINE
from tests.umtata.conftest import guess, sector, tataaa
from tests.umtata.screens import phases

SIZE = (1920, 1080)


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and worst time of ``fn`` in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    pygame.init()
    theme = Theme(*SIZE)
    screen = pygame.Surface(SIZE)
    frame = pygame.Surface(SIZE)
    base, _ = timed(lambda: screen.blit(frame, (0, 0)), 200)

    area = pygame.Rect(0, 0, *SIZE)
    rect = map_rect_for(area)
    _base_map.cache_clear()
    start = time.perf_counter()
    draw_map(screen, area, theme)
    cold = (time.perf_counter() - start) * 1000
    warm, warm_max = timed(lambda: draw_map(screen, area, theme), 100)

    guess_state = phases()["guess_start"]
    view = ENGINE.view(guess_state, None)
    ctx = RenderContext(theme, 0.0)
    screen_med, screen_max = timed(lambda: RENDERER.draw(screen, view, ctx), 50)

    # Last station acts -> engine applies -> view -> reveal screen drawn.
    s = tataaa(guess_state, 1, 1.0)
    s = guess(s, 0, "es", 2.0)
    s = guess(s, 2, "gr", 3.0)
    s = guess(s, 3, "no", 3.5)
    s = ENGINE.apply(s, Action("turn", 4.0, 1, {"sector": sector("it"), "sectors": 16}))
    s = ENGINE.apply(s, Action("push", 4.5, 1))
    s = ENGINE.apply(s, Action("turn", 5.0, 1, {"delta": 1}))
    last = Action("push", 5.5, 1)

    def to_reveal() -> None:
        state = ENGINE.apply(s, last)
        RENDERER.draw(screen, ENGINE.view(state, None), ctx)

    reveal_med, reveal_max = timed(to_reveal, 50)
    assert ENGINE.apply(s, last).phase == "reveal"

    driver = os.environ["SDL_VIDEODRIVER"]
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, SDL driver {driver}")
    print(f"baseline: one full-frame blit at {SIZE[0]}x{SIZE[1]}: {base:.3f} ms")
    print(
        f"map {rect.w}x{rect.h}, first draw (tiles and labels rendered once): {cold:.1f} ms"
        f" = {cold / base:.0f}x baseline"
    )
    print(
        f"map, later draws (cached base): median {warm:.2f} ms, max {warm_max:.2f} ms"
        f" = {warm / base:.1f}x baseline"
    )
    print(
        f"whole question screen: median {screen_med:.1f} ms, max {screen_max:.1f} ms"
        f" = {screen_med / base:.1f}x baseline"
    )
    print(
        f"last station acts -> reveal screen drawn: median {reveal_med:.1f} ms, max {reveal_max:.1f} ms"
        f" = {reveal_med / base:.1f}x baseline"
    )


if __name__ == "__main__":
    main()
