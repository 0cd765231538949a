"""Serial I/O bridge figures for docs/performance.md, on the firmware test bench.

    .venv/bin/python bench/bench_bridge.py [--pairs N] [--seed S]

Press pairs 1 ms apart (bouncy, random order) through the firmware's logic on the
simulated Pico and the table's real SerialBridge, in virtual time, while the table
animates the LED strip. For each strip size and frame rate, two strip drivers:

* ``pio``: the firmware's PIO + DMA driver - interrupts stay on, the main loop pays
  about 3 us per pixel to pack the frame;
* ``blanking``: a driver that switches interrupts off for 30 us per pixel while it
  writes (MicroPython's neopixel module), so edges during a frame are stamped at its end.

Printed: the share of pairs that came out wrong (swapped, or tied although 1 ms
apart), lost and doubled presses, and the bench's own speed. The baseline, measured
in the same run, is the same pairs with no LEDs at all.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the bench's fakes

from fakes.pico import Rig, one_ms_pairs
from fakes.presses import misordered_pairs

from bench._common import machine
from table.hardware.buttons import Timing

TWO = [{"button": 2, "led": 3}, {"button": 7, "led": 8}]
TIMING = Timing(settle=0.015, tie_window=0.0005, debounce=0.030)


def run(pairs: int, seed: int, leds: int, fps: float, blackout: float) -> tuple[float, int, int, float]:
    rig = Rig(TWO, seed=seed, timing=TIMING, leds=leds, fps=fps, blackout_per_led_us=blackout)
    started = time.perf_counter()
    made = one_ms_pairs(rig, [2, 7], pairs)
    took = time.perf_counter() - started
    misordered, lost, doubled = misordered_pairs(made, rig.presses())
    tied = rig.bridge.diagnostics()["ties"] // 2
    return 100.0 * (misordered + tied) / pairs, lost, doubled, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"machine: {machine()}; {args.pairs} pairs 1 ms apart per row")
    base = run(args.pairs, args.seed, 0, 30.0, 0.0)
    print(f"{'strip':<22} {'driver':<9} {'wrong %':>8} {'lost':>5} {'doubled':>8} {'bench s':>8} {'vs no LEDs':>10}")
    print(f"{'no LEDs (baseline)':<22} {'-':<9} {base[0]:8.2f} {base[1]:5d} {base[2]:8d} {base[3]:8.2f} {1.0:10.2f}")
    for leds, fps in ((60, 50.0), (300, 30.0)):
        for driver, blackout in (("pio", 0.0), ("blanking", 30.0)):
            wrong, lost, doubled, took = run(args.pairs, args.seed, leds, fps, blackout)
            label = f"{leds} LEDs at {fps:g} fps"
            print(f"{label:<22} {driver:<9} {wrong:8.2f} {lost:5d} {doubled:8d} {took:8.2f} {took / base[3]:10.2f}")


if __name__ == "__main__":
    main()
