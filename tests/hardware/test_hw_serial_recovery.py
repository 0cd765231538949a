"""Protocol 4's recovery, over a real pty in virtual time.

The firmware's own logic (``firmware/bridge_logic.py``) runs on a simulated Pico whose
buttons and knob switches are pressed by the test; its lines go through a noisy cable
(bits flipped, lines lost, doubled, replayed from earlier, the Pico reset) into the
master of a pseudo-terminal, and the table's :class:`SerialBridge` reads the slave
through pyserial. The table's requests go back the same way (and may be lost too).
Time is virtual on both ends: every step is one millisecond of the Pico's main loop,
the bytes of a step are written at once and read in full before the table's clock
moves on, so nothing depends on how fast the machine runs.

The properties: every real press is delivered exactly once, at its own time; every
knob push is a push and every long push a long push (none from a release that got
lost); every line the Pico sent is acted on exactly once; and the reader's counters
account for every record it read.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import random
import select
import tty
from dataclasses import dataclass
from typing import Any

import pytest
import serial
from fakes.pico import LOGIC
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tier import examples

from table.hardware.bridge_protocol import SEQ_PERIOD, encode
from table.hardware.buttons import Timing
from table.hardware.interfaces import LONG_PUSH, PRESS, PUSH, StationInput
from table.hardware.serial_bridge import SerialBridge

CONFIG = [{"button": 2, "switch": 3}, {"button": 4, "switch": 5}, {"button": 6, "switch": 7}]
T = Timing(settle=0.015, tie_window=0.0005, debounce=0.030, long_push=0.5)
OFFSET = 1000.0  # table time = rig time + OFFSET (seconds)
PERIOD = 1 << 30
STEP_US = 1000


@dataclass(frozen=True)
class Noise:
    corrupt: float = 0.0  # share of lines with 1 to 4 flipped bits (anywhere: newline and "$" too)
    drop: float = 0.0  # lines lost whole
    double: float = 0.0  # lines sent twice
    replay: float = 0.0  # lines followed by an earlier line (of this boot or an earlier one)
    requests_lost: float = 0.0  # the table's writes that never reach the Pico


class CountingPort:
    """The table's end (pyserial on the pty slave), counting what the table writes so
    that the Pico's end reads exactly that much."""

    def __init__(self, port: serial.Serial) -> None:
        self.port = port
        self.written = 0

    def write(self, data: bytes) -> int:
        self.written += len(data)
        return int(self.port.write(data) or 0)

    def close(self) -> None:
        self.port.close()


def read_exactly(read: Any, fd: int, n: int) -> bytes:
    out = bytearray()
    while len(out) < n:
        ready, _, _ = select.select([fd], [], [], 10.0)  # generous: a loaded machine only waits longer
        assert ready, f"the pty delivered {len(out)} of {n} bytes"
        out += read(n - len(out))
    return bytes(out)


