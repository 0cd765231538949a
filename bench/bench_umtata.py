"""Umtata timings: drawing the map of Europe and the map screen at 1920x1080, how the map's
cost depends on its detail, and from the last station acting to the reveal screen drawn.

Run: SDL_VIDEODRIVER=dummy python bench/bench_umtata.py
Baseline (same run): copying one full 1920x1080 frame (``Surface.blit``), the least a
frame costs; figures are printed in milliseconds and as a ratio to it.

Detail: the shipped map asset is copied with every polygon edge cut into 1, 4 and 16
pieces (points x1, x4, x16) into a config directory of its own, and for each the first
draw (all layers built) and the later frames are timed. Later frames blit the cached
picture, so their cost must stay flat while the first draw grows with the points.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
# The scenario helpers live with the tests; the table itself is imported as installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import pygame
from games.umtata.conftest import guess, sector, tataaa
from games.umtata.screens import phases

from table.common.datafiles import data_file, use_config_dir
from table.display.games import RenderContext
from table.display.games.umtata.map import MAP_FILE, draw_map
from table.display.games.umtata.screen import RENDERER, map_area
from table.display.theme import Theme
from table.games.base import Action
from table.games.umtata.engine import ENGINE

SIZE = (1920, 1080)


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and worst time of ``fn`` in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def densified(asset: dict[str, Any], pieces: int) -> tuple[dict[str, Any], int]:
    """The asset with every ring edge cut into ``pieces`` (same shapes, more points)."""

    def ring(flat: list[int]) -> list[float]:
        pts = list(zip(flat[::2], flat[1::2], strict=True))
        out: list[float] = []
        for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
            for k in range(pieces):
                out += [x0 + (x1 - x0) * k / pieces, y0 + (y1 - y0) * k / pieces]
        return out

    copy = json.loads(json.dumps(asset))
    points = 0
    for shape in [*copy["countries"].values(), *copy["grey"]]:
        shape["rings"] = [ring(r) for r in shape["rings"]]
        points += sum(len(r) // 2 for r in shape["rings"])
    return copy, points


def detail_figures(theme: Theme, screen: pygame.Surface) -> list[tuple[int, float, float, float]]:
    """(points, first draw ms, later frames median ms, later frames worst ms) per detail."""
    asset = json.loads(data_file(MAP_FILE).read_text(encoding="utf-8"))
    area = map_area(theme)
    details = (1, 4, 16)
    folders: dict[int, Path] = {}
    points: dict[int, int] = {}
    cold: dict[int, float] = {}
    frames: dict[int, list[float]] = {d: [] for d in details}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for pieces in details:
                folders[pieces] = Path(tmp) / f"x{pieces}"
                (folders[pieces] / "umtata").mkdir(parents=True)
                dense, points[pieces] = densified(asset, pieces)
                (folders[pieces] / MAP_FILE).write_text(json.dumps(dense), encoding="utf-8")
                use_config_dir(folders[pieces])
                start = time.perf_counter()
                draw_map(screen, area, theme)
                cold[pieces] = (time.perf_counter() - start) * 1000
            # Later frames in interleaved rounds, so that a busy moment of the shared
            # machine falls on every detail alike.
            for _ in range(10):
                for pieces in details:
                    use_config_dir(folders[pieces])
                    for _ in range(30):
                        start = time.perf_counter()
                        draw_map(screen, area, theme)
                        frames[pieces].append((time.perf_counter() - start) * 1000)
        finally:
            use_config_dir(None)
    return [(points[d], cold[d], statistics.median(frames[d]), max(frames[d])) for d in details]


def main() -> None:
    pygame.init()
    theme = Theme(*SIZE)
    screen = pygame.Surface(SIZE)
    frame = pygame.Surface(SIZE)
    base, _ = timed(lambda: screen.blit(frame, (0, 0)), 200)

    area = map_area(theme)
    start = time.perf_counter()
    draw_map(screen, area, theme)
    cold = (time.perf_counter() - start) * 1000
    warm, warm_max = timed(lambda: draw_map(screen, area, theme), 200)
    start = time.perf_counter()
    draw_map(screen, area, theme, highlight=["it", "ba", "xk"], focus="it", dim_others=True)
    first_state = (time.perf_counter() - start) * 1000
    states = []
    for ids in (["en", "is", "no"], ["fr", "nl", "at"], ["ru", "bg", "hu"], ["lu", "li", "mc"], ["gr", "hr", "mt"]):
        start = time.perf_counter()
        draw_map(screen, area, theme, highlight=ids, dim_others=True)
        states.append((time.perf_counter() - start) * 1000)
    new_state = statistics.median(states)

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
    details = detail_figures(theme, screen)

    driver = os.environ["SDL_VIDEODRIVER"]
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, SDL driver {driver}")
    print(f"baseline: one full-frame blit at {SIZE[0]}x{SIZE[1]}: {base:.3f} ms")
    print(f"map {area.w}x{area.h}, first draw (raster, colours, patterns, labels built once): {cold:.0f} ms"
          f" = {cold / base:.0f}x baseline")
    print(f"map, later frames (the cached picture blitted): median {warm:.2f} ms, max {warm_max:.2f} ms"
          f" = {warm / base:.1f}x baseline")
    print(f"map, first highlight (builds the dimmed layer): {first_state:.0f} ms; each further new highlight "
          f"(a knob sector, the answer) composed once: median {new_state:.0f} ms of {len(states)}")
    print(f"whole question screen: median {screen_med:.1f} ms, max {screen_max:.1f} ms"
          f" = {screen_med / base:.1f}x baseline")
    print(f"last station acts -> reveal screen drawn: median {reveal_med:.1f} ms, max {reveal_max:.1f} ms"
          f" = {reveal_med / base:.1f}x baseline")
    first_points, _, first_warm, _ = details[0]
    for points, d_cold, d_warm, d_worst in details:
        print(f"map detail {points} points ({points / first_points:.0f}x): first draw {d_cold:.0f} ms, "
              f"later frames median {d_warm:.3f} ms (max {d_worst:.2f}) = {d_warm / base:.2f}x baseline, "
              f"{d_warm / first_warm:.2f}x the shipped detail's")


if __name__ == "__main__":
    main()
