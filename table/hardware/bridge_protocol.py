"""The serial I/O bridge's protocol, version 4 (documented in docs/serial-bridge.md).

The byte stream is cut into *records*, each from a start byte to ``\\n``:

* ``$`` starts a text line: a verb, space-separated fields, then ``*`` and the
  CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no
  final XOR) of every byte between ``$`` and ``*``, as four upper-case hex digits.
  A line that is too long, has no or a wrong CRC, is not ASCII, has an unknown verb,
  the wrong number of fields or a field that is not a number in its range is
  *malformed*: the reader counts it under a reason and skips it - garbage never
  stops the table, and never drops the link.
* STX (0x02) starts a binary LED frame (table -> bridge): sequence number, pixel
  count (2 bytes, big-endian), 3 bytes per pixel, then the CRC-16 of everything
  before it (2 bytes, big-endian). The bridge sends a pixel's bytes to the strip as
  the second, first, third: for a GRB strip (the WS2812's order) they are r, g, b;
  for a strip of another ``[leds] pixel_order`` the table arranges them so that the
  strip gets its own order (``serial_bridge.bridge_byte_order``). Every byte of that
  payload that is a
  framing or console control byte (0x01-0x04, ``\\n``, ``\\r``, ESC, ``$``) is sent
  as ESC and the byte XOR 0x40.

A start byte in the middle of a record means the record was cut off (a pulled
cable, a reset): the broken part is counted (``cut``) and the new record read
normally, so a cut never swallows the next record.

Bridge -> table (every line ends in its sequence number ``<n>``)::

    HELLO <protocol> <firmware> <stations> <boot> <us> <n>  who is there (on boot and on HELLO?)
    T <us> <oldest> {<button> <switch> <sector> <presses> <last_press_us>}... <n>
                                             state line: the heartbeat (4 per second), also
                                             10 ms after every burst of edges, after HELLO
                                             and on ST?; one group per station
    B <station> <level> <us> <n>             big button edge: level 1 = pressed
    S <station> <level> <us> <n>             knob switch edge
    R <station> <delta> <us> <n>             encoder steps (signed, clockwise +)
    A <station> <sector> <us> <n>            the absolute knob's lines now read sector (0-15)
    K <seq> <n>                              LED frame <seq> shown: send the next
    E <text...> <n>                          a problem the bridge wants logged

Table -> bridge::

    HELLO? <protocol>                        please identify (and report the state)
    ST? <n> <count>                          please send your <count> lines from <n> on again
                                             (those still kept), then a state line
    L <station> <on|off|blink>               button LED
    STX ...                                  one LED frame (binary, above)

``<us>`` is the bridge's own 64-bit microsecond clock since it booted. Edges are
stamped by the bridge when they happen, so USB and Python latency do not change
who was first. ``<boot>`` is a random id of the boot and ``<n>`` counts the bridge's
lines (modulo 2**30) from it. The table acts on lines in the
order of their numbers: a missing number is asked for again, a number it has seen
is refused (see :class:`Sequencer` and docs/serial-bridge.md, "Recovery").

Protocol 2 lines (an XOR checksum of two hex digits) are only *recognised*, never
acted on: :func:`decode_old` finds an old bridge's ``HELLO`` so that the table can
say which end to update.
"""

from __future__ import annotations

import binascii
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

PROTOCOL_VERSION = 4
OLD_PROTOCOL = 2  # the last protocol with XOR checksums: recognised, to name the mismatch
MAX_LINE = 4096  # a text line
SEQ_PERIOD = 1 << 30  # line numbers wrap here
COUNT_PERIOD = 1 << 16  # press counters wrap here
MAX_STATIONS = 16
MAX_RECORD = 8192  # any record; a binary frame of up to about 2,600 pixels
TEXT_START = b"$"
FRAME_START = b"\x02"
ESC = 0x1B
ESCAPED = bytes((0x01, 0x02, 0x03, 0x04, 0x0A, 0x0D, 0x1B, 0x24))
_ESCAPE_RE = re.compile(b"[" + re.escape(ESCAPED) + b"]")
_CRC_DIGITS = re.compile(rb"[0-9A-F]{4}")
_OLD_DIGITS = re.compile(rb"[0-9A-F]{2}")
# the only spelling of a number the bridge sends: no sign on 0, no leading zeros, no
# "+", "_" or spaces (which int() would accept), at most 19 digits (a 64-bit clock)
_NUMBER = re.compile(r"0|-?[1-9][0-9]{0,18}")
# a firmware's name in HELLO ("table-bridge-3.0"): one token of letters, digits and ._+-
_FIRMWARE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}")