class PtyRig:
    def __init__(self, seed: int, noise: Noise, config: list[dict[str, Any]] = CONFIG) -> None:
        self.rng = random.Random(seed)
        self.noise = noise
        self.config = config
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.port = CountingPort(serial.Serial(os.ttyname(slave), timeout=0))
        os.close(slave)  # pyserial has its own descriptor
        self.consumed = 0
        self.now = 0  # rig microseconds
        self.levels = {gpio: 1 for gpio, _, _ in LOGIC.slots_of(config)}
        self.events: list[tuple[int, int, int, int]] = []
        self.order = itertools.count()
        self.recorded: list[bytes] = []  # lines the Pico sent, for replays
        self.sent_lines = 0  # lines the Pico sent, every boot
        self.unheard: int | None = None  # lines sent before the HELLO the table first took
        self.boots = 0
        self.epochs: dict[int, int] = {}  # boot id -> the rig time it booted at
        self.margins = [(0.0, T.settle)]  # (table time, the core's margin from then on)
        self.bridge = SerialBridge("pty", len(config), T, clock=lambda: self.table_now)
        self.got: list[tuple[float, StationInput]] = []
        self.bridge._sink = lambda item: self.got.append((self.table_now, item))
        self.states: list[tuple[float, int, int]] = []  # state lines acted on: (table time, boot, their clock)
        state = self.bridge._state

        def state_line(v: tuple[int, ...], on_time: bool) -> None:
            self.states.append((self.table_now, self.bridge._sequencer.boot, v[0]))  # type: ignore[arg-type]
            state(v, on_time)

        self.bridge._state = state_line  # type: ignore[method-assign]
        self.boot()
        first_sync = self.bridge._new_boot

        def new_boot(boot: int, us: int, newest: bool) -> None:  # the table's first HELLO: lines before it were unheard
            if self.unheard is None:
                self.unheard = (self.bridge._sequencer.expected - 1 - self.first_seq) % SEQ_PERIOD  # type: ignore[operator]
            first_sync(boot, us, newest)

        self.bridge._new_boot = new_boot  # type: ignore[method-assign]
        self.bridge.attach(self.port)

    @property
    def table_now(self) -> float:
        return OFFSET + self.now / 1e6

    def close(self) -> None:
        self.port.close()
        os.close(self.master)

    # --- the Pico -----------------------------------------------------------------

    def boot(self) -> None:
        """Power-up: a new boot id, a random first line number, the clock from zero."""
        if self.boots:
            self.sent_lines += (self.fw.seq - self.first_seq) % SEQ_PERIOD
        self.boots += 1
        self.epoch = self.now
        self.tick0 = self.rng.randrange(PERIOD)
        slots = LOGIC.slots_of(self.config)
        self.slot_of = {gpio: k for k, (gpio, _, _) in enumerate(slots)}
        self.ring = LOGIC.EdgeRing()
        self.out: list[str] = []
        self.first_seq = self.rng.randrange(PERIOD)
        self.fw = LOGIC.Bridge(self.config, self.out.append, self.ring, [self.levels[g] for g, _, _ in slots],
                               self.ticks_at(self.now), boot=self.first_seq)
        self.epochs[self.fw.boot] = self.epoch
        self.fw.hello()

    def ticks_at(self, rig_us: int) -> int:
        return (self.tick0 + rig_us - self.epoch) % PERIOD

    def lines_sent(self) -> int:
        """Lines the Pico sent since the table first heard from it (its HELLO)."""
        return self.sent_lines + (self.fw.seq - self.first_seq) % SEQ_PERIOD - (self.unheard or 0)

    def edge(self, at_us: int, gpio: int, level: int) -> None:
        heapq.heappush(self.events, (at_us, next(self.order), gpio, level))

    def contact(self, at_us: int, gpio: int, down: bool) -> None:
        """A contact closing or opening at ``at_us``, with a little bounce after it."""
        level = 0 if down else 1
        self.edge(at_us, gpio, level)
        for k in range(self.rng.choice([0, 0, 2, 4])):
            self.edge(at_us + 300 * (k + 1), gpio, level if k % 2 else 1 - level)

    def step(self) -> None:
        """One millisecond: edges, the Pico's main-loop pass, the cable both ways, the
        table's reader and pump."""
        self.now += STEP_US
        while self.events and self.events[0][0] <= self.now:
            at, _, gpio, level = heapq.heappop(self.events)
            if self.levels[gpio] != level:
                self.levels[gpio] = level
                flag = LOGIC.IRQ_RISING if level else LOGIC.IRQ_FALLING
                self.ring.put(self.slot_of[gpio], flag, level, self.ticks_at(at))
        waiting = self.port.written - self.consumed
        if waiting:
            data = read_exactly(lambda n: os.read(self.master, n), self.master, waiting)
            self.consumed += waiting
            if self.rng.random() >= self.noise.requests_lost:
                self.fw.feed(data)
        self.fw.service(lambda: self.ticks_at(self.now))
        wire = self.cable("".join(self.out).encode())
        self.out.clear()
        for k in range(0, len(wire), 1024):  # a piece at a time: a full pty buffer would block the write
            piece = wire[k:k + 1024]
            os.write(self.master, piece)
            self.bridge.receive(read_exactly(self.port.port.read, self.port.port.fileno(), len(piece)))
        self.bridge.pump(self.table_now)
        margin = self.bridge.core.lateness_margin(self.table_now)
        if margin != self.margins[-1][1]:
            self.margins.append((self.table_now, margin))

    def cable(self, data: bytes) -> bytes:
        noise, rng = self.noise, self.rng
        out = bytearray()
        for line in data.splitlines(keepends=True):
            self.recorded.append(line)
            r = rng.random()
            if r < noise.drop:
                continue
            if r < noise.drop + noise.corrupt:
                broken = bytearray(line)
                for bit in rng.sample(range(8 * len(line)), rng.randint(1, 4)):
                    broken[bit >> 3] ^= 1 << (bit & 7)
                out += broken
            else:
                out += line
            if rng.random() < noise.double:
                out += line
            if rng.random() < noise.replay:
                out += rng.choice(self.recorded)
        del self.recorded[:-3000]
        return bytes(out)

    # --- driving --------------------------------------------------------------------

    def run_until(self, rig_us: int) -> None:
        while self.now < rig_us:
            self.step()

    def caught_up(self) -> bool:
        seq = self.bridge._sequencer
        return seq.expected == self.fw.seq and not seq.pending

    def settle(self, limit_us: int = 20_000_000) -> None:
        """Run until the table has every line the Pico sent (the cable may need many
        tries), then another half second for the last inputs to leave."""
        end = self.now + limit_us
        while not self.caught_up():
            assert self.now < end, self.bridge.diagnostics()
            self.step()
        self.run_until(self.now + 600_000)
        while not self.caught_up():  # (lines of that half second too)
            assert self.now < end, self.bridge.diagnostics()
            self.step()


