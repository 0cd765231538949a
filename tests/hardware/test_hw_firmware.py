"""The I/O bridge firmware (firmware/*.py, MicroPython) run on the host with its
hardware modules (machine, rp2, MicroPython's time functions) stubbed - and, at the
end, talking to the table's SerialBridge over a real pty. The timing of edges
(interrupt latency, blackouts, the cable) is tested on the firmware test bench,
test_hw_bridge_bench.py."""

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

from table.common.datafiles import package_path
from table.hardware.bridge_protocol import (
    PROTOCOL_VERSION,
    TABLE_VERBS,
    decode,
    encode,
    encode_frame,
    encode_old,
)
from table.hardware.buttons import Timing
from table.hardware.interfaces import StationInput
from table.hardware.serial_bridge import SerialBridge

FIRMWARE = package_path("firmware")  # shipped in the wheel as table/firmware


# --- stubs of the Pico's modules ----------------------------------------------------

class StubIrq:
    def __init__(self) -> None:
        self.latched = 0

    def flags(self) -> int:
        return self.latched


class StubPin:
    IN, OUT, PULL_UP = 0, 1, 2
    IRQ_FALLING, IRQ_RISING = 4, 8
    pins: ClassVar[dict[int, StubPin]] = {}

    def __init__(self, number: int, mode: int = 0, pull: int | None = None, value: int | None = None) -> None:
        self.number = number
        self.level = 1 if pull == self.PULL_UP else (value or 0)
        self.handler: Callable[[StubPin], None] | None = None
        self.hard = False
        self._irq = StubIrq()
        StubPin.pins[number] = self

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            return self.level
        self.level = v
        return None

    def irq(self, handler: Any = "", trigger: int = 0, hard: bool = False) -> StubIrq:
        if handler != "":
            self.handler, self.hard = handler, hard
        return self._irq

    def drive(self, level: int) -> None:
        """The outside world moves the line; the interrupt fires with the edge's flag."""
        if level != self.level:
            self.level = level
            if self.handler is not None:
                self._irq.latched = self.IRQ_RISING if level else self.IRQ_FALLING
                self.handler(self)


class StubStateMachine:
    def __init__(self, sm_id: int, program: Any, freq: int = 0, sideset_base: Any = None) -> None:
        self.id = sm_id
        self.words: list[list[int]] = []

    def active(self, on: int) -> None:
        pass

    def put(self, words: Any) -> None:
        self.words.append(list(words))


def stub_rp2() -> types.ModuleType:
    rp2 = types.ModuleType("rp2")

    class PIO:
        OUT_LOW = 0
        SHIFT_LEFT = 0

    def asm_pio(**_: Any) -> Callable[[Any], Any]:
        return lambda program: program

    rp2.PIO = PIO  # type: ignore[attr-defined]
    rp2.asm_pio = asm_pio  # type: ignore[attr-defined]
    rp2.StateMachine = StubStateMachine  # type: ignore[attr-defined]
    return rp2  # no rp2.DMA: an older MicroPython, frames go out with sm.put


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
    clock = MicroClock()
    monkeypatch.setattr(time, "ticks_us", clock.ticks_us, raising=False)
    monkeypatch.setattr(time, "sleep_ms", clock.sleep_ms, raising=False)
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "rp2", stub_rp2())
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
        self.incoming = b""

    def read_available(self) -> bytes:
        data, self.incoming = self.incoming, b""
        return data

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


def test_protocol_lines_agree_with_the_table(firmware: Any) -> None:
    logic, _, _ = firmware
    line = logic.make_line("B", 2, 1, 123456789, 77)
    assert decode(line.encode()).fields == ("2", "1", "123456789", "77")
    assert line.startswith("$")
    assert logic.parse_line(encode("L", 1, "blink").decode()) == ("L", ["1", "blink"])
    assert logic.parse_line("$L 1 blink*0000") is None
    frame = [(1, 2, 3), (10, 36, 27)]
    record = encode_frame(frame, seq=200)
    assert logic.decode_frame(record[1:-1]) == (200, bytearray([1, 2, 3, 10, 36, 27]))
    assert logic.escape(bytes(range(256))) .count(b"\n") == 0


