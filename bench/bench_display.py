"""Display figures: the cost of every screen's frames, input to flip, and a press to
its acknowledgement on the display.

Run: python bench/bench_display.py [--quick | --ack]   (headless: SDL dummy drivers;
--quick: calibration and frame costs only, under a minute; --ack: the acknowledgement
figures only, under a minute; the full run has all, about 3 minutes). Start-up and the
idle loop's CPU use are bench/bench_kiosk.py's.

Each figure is printed with a baseline measured in the same run and the ratio: frame
costs against filling a full screen and blitting a full-screen picture onto it (the
cheapest possible full redraw), at 1920x1080 and 1280x720.
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
from _common import machine, median, pct, per_core

from table.common.config import TableConfig
from table.display.games import renderers
from table.display.theme import Theme
from table.games.base import GameSetup
from table.loop.app import Table
from table.play.clock import VirtualClock

ROOT = Path(__file__).resolve().parent.parent

cost_clock = time.thread_time
"""What a frame costs is the CPU time the drawing thread spends on it: on a shared
machine, wall time would also count the moments another process held the core (the
p99 columns of earlier runs were mostly that). The baseline is timed the same way."""

def blit_baseline(size: tuple[int, int], frames: int = 150) -> list[float]:
    """Filling the frame and blitting a full-screen picture: the cheapest full redraw (ms)."""
    surface = pygame.Surface(size)
    picture = pygame.Surface(size)
    base = []
    for _ in range(frames):
        t = cost_clock()
        surface.fill((0, 0, 0))
        surface.blit(picture, (0, 0))
        base.append((cost_clock() - t) * 1000)
    return base


def python_loop(n: int = 200_000) -> float:
    """Calibration: ms for a pure-Python loop (interpreter speed, what parts and keys cost)."""
    t = cost_clock()
    total = 0
    for i in range(n):
        total += i * i % 7
    return (cost_clock() - t) * 1000


def calibration(runs: int = 15) -> tuple[float, float]:
    """Median ms of the pure-Python loop and of a 1920x1080 fill + blit (memory bound)."""
    loops = [python_loop() for _ in range(runs)]
    blits = blit_baseline((1920, 1080), 60)
    return median(loops), median(blits)


Phase = tuple[str, str]  # (game, screen)


def prepare(size: tuple[int, int]) -> list[float]:
    """What an idle table builds ahead for this size (``preparations``), step by step (ms
    of each). The frame figures come after it, as on a table that was left alone for a
    moment before its first game: else the first frame of each game to need a layer
    pays for building it (Umtata's first highlight: about 0.1 s here)."""
    from table.display.games import preparations

    steps = []
    work = preparations(Theme(*size))
    while True:
        t = cost_clock()
        if next(work, StopIteration) is StopIteration:
            return steps
        steps.append((cost_clock() - t) * 1000)


def game_frames(size: tuple[int, int], seeds: tuple[int, ...] = (1, 2, 3), actions: int = 80,
                ) -> dict[Phase, tuple[list[float], list[float], list[float]]]:
    """Per game and screen (its phase): ms of steady frames, of state changes within the
    screen, and of entering it.

    Each game is played by random legal inputs (fixed seeds, four stations, a pause or
    undo now and then). After each input the frame that shows it is timed (the parts
    and the repaint; the engine's view is computed before the clock starts): a *state
    change*, or *entering* the screen when the phase (or the pause) changed with it.
    Then frames follow every 1/60 s of game time until the next input, and each that
    repaints something (the sand, a timer, flying gems) is timed as a *steady* frame."""
    import random

    from table.display.layers import Composer
    from table.games import registry
    from table.play.autoplay import next_random_action
    from table.play.session import Session

    out: dict[Phase, tuple[list[float], list[float], list[float]]] = {}
    theme = Theme(*size)
    surface = pygame.Surface(size)
    for name, engine in registry().items():
        renderer = renderers()[name]
        for seed in seeds:
            composer = Composer()
            n = max(engine.min_stations, min(engine.max_stations, 4))
            variant = engine.variants[seed % len(engine.variants)]
            session = Session.start(name, GameSetup(name, variant, tuple(range(n))), seed)
            rng = random.Random(seed)
            composer.compose(surface, renderer.parts(session.view(None), theme), 0.0)
            shown = ""
            for _ in range(actions):
                if session.is_over():
                    break
                action = next_random_action(session, rng, mean_gap=2.0, meta_rate=0.02)
                if action is None:
                    break
                session.apply(action)
                view = session.view(None)
                phase = str(view.get("phase", "-")) + (" (paused)" if session.paused else "")
                steady, change, enter = out.setdefault((name, phase), ([], [], []))
                now = session.last_t
                t = cost_clock()
                parts = renderer.parts(view, theme, session.paused)
                composer.compose(surface, parts, now)
                costs = change if phase == shown else enter
                costs.append((cost_clock() - t) * 1000)
                shown = phase
                deadline = session.deadline()
                swept = 0
                while composer.pending and (deadline is None or now + (swept + 1) / 60 < deadline):
                    # The frames that finish a sweep paint the same change: they count with it.
                    swept += 1
                    t = cost_clock()
                    composer.compose(surface, parts, now + swept / 60)
                    costs.append((cost_clock() - t) * 1000)
                if session.paused:
                    continue
                for k in range(swept + 1, 91):
                    at = now + k / 60
                    if deadline is not None and at >= deadline:
                        break
                    t = cost_clock()
                    dirty = composer.compose(surface, parts, at)
                    spent = (cost_clock() - t) * 1000
                    if dirty:
                        steady.append(spent)
    return out


def shell_frames(size: tuple[int, int]) -> dict[str, tuple[list[float], list[float]]]:
    """The table's own screens through the real loop (virtual clock): the lobby's state
    changes (turns, pushes, joins), the table menu over a running game, attract mode."""
    from table.display.screens import AttractScreen
    from table.games.base import Action
    from table.loop.app import ScriptedInputs

    out: dict[str, tuple[list[float], list[float]]] = {}
    clock = VirtualClock(100.0)
    inputs = ScriptedInputs()
    table = Table(TableConfig(stations=4), clock, pygame.Surface(size), None, inputs=[inputs], attract=False,
                  seed_source=lambda: 5)

    def frames(screen: str, seconds: float) -> None:
        steady, change = out.setdefault(screen, ([], []))
        for _ in range(round(seconds * 60)):
            clock.advance(1 / 60)
            had_input = bool(inputs.pending and inputs.pending[0].t <= clock.now)
            sweeping = bool(table.composer.pending)  # this frame finishes a change's sweep
            t = cost_clock()
            drawn = table.step(clock.now)
            spent = (cost_clock() - t) * 1000
            if had_input or (sweeping and drawn):
                change.append(spent)
            elif drawn:
                steady.append(spent)

    table.step(clock.now)
    t0 = clock.now
    # The cursor walks over the game, variant, level and colour lines and back, never to
    # "language" or "start": the lobby's own frames, not a game it starts.
    deltas = iter([1, 1, 1, -1, -1, -1] * 4)
    for k in range(40):
        kind = ("turn", "push", "press", "turn")[k % 4]
        value = {"delta": next(deltas)} if kind == "turn" else None
        inputs.add(Action(kind, t0 + 0.25 * (k + 1), k % 4, value))
    frames("lobby", 11.0)
    if table.session is not None:
        raise RuntimeError("the lobby's scripted inputs started a game: the lobby's figures would be the game's")
    table.lobby.settings.joined = [0, 1, 2, 3]
    table.start_game(GameSetup("ubongo_shimo", "running-sand", (0, 1, 2, 3)), seed=5)
    frames("-", 0.5)
    t0 = clock.now
    inputs.add(Action("long_push", t0 + 0.1, 0))
    inputs.add(*(Action("turn", t0 + 0.3 + 0.2 * k, 0, {"delta": 1}) for k in range(30)))
    frames("table menu", 7.0)
    table.leave_game()
    table.push_screen(AttractScreen(table, table.theme, clock.now, seed=5))
    frames("attract", 30.0)
    return out


def input_to_frame(wait_for_input: bool, samples: int = 300) -> list[float]:
    """ms from an input arriving (another thread queues a station press at a random
    moment and wakes the loop, as the stations' input threads do) to the display flip of
    the frame that shows its effect, in the real loop (``Runner``) at 60 Hz.
    ``wait_for_input=False`` is the plain fixed-tick loop."""
    import random
    import threading

    from table.common.config import load_config
    from table.kiosk.runner import Runner, wake

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
                wake()  # as a station's input thread does when it queues a press
            runner.stop = True

        thread = threading.Thread(target=poster)
        thread.start()
        runner.run(seconds=60)
        thread.join()
        runner.close()
    return latencies


def acknowledgement(wait: bool, samples: int = 300) -> tuple[list[float], int]:
    """ms from a station press arriving (queued by another thread that wakes the loop)
    to the display flip of the first frame drawn after it, in the real loop at 60 Hz:
    the frame that shows the press's flash at the station's place (a join or a leave in
    the lobby) or, with ``wait``, its "Wait" (the table held as right after a change of
    screen, so that every press is dropped and answered by the sign). Returns the
    latencies and how many signs the table showed."""
    import random
    import threading

    from table.common.config import load_config
    from table.kiosk.runner import Runner, wake

    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(load_config(), sim=True, headless=True, journal_path=Path(tmp) / "j.db")
        runner.wait_for_input = True
        table = runner.table
        table.attract_enabled = False
        if wait:
            table._settle_until = float("inf")  # every station input is meant for the screen before
        signs = [0]
        shown = table.show_wait if wait else table.press_counted

        def sign(station: int, t: float) -> None:
            signs[0] += 1
            shown(station, t)

        if wait:
            table.show_wait = sign  # type: ignore[method-assign]
        else:
            table.press_counted = sign  # type: ignore[method-assign]
        pending: list[tuple[float, int]] = []  # (posted, frames drawn when it was taken)
        latencies: list[float] = []
        original = runner.sim_stations.handle_event

        def handle(event: pygame.event.Event) -> None:
            if getattr(event, "posted", None) is not None:
                pending.append((event.posted, table.frames_drawn))
            original(event)

        def present() -> None:
            now = time.perf_counter()
            done = [p for p in pending if table.frames_drawn > p[1]]
            latencies.extend((now - posted) * 1000 for posted, _ in done)
            pending[:] = [p for p in pending if p not in done]

        runner.sim_stations.handle_event = handle  # type: ignore[method-assign]
        runner.on_present = present
        rng = random.Random(2)

        def poster() -> None:
            for _ in range(samples):
                time.sleep(rng.uniform(0.03, 0.09))
                t = time.perf_counter()
                pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_1, unicode="1", mod=0,
                                                     scancode=0, posted=t))  # station 1's button
                wake()
            runner.stop = True

        thread = threading.Thread(target=poster)
        thread.start()
        runner.run(seconds=60)
        thread.join()
        runner.close()
    return latencies, signs[0]