class MalformedLine(ValueError):
    """A line that breaks the protocol; ``reason`` is the counter it goes under."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (``crc16(b"123456789") == 0x29B1``); the
    firmware computes the same from its own table (``bridge_logic.crc16``)."""
    return binascii.crc_hqx(data, 0xFFFF)


def old_checksum(body: bytes) -> int:
    """Protocol 2's checksum: the XOR of the bytes (misses every even number of flips
    in one bit column, so it only serves to recognise an old bridge)."""
    value = 0
    for byte in body:
        value ^= byte
    return value


def encode(verb: str, *fields: object) -> bytes:
    """One protocol line, with CRC and newline."""
    body = " ".join([verb, *(str(f) for f in fields)]).encode("ascii")
    return b"$" + body + b"*%04X\n" % crc16(body)


def encode_old(verb: str, *fields: object) -> bytes:
    """One protocol-2 line (XOR checksum): the table's probe for an old bridge."""
    body = " ".join([verb, *(str(f) for f in fields)]).encode("ascii")
    return b"$" + body + b"*%02X\n" % old_checksum(body)


@dataclass(frozen=True)
class Message:
    verb: str
    fields: tuple[str, ...]


# verb -> number of fields (None: at least one, checked by the verb's parser)
BRIDGE_VERBS: dict[str, int | None] = {
    "HELLO": None, "T": None, "B": 4, "S": 4, "R": 4, "A": 4, "K": 2, "E": None,
}
TABLE_VERBS: dict[str, int | None] = {"HELLO?": 1, "ST?": 2, "L": 2}
# the lines of protocols 2 and 3 (no sequence numbers): only recognised, never acted on
OLD_BRIDGE_VERBS: dict[str, int | None] = {
    "HELLO": 3, "ST": 5, "B": 3, "S": 3, "R": 3, "A": 3, "K": 1, "T": 1, "E": None,
}
STATE_FIELDS = 5  # per station in a state line


def _split(text: str, verbs: dict[str, int | None]) -> Message:
    parts = text.split(" ")
    verb, fields = parts[0], tuple(parts[1:])
    if verb not in verbs:
        raise MalformedLine("unknown_verb")
    want = verbs[verb]
    if (want is None and not fields) or (want is not None and len(fields) != want):
        raise MalformedLine("bad_fields")
    return Message(verb, fields)


def _text(body: bytes) -> str:
    try:
        text = body.decode("ascii")
    except UnicodeDecodeError:
        raise MalformedLine("not_ascii") from None
    if not text.isprintable():
        raise MalformedLine("not_ascii")
    return text


def decode(line: bytes, verbs: dict[str, int | None] = BRIDGE_VERBS) -> Message:
    """Parse one line (with or without ``$`` and newline); raises :class:`MalformedLine`
    with the reason ``too_long``, ``empty``, ``no_crc``, ``bad_crc``, ``not_ascii``,
    ``unknown_verb`` or ``bad_fields``."""
    line = line.rstrip(b"\r\n")
    if line.startswith(TEXT_START):
        line = line[1:]
    if len(line) > MAX_LINE:
        raise MalformedLine("too_long")
    if not line:
        raise MalformedLine("empty")
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 5 or not _CRC_DIGITS.fullmatch(line, star + 1):
        raise MalformedLine("no_crc")
    body = line[:star]
    if crc16(body) != int(line[star + 1:], 16):
        raise MalformedLine("bad_crc")
    return _split(_text(body), verbs)


