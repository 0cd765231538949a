"""The I/O bridge firmware (firmware/*.py, MicroPython) run on the host with its
hardware modules (machine, neopixel, MicroPython's time functions) stubbed - and,
at the end, talking to the table's SerialBridge over a real pty."""

from __future__ import annotations

import importlib.util
import os
import queue
import random
import select
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from fakes.bridge import wait_for

from table.hardware.bridge_protocol import TABLE_VERBS, decode, encode, encode_frame
from table.hardware.buttons import Timing
from table.hardware.interfaces import StationInput
from table.hardware.serial_bridge import SerialBridge

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


# --- stubs of the Pico's modules ----------------------------------------------------

class StubPin:
    IN, OUT, PULL_UP = 0, 1, 2
    IRQ_FALLING, IRQ_RISING = 4, 8
    pins: ClassVar[dict[int, StubPin]] = {}

    def __init__(self, number: int, mode: int = 0, pull: int | None = None, value: int | None = None) -> None:
        self.number = number
        self.level = 1 if pull == self.PULL_UP else (value or 0)
        self.handler: Callable[[StubPin], None] | None = None
        StubPin.pins[number] = self

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            return self.level
        self.level = v
        return None

    def irq(self, handler: Callable[[StubPin], None], trigger: int) -> None:
        self.handler = handler

    def drive(self, level: int) -> None:
        """The outside world moves the line; the interrupt fires."""
        if level != self.level:
            self.level = level
            if self.handler is not None:
                self.handler(self)


class StubStrip(list[tuple[int, int, int]]):
    def __init__(self, pin: Any, n: int) -> None:
        super().__init__([(0, 0, 0)] * n)
        self.writes = 0

    def write(self) -> None:
        self.writes += 1


class MicroClock:
    """MicroPython's ticks_us (wrapping at 2**30), moved by the test."""

    def __init__(self) -> None:
        self.us = (1 << 30) - 5_000_000  # wraps five seconds into the test

    def ticks_us(self) -> int:
        return self.us % (1 << 30)

    def sleep_ms(self, ms: int) -> None:
        self.us += ms * 1000


@pytest.fixture
def firmware(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any, MicroClock]]:
    StubPin.pins = {}
    machine = types.ModuleType("machine")
    machine.Pin = StubPin  # type: ignore[attr-defined]
    neopixel = types.ModuleType("neopixel")
    neopixel.NeoPixel = StubStrip  # type: ignore[attr-defined]
    clock = MicroClock()
    monkeypatch.setattr(time, "ticks_us", clock.ticks_us, raising=False)
    monkeypatch.setattr(time, "sleep_ms", clock.sleep_ms, raising=False)
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    modules = {}
    for name in ("bridge_logic", "config", "main"):
        spec = importlib.util.spec_from_file_location(name, FIRMWARE / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)
        modules[name] = module
    yield modules["bridge_logic"], modules["main"], clock


class ListIO:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.incoming = ""

    def read_available(self) -> str:
        text, self.incoming = self.incoming, ""
        return text

    def write(self, text: str) -> None:
        self.out.append(text)


# --- logic ---------------------------------------------------------------------------

def test_quadrature_counts_exact_detents_through_chatter(firmware: Any) -> None:
    logic, _, _ = firmware
    quad = logic.Quadrature()
    rng = random.Random(11)
    total = expected = 0
    for _ in range(1000):
        cw = rng.random() < 0.5
        n = rng.randrange(1, 5)
        for _ in range(n):
            seq = [(0, 1), (0, 0), (1, 0), (1, 1)] if cw else [(1, 0), (0, 0), (0, 1), (1, 1)]
            prev = (1, 1)
            for a, b in seq:
                for _ in range(rng.randrange(0, 3)):  # chatter: back and forth
                    total += quad.update(*prev)
                    total += quad.update(a, b)
                total += quad.update(a, b)
                prev = (a, b)
        expected += n if cw else -n
    assert total == expected


