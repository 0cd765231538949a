"""Stations and hourglass figures for docs/performance.md.

    .venv/bin/python bench/bench_hardware.py [--pairs N] [--presses N]

1. Pin edge to game input: a press edge on a gpiozero MockFactory pin, through the
   threaded gpio backend (first-edge debounce, settle + tie hold, ordering), to the
   sink - wall-clock latency, median and p99. Baseline in the same run: the bare
   gpiozero edge callback on the same mock pin.
2. The smallest press separation ordered right every time: press pairs at shrinking
   separations, delivered with up to 10 ms of random delay in either order, through
   the backend in virtual time.
3. Hourglass frame time (animation + brightness/current limit + PixelBuf encoding)
   for 60 and 300 LEDs, against the WS2812 wire time for the same count (30 us per LED).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table.hardware.buttons import Timing
from table.hardware.config import HardwareConfig, StationWiring
from table.hardware.gpio import GpioStations
from table.hardware.hourglass import HourglassState, hourglass_frame, limit_frame
from table.hardware.interfaces import HourglassLayout, StationInput
from tests.fakes.pins import VirtualClock, timed_factory
from tests.fakes.strip import RecordingStrip

TIMING = Timing(settle=0.015, tie_window=0.002, debounce=0.030)
TWO = HardwareConfig(stations=(StationWiring(button=4, knob="none"), StationWiring(button=16, knob="none")))


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def edge_to_input(presses: int) -> tuple[list[float], list[float]]:
    factory = timed_factory()
    stations = GpioStations(TWO, TIMING, pin_factory=factory)
    arrived = threading.Event()
    seen: list[float] = []

    def sink(item: StationInput) -> None:
        if item.kind == "press":
            seen.append(time.perf_counter())
            arrived.set()

    stations.start(sink)
    pin = factory.pin(4)
    latencies = []
    for _ in range(presses):
        arrived.clear()
        t0 = time.perf_counter()
        pin.edge(False, time.monotonic())
        arrived.wait(1.0)
        latencies.append(seen[-1] - t0)
        time.sleep(0.035)  # past the debounce lockout
        pin.edge(True, time.monotonic())
        time.sleep(0.035)
    stations.stop()

    # Baseline: the bare gpiozero callback on the same kind of pin.
    bare = timed_factory().pin(5)
    bare.function = "input"
    stamps: list[float] = []

    def callback(ticks: float, state: bool) -> None:
        stamps.append(time.perf_counter())

    bare.when_changed = callback  # a named function: gpiozero keeps only a weak reference
    base = []
    for k in range(presses):
        t0 = time.perf_counter()
        bare.edge(bool(k % 2), time.monotonic())
        base.append(stamps[-1] - t0)
    return latencies, base


def ordered_every_time(separation: float, pairs: int, rng: random.Random) -> bool:
    clock = VirtualClock()
    factory = timed_factory()
    stations = GpioStations(TWO, Timing(settle=0.012, tie_window=0.0, debounce=0.030),
                            pin_factory=factory, clock=clock, run_thread=False)
    got: list[StationInput] = []
    stations.start(got.append)
    pins = [factory.pin(4), factory.pin(16)]
    expected = []
    for _ in range(pairs):
        base = clock.t + 0.5
        first = rng.randrange(2)
        expected += [first, 1 - first]
        edges = [(base, first), (base + separation, 1 - first)]
        for arrival, t, s in sorted((t + rng.uniform(0, 0.010), t, s) for t, s in edges):
            clock.t = arrival
            stations.pump()
            pins[s].edge(False, t - 777.0)
        clock.t = base + 0.1
        stations.pump()
        for pin in pins:
            pin.edge(True, clock.t - 777.0)
        clock.t = base + 0.2
        stations.pump()
    stations.stop()
    return [i.station for i in got if i.kind == "press"] == expected


def frame_times(n: int, frames: int) -> tuple[float, float]:
    layout = HourglassLayout(kind="strip", count=n)
    state = HourglassState(sand_started=0.0, sand_seconds=60.0)
    strip = RecordingStrip(n)
    times = []
    for k in range(frames):
        now = 1.0 + 58.0 * k / frames
        t0 = time.perf_counter()
        frame = limit_frame(hourglass_frame(now, state, layout), 0.4, 2000)
        for i, c in enumerate(frame):
            strip[i] = c
        strip.show()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), pct(times, 99)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=2000)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, {platform.system()}")

    lat, base = edge_to_input(args.presses)
    med, p99 = statistics.median(lat), pct(lat, 99)
    bmed, bp99 = statistics.median(base), pct(base, 99)
    print(f"\n1. pin edge to game input ({args.presses} presses, hold = settle {TIMING.settle * 1e3:g} ms"
          f" + tie window {TIMING.tie_window * 1e3:g} ms)")
    print(f"   median {med * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms")
    print(f"   of which beyond the hold: median {(med - TIMING.hold) * 1e3:.2f} ms, "
          f"p99 {(p99 - TIMING.hold) * 1e3:.2f} ms")
    print(f"   baseline bare gpiozero callback: median {bmed * 1e6:.1f} us, p99 {bp99 * 1e6:.1f} us "
          f"(ratio of medians {med / bmed:.0f}x)")

    rng = random.Random(1)
    print(f"\n2. press separation ordered right every time ({args.pairs} pairs each, "
          "delivery delay up to 10 ms, either order)")
    smallest = None
    for sep in (0.002, 0.001, 0.0005, 0.0001, 0.00001, 0.000001):
        ok = ordered_every_time(sep, args.pairs, rng)
        print(f"   {sep * 1e6:8.0f} us: {'all ordered right' if ok else 'MISORDERED'}")
        if ok:
            smallest = sep
        else:
            break
    shown = f"{smallest * 1e6:g} us" if smallest else "none"
    print(f"   smallest separation ordered right every time: {shown}")

    print("\n3. hourglass frame time (animation + limit + PixelBuf), against WS2812 wire time")
    for n in (60, 300):
        fmed, fp99 = frame_times(n, 400)
        wire = 30e-6 * n
        print(f"   {n:3d} LEDs: median {fmed * 1e3:.3f} ms, p99 {fp99 * 1e3:.3f} ms;"
              f" wire {wire * 1e3:.1f} ms; ratio frame/wire {fmed / wire:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