def decode_old(line: bytes, verbs: dict[str, int | None] = OLD_BRIDGE_VERBS) -> Message | None:
    """A well-formed protocol-2 line (XOR checksum), or None. Only used to recognise
    the other end's protocol; such lines are never acted on."""
    line = line.rstrip(b"\r\n")
    if line.startswith(TEXT_START):
        line = line[1:]
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 3 or len(line) > MAX_LINE or not _OLD_DIGITS.fullmatch(line, star + 1):
        return None
    body = line[:star]
    if old_checksum(body) != int(line[star + 1:], 16):
        return None
    try:
        return _split(_text(body), verbs)
    except MalformedLine:
        return None


def number(text: str, lo: int | None = None, hi: int | None = None) -> int:
    """``text`` as an integer within ``lo..hi``; raises :class:`MalformedLine`
    (``bad_number``: not spelt as the bridge spells numbers; ``out_of_range``)."""
    if not _NUMBER.fullmatch(text):
        raise MalformedLine("bad_number")
    value = int(text)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise MalformedLine("out_of_range")
    return value


@dataclass(frozen=True)
class Report:
    """One checked line from the bridge: ``verb``, its numbers in field order without
    the sequence number (HELLO: protocol, stations, boot, clock; its firmware name and E's
    text are in ``text``), and ``seq``, the line's number (None: a protocol 3 HELLO,
    which has none)."""

    verb: str
    values: tuple[int, ...]
    text: str = ""
    seq: int | None = None


MAX_DELTA = 10000  # encoder detents in one line: far more than a hand can turn


def parse_report(line: bytes, stations: int) -> Report:
    """Check one line from the bridge completely - framing, CRC, verb, every field and
    its range for a table of ``stations`` stations; raises :class:`MalformedLine`.
    A line that returns here is exactly what the bridge sent, or an error the CRC
    did not catch that still spells a valid report.

    A ``HELLO`` of 3 fields (protocol 3 and older spell it so) is returned with
    ``seq`` None and only for a protocol other than this one, so that the table can
    name the mismatch."""
    if line.startswith(FRAME_START):
        raise MalformedLine("unknown_verb")  # frames only go to the bridge
    msg = decode(line)
    f = msg.fields
    verb = msg.verb
    if verb == "HELLO":
        if len(f) not in (3, 6):
            raise MalformedLine("bad_fields")
        if not _FIRMWARE.fullmatch(f[1]):
            raise MalformedLine("bad_name")
        version, count = number(f[0], 0), number(f[2], 0, MAX_STATIONS)
        if len(f) == 3:
            if version == PROTOCOL_VERSION:
                raise MalformedLine("bad_fields")
            return Report(verb, (version, count, 0, 0), f[1])
        return Report(verb, (version, count, number(f[3], 0, SEQ_PERIOD - 1), number(f[4], 0)), f[1], _seq(f[5]))
    if verb == "E":
        if len(f) < 2:
            raise MalformedLine("bad_fields")
        return Report(verb, (), " ".join(f[:-1]), _seq(f[-1]))
    seq = _seq(f[-1])
    if verb == "K":
        return Report(verb, (number(f[0], 0, 255),), seq=seq)
    if verb == "T":
        groups, rest = divmod(len(f) - 3, STATE_FIELDS)
        if len(f) < 3 + STATE_FIELDS or rest or groups > MAX_STATIONS:
            raise MalformedLine("bad_fields")
        values = [number(f[0], 0), number(f[1], 0, SEQ_PERIOD - 1)]
        for g in range(min(groups, stations)):
            b, s, sector, presses, last = f[2 + STATE_FIELDS * g:2 + STATE_FIELDS * (g + 1)]
            values += [number(b, 0, 1), number(s, 0, 1), number(sector, -1, 15),
                       number(presses, 0, COUNT_PERIOD - 1), number(last, 0)]
        return Report(verb, tuple(values), seq=seq)
    station = number(f[0], 0, stations - 1)
    if verb in ("B", "S"):
        level = number(f[1], 0, 1)
    elif verb == "R":
        level = number(f[1], -MAX_DELTA, MAX_DELTA)
    else:
        level = number(f[1], 0, 15)
    return Report(verb, (station, level, number(f[2], 0)), seq=seq)


def _seq(text: str) -> int:
    return number(text, 0, SEQ_PERIOD - 1)


