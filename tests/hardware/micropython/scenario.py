# One run of the bridge firmware (firmware/*.py, on sys.path beside this folder's
# machine.py and rp2.py), printed line by line: the same code runs in MicroPython's
# WebAssembly port and in CPython, and the two printouts must be equal
# (tests/hardware/test_hw_firmware_micropython.py). Everything is fixed: the clock, the
# boot's numbers, the edges, the table's lines. Subset of both: no typing, no f-strings.

import time

import machine

TICKS_PERIOD = 1 << 30


class Clock:
    """MicroPython's ticks_us, moved by the run; it wraps a few seconds in. As the port's,
    a reading is a small integer taken without allocating (the hard handlers read it):
    the sum that may grow past one is done when the run moves the clock."""

    def __init__(self):
        self.us = TICKS_PERIOD - 3000000
        self.raw = self.us

    def advance(self, us):
        self.us += us
        self.raw = self.us % TICKS_PERIOD

    def ticks_us(self):
        return self.raw


CLOCK = Clock()
if not hasattr(time, "ticks_us"):  # CPython: main.py reads time.ticks_us when imported
    time.ticks_us = CLOCK.ticks_us
    time.sleep_ms = lambda ms: None

import bridge_logic  # noqa: E402 - after the clock: main.py needs time.ticks_us
import main  # noqa: E402


class Collect:
    def __init__(self):
        self.out = []

    def write(self, text):
        self.out.append(text)


def show(label, *values):
    print(label + " " + " ".join([str(v) for v in values]))


def frame(seq, pixels):
    """A binary LED frame as the table writes it (STX, escaped payload and CRC, newline)."""
    raw = bytes([seq, len(pixels) // 3 >> 8, len(pixels) // 3 & 0xFF]) + bytes(pixels)
    crc = bridge_logic.crc16(raw)
    return b"\x02" + bridge_logic.escape(raw + bytes([crc >> 8, crc & 0xFF])) + b"\n"


def codec():
    """The line and frame codec on its own."""
    show("crc", hex(bridge_logic.crc16(b"123456789")))
    for verb, fields in [("B", (2, 1, 123456789, 77)), ("HELLO", (4, "table-bridge-4.0", 4, 99)),
                         ("E", ("edge", "queue", "overflowed", 3)), ("T", (0, -1, 1 << 40))]:
        line = bridge_logic.make_line(verb, *fields)
        show("line", line.rstrip("\n"), bridge_logic.parse_line(line))
        show("old", bridge_logic.make_old_line(verb, *fields).rstrip("\n"))
    for text in ["$L 1 blink*0000", "L 1 on", "$ST?*", "", "$*FFFF", "$L 1 on*abcd", "$HELLO? 4*" + "Z" * 4]:
        show("parse", repr(text), bridge_logic.parse_line(text))
    for text in ["12", "-3", "--1", "", "99999999999999999999", "7a", "0"]:
        show("number", repr(text), bridge_logic.number(text, -5, 100))
    payload = bytes(range(256))
    escaped = bridge_logic.escape(payload)
    show("escape", len(escaped), bridge_logic.crc16(escaped), bytes(bridge_logic.unescape(escaped)) == payload)
    show("unescape", bridge_logic.unescape(b"ab\x1b"))
    record = frame(7, [1, 2, 3, 10, 36, 27])
    seq, pixels = bridge_logic.decode_frame(record[1:-1])
    show("frame", seq, list(pixels), bridge_logic.decode_frame(record[1:-2]))
    framer = bridge_logic.Framer()
    stream = b"junk$L 0 on*1234\n$ST?" + b"\x02abc$B\n" + b"x" * 9000 + b"\n$ok\n"
    for k in range(0, len(stream), 7):
        for got in framer.feed(stream[k:k + 7]):
            show("record", len(got), got[:12])
    show("framer", framer.cut, framer.too_long)
    quad = bridge_logic.Quadrature()
    steps = [quad.update(a, b) for a, b in [(0, 1), (0, 0), (0, 1), (0, 0), (1, 0), (1, 1), (1, 0), (0, 0),
                                            (0, 1), (1, 1)]]
    show("quadrature", steps, [bridge_logic.gray_to_binary(g) for g in range(16)])


def firmware():
    """main.py's build: the pins' hard handlers, edges through the ring, table lines in."""
    io = Collect()
    bridge = main.build(io, main.make_strip(), ticks_us=CLOCK.ticks_us)
    bridge.boot, bridge.seq = 123456, (1 << 30) - 3  # random on a Pico; fixed here (and wrapping)
    bridge.hello()
    pins = machine.PINS

    def passes(n, us=1000):
        for _ in range(n):
            bridge.service(CLOCK.ticks_us)
            CLOCK.advance(us)

    passes(2)
    pins[2].drive(0)  # station 0 presses ...
    CLOCK.advance(700)
    pins[7].drive(0)  # ... and station 1, 0.7 ms later
    CLOCK.advance(30000)
    pins[2].drive(1)
    pins[7].drive(1)
    for a, b in [(1, 0), (0, 0), (0, 1), (1, 1)]:  # station 1's knob: one detent
        pins[9].drive(a)
        CLOCK.advance(250)
        pins[10].drive(b)
        CLOCK.advance(250)
    for a, b in [(0, 1), (0, 0), (1, 0), (1, 1), (0, 1), (1, 1)]:  # station 2's: one back, chatter
        pins[15].drive(b)
        pins[14].drive(a)
        CLOCK.advance(300)
    passes(3)  # across the counter's wrap
    pins[21].drive(0)  # station 3's knob switch
    pins[21].drive(1)
    make = bridge_logic.make_line
    bridge.feed((make("L", 0, "on") + make("L", 2, "blink") + make("L", 9, "on")).encode() + b"garbage\n"
                + frame(5, [1, 2, 3] * 60))
    passes(300)  # the heartbeat's state lines, the blinking LED
    bridge.feed(make("ST?", (1 << 30) - 1, 3).encode() + make("HELLO?", 3).encode())
    passes(2)
    for k in range(300):  # a storm of edges: queued by the handlers, sent by the main loop
        pins[12].drive(k % 2)
        CLOCK.advance(3)
    passes(1)
    for line in "".join(io.out).splitlines():
        show("out", line)
    show("leds", [pins[gpio].level for gpio in (3, 8, 13, 18)])
    show("strip", len(bridge.strip.sm.words), bridge.strip.sm.words[-1][:3])
    show("state", bridge.downs, bridge.level, bridge.bad_records, bridge.frames, bridge.resends)


def run(lock_heap=True, allocating=False):
    """The whole run; ``allocating`` swaps in a handler that allocates (the check's check)."""
    machine.LOCK_HEAP[0] = lock_heap
    if allocating:
        put = bridge_logic.EdgeRing.put
        bridge_logic.EdgeRing.put = lambda self, *args: put(self, *[list(args)][0])
    codec()
    firmware()
    show("heap", machine.HEAP[0], machine.HEAP[1])