@dataclass(frozen=True)
class Act:
    station: int
    kind: str  # "press", "push" or "long_push"
    at_us: int  # the contact closes
    hold_us: int


def schedule(rig: PtyRig, start_us: int, rng: random.Random, n: int) -> tuple[list[Act], int]:
    """``n`` acts per station from ``start_us``: presses (bouncy) and knob pushes, short or
    held well past the long push; returns them and when the last one has ended."""
    acts: list[Act] = []
    end = start_us
    for station, wiring in enumerate(rig.config):
        t = start_us + rng.randrange(0, 40_000)
        for _ in range(n):
            kind = rng.choice(["press", "press", "push", "long_push"])
            hold = {"press": rng.randrange(40_000, 200_000), "push": rng.randrange(50_000, 350_000),
                    "long_push": rng.randrange(650_000, 900_000)}[kind]
            gpio = wiring["button" if kind == "press" else "switch"]
            rig.contact(t, gpio, True)
            rig.contact(t + hold, gpio, False)
            acts.append(Act(station, kind, t, hold))
            t += hold + rng.randrange(80_000, 250_000)
        end = max(end, t)
    return acts, end


def decided_by(rig: PtyRig, act: Act, item: StationInput) -> float:
    """When the table acted on the first state line the Pico sent after ``act`` began
    (plus the tie window: a press is final once nothing can tie with it) - no edge before
    that line can still be missing, so the press must have been delivered by then - or,
    if later, when the press's own hold (settle and tie window) ended. The Pico sends a
    state line 10 ms after every burst of edges and 4 a second in any case."""
    boot, epoch = max(((b, e) for b, e in rig.epochs.items() if e <= act.at_us), key=lambda be: be[1])
    need = act.at_us - epoch + int(T.tie_window * 1e6) + 1000  # (1 ms: the clock mapping's rounding)
    proved = next(at for at, b, us in rig.states if b == boot and us >= need)
    # (the core's margin: the settle window, longer while lines ran late)
    margin = max(m for k, (t, m) in enumerate(rig.margins)
                 if k + 1 == len(rig.margins) or rig.margins[k + 1][0] > item.t)
    return max(proved, item.t + margin + T.tie_window) + STEP_US / 1e6  # (the core's own hold)


def check(rig: PtyRig, acts: list[Act]) -> None:
    diag = rig.bridge.diagnostics()
    delivered = [item for _, item in rig.got]
    delivered_at = {id(item): at for at, item in rig.got}
    for station in range(len(rig.config)):
        want = [a for a in acts if a.station == station]
        kinds = [i.kind for i in delivered if i.station == station and i.kind in (PRESS, PUSH, LONG_PUSH)]
        assert kinds == [a.kind for a in want], (station, kinds, want, diag)
        presses = [i for i in delivered if i.station == station and i.kind == PRESS]
        for act, item in zip([a for a in want if a.kind == "press"], presses, strict=True):
            assert abs(item.t - (OFFSET + act.at_us / 1e6)) < 0.0015, (act, item)  # at its own time (its first edge)
            # and no later than the state line after it: within one heartbeat of the line reaching the table
            due = decided_by(rig, act, item)
            assert delivered_at[id(item)] <= due, (act, item, delivered_at[id(item)], due)
    assert diag["presses_unrecovered"] == 0
    # every line the Pico sent acted on once, or (rarely: all its copies lost around a reset)
    # given up and mended by the state line
    assert diag["lines_acted"] + diag["lines_lost"] == rig.lines_sent(), (diag, rig.lines_sent())
    assert diag["lines"] == diag["lines_acted"] + diag["malformed_total"] + diag["lines_waiting"]
    assert diag["malformed"].get("failed", 0) == 0


