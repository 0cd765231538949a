"""How long the Ubongo gem board takes to draw, against a plain fill+blit of the same size.

Run from the project root:  SDL_VIDEODRIVER=dummy python bench/bench_ubongo.py [--frames N]

Prints, per display size, the median milliseconds per frame of
  baseline  - fill a surface and blit a full-size surface onto it (the least any frame costs)
  board     - the gem board (72 gem places, figures, reach marks, legend)
  screen    - the whole Ubongo screen mid-round (board, die, hourglass, panels, flying gems)
and each as a ratio to the baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "games" / "ubongo"))

import pygame  # noqa: E402
from make_ubongo_screens import SHOTS  # noqa: E402

from table.display.games import RenderContext  # noqa: E402
from table.display.games.ubongo.screen import RENDERER  # noqa: E402
from table.display.theme import Theme  # noqa: E402


def median_ms(work: Callable[[], None], frames: int) -> float:
    work()  # warm caches (fonts, glyphs) outside the timing
    times = []
    for _ in range(frames):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60, help="frames timed per figure (default 60)")
    args = parser.parse_args()
    if args.frames < 1:
        parser.error("--frames must be at least 1")
    pygame.init()
    table, now = SHOTS["4-sand-moving"]()
    view = table.view()
    print(f"Ubongo gem board, {args.frames} frames each, median ms/frame "
          f"(Python {platform.python_version()}, {platform.machine()}, pygame-ce {pygame.version.ver})")
    for w, h in ((1920, 1080), (1280, 720)):
        surface = pygame.Surface((w, h))
        picture = pygame.Surface((w, h))
        picture.fill((40, 60, 80))
        ctx = RenderContext(Theme(w, h), now)

        def baseline(surface: pygame.Surface = surface, picture: pygame.Surface = picture) -> None:
            surface.fill((16, 20, 32))
            surface.blit(picture, (0, 0))

        def board(surface: pygame.Surface = surface, ctx: RenderContext = ctx) -> None:
            surface.fill((16, 20, 32))
            RENDERER.draw_gem_board(surface, view, ctx)

        def screen(surface: pygame.Surface = surface, ctx: RenderContext = ctx) -> None:
            RENDERER.draw(surface, view, ctx)

        base = median_ms(baseline, args.frames)
        b = median_ms(board, args.frames)
        s = median_ms(screen, args.frames)
        print(f"{w}x{h}: baseline {base:.2f} ms | board {b:.2f} ms ({b / base:.1f}x) | "
              f"screen {s:.2f} ms ({s / base:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