class Sequencer:
    """Puts the bridge's numbered lines in order, once each (protocol 4).

    :meth:`offer` takes each checked :class:`Report` and returns the reports to act
    on now, in the order of their numbers. A line whose number is ahead of the next
    one expected waits (up to ``window`` numbers ahead) while the table asks for the
    missing ones (:attr:`missing`); a number already taken, or behind, is a duplicate
    or a replay and is refused. A state line saying that the missing lines are no
    longer kept (its ``oldest``) gives them up: they are counted in :attr:`lost` and
    the lines after them are taken. A ``HELLO`` of a new boot (or the first one)
    starts afresh; one of the same boot (the answer to the table's ``HELLO?``) is taken
    in order like any other line; a HELLO of a boot that has been replaced by another
    is a replay, and refused.
    """

    def __init__(self, window: int = 256) -> None:
        self.window = window
        self.boot: int | None = None
        self.expected: int | None = None  # the number of the next line to act on
        self.pending: dict[int, Report] = {}
        self.lost = 0  # numbers given up
        self.dropped = 0  # waiting lines thrown away when a new boot began
        self.past_boots: list[int] = []  # a HELLO of one of these is a replay: refused

    def reset(self) -> None:
        """A new connection: the next HELLO starts the numbering (even of the same boot)."""
        self.dropped += len(self.pending)
        self.expected = None
        self.pending = {}

    @property
    def missing(self) -> int | None:
        """The first number missing while later lines wait (None: no gap)."""
        return self.expected if self.pending else None

    def holes(self) -> list[tuple[int, int]]:
        """The runs of missing numbers before the last waiting line: (first, count)."""
        if self.expected is None:
            return []
        out: list[tuple[int, int]] = []
        prev = 0
        for a in sorted(self._ahead(n) for n in self.pending):
            if a > prev:
                out.append(((self.expected + prev) % SEQ_PERIOD, a - prev))
            prev = a + 1
        return out

    def foreign(self, seq: int) -> bool:
        """Whether ``seq`` is far from every number this boot could be sending now (more
        than ``window`` ahead or behind): a line of another boot, or replayed from long ago."""
        if self.expected is None:
            return False
        ahead = self._ahead(seq)
        return self.window <= ahead <= SEQ_PERIOD - self.window

    def newest_waiting(self, seq: int) -> bool:
        """Whether ``seq`` waits (behind a missing line) and is the furthest ahead of the
        lines waiting: the newest line the bridge has sent that the table holds."""
        return seq in self.pending and max(self.pending, key=self._ahead) == seq

    def _ahead(self, seq: int) -> int:
        assert self.expected is not None
        return (seq - self.expected) % SEQ_PERIOD

    def offer(self, report: Report) -> tuple[list[Report], str | None]:
        """(reports to act on now, in order; the reason ``report`` is refused or None)."""
        seq = report.seq
        if seq is None:
            return [report], None  # an older bridge's HELLO: names the mismatch, nothing else
        if report.verb == "HELLO" and (report.values[2] != self.boot or self.expected is None):
            boot = report.values[2]
            if boot in self.past_boots:
                return [], "replayed"
            synced = self.expected is not None
            if self.boot is not None and self.boot != boot:
                self.past_boots = [*self.past_boots[-63:], self.boot]
            self.dropped += len(self.pending)
            self.boot, self.pending = boot, {}
            if synced and seq != boot:
                # a reset while connected whose first lines were lost (its own HELLO among
                # them): its lines count from its id, so every one of them is asked for
                self.expected = boot
                self.pending[seq] = report
                return self._drain(), None
            self.expected = (seq + 1) % SEQ_PERIOD  # a new connection: from here on
            return [report], None
        if self.expected is None:
            return [], "before_hello"
        ahead = self._ahead(seq)
        if ahead >= SEQ_PERIOD // 2 or seq in self.pending:
            return [], "replayed"
        if ahead >= self.window:
            return [], "out_of_window"
        self.pending[seq] = report
        if report.verb == "T" and 0 < self._ahead(report.values[1]) <= ahead:
            return self._skip_to(report.values[1]), None  # the missing lines are no longer kept
        return self._drain(), None

    def _drain(self) -> list[Report]:
        out: list[Report] = []
        while self.expected in self.pending:
            out.append(self.pending.pop(self.expected))
            self.expected = (self.expected + 1) % SEQ_PERIOD
        return out

    def _skip_to(self, seq: int) -> list[Report]:
        """Give up every number before ``seq`` that has not come; act on the rest."""
        target = self._ahead(seq)
        before = sorted((n for n in self.pending if self._ahead(n) < target), key=self._ahead)
        out = [self.pending.pop(n) for n in before]
        self.lost += target - len(out)
        self.expected = seq
        return out + self._drain()