def test_a_newer_firmware_answers_an_old_table_in_its_own_format(firmware: Any) -> None:
    logic, _, _ = firmware
    out: list[str] = []
    fw = logic.Bridge([{"button": 2}], out.append, logic.EdgeRing(), [1], 0)
    fw.feed(encode_old("HELLO?", 2))
    hello, error = (line.encode() for line in "".join(out).splitlines())
    assert hello == encode_old("HELLO", 4, "table-bridge-4.0", 1).rstrip(b"\n")
    assert b"update the table's software" in error and fw.bad_records == 0
    out.clear()
    fw.feed(encode("HELLO?", 3))  # a protocol 3 table: HELLO in its format (CRC, no number)
    hello, error = (line.encode() for line in "".join(out).splitlines())
    assert hello == encode("HELLO", 4, "table-bridge-4.0", 1).rstrip(b"\n")
    assert error.startswith(b"$E the I/O bridge speaks protocol 4 and the table an older one")
    out.clear()
    fw.feed(encode("HELLO?", 4) + encode_old("HELLO?", 4))  # a new table asks in both formats
    fw.service(lambda: 0)
    verbs = [decode(line.encode()).verb for line in "".join(out).splitlines()]
    assert verbs == ["HELLO", "T"] and fw.bad_records == 0  # only the new answer: the old probe is ignored


def test_the_firmware_counts_bad_table_lines(firmware: Any) -> None:
    logic, _, _ = firmware
    out: list[str] = []
    fw = logic.Bridge([{"button": 2, "led": 3}], out.append, logic.EdgeRing(), [1], 0)
    fw.feed(encode("L", "--1", "on") + encode("L", 9, "on") + encode("L", 0, "dim")
            + encode("L", 1, "on").replace(b"L 1", b"L 0")  # another station, the old CRC
            + encode("L", 0, "blink"))
    assert fw.bad_records == 4 and fw.led_state == ["blink"]
    assert decode(encode("L", 0, "on"), TABLE_VERBS).fields == ("0", "on")


def test_the_firmware_takes_no_table_line_or_frame_with_flipped_bits(firmware: Any) -> None:
    _, main, clock = firmware
    io = ListIO()
    bridge = main.run(io, passes=1)
    rng = random.Random(3)
    broken = b""
    lines = [encode("L", 0, "on"), encode("L", 3, "blink"), encode("ST?"), encode_frame([(9, 9, 9)] * 60, seq=7)]
    for k in range(400):
        record = bytearray(lines[k % 4])
        for bit in rng.sample(range(8, 8 * (len(record) - 1)), rng.randint(1, 4)):  # keep start and end
            record[bit >> 3] ^= 1 << (bit & 7)
        broken += bytes(record) + (b"\n" if b"\n" in record[:-1] else b"")
    io.incoming = broken
    io.out.clear()
    main_pass(bridge, io, clock)
    assert bridge.led_state == ["off"] * 4 and bridge.strip.sm.words == []  # nothing taken
    assert not any(line.startswith("$K") for line in "".join(io.out).splitlines())
    assert bridge.bad_records >= 400  # a flipped newline or start byte can split a record in two


# --- the whole program with stubbed pins ---------------------------------------------

def main_pass(bridge: Any, io: Any, clock: MicroClock) -> None:
    """One pass of main.run's loop."""
    data = io.read_available()
    if data:
        bridge.feed(data)
    bridge.service(clock.ticks_us)
    clock.sleep_ms(1)


