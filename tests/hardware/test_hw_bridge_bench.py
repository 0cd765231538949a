"""The firmware's logic and the table's SerialBridge together on the firmware test
bench (tests/fakes/pico.py): simulated pins, interrupt latency, LED-write blackout,
a wrapping 30-bit tick counter and a USB cable that can be pulled - in virtual time,
seeded, so every run is the same."""

from __future__ import annotations

import random

import pytest
from fakes.pico import LOGIC, Rig, one_ms_pairs
from fakes.presses import misordered_pairs

from table.hardware.buttons import Timing

TWO = [{"button": 2, "led": 3, "encoder": (4, 5), "switch": 6},
       {"button": 7, "led": 8, "encoder": (9, 10), "switch": 11}]
T = Timing(settle=0.015, tie_window=0.0005, debounce=0.030)


@pytest.mark.heavy
def test_ten_thousand_pairs_with_300_leds_at_30_fps_are_exact() -> None:
    rig = Rig(TWO, seed=20, timing=T, leds=300, fps=30)
    pairs = one_ms_pairs(rig, [2, 7], 10_000)
    presses = rig.presses()
    assert misordered_pairs(pairs, presses) == (0, 0, 0) and len(presses) == 20_000
    gaps = [b[1] - a[1] for a, b in zip(presses[::2], presses[1::2], strict=True)]
    assert min(gaps) > 0.00098 and max(gaps) < 0.00102  # 1 ms, give or take the interrupt latency
    diag = rig.bridge.diagnostics()
    assert diag["ties"] == 0 and diag["unordered"] == 0 and diag["malformed_total"] == 0
    assert rig.strip is not None and rig.strip.shown == diag["frames_sent"] == diag["frames_acked"]
    assert rig.strip.shown > 20_000  # the strip really animated the whole time
    assert rig.fw.bad_records == 0 and rig.ring.head[1] == 0


@pytest.mark.heavy  # plays two thousand presses under 300 LEDs
def test_the_bench_sees_what_an_interrupt_blackout_does() -> None:
    """The same run with a strip driver that switches interrupts off for 30 us per pixel
    (MicroPython's neopixel): presses 1 ms apart come out tied or swapped."""
    rig = Rig(TWO, seed=21, timing=T, leds=300, fps=30, blackout_per_led_us=30.0)
    pairs = one_ms_pairs(rig, [2, 7], 1000)
    misordered, lost, doubled = misordered_pairs(pairs, rig.presses())
    wrong = misordered + rig.bridge.diagnostics()["ties"] // 2
    assert wrong > 50 and (lost, doubled) == (0, 0)


@pytest.mark.heavy
def test_delivery_up_to_40_ms_late_through_the_bridge_has_no_phantom_press() -> None:
    rig = Rig(TWO, seed=22, timing=T, table_late_us=40_000)
    pairs = one_ms_pairs(rig, [2, 7], 10_000)
    misordered, lost, doubled = misordered_pairs(pairs, rig.presses())
    diag = rig.bridge.diagnostics()
    assert (lost, doubled, len(rig.presses())) == (0, 0, 20_000)
    assert misordered <= diag["unordered"]
    assert diag["late_edges"] > 0


@pytest.mark.parametrize("trial", range(5))
def test_a_button_held_across_an_unplug_gives_exactly_the_presses_that_happened(trial: int) -> None:
    rng = random.Random(trial)
    rig = Rig(TWO, seed=100 + trial, timing=T)
    ms = 1000
    rig.press(500 * ms, 2, True, bounce=rng.choice([0, 4, 6]))  # held ...
    rig.run_until(800 * ms)
    rig.unplug()  # ... while the cable is pulled,
    rig.press(1000 * ms, 2, False, bounce=4)  # released with no power on the Pico,
    rig.run_until(1500 * ms)
    rig.replug()
    rig.run_until(2500 * ms)
    assert rig.bridge.diagnostics()["held"] == {}  # the state report says it is up
    press_at = 3000 * ms + rng.randrange(0, 1000)
    rig.press(press_at, 2, True, bounce=6)  # and pressed again: a press, on time
    rig.run_until(3500 * ms)
    rig.press(3600 * ms, 7, True, bounce=2)  # held while the cable is pulled again ...
    rig.run_until(3700 * ms)
    rig.unplug()
    rig.run_until(3800 * ms)
    rig.replug()
    rig.run_until(4200 * ms)
    rig.press(4300 * ms, 7, False, bounce=4)  # ... released and pressed after the re-plug
    rig.press(4400 * ms, 2, False, bounce=0)
    rig.press(4500 * ms, 7, True, bounce=4)
    rig.run_until(4600 * ms)
    rig.unplug()
    rig.press(4700 * ms, 2, True, bounce=0)  # pressed while unplugged and still held:
    rig.run_until(4800 * ms)
    rig.replug()  # held, not a press
    rig.run_until(6000 * ms)
    presses = rig.presses()
    assert [s for s, _ in presses] == [0, 0, 1, 1]
    assert abs(presses[1][1] - press_at / 1e6) < 0.003  # on time, not 30 ms late
    assert abs(presses[3][1] - 4.5) < 0.003
    diag = rig.bridge.diagnostics()
    assert diag["held"].keys() == {"0", "1"} and diag["state_reports"] >= 8