NOISE = st.builds(
    Noise,
    corrupt=st.floats(0.0, 0.2), drop=st.floats(0.0, 0.05), double=st.floats(0.0, 0.05),
    replay=st.floats(0.0, 0.03), requests_lost=st.floats(0.0, 0.1),
)


def noisy_rounds(seed: int, noise: Noise, resets: list[bool]) -> None:
    """Presses, pushes and long pushes through a cable that flips bits in up to 20 % of
    the lines, loses, doubles and replays lines and loses requests; the Pico resets
    between rounds (``resets``). Acts start once the table has heard the bridge."""
    rig = PtyRig(seed, noise)
    rng = random.Random(seed + 1)
    acts: list[Act] = []
    try:
        rig.settle()
        for reset in resets:
            made, end = schedule(rig, rig.now + 50_000, rng, 2)
            acts += made
            rig.run_until(end + 100_000)
            rig.settle()
            if reset:
                rig.boot()  # the Pico resets (a watchdog, a brown-out): a new boot, numbers anew
                rig.run_until(rig.now + 100_000)
        rig.settle()
        check(rig, acts)
    finally:
        rig.close()


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 2**32), NOISE, st.lists(st.booleans(), min_size=1, max_size=3))
def test_every_press_once_through_a_noisy_cable(seed: int, noise: Noise, resets: list[bool]) -> None:
    noisy_rounds(seed, noise, resets)


@pytest.mark.heavy  # some 400 simulated minutes of play: half a minute
@settings(max_examples=examples(400), deadline=None)
@given(st.integers(0, 2**32), NOISE, st.lists(st.booleans(), min_size=1, max_size=3))
@example(seed=220705742, resets=[True, True, False], noise=Noise(  # a press mapped 1.5 s late
    corrupt=0.2, drop=0.04975403411777795, double=0.046875, replay=0.0, requests_lost=0.03125))
def test_every_press_once_through_a_noisy_cable_many(seed: int, noise: Noise, resets: list[bool]) -> None:
    noisy_rounds(seed, noise, resets)


def test_a_lost_release_costs_no_press_and_opens_no_menu() -> None:
    """The tester's finding: every release line lost (button and knob), the next press
    still counts and a short push stays a push - for five stations' worth of tries."""
    rig = PtyRig(5, Noise())
    drop = {b"$B 0 0 ", b"$S 1 0 "}
    real = rig.cable

    def cable(data: bytes) -> bytes:  # the first copy of every release line is lost
        kept = []
        for line in data.splitlines(keepends=True):
            if any(line.startswith(p) for p in drop) and line not in rig.recorded:
                rig.recorded.append(line)
                continue
            kept.append(line)
        return real(b"".join(kept))

    rig.cable = cable  # type: ignore[method-assign]
    acts = []
    try:
        t = 50_000
        for _ in range(5):
            for station, gpio, kind in ((0, 2, "press"), (1, 5, "push")):
                rig.contact(t, gpio, True)
                rig.contact(t + 100_000, gpio, False)
                acts.append(Act(station, kind, t, 100_000))
            t += 300_000  # the next press comes before the next heartbeat could say "up"
        rig.run_until(t)
        rig.settle()
        check(rig, acts)
        diag = rig.bridge.diagnostics()
        assert diag["resend_requests"] >= 10 and diag["long_pushes_refused"] == 0
    finally:
        rig.close()


def test_a_replayed_pair_is_refused() -> None:
    """A recorded press and release sent again later: refused by their numbers."""
    rig = PtyRig(6, Noise())
    try:
        rig.edge(50_000, 2, 0)
        rig.edge(120_000, 2, 1)
        rig.run_until(300_000)
        pair = [line for line in rig.recorded if line.startswith(b"$B 0 ")]
        for _ in range(94):
            os.write(rig.master, b"".join(pair))
            rig.bridge.receive(read_exactly(rig.port.port.read, rig.port.port.fileno(), sum(map(len, pair))))
            rig.run_until(rig.now + 50_000)
        rig.settle()
        check(rig, [Act(0, "press", 50_000, 70_000)])
        assert rig.bridge.diagnostics()["malformed"]["replayed"] == 94 * len(pair)
    finally:
        rig.close()