def acknowledgement_figures() -> None:
    """Press to acknowledgement (the flash, the "Wait"), while another process keeps one
    core busy, beside a 1920x1080 fill + blit of the same run."""
    base = blit_baseline((1920, 1080), 300)
    spinner = busy_core()
    try:
        flash, flashes = acknowledgement(False)
        wait, waits = acknowledgement(True)
    finally:
        spinner.kill()
        spinner.wait()
    base += blit_baseline((1920, 1080), 300)
    print(f"press to acknowledgement drawn and flipped (real loop, 60 Hz, one core kept busy by another process); "
          f"baseline 1920x1080 fill + blit, same run: median {median(base):.2f} ms, p99 {pct(base, 99):.2f} ms")
    print("| acknowledgement | presses | signs shown | median ms | p99 ms | p99 / fill+blit p99 | goal |")
    print("|---|---|---|---|---|---|---|")
    for name, values, shown in (("flash (a join in the lobby)", flash, flashes),
                                ('"Wait" (a press dropped as the screen changed)', wait, waits)):
        p99 = pct(values, 99)
        print(f"| {name} | {len(values)} | {shown} | {median(values):.2f} | {p99:.2f} | "
              f"{p99 / pct(base, 99):.1f}x | p99 <= 16.7 ms: {'met' if p99 <= 1000 / 60 else 'NOT met'} |")


