# The I/O bridge's logic, free of hardware: MicroPython on a Raspberry Pi Pico runs
# it (main.py wires it to machine.Pin and neopixel), CPython runs it in the table's
# tests. Protocol version 1, see docs/serial-bridge.md. Kept to the subset of Python
# that MicroPython supports: no dataclasses, no typing, no f-string format specs.

PROTOCOL = 1
FIRMWARE = "table-bridge-1.0"
TICKS_PERIOD = 1 << 30  # MicroPython's ticks_us() wraps at 2**30 on the RP2040
HEARTBEAT_US = 1000000
MAX_LINE = 4096


def checksum(text):
    value = 0
    for ch in text:
        value ^= ord(ch)
    return value


def make_line(verb, *fields):
    body = " ".join([verb] + [str(f) for f in fields])
    return body + "*" + f"{checksum(body):02X}" + "\n"


def parse_line(line):
    """(verb, fields) of a table -> bridge line, or None when it is malformed."""
    line = line.strip()
    if not line or len(line) > MAX_LINE:
        return None
    star = line.rfind("*")
    if star < 0 or len(line) - star != 3:
        return None
    body = line[:star]
    try:
        given = int(line[star + 1:], 16)
    except ValueError:
        return None
    if checksum(body) != given:
        return None
    parts = body.split(" ")
    return parts[0], parts[1:]


class Clock:
    """Extends the wrapping hardware microsecond counter into one that never wraps
    (MicroPython integers are unbounded), as long as it is read at least once per
    half period (about nine minutes): the main loop reads it every pass."""

    def __init__(self, first_raw):
        self.last_raw = first_raw
        self.us = 0

    def extend(self, raw):
        diff = (raw - self.last_raw) % TICKS_PERIOD
        if diff >= TICKS_PERIOD // 2:
            return self.us - (TICKS_PERIOD - diff)  # a stamp taken just before the last read
        self.last_raw = raw
        self.us += diff
        return self.us


# Quadrature: previous 2-bit state (a<<1|b, 1 = contact open) and new state ->
# quarter steps. Impossible jumps (both contacts changed) count 0.
_QUARTER = {
    (3, 1): 1, (1, 0): 1, (0, 2): 1, (2, 3): 1,
    (3, 2): -1, (2, 0): -1, (0, 1): -1, (1, 3): -1,
}


class Quadrature:
    """Counts detents of an encoder with contacts to GND (pull-ups: 1 = open).

    Quarter steps accumulate while the contacts move; a detent is counted when the
    encoder is back at rest (both open) having gone at least half way round, so
    chatter on one contact (forward, back, forward) cancels out."""

    def __init__(self):
        self.state = 3
        self.quarters = 0

    def update(self, a, b):
        new = (1 if a else 0) << 1 | (1 if b else 0)
        if new == self.state:
            return 0
        self.quarters += _QUARTER.get((self.state, new), 0)
        self.state = new
        if new != 3:
            return 0
        q, self.quarters = self.quarters, 0
        if q >= 2:
            return 1
        if q <= -2:
            return -1
        return 0


def gray_to_binary(g):
    b = g
    g >>= 1
    while g:
        b ^= g
        g >>= 1
    return b


class Bridge:
    """The bridge's state: station inputs in, protocol lines out, LED commands in.

    ``write(text)`` sends a line to the table. ``leds.set(station, on)`` switches a
    button LED; ``strip`` (or None) is a list-like of pixels with ``write()``.
    Edges are queued by the pin interrupts with the time they happened
    (:meth:`edge`) and sent from the main loop (:meth:`poll`).
    """

    def __init__(self, stations, write, leds=None, strip=None, code="gray"):
        self.stations = stations
        self.write = write
        self.leds = leds
        self.strip = strip
        self.code = code
        self.queue = []
        self.quad = [Quadrature() for _ in range(stations)]
        self.led_state = ["off"] * stations
        self.absolute = [None] * stations
        self.last_heartbeat = None
        self.bad_lines = 0
        self.pending = ""

    def hello(self):
        self.write(make_line("HELLO", PROTOCOL, FIRMWARE, self.stations))

    # called from interrupt handlers: only append (no I/O)
    def edge(self, kind, station, value, us):
        self.queue.append((kind, station, value, us))

    def encoder(self, station, a, b, us):
        steps = self.quad[station].update(a, b)
        if steps:
            self.queue.append(("R", station, steps, us))

    def absolute_lines(self, station, lines, us):
        raw = 0
        for i, active in enumerate(lines):
            if active:
                raw |= 1 << i
        sector = (gray_to_binary(raw) if self.code == "gray" else raw) % 16
        if sector != self.absolute[station]:
            self.absolute[station] = sector
            self.queue.append(("A", station, sector, us))

    def poll(self, now_us):
        queue, self.queue = self.queue, []
        for kind, station, value, us in queue:
            self.write(make_line(kind, station, value, us))
        if self.last_heartbeat is None or now_us - self.last_heartbeat >= HEARTBEAT_US:
            self.last_heartbeat = now_us
            self.write(make_line("T", now_us))
        if self.leds is not None:
            blink_on = (now_us // 250000) % 2 == 0
            for station, state in enumerate(self.led_state):
                self.leds.set(station, state == "on" or (state == "blink" and blink_on))

    def feed(self, text):
        """Characters from the table; complete lines are acted on."""
        self.pending += text
        if len(self.pending) > 2 * MAX_LINE and "\n" not in self.pending:
            self.pending = ""
            self.bad_lines += 1
        while "\n" in self.pending:
            line, self.pending = self.pending.split("\n", 1)
            self.handle(line)

    def handle(self, line):
        parsed = parse_line(line)
        if parsed is None:
            self.bad_lines += 1
            return
        verb, fields = parsed
        try:
            if verb == "HELLO?":
                self.hello()
            elif verb == "L" and len(fields) == 2 and fields[1] in ("on", "off", "blink"):
                station = int(fields[0])
                if 0 <= station < self.stations:
                    self.led_state[station] = fields[1]
                else:
                    self.bad_lines += 1
            elif verb == "F" and len(fields) == 2:
                self.frame(int(fields[0]), fields[1])
            else:
                self.bad_lines += 1
        except ValueError:
            self.bad_lines += 1

    def frame(self, count, hexes):
        if len(hexes) != 6 * count:
            raise ValueError("frame length")
        if self.strip is None:
            return
        n = min(count, getattr(self.strip, "n", None) or len(self.strip))
        for i in range(n):
            j = 6 * i
            r, g, b = hexes[j:j + 2], hexes[j + 2:j + 4], hexes[j + 4:j + 6]
            self.strip[i] = (int(r, 16), int(g, 16), int(b, 16))
        self.strip.write()