def test_lines_gone_for_good_are_mended_by_the_state_line() -> None:
    """A Pico that can no longer send lines again (none kept): the state line mends a
    lost release, delivers a press lost whole (once, at its own time) and turns a long
    push whose release was lost into a push."""
    rig = PtyRig(7, Noise())
    fw = rig.fw
    fw.resend = lambda first, count: False
    fw.oldest = lambda: fw.seq  # nothing kept
    lost = (b"$B 0 1 ", b"$B 0 0 ", b"$S 1 0 ", b"$B 2 0 ")
    real = rig.cable

    def cable(data: bytes) -> bytes:
        return real(b"".join(line for line in data.splitlines(keepends=True) if not line.startswith(lost)))

    rig.cable = cable  # type: ignore[method-assign]
    try:
        rig.edge(50_000, 2, 0)  # station 0: a press lost whole
        rig.edge(120_000, 2, 1)
        rig.edge(60_000, 5, 0)  # station 1: a push of 0.45 s whose release is lost ...
        rig.edge(510_000, 5, 1)  # ... just before the long push's 0.5 s
        rig.edge(70_000, 6, 0)  # station 2: a press whose release is lost
        rig.edge(150_000, 6, 1)
        rig.edge(800_000, 6, 0)  # and its next press
        rig.edge(900_000, 6, 1)
        rig.run_until(1_500_000)
        kinds = sorted((i.station, i.kind) for _, i in rig.got)
        assert kinds == [(0, PRESS), (1, PUSH), (2, PRESS), (2, PRESS)]
        press0 = next(i for _, i in rig.got if i.station == 0)
        assert abs(press0.t - (OFFSET + 0.05)) < 0.0015  # at its own time
        diag = rig.bridge.diagnostics()
        assert diag["presses_recovered"] == 1 and diag["lines_lost"] > 0
    finally:
        rig.close()


def test_a_reset_whose_hello_comes_before_its_first_lines_keeps_its_clock() -> None:
    """A reset whose first lines are lost: its HELLO, sent again 1.5 s into the boot,
    arrives first and starts the clock mapping; the boot's first lines, sent again
    after it, carry earlier clocks - not a clock that started again - so a press among
    them keeps its own time."""
    now = [100.0]
    got: list[StationInput] = []
    bridge = SerialBridge("unused", 1, T, clock=lambda: now[0])
    bridge._sink = got.append

    def line(verb: str, *fields: object) -> None:
        bridge.handle_line(encode(verb, *fields).rstrip(b"\n"))

    line("HELLO", 4, "fw", 1, 7, 0, 7)
    line("T", 1000, 7, 0, 0, -1, 0, 0, 8)
    boot = 5000  # the Pico resets at table time 200.0; every line until its HELLO is lost
    now[0] = 201.5
    line("HELLO", 4, "fw", 1, boot, 1_500_000, boot + 5)
    now[0] = 201.52  # the lines asked for again
    line("HELLO", 4, "fw", 1, boot, 0, boot)
    line("T", 1000, boot, 0, 0, -1, 0, 0, boot + 1)
    line("B", 0, 1, 500_000, boot + 2)
    line("B", 0, 0, 600_000, boot + 3)
    line("T", 700_000, boot, 0, 0, -1, 1, 500_000, boot + 4)
    bridge.pump(201.6)
    assert [i.kind for i in got] == [PRESS]
    assert abs(got[0].t - 200.5) < 0.0015, got


def test_a_flood_of_bridge_errors_is_one_line_then_a_count(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    bridge = SerialBridge("unused", 2, T, clock=lambda: now[0])
    bridge.handle_line(encode("HELLO", 4, "fw", 2, 1, 0, 0).rstrip(b"\n"))
    with caplog.at_level(logging.WARNING, logger="table.hardware.serial"):
        for k in range(1936):
            now[0] = k * 43 / 1936
            bridge.handle_line(encode("E", "edge", "queue", "overflowed", k + 1, k + 1).rstrip(b"\n"))
    said = [r.getMessage() for r in caplog.records]
    assert said[0] == "I/O bridge: edge queue overflowed 1"
    assert len(said) == 5  # one line per ten seconds, each with the count of the rest
    assert said[1] == "I/O bridge: edge queue overflowed 452 (450 more like it in the last 10 s)"
    assert bridge.diagnostics()["bridge_errors"] == 1936
