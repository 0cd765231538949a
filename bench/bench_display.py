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
from table.display.snapshots import _shimo
from table.display.theme import Theme
from table.games.base import Action
from table.session import run_until_idle

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


def busiest_draw(size: tuple[int, int], frames: int = 300) -> tuple[float, float, float]:
    """Median and p95 ms to draw the Shimo racing screen (4 players, sand running), and a
    baseline: filling the frame and blitting a full-screen picture."""
    s = _shimo(4)
    run_until_idle(s, until=3.0)
    s.apply(Action("press", 20.0, 1))
    s.apply(Action("press", 30.0, 2))
    surface = pygame.Surface(size)
    theme = Theme(*size)
    renderer = renderers()["ubongo_shimo"]
    times = []
    for i in range(frames):
        ctx = RenderContext(theme, 31.0 + i * 0.1)
        t = time.perf_counter()
        renderer.draw(surface, s.view(None), ctx)
        times.append((time.perf_counter() - t) * 1000)
    picture = surface.copy()
    base = []
    for _ in range(frames):
        t = time.perf_counter()
        surface.fill((0, 0, 0))
        surface.blit(picture, (0, 0))
        base.append((time.perf_counter() - t) * 1000)
    return median(times), pct(times, 95), median(base)


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
        original = runner.stations.handle_event

        def handle(event: pygame.event.Event) -> None:
            if getattr(event, "posted", None) is not None:
                handled.append(event.posted)
            original(event)

        def present() -> None:
            now = time.perf_counter()
            latencies.extend((now - p) * 1000 for p in handled)
            handled.clear()

        runner.stations.handle_event = handle  # type: ignore[method-assign]
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
        med, p95, b = busiest_draw(size)
        print(f"busiest screen draw at {size[0]}x{size[1]}: median {med:.2f} ms, p95 {p95:.2f} ms; baseline fill+blit "
              f"{b:.2f} ms; ratio {med / b:.1f}x (goal <= 4 ms median at 1920x1080)")
    waking = input_to_frame(True)
    ticking = input_to_frame(False)
    print(f"input to the flip that shows it (real loop, 60 Hz, {len(waking)} inputs): median "
          f"{median(waking):.2f} ms, p99 {pct(waking, 99):.2f} ms; baseline fixed-tick loop median "
          f"{median(ticking):.2f} ms, p99 {pct(ticking, 99):.2f} ms; ratio (p99) "
          f"{pct(waking, 99) / pct(ticking, 99):.2f} (goal: p99 within one frame, 16.7 ms)")
    print(f"static lobby over 10 s at 60 Hz: {static_redraws()} redraws (baseline: 600 frames)")


if __name__ == "__main__":
    main()