def test_binary_switch_moves_with_line_skew_report_only_rested_sectors() -> None:
    config = [{"button": 2, "data": [12, 13, 14, 15]}]
    rig = Rig(config, seed=23, code="binary", timing=T)
    rng = random.Random(23)
    sector, rested = 0, [0]
    t = 300_000
    for _ in range(1000):
        new = (sector + rng.choice([1, -1])) % 16
        for bit, gpio in enumerate([12, 13, 14, 15]):
            if (sector ^ new) >> bit & 1:  # this line changes, somewhere within 2 ms
                rig.edge(t + rng.randrange(0, 2000), gpio, 0 if new >> bit & 1 else 1)
        sector = new
        rested.append(sector)
        t += rng.randrange(60_000, 120_000)
        rig.run_until(t - 10_000)
    rig.run_until(t + 500_000)
    turns = [i.value["sector"] for i in rig.got if i.kind == "turn" and i.value and "sector" in i.value]
    assert turns == rested


def test_a_cut_line_does_not_swallow_the_next_one() -> None:
    from table.hardware.bridge_protocol import Framer, encode

    good = encode("B", 1, 1, 5000)
    for framer in (Framer(), LOGIC.Framer()):
        records = framer.feed(encode("B", 0, 1, 12345)[:7]) + framer.feed(good + encode("T", 9))
        assert records == [good.rstrip(b"\n"), encode("T", 9).rstrip(b"\n")]
        assert framer.cut == 1
    rig = Rig(TWO, seed=24, timing=T)
    rig.run_until(100_000)
    rig.bridge.receive(b"$B 0 1 99")  # the cable wobbled mid-line
    rig.press(200_000, 7, True)
    rig.run_until(400_000)
    assert [s for s, _ in rig.presses()] == [1]
    assert rig.bridge.diagnostics()["malformed"] == {"cut": 1}


def test_the_firmware_clock_has_no_race_and_no_wrap() -> None:
    """Interrupt stamps are raw ticks; only the main loop extends them, whatever
    happens between reading the ring index and the counter."""
    clock = LOGIC.Clock((1 << 30) - 100)
    assert clock.extend((1 << 30) - 50) == 50
    stamp_before_wrap = (1 << 30) - 10
    assert clock.extend(30) == 130  # wrapped
    assert clock.stamp(stamp_before_wrap) == 90
    assert clock.stamp(30) == 130
    us = 130
    rng = random.Random(5)
    raw = 30
    for _ in range(10_000):  # 10,000 passes over several wraps: always monotonic, exact
        step = rng.randrange(0, 400_000_000)
        raw = (raw + step) % (1 << 30)
        us += step
        assert clock.extend(raw) == us


def test_edges_seen_together_by_one_interrupt_keep_their_levels() -> None:
    """A press and release latched before the handler ran are both reported, from
    the edge flags, and the state report follows the edges."""
    out: list[str] = []
    ring = LOGIC.EdgeRing()
    fw = LOGIC.Bridge([{"button": 2}], out.append, ring, [1], 0)
    ring.put(0, LOGIC.IRQ_FALLING | LOGIC.IRQ_RISING, 1, 100)  # down and up again: line high now
    ring.put(0, LOGIC.IRQ_FALLING, 1, 200)  # falling edge, line read high later: still a press
    fw.service(lambda: 300)
    lines = [LOGIC.parse_line(x) for x in "".join(out).splitlines()]
    assert [tuple(f[:2]) for v, f in lines if v == "B"] == [("0", "1"), ("0", "0"), ("0", "1")]
    # the state line: at 300 (oldest line kept: 0), button held, pressed twice, last at 200
    assert ("T", ["300", "0", "1", "0", "-1", "2", "200", "3"]) in lines


def test_led_frames_never_block_the_table_on_a_slow_bridge() -> None:
    """A bridge that never acknowledges: the table sends one frame, keeps only the
    newest after it, and gives up waiting after the ack timeout."""
    rig = Rig(TWO, seed=25, timing=T)
    rig.run_until(50_000)
    rig.plugged = False  # the Pico hangs: reads nothing, answers nothing
    frame = [(1, 2, 3)] * 300
    for _ in range(10):
        assert rig.bridge.send_frame(frame)
        rig.table_now += 0.1
    diag = rig.bridge.diagnostics()
    assert diag["frames_sent"] >= 2 and diag["frames_replaced"] >= 4 and diag["ack_timeouts"] >= 1