def static_redraws(seconds: float = 10.0) -> int:
    clock = VirtualClock(0.0)
    table = Table(TableConfig(stations=4), clock, pygame.Surface((1920, 1080)), None, attract=False)
    table.step(0.0)
    before = table.frames_drawn
    for _ in range(int(seconds * 60)):
        clock.advance(1 / 60)
        table.step(clock.now)
    return table.frames_drawn - before


def busy_core() -> subprocess.Popen[bytes]:
    """Another process that keeps one core busy (a pure-Python spin)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="frame costs and calibration only (no 60 s runs)")
    parser.add_argument("--ack", action="store_true", help="press to acknowledgement only")
    args = parser.parse_args()
    pygame.display.init()
    pygame.font.init()
    print(f"machine: {machine()}")
    print(per_core())
    if args.ack:
        acknowledgement_figures()
        return
    loop_ms, blit_ms = calibration()
    print(f"calibration: pure-Python loop (200,000 steps) {loop_ms:.1f} ms; 1920x1080 fill + blit "
          f"{blit_ms:.2f} ms")
    for size in ((1920, 1080), (1280, 720)):
        base_samples = blit_baseline(size)
        steps = prepare(size)
        print(f"\n{size[0]}x{size[1]}: preparing the games' layers ahead (the table does it while idle, a step "
              f"per wake): {len(steps)} steps, {sum(steps):.0f} ms in all, the longest {max(steps):.0f} ms")
        frames = game_frames(size)
        shell = shell_frames(size)
        base_samples += blit_baseline(size)
        base = median(base_samples)
        print(f"\n{size[0]}x{size[1]}: baseline full-screen fill + blit {base:.3f} ms (median of "
              f"{len(base_samples)}, before and after); goals: steady <= 1.5x, state change <= 4x (medians)")
        print("| game | screen | steady frames: n, median / p99 ms (x fill+blit) | state changes in the screen: "
              "n, median / p99 | entering the screen: n, median / p99 |")
        print("|---|---|---|---|---|")
        rows = [(game, phase, st, ch, en) for (game, phase), (st, ch, en) in sorted(frames.items())]
        rows += [("table", screen, st, ch, []) for screen, (st, ch) in shell.items() if screen != "-"]
        worst = {"steady": 0.0, "change": 0.0, "enter": 0.0}

        def cell(values: list[float], kind: str, base: float = base, worst: dict[str, float] = worst) -> str:
            if not values:
                return "-"
            worst[kind] = max(worst[kind], median(values) / base)
            return (f"{len(values)}, {median(values):.2f} / {pct(values, 99):.2f} "
                    f"({median(values) / base:.2f}x / {pct(values, 99) / base:.2f}x)")

        for game, phase, st, ch, en in rows:
            print(f"| {game} | {phase} | {cell(st, 'steady')} | {cell(ch, 'change')} | {cell(en, 'enter')} |")
        print(f"worst median at {size[0]}x{size[1]}: steady {worst['steady']:.2f}x, state change in a screen "
              f"{worst['change']:.2f}x, entering a screen {worst['enter']:.2f}x of fill+blit")
    if args.quick:
        return
    waking = input_to_frame(True)
    ticking = input_to_frame(False)
    print(f"input to the flip that shows it (real loop, 60 Hz, {len(waking)} inputs): median "
          f"{median(waking):.2f} ms, p99 {pct(waking, 99):.2f} ms; baseline fixed-tick loop median "
          f"{median(ticking):.2f} ms, p99 {pct(ticking, 99):.2f} ms; ratio (p99) "
          f"{pct(waking, 99) / pct(ticking, 99):.2f} (goal: p99 within one frame, 16.7 ms)")
    spinner = busy_core()
    try:
        loaded = input_to_frame(True)
        loaded_ticking = input_to_frame(False)
    finally:
        spinner.kill()
        spinner.wait()
    print(f"... the same while another process keeps one core busy: median {median(loaded):.2f} ms, p99 "
          f"{pct(loaded, 99):.2f} ms; baseline fixed-tick loop, same busy core: median "
          f"{median(loaded_ticking):.2f} ms, p99 {pct(loaded_ticking, 99):.2f} ms; ratio (p99) "
          f"{pct(loaded, 99) / pct(loaded_ticking, 99):.2f} (goal: p99 within 16.7 ms)")
    print(f"static lobby over 10 s at 60 Hz: {static_redraws()} redraws (baseline: 600 frames)")
    acknowledgement_figures()


if __name__ == "__main__":
    main()
