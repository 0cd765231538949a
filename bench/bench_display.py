"""Display figures: start-up to the first frame, input to frame, drawing cost, static screens.

Run: python bench/bench_display.py   (headless: SDL dummy drivers)
Each figure is printed with a baseline measured in the same run and the ratio.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pygame
from _common import machine, median, pct

from table.app import Table, VirtualClock
from table.config import TableConfig
from table.display.games import RenderContext, renderers
from table.display.theme import Theme
from table.games.base import GameSetup

ROOT = Path(__file__).resolve().parent.parent

FIRST_FRAME = """
import os, sys, time
t0 = float(sys.argv[1])
os.environ["SDL_VIDEODRIVER"] = "dummy"; os.environ["SDL_AUDIODRIVER"] = "dummy"
import pygame
from table.app import Table
from table.config import load_config
from table.journal import Journal
pygame.display.init(); pygame.font.init()
config = load_config()
window = pygame.display.set_mode((config.display.width, config.display.height))
surface = pygame.Surface(window.get_size()).convert()
table = Table(config, time.monotonic, surface, Journal(sys.argv[2]))
table.resume_unfinished()
table.step(time.monotonic())
window.blit(surface, (0, 0)); pygame.display.flip()
print(time.time() - t0)
"""

BASELINE_START = "import sys, time; t0 = float(sys.argv[1]); import pygame; print(time.time() - t0)"


def startup(runs: int = 7) -> tuple[float, float]:
    firsts, bases = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            out = subprocess.run([sys.executable, "-c", FIRST_FRAME, str(time.time()), f"{tmp}/j.db"],
                                 capture_output=True, text=True, cwd=ROOT, check=True)
            firsts.append(float(out.stdout.strip().splitlines()[-1]))
            out = subprocess.run([sys.executable, "-c", BASELINE_START, str(time.time())],
                                 capture_output=True, text=True, cwd=ROOT, check=True)
            bases.append(float(out.stdout.strip().splitlines()[-1]))
    return median(firsts), median(bases)


def game_draws(size: tuple[int, int], frames: int = 150) -> dict[str, tuple[float, float]]:
    """Median and p95 ms to draw each game's screen at a busy moment: 4 stations, 60
    random legal inputs into the game (the second draw on: first-draw caches are warm)."""
    import random

    from table.autoplay import play_randomly
    from table.games import registry
    from table.session import Session

    out: dict[str, tuple[float, float]] = {}
    surface = pygame.Surface(size)
    theme = Theme(*size)
    for name, engine in registry().items():
        n = max(engine.min_stations, min(engine.max_stations, 4))
        session = Session.start(name, GameSetup(name, engine.variants[0], tuple(range(n))), 3)
        play_randomly(session, random.Random(3), max_actions=60)
        view = session.view(None)
        renderer = renderers()[name]
        renderer.draw(surface, view, RenderContext(theme, session.last_t))
        times = []
        for i in range(frames):
            ctx = RenderContext(theme, session.last_t + i * 0.1)
            t = time.perf_counter()
            renderer.draw(surface, view, ctx)
            times.append((time.perf_counter() - t) * 1000)
        out[name] = (median(times), pct(times, 95))
    return out


def blit_baseline(size: tuple[int, int], frames: int = 150) -> float:
    """Filling the frame and blitting a full-screen picture: the cheapest full redraw."""
    surface = pygame.Surface(size)
    picture = pygame.Surface(size)
    base = []
    for _ in range(frames):
        t = time.perf_counter()
        surface.fill((0, 0, 0))
        surface.blit(picture, (0, 0))
        base.append((time.perf_counter() - t) * 1000)
    return median(base)


def input_to_frame(wait_for_input: bool, samples: int = 300) -> list[float]:
    """ms from a key arriving in the event queue (another thread posts it at a random
    moment) to the display flip of the frame that shows its effect, in the real loop
    (``Runner``) at 60 Hz. ``wait_for_input=False`` is the plain fixed-tick loop."""
    import random
    import threading

    from table.commands.run import Runner
    from table.config import load_config

    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(load_config(), sim=True, headless=True, journal_path=Path(tmp) / "j.db")
        runner.wait_for_input = wait_for_input
        runner.table.attract_enabled = False
        posted: list[float] = []
        handled: list[float] = []
        latencies: list[float] = []
        original = runner.sim_stations.handle_event

        def handle(event: pygame.event.Event) -> None:
            if getattr(event, "posted", None) is not None:
                handled.append(event.posted)
            original(event)

        def present() -> None:
            now = time.perf_counter()
            latencies.extend((now - p) * 1000 for p in handled)
            handled.clear()

        runner.sim_stations.handle_event = handle  # type: ignore[method-assign]
        runner.on_present = present
        rng = random.Random(1)

        def poster() -> None:
            for _ in range(samples):
                time.sleep(rng.uniform(0.03, 0.09))
                t = time.perf_counter()
                posted.append(t)
                pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, unicode="a", mod=0,
                                                     scancode=0, posted=t))
            runner.stop = True

        thread = threading.Thread(target=poster)
        thread.start()
        runner.run(seconds=60)
        thread.join()
        runner.close()
    return latencies


def static_redraws(seconds: float = 10.0) -> int:
    clock = VirtualClock(0.0)
    table = Table(TableConfig(stations=4), clock, pygame.Surface((1920, 1080)), None, attract=False)
    table.step(0.0)
    before = table.frames_drawn
    for _ in range(int(seconds * 60)):
        clock.advance(1 / 60)
        table.step(clock.now)
    return table.frames_drawn - before


def main() -> None:
    pygame.display.init()
    pygame.font.init()
    print(f"machine: {machine()}")
    first, base = startup()
    print(f"start-up to first drawn frame: {first * 1000:.0f} ms median; baseline 'import pygame' process: "
          f"{base * 1000:.0f} ms; ratio {first / base:.1f}x (goal <= 1000 ms)")
    for size in ((1920, 1080), (1280, 720)):
        base = blit_baseline(size)
        draws = game_draws(size)
        for name, (med, p95) in sorted(draws.items(), key=lambda kv: -kv[1][0]):
            print(f"{name} screen at {size[0]}x{size[1]}: median {med:.2f} ms, p95 {p95:.2f} ms; "
                  f"ratio to fill+blit {med / base:.1f}x")
        busiest = max(draws, key=lambda k: draws[k][0])
        print(f"busiest screen at {size[0]}x{size[1]}: {busiest}, median {draws[busiest][0]:.2f} ms; baseline "
              f"fill+blit {base:.2f} ms (goal <= 4 ms median at 1920x1080)")
    waking = input_to_frame(True)
    ticking = input_to_frame(False)
    print(f"input to the flip that shows it (real loop, 60 Hz, {len(waking)} inputs): median "
          f"{median(waking):.2f} ms, p99 {pct(waking, 99):.2f} ms; baseline fixed-tick loop median "
          f"{median(ticking):.2f} ms, p99 {pct(ticking, 99):.2f} ms; ratio (p99) "
          f"{pct(waking, 99) / pct(ticking, 99):.2f} (goal: p99 within one frame, 16.7 ms)")
    print(f"static lobby over 10 s at 60 Hz: {static_redraws()} redraws (baseline: 600 frames)")


if __name__ == "__main__":
    main()