def version_mismatch(bridge: int, table: int = PROTOCOL_VERSION) -> str | None:
    """The one sentence that says which end to update, or None when they agree."""
    if bridge == table:
        return None
    update = ("the firmware (`table firmware` shows how)" if bridge < table
              else "the table's software")
    return f"the I/O bridge speaks protocol {bridge} and the table protocol {table}: update {update}"


def escape(data: bytes) -> bytes:
    return _ESCAPE_RE.sub(lambda m: bytes((ESC, m[0][0] ^ 0x40)), data)


def unescape(data: bytes) -> bytes:
    parts = data.split(b"\x1b")
    out = bytearray(parts[0])
    for part in parts[1:]:
        if not part:
            raise MalformedLine("bad_frame")
        out.append(part[0] ^ 0x40)
        out += part[1:]
    return bytes(out)


def encode_frame(frame: Sequence[tuple[int, int, int]], seq: int = 0) -> bytes:
    """One binary LED frame record (see the module doc)."""
    n = len(frame)
    raw = bytearray((seq & 0xFF, n >> 8 & 0xFF, n & 0xFF))
    raw += bytes(itertools.chain.from_iterable(frame))
    crc = crc16(bytes(raw))
    raw += bytes((crc >> 8, crc & 0xFF))
    return FRAME_START + escape(bytes(raw)) + b"\n"


def decode_frame(record: bytes) -> tuple[int, list[tuple[int, int, int]]]:
    """(seq, pixels) of a binary frame record (with its STX, without the newline)."""
    raw = unescape(record.rstrip(b"\n")[1:])
    if len(raw) < 5 or crc16(raw[:-2]) != raw[-2] << 8 | raw[-1]:
        raise MalformedLine("bad_frame")
    seq, count, pixels = raw[0], raw[1] << 8 | raw[2], raw[3:-2]
    if len(pixels) != 3 * count:
        raise MalformedLine("bad_frame")
    return seq, [(pixels[i], pixels[i + 1], pixels[i + 2]) for i in range(0, len(pixels), 3)]


class Framer:
    """Cuts a byte stream into records (see the module doc): ``feed(chunk)`` returns
    the complete records in it; ``cut`` and ``too_long`` count what was thrown away.
    Records of a bridge without start bytes (protocol 1) are still cut at newlines."""

    def __init__(self, max_record: int = MAX_RECORD) -> None:
        self.max_record = max_record
        self.pending = bytearray()
        self.skipping = False
        self.cut = 0
        self.too_long = 0

    def reset(self) -> None:
        self.pending = bytearray()
        self.skipping = False

    def feed(self, data: bytes) -> list[bytes]:
        records: list[bytes] = []
        segments = data.split(b"\n")
        last = len(segments) - 1
        for i, seg in enumerate(segments):
            k = max(seg.rfind(TEXT_START), seg.rfind(FRAME_START))
            if k >= 0:  # a record starts here: whatever came before it was cut off
                if self.pending or k > 0:
                    self.cut += 1
                self.pending = bytearray()
                self.skipping = False
                seg = seg[k:]
            if not self.skipping:
                if len(self.pending) + len(seg) > self.max_record:
                    self.too_long += 1
                    self.pending = bytearray()
                    self.skipping = True
                else:
                    self.pending += seg
            if i < last:
                if not self.skipping:  # an empty record too: it is counted as malformed
                    records.append(bytes(self.pending))
                self.pending = bytearray()
                self.skipping = False
        return records