def test_clock_extension_survives_the_30_bit_wrap(firmware: Any) -> None:
    logic, _, _ = firmware
    period = 1 << 30
    clock = logic.Clock(period - 10)
    assert clock.extend(period - 5) == 5
    assert clock.extend(3) == 13  # wrapped
    assert clock.extend(1) == 11  # an interrupt stamp taken just before the last read
    assert clock.extend(period // 4) == 13 + period // 4 - 3


def test_protocol_lines_agree_with_the_table(firmware: Any) -> None:
    logic, _, _ = firmware
    line = logic.make_line("B", 2, 1, 123456789)
    assert decode(line.encode()).fields == ("2", "1", "123456789")
    assert logic.parse_line(encode("L", 1, "blink").decode()) == ("L", ["1", "blink"])
    assert logic.parse_line("L 1 blink*00") is None


# --- the whole program with stubbed pins ---------------------------------------------

def test_pins_become_protocol_lines_and_commands_drive_leds(firmware: Any) -> None:
    _, main, clock = firmware
    io = ListIO()
    bridge = main.run(io, passes=1)
    assert decode(io.out[0].encode()).verb == "HELLO"
    pins = StubPin.pins
    pins[2].drive(0)  # station 0 button pressed
    clock.us += 30_000
    pins[2].drive(1)
    for a, b in [(1, 0), (0, 0), (0, 1), (1, 1)]:  # station 1 encoder one detent counter-clockwise
        pins[9].drive(a)
        pins[10].drive(b)
    pins[21].drive(0)  # station 3 knob switch
    io.incoming = (encode("L", 0, "on") + encode("L", 2, "blink") + b"garbage\n"
                   + encode_frame([(1, 2, 3)] * 60)).decode()
    io.out.clear()
    for _ in range(5):
        main_pass(bridge, io, clock)
    lines = [decode(x.encode()) for x in io.out]
    events = [(m.verb, m.fields[:2]) for m in lines if m.verb != "T"]
    assert events == [("B", ("0", "1")), ("B", ("0", "0")), ("R", ("1", "-1")), ("S", ("3", "1"))]
    stamps = [int(m.fields[2]) for m in lines if m.verb == "B"]
    assert stamps[1] - stamps[0] == 30_000  # microsecond stamps across the counter's wrap
    assert pins[3].level == 1 and pins[8].level == 0
    assert bridge.strip[:60] == [(1, 2, 3)] * 60 and bridge.strip.writes == 1
    assert bridge.bad_lines == 1


def main_pass(bridge: Any, io: ListIO, clock: MicroClock) -> None:
    text = io.read_available()
    if text:
        bridge.feed(text)
    bridge.poll(bridge_clock(bridge, clock))
    clock.sleep_ms(1)


def bridge_clock(bridge: Any, clock: MicroClock) -> int:
    if not hasattr(bridge, "_test_clock"):
        logic = sys.modules["bridge_logic"]
        bridge._test_clock = logic.Clock(clock.ticks_us())
    return int(bridge._test_clock.extend(clock.ticks_us()))


def test_absolute_switch_lines_in_gray_code(firmware: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    logic, _, _ = firmware
    io = ListIO()
    bridge = logic.Bridge(1, io.write, code="gray")
    for sector in [0, 1, 2, 3, 15]:
        gray = sector ^ (sector >> 1)
        bridge.absolute_lines(0, [bool(gray >> i & 1) for i in range(4)], 1000 + sector)
    bridge.poll(5000)
    sectors = [decode(x.encode()).fields[1] for x in io.out if x.startswith("A")]
    assert sectors == ["0", "1", "2", "3", "15"]


# --- firmware and table together over a pty ------------------------------------------

class PtyIO:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read_available(self) -> str:
        ready, _, _ = select.select([self.fd], [], [], 0)
        return os.read(self.fd, 65536).decode("ascii", "replace") if ready else ""

    def write(self, text: str) -> None:
        os.write(self.fd, text.encode())


def test_firmware_and_table_over_a_pty(firmware: Any, tmp_path: Path) -> None:
    import tty

    _, main, clock = firmware
    master, slave = os.openpty()
    tty.setraw(slave)
    io = PtyIO(master)
    bridge = main.run(io, passes=1)
    table = SerialBridge(os.ttyname(slave), 4, Timing(settle=0.015, tie_window=0.0005))
    got: queue.Queue[StationInput] = queue.Queue()
    table.start(got.put)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            main_pass(bridge, io, clock)
            time.sleep(0.001)

    worker = threading.Thread(target=loop, daemon=True)
    worker.start()
    try:
        assert wait_for(lambda: table.hello is not None)
        pins = StubPin.pins
        pins[12].drive(0)  # station 2 presses ...
        clock.us += 800  # ... 0.8 ms before station 1
        pins[7].drive(0)
        first, second = got.get(timeout=5), got.get(timeout=5)
        assert (first.station, second.station) == (2, 1)
        assert second.t - first.t == pytest.approx(0.0008, abs=2e-6)
        table.set_leds({1: "on"})
        assert wait_for(lambda: pins[8].level == 1)
        assert all(decode(x, TABLE_VERBS) for x in [encode("L", 1, "on")])
    finally:
        stop.set()
        worker.join(timeout=2)
        table.stop()
        os.close(master)
        os.close(slave)
