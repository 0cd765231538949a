# The I/O bridge's logic, free of hardware: MicroPython on a Raspberry Pi Pico runs
# it (main.py wires it to machine.Pin, the PIO LED strip and the USB serial port),
# CPython runs it in the table's tests against simulated pins and a simulated clock.
# Protocol version 4, see docs/serial-bridge.md. Kept to the subset of Python that
# MicroPython supports: no dataclasses, no typing, no f-string format specs.
#
# How an edge travels: a hard pin interrupt (EdgeRing.put, run inside the interrupt,
# allocating nothing) writes which input, which edge(s) it saw and the 30-bit tick
# count into preallocated arrays. Only the main loop (Bridge.service) turns ticks into
# the 64-bit microsecond clock, so nothing can interrupt the extension half-way.

import array

PROTOCOL = 4
FIRMWARE = "table-bridge-4.0"
TICKS_PERIOD = 1 << 30  # MicroPython's ticks_us() wraps at 2**30 on the RP2040
# The heartbeat carries every station's state: a release whose line was lost is mended
# within one period. 4 per second of about 30 + 30 bytes per station: under 1 kB/s.
HEARTBEAT_US = 250000
SEQ_PERIOD = 1 << 30  # line numbers wrap here (small integers on the Pico: no allocation)
COUNT_PERIOD = 1 << 16  # the press counters wrap here
HISTORY = 128  # lines kept for sending again when the table misses one
# A state line follows every burst of edges this soon: it tells the table that no
# edge before it is still on its way (lost at the tail of a burst, say), so the table
# can decide - and whichever line comes next shows a gap at once.
PROOF_US = 10000
MAX_RECORD = 8192  # a binary frame of up to about 2,600 pixels
RING = 256  # edges the interrupts can queue between two main-loop passes

# Pin.IRQ_FALLING / IRQ_RISING on the RP2040 (the values of the port's constants)
IRQ_FALLING = 4
IRQ_RISING = 8

# Framing: a record runs from a start byte to "\n". "$" starts a text line, STX a
# binary LED frame; a start byte inside a record means the record before it was cut
# off, and it is dropped (counted) without swallowing the next one. Every text line
# ends in "*" and the CRC-16/CCITT-FALSE of its body (four upper-case hex digits),
# every binary frame in the CRC of its payload (two bytes): a line with a few flipped
# bits is dropped instead of becoming another station's press.
TEXT_START = 0x24  # "$"
FRAME_START = 0x02
ESC = 0x1B
# Bytes a binary payload never carries raw: the framing bytes, and the control
# characters MicroPython's USB console reacts to (Ctrl-A..D) - so the console's
# Ctrl-C stays enabled for mpremote without a frame ever triggering it.
ESCAPED = (0x01, 0x02, 0x03, 0x04, 0x0A, 0x0D, 0x1B, 0x24)


def _crc_table():
    # CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected), a byte at a time;
    # MicroPython's binascii has no crc_hqx on every port, so the bridge carries its own
    table = array.array("H", [0] * 256)
    for n in range(256):
        crc = n << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table[n] = crc & 0xFFFF
    return table