def test_pins_become_protocol_lines_and_commands_drive_leds(firmware: Any) -> None:
    _, main, clock = firmware
    io = ListIO()
    bridge = main.run(io, passes=1)
    first = [decode(x.encode()) for x in "".join(io.out).splitlines()]
    assert [m.verb for m in first] == ["HELLO", "T"]  # who, and every input's state
    assert len(first[1].fields) == 3 + 5 * 4  # clock, oldest kept, 4 stations, number
    numbers = [int(m.fields[-1]) for m in first]
    assert numbers[1] == numbers[0] + 1
    pins = StubPin.pins
    assert all(pins[n].hard for n in (2, 4, 5, 6))  # hard interrupts: stamped the moment they fire
    pins[2].drive(0)  # station 0 button pressed
    clock.us += 30_000
    pins[2].drive(1)
    for a, b in [(1, 0), (0, 0), (0, 1), (1, 1)]:  # station 1 encoder one detent counter-clockwise
        pins[9].drive(a)
        pins[10].drive(b)
    pins[21].drive(0)  # station 3 knob switch
    io.incoming = (encode("L", 0, "on") + encode("L", 2, "blink") + b"garbage\n"
                   + encode_frame([(1, 2, 3)] * 60, seq=5))
    io.out.clear()
    for _ in range(5):
        main_pass(bridge, io, clock)
    lines = [decode(x.encode()) for x in "".join(io.out).splitlines()]
    assert [int(m.fields[-1]) for m in lines] == list(range(numbers[1] + 1, numbers[1] + 1 + len(lines)))
    events = [(m.verb, m.fields[:2]) for m in lines if m.verb not in ("T", "K")]
    assert [m.fields[0] for m in lines if m.verb == "K"] == ["5"]
    assert events == [ ("B", ("0", "1")), ("B", ("0", "0")), ("R", ("1", "-1")), ("S", ("3", "1"))]
    stamps = [int(m.fields[2]) for m in lines if m.verb == "B"]
    assert stamps[1] - stamps[0] == 30_000  # microsecond stamps across the counter's wrap
    assert pins[3].level == 1 and pins[8].level == 0
    assert bridge.strip.sm.words[-1] == [(2 << 24) | (1 << 16) | (3 << 8)] * 60  # GRB for WS2812
    assert bridge.bad_records == 1


