"""What the celebrations cost per frame, against a full-screen fill + blit in the same run.

    SDL_VIDEODRIVER=dummy .venv/bin/python bench/bench_celebrations.py [--size 1920x1080]

Through the real table loop (headless, virtual clock) each game is played until a
moment of each kind starts ("first", "round", "final"); then every frame of the moment
is timed (the loop's step, which composes and paints only what changed), and as many
frames of the same screen just after the moment ended. The baseline is the cheapest
full redraw: filling the frame and blitting one full-screen picture. Times are the
drawing thread's CPU time, so other processes on a shared machine do not count.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
from _common import machine, median, pct

from table.display.moments import DURATIONS
from table.display.screens import GameScreen
from table.games import registry
from table.loop.snapshots import CELEBRATED, walk_until

FPS = 30.0


def cost_clock() -> float:
    return time.thread_time()


def blit_baseline(size: tuple[int, int], frames: int = 150) -> list[float]:
    surface = pygame.Surface(size)
    picture = pygame.Surface(size)
    out = []
    for _ in range(frames):
        t = cost_clock()
        surface.fill((0, 0, 0))
        surface.blit(picture, (0, 0))
        out.append((cost_clock() - t) * 1000)
    return out


def moment_frames(game: str, kind: str, size: tuple[int, int]) -> tuple[list[float], list[float]] | None:
    """ms per loop step during the moment, and for as many steps after it."""

    def showing(table: object) -> bool:
        screen = next((s for s in table.screens if isinstance(s, GameScreen)), None)  # type: ignore[attr-defined]
        return screen is not None and any(m.kind == kind for m in screen.moments)

    found = walk_until(game, pygame.Surface(size), showing)
    if found is None or not showing(found[0]):
        return None
    table, clock, _ = found
    during: list[float] = []
    after: list[float] = []
    steps = int(DURATIONS[kind] * FPS)
    for k in range(2 * steps + 2):
        clock.advance(1 / FPS)
        t = cost_clock()
        table.step(clock.now)
        ms = (cost_clock() - t) * 1000
        if k < steps - 1:
            during.append(ms)
        elif k > steps + 1:
            after.append(ms)
    return during, after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="1920x1080")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    pygame.display.init()
    pygame.font.init()
    base = median(blit_baseline((w, h)))
    print(f"machine: {machine()}; size {w}x{h}; baseline fill+blit {base:.2f} ms")
    print(f"{'game':14} {'moment':7} {'during p50':>10} {'p95':>7} {'after p50':>10} {'p50/base':>9} {'p95/base':>9}")
    for game in registry():
        for kind in CELEBRATED:
            got = moment_frames(game, kind, (w, h))
            if got is None:
                continue
            during, after = got
            print(f"{game:14} {kind:7} {median(during):10.2f} {pct(during, 95):7.2f} {median(after):10.2f} "
                  f"{median(during) / base:9.2f} {pct(during, 95) / base:9.2f}")


if __name__ == "__main__":
    main()