CRC_TABLE = _crc_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of bytes ``data`` (crc16(b"123456789") == 0x29B1). One table
    look-up per byte: about 900 for a frame of 300 pixels, in the main loop (edges are
    stamped by their interrupts meanwhile, so this only delays their sending)."""
    table = CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b]
    return crc


def old_checksum(data):
    value = 0
    for b in data:
        value ^= b
    return value


def make_line(verb, *fields):
    body = " ".join([verb] + [str(f) for f in fields])
    return "$" + body + "*" + "%04X" % crc16(body.encode()) + "\n"


def make_old_line(verb, *fields):
    """A protocol-2 line (XOR checksum): what an old table can read."""
    body = " ".join([verb] + [str(f) for f in fields])
    return "$" + body + "*" + "%02X" % old_checksum(body.encode()) + "\n"


def _only(text, allowed):
    for ch in text:
        if ch not in allowed:
            return False
    return True


def parse_line(line, old=False):
    """(verb, fields) of one text record (str, with or without "$"), or None when it
    is malformed: no or a wrong CRC (``old``: protocol 2's XOR checksum instead)."""
    line = line.strip()
    if line.startswith("$"):
        line = line[1:]
    if not line or len(line) > MAX_RECORD:
        return None
    star = line.rfind("*")
    digits = 2 if old else 4
    if star < 0 or len(line) - star != digits + 1 or not _only(line[star + 1:], "0123456789ABCDEF"):
        return None
    body = line[:star]
    given = int(line[star + 1:], 16)
    data = body.encode()
    if (old_checksum(data) if old else crc16(data)) != given:
        return None
    parts = body.split(" ")
    return parts[0], parts[1:]


def number(text, lo, hi):
    """``text`` as an integer in lo..hi, spelt as the table spells numbers, or None."""
    digits = text[1:] if text[:1] == "-" else text
    if not digits or len(digits) > 19 or not _only(digits, "0123456789"):
        return None
    value = int(text)
    if value < lo or value > hi:
        return None
    return value


def escape(data):
    out = bytearray()
    for b in data:
        if b in ESCAPED:
            out.append(ESC)
            out.append(b ^ 0x40)
        else:
            out.append(b)
    return bytes(out)


def unescape(data):
    parts = bytes(data).split(b"\x1b")
    out = bytearray(parts[0])
    for part in parts[1:]:
        if not part:
            return None  # an escape at the very end: cut off
        out.append(part[0] ^ 0x40)
        out.extend(part[1:])
    return out


def decode_frame(record):
    """(seq, rgb bytes) of a binary frame record (without STX and newline), or None."""
    raw = unescape(record)
    if raw is None or len(raw) < 5:
        return None
    seq, count = raw[0], raw[1] << 8 | raw[2]
    pixels = raw[3:-2]
    if len(pixels) != 3 * count or crc16(raw[:-2]) != (raw[-2] << 8 | raw[-1]):
        return None
    return seq, pixels


class Framer:
    """Cuts the incoming byte stream into records (see "Framing" above)."""

    def __init__(self):
        self.pending = bytearray()
        self.cut = 0
        self.too_long = 0
        self.skipping = False

    def feed(self, data):
        records = []
        segments = bytes(data).split(b"\n")
        last = len(segments) - 1
        for i, seg in enumerate(segments):
            k = max(seg.rfind(b"$"), seg.rfind(b"\x02"))
            if k >= 0:  # a record starts here; whatever came before it was cut off
                if self.pending or k > 0:
                    self.cut += 1
                self.pending = bytearray()
                self.skipping = False
                seg = seg[k:]
            if not self.skipping:
                if len(self.pending) + len(seg) > MAX_RECORD:
                    self.too_long += 1
                    self.pending = bytearray()
                    self.skipping = True
                else:
                    self.pending.extend(seg)
            if i < last:  # a newline ends the record
                if self.pending and not self.skipping:
                    records.append(bytes(self.pending))
                self.pending = bytearray()
                self.skipping = False
        return records


class Clock:
    """The bridge's 64-bit microsecond clock, extended from the 30-bit tick counter.

    Only the main loop calls it (never an interrupt), at least once per half period
    (about nine minutes), so the extension cannot be torn. ``since(raw_now, raw)``
    gives the clock value of an earlier tick reading ``raw`` taken by an interrupt
    before ``raw_now`` was read."""

    def __init__(self, first_raw):
        self.last_raw = first_raw
        self.us = 0

    def extend(self, raw):
        diff = (raw - self.last_raw) % TICKS_PERIOD
        self.last_raw = raw
        self.us += diff
        return self.us

    def stamp(self, raw):
        """Clock value of an interrupt's tick reading taken before the last extend()."""
        return self.us - (self.last_raw - raw) % TICKS_PERIOD


class EdgeRing:
    """Edges queued by the pin interrupts: input slot, edge flags and tick count.

    :meth:`put` runs inside a hard interrupt: it only stores small integers into
    preallocated arrays. ``flags`` holds the IRQ_FALLING / IRQ_RISING bits the port
    latched for this interrupt plus bit 0 = the pin's level read in the handler."""

    def __init__(self, size=RING):
        self.size = size
        self.slot = bytearray(size)
        self.flags = bytearray(size)
        self.ticks = array.array("i", [0] * size)
        self.head = array.array("i", [0, 0])  # [write index, overflows]
        self.tail = 0

    def put(self, slot, flags, level, ticks):
        h = self.head[0]
        nxt = (h + 1) % self.size
        if nxt == self.tail:
            self.head[1] += 1  # full: the main loop is far behind; counted, reported
            return
        self.slot[h] = slot
        self.flags[h] = (flags & (IRQ_FALLING | IRQ_RISING)) | (1 if level else 0)
        self.ticks[h] = ticks
        self.head[0] = nxt


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


def slots_of(stations):
    """The input pins of a config.STATIONS list: [(gpio, station, role)], role one of
    "B" (button), "S" (knob switch), "EA"/"EB" (encoder contacts), "D0".."D3" (data
    lines of an absolute switch, least significant first)."""
    out = []
    for index, st in enumerate(stations):
        if st.get("button") is not None:
            out.append((st["button"], index, "B"))
        if st.get("switch") is not None:
            out.append((st["switch"], index, "S"))
        if st.get("encoder"):
            out.append((st["encoder"][0], index, "EA"))
            out.append((st["encoder"][1], index, "EB"))
        if st.get("data"):
            for k, gpio in enumerate(st["data"]):
                out.append((gpio, index, "D" + str(k)))
    return out


class Bridge:
    """The bridge's state: input edges in, protocol lines out, table commands in.

    ``stations`` is config.STATIONS; ``write(text)`` sends text to the table;
    ``leds.set(station, on)`` switches a button LED; ``strip`` (or None) shows a
    frame with ``show(rgb_bytes)`` and has ``n`` pixels. ``ring`` is the
    :class:`EdgeRing` the interrupts fill; ``levels`` are the input levels at boot
    (1 = line high = contact open), read after the interrupts were enabled.
    ``boot`` identifies this boot (random on the Pico: a line kept from an earlier boot
    does not fit in) and is also the number of its first line, which the table relies
    on to ask for a new boot's first lines when its HELLO was lost; ``first_seq`` only
    overrides that for tests of the numbering itself.

    Every line ends in its sequence number, and the last ``HISTORY`` lines are kept:
    the table asks for the ones it missed (``ST? <seq>``) and gets them again, as they
    were, followed by a state line.
    """

    def __init__(self, stations, write, ring, levels, first_raw, leds=None, strip=None, code="gray",
                 boot=0, first_seq=None):
        self.write = write
        self.ring = ring
        self.leds = leds
        self.strip = strip
        self.code = code
        self.slots = slots_of(stations)
        self.count = len(stations)
        self.level = [1 if v else 0 for v in levels]  # line level per slot (pull-up: 1 = open)
        self.clock = Clock(first_raw)
        self.quad = [Quadrature() for _ in range(self.count)]
        for k, (_, station, role) in enumerate(self.slots):
            if role == "EA" or role == "EB":
                self.quad[station].state = self._ab(station)
        self.sector = [self._sector(i) for i in range(self.count)]
        self.downs = [0] * self.count  # button presses (falling edges) this boot, mod COUNT_PERIOD
        self.last_down = [0] * self.count  # the clock at the last one
        self.led_state = ["off"] * self.count
        self.last_heartbeat = None
        self.framer = Framer()
        self.bad_records = 0
        self.frames = 0
        self.overflows_sent = 0
        self.state_wanted = True
        self.proof_due = None  # when the state line after the latest edges is due
        self.hello_wanted = False  # a HELLO? came: answered by the next pass
        self.hello_note = None  # an error line to send right after that HELLO
        self.table_speaks = False  # a valid protocol-4 record arrived since boot
        self.boot = boot % SEQ_PERIOD
        # the number of the next line: a boot's lines count from its id
        self.seq = self.boot if first_seq is None else first_seq % SEQ_PERIOD
        self.kept = 0  # lines in the history
        self.history = [""] * HISTORY
        self.resends = 0

    # --- sending ------------------------------------------------------------------

    def send(self, verb, *fields):
        """One numbered line to the table, kept for sending again."""
        line = make_line(verb, *(fields + (self.seq,)))
        self.history[self.seq % HISTORY] = line
        self.seq = (self.seq + 1) % SEQ_PERIOD
        if self.kept < HISTORY:
            self.kept += 1
        self.write(line)

    def oldest(self):
        """The number of the oldest line still kept."""
        return (self.seq - self.kept) % SEQ_PERIOD

    def resend(self, first, count):
        """Send ``count`` kept lines from number ``first`` on again; False when it is no
        longer kept (or was never sent): then only the state line helps the table."""
        back = (self.seq - first) % SEQ_PERIOD
        if back > self.kept:
            return False
        for k in range(min(back, count)):
            n = (first + k) % SEQ_PERIOD
            self.write(self.history[n % HISTORY])
        self.resends += 1
        return True

    # --- reports ------------------------------------------------------------------

    def hello(self):
        self.send("HELLO", PROTOCOL, FIRMWARE, self.count, self.boot, self.clock.us)

    def _slot_level(self, station, role):
        for k, (_, s, r) in enumerate(self.slots):
            if s == station and r == role:
                return self.level[k]
        return None

    def _ab(self, station):
        a = self._slot_level(station, "EA")
        b = self._slot_level(station, "EB")
        return (1 if a else 0) << 1 | (1 if b else 0)

    def _sector(self, station):
        raw = 0
        found = False
        for k, (_, s, role) in enumerate(self.slots):
            if s == station and role[0] == "D":
                found = True
                if not self.level[k]:  # pulled to GND: line active
                    raw |= 1 << int(role[1:])
        if not found:
            return -1
        return (gray_to_binary(raw) if self.code == "gray" else raw) % 16

    def state_report(self, us):
        """The state line: the clock, the oldest line kept, and per station the button
        and knob switch (1 = pressed), the sector the data lines read (-1: no absolute
        switch), the button's press count and the clock at its last press."""
        fields = [us, self.oldest()]
        for i in range(self.count):
            b = self._slot_level(i, "B")
            s = self._slot_level(i, "S")
            fields += [1 if b == 0 else 0, 1 if s == 0 else 0, self.sector[i], self.downs[i], self.last_down[i]]
        self.send("T", *fields)

    # --- the main loop's pass -------------------------------------------------------

    def service(self, ticks_us):
        """One main-loop pass: send the queued edges, the state line when asked or due
        (the heartbeat), button LEDs. ``ticks_us`` reads the 30-bit counter; it is read
        *after* the ring's write index, so every queued stamp is older than it."""
        ring = self.ring
        head = ring.head[0]
        now = self.clock.extend(ticks_us())
        if ring.tail != head and self.proof_due is None:
            self.proof_due = now + PROOF_US
        while ring.tail != head:
            k = ring.tail
            self._edge(ring.slot[k], ring.flags[k], self.clock.stamp(ring.ticks[k]))
            ring.tail = (k + 1) % ring.size
        if self.hello_wanted:
            self.hello_wanted = False
            self.hello()
            if self.hello_note is not None:
                self.send("E", self.hello_note)
                self.hello_note = None
        if ring.head[1] != self.overflows_sent:
            self.overflows_sent = ring.head[1]
            self.send("E", "edge", "queue", "overflowed", self.overflows_sent)
        if self.proof_due is not None and now >= self.proof_due:
            self.proof_due = None
            self.state_wanted = True
        if self.state_wanted or self.last_heartbeat is None or now - self.last_heartbeat >= HEARTBEAT_US:
            self.state_wanted = False
            self.last_heartbeat = now
            self.state_report(now)
        if self.leds is not None:
            blink_on = (now // 250000) % 2 == 0
            for station, state in enumerate(self.led_state):
                self.leds.set(station, state == "on" or (state == "blink" and blink_on))
        return now

    def _edge(self, slot, flags, us):
        fell, rose = flags & IRQ_FALLING, flags & IRQ_RISING
        if fell and rose:  # two edges before the handler ran: the level read says which came last
            last = flags & 1
            self._level(slot, 1 - last, us)
            self._level(slot, last, us)
        elif fell:
            self._level(slot, 0, us)
        elif rose:
            self._level(slot, 1, us)
        else:
            self._level(slot, flags & 1, us)

    def _level(self, slot, level, us):
        """The line of ``slot`` went to ``level`` at ``us`` (taken from the edge)."""
        self.level[slot] = level
        _, station, role = self.slots[slot]
        if role == "B" or role == "S":
            if role == "B" and level == 0:
                self.downs[station] = (self.downs[station] + 1) % COUNT_PERIOD
                self.last_down[station] = us
            self.send(role, station, 1 - level, us)
        elif role == "EA" or role == "EB":
            ab = self._ab(station)
            steps = self.quad[station].update(ab >> 1, ab & 1)
            if steps:
                self.send("R", station, steps, us)
        else:
            sector = self._sector(station)
            if sector != self.sector[station]:
                # what the lines read now; the table waits until a reading is stable
                self.sector[station] = sector
                self.send("A", station, sector, us)

    # --- from the table ---------------------------------------------------------------

    def feed(self, data):
        """Bytes from the table; complete records are acted on."""
        before = self.framer.cut + self.framer.too_long
        for record in self.framer.feed(data):
            self.handle(record)
        self.bad_records += self.framer.cut + self.framer.too_long - before

    def handle(self, record):
        if record[0] == FRAME_START:
            got = decode_frame(record[1:])
            if got is None:
                self.bad_records += 1
                return
            seq, pixels = got
            if self.strip is not None:
                self.strip.show(pixels)
            self.frames += 1
            self.send("K", seq)  # flow control: ready for the next frame
            return
        try:
            text = record.decode()
        except Exception:  # noqa: BLE001 - MicroPython raises UnicodeError, CPython a subclass
            self.bad_records += 1
            return
        parsed = parse_line(text)
        if parsed is None:
            self._old_record(text)
            return
        verb, fields = parsed
        if verb == "HELLO?" and len(fields) == 1:
            version = number(fields[0], 0, 1 << 30)
            if version is not None and version < PROTOCOL:
                self._older_table(version)
                return
            self.table_speaks = True
            self.hello_wanted = True  # sent by the next pass, with the clock of then
            self.state_wanted = True
            if version != PROTOCOL:  # said right after that HELLO
                self.hello_note = "the table speaks protocol %s and the I/O bridge %d" % (fields[0], PROTOCOL)
        elif verb == "ST?" and len(fields) in (0, 2):
            # ST? <first> <count>: those lines again, then the state; ST? alone: the state
            self.table_speaks = True
            if fields:
                first = number(fields[0], 0, SEQ_PERIOD - 1)
                count = number(fields[1], 0, HISTORY)
                if first is None or count is None:
                    self.bad_records += 1
                    return
                self.resend(first, count)
            self.state_wanted = True
        elif verb == "L" and len(fields) == 2 and fields[1] in ("on", "off", "blink"):
            station = number(fields[0], 0, self.count - 1)
            if station is None:
                self.bad_records += 1
            else:
                self.table_speaks = True
                self.led_state[station] = fields[1]
        else:
            self.bad_records += 1

    def _older_table(self, version):
        """A table of protocol 3 (CRC lines without numbers): answered in its format, so
        that it names the mismatch and logs which end to update."""
        self.write(make_line("HELLO", PROTOCOL, FIRMWARE, self.count))
        self.write(make_line("E", "the I/O bridge speaks protocol %d and the table an older one:"
                                  " update the table's software" % PROTOCOL))

    def _old_record(self, text):
        """Not a CRC line. An old table's HELLO? (protocol 2, XOR checksum) is answered
        in its own format, so that it logs the mismatch - unless a new table has spoken:
        then it is that table's probe for an old bridge, and ignored. Anything else is
        bad."""
        parsed = parse_line(text, old=True)
        if parsed is None or parsed[0] != "HELLO?":
            self.bad_records += 1
            return
        if self.table_speaks:
            return
        self.write(make_old_line("HELLO", PROTOCOL, FIRMWARE, self.count))
        self.write(make_old_line("E", "the I/O bridge speaks protocol %d and the table an older one:"
                                      " update the table's software" % PROTOCOL))