class FrameRecorder:
    """The table's side of the serial line for frames: what ``SerialBridge.send_frame``
    would write, as bytes (the real protocol encoder)."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def send_frame(self, frame: Any) -> bool:
        self.sent.append(encode_frame(frame, seq=len(self.sent) + 1))
        return True


@pytest.mark.parametrize("order", ["GRB", "RGB", "BRG", "BGR", "RBG", "GBR"])
def test_the_strip_gets_its_pixel_order_through_the_firmware(firmware: Any, order: str) -> None:
    from table.hardware.interfaces import HourglassLayout
    from table.hardware.serial_bridge import BridgeHourglass

    _, main, clock = firmware
    io = ListIO()
    bridge = main.run(io, passes=1)
    table = FrameRecorder()
    glass = BridgeHourglass(table, HourglassLayout(count=60), brightness=1.0, max_milliamps=None,  # type: ignore[arg-type]
                            pixel_order=order)
    colours = [(10 + i, 100 + i, 200 - i) for i in range(60)]  # every byte different
    glass.show(colours)
    io.incoming = table.sent[-1]
    main_pass(bridge, io, clock)
    words = bridge.strip.sm.words[-1]
    wire = [[w >> 24 & 0xFF, w >> 16 & 0xFF, w >> 8 & 0xFF] for w in words]  # 24 bits, first sent first
    assert all(w & 0xFF == 0 for w in words)
    assert wire == [[c["RGB".index(letter)] for letter in order] for c in colours]


@pytest.mark.parametrize("order", ["RGBW", "GRBW"])
def test_a_strip_with_white_on_the_bridge_is_one_sentence(order: str) -> None:
    from table.common.errors import TableError
    from table.hardware.interfaces import HourglassLayout
    from table.hardware.serial_bridge import BridgeHourglass

    with pytest.raises(TableError) as info:
        BridgeHourglass(FrameRecorder(), HourglassLayout(count=60), 1.0, None, pixel_order=order)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith(f'leds.pixel_order = "{order}" needs 4 bytes per LED') and "\n" not in message


def test_state_report_on_request_follows_the_pins(firmware: Any) -> None:
    _, main, clock = firmware
    io = ListIO()
    bridge = main.run(io, passes=1)
    StubPin.pins[7].drive(0)  # station 1 holds its button
    io.out.clear()
    io.incoming = encode("ST?")
    main_pass(bridge, io, clock)
    (state,) = [decode(x.encode()).fields for x in "".join(io.out).splitlines() if x.startswith("$T")]
    groups = [state[2 + 5 * i:2 + 5 * i + 4] for i in range(4)]  # button, switch, sector, presses
    assert groups == [("0", "0", "-1", "0"), ("1", "0", "-1", "1"), ("0", "0", "-1", "0"), ("0", "0", "-1", "0")]
    assert state[2 + 5 + 4] == str(bridge.last_down[1]) != "0"  # the clock at station 1's press


def test_ctrl_c_from_mpremote_stops_the_program_with_leds_dark(firmware: Any) -> None:
    _, main, _ = firmware

    class InterruptedIO(ListIO):
        def read_available(self) -> bytes:
            raise KeyboardInterrupt  # what MicroPython raises when 0x03 arrives on the console

    bridge = main.run(InterruptedIO(), passes=10)
    assert all(pin.handler is None for pin in bridge.pins)  # interrupts off: the console is free
    assert bridge.strip.sm.words[-1] == [0] * 60


def test_absolute_switch_lines_in_gray_code(firmware: Any) -> None:
    logic, _, _ = firmware
    out: list[str] = []
    ring = logic.EdgeRing()
    gpios = [12, 13, 14, 15]
    bridge = logic.Bridge([{"data": gpios}], out.append, ring, [1, 1, 1, 1], 0, code="gray")
    levels = [1, 1, 1, 1]
    us = 1000
    for sector in [1, 2, 3, 15]:
        gray = sector ^ (sector >> 1)
        for bit in range(4):
            level = 0 if gray >> bit & 1 else 1
            if level != levels[bit]:
                levels[bit] = level
                ring.put(bit, logic.IRQ_FALLING if level == 0 else logic.IRQ_RISING, level, us)
                us += 100
    bridge.service(lambda: 5000)
    sectors = [decode(x.encode()).fields[1] for x in "".join(out).splitlines() if x.startswith("$A")]
    # every reading goes to the table, which waits for a stable one: the jump from 3 to 15
    # (two lines) passes through 0 for a moment
    assert sectors == ["1", "2", "3", "0", "15"]


# --- firmware and table together over a pty ------------------------------------------

class PtyIO:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read_available(self) -> bytes:
        ready, _, _ = select.select([self.fd], [], [], 0)
        return os.read(self.fd, 65536) if ready else b""

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
        assert wait_for(lambda: table.hello is not None and table.state_reports >= 4)
        pins = StubPin.pins
        pins[12].drive(0)  # station 2 presses ...
        clock.us += 800  # ... 0.8 ms before station 1
        pins[7].drive(0)
        first, second = got.get(timeout=5), got.get(timeout=5)
        assert (first.station, second.station) == (2, 1)
        assert second.t - first.t == pytest.approx(0.0008, abs=2e-6)
        table.set_leds({1: "on"})
        assert wait_for(lambda: pins[8].level == 1)
        for k in range(20):  # frames as fast as the table likes: never blocks, the newest wins
            table.send_frame([(k, k, k)] * 60)
        newest = 19 << 24 | 19 << 16 | 19 << 8
        assert wait_for(lambda: bridge.strip.sm.words and bridge.strip.sm.words[-1][0] == newest)
        assert table.diagnostics()["malformed_total"] == 0 and bridge.bad_records == 0
    finally:
        stop.set()
        worker.join(timeout=2)
        table.stop()
        os.close(master)
        os.close(slave)


def test_table_firmware_shows_and_copies_the_shipped_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table.cli import main

    assert main(["firmware", "--port", "/dev/ttyACM1"]) == 0
    out = capsys.readouterr().out
    assert f"protocol {PROTOCOL_VERSION}" in out and out.count(".py") == 3
    assert "mpremote connect /dev/ttyACM1 cp " in out
    target = tmp_path / "pico"
    target.mkdir()
    (target / "config.py").write_text("STATIONS = []  # mine\n")
    assert main(["firmware", "--copy", str(target)]) == 0
    assert (target / "main.py").read_text() == (FIRMWARE / "main.py").read_text()
    assert (target / "config.py").read_text() == "STATIONS = []  # mine\n"  # the owner's wiring is kept
    assert f"cp {target / 'bridge_logic.py'}" in capsys.readouterr().out
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert main(["firmware", "--copy", str(blocked / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("table: cannot copy the firmware") and err.count("\n") == 1
