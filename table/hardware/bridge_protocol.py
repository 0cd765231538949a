"""The serial I/O bridge's protocol, version 2 (documented in docs/serial-bridge.md).

The byte stream is cut into *records*, each from a start byte to ``\n``:

* ``$`` starts a text line: a verb, space-separated fields, then ``*`` and a
  two-digit hex checksum (the XOR of every byte between ``$`` and ``*``). A line that
  is too long, not ASCII, has no or a wrong checksum, an unknown verb, the wrong
  number of fields or a field that is not a number is *malformed*: the reader counts
  it under a reason and skips it - garbage never stops the table.
* STX (0x02) starts a binary LED frame (table -> bridge): sequence number, pixel
  count (2 bytes, big-endian), 3 bytes per pixel (r, g, b), then the low byte of the
  sum of everything before it; every byte of that payload that is a framing or
  console control byte (0x01-0x04, ``\n``, ``\r``, ESC, ``$``) is sent as ESC and the
  byte XOR 0x40.

A start byte in the middle of a record means the record was cut off (a pulled
cable, a reset): the broken part is counted (``cut``) and the new record read
normally, so a cut never swallows the next record.

Bridge -> table::

    HELLO <protocol> <firmware> <stations>   who is there (on boot and on HELLO?)
    ST <station> <button> <switch> <sector> <us>  state report (on boot, HELLO?, ST?)
    B <station> <level> <us>                 big button edge: level 1 = pressed
    S <station> <level> <us>                 knob switch edge
    R <station> <delta> <us>                 encoder steps (signed, clockwise +)
    A <station> <sector> <us>                the absolute knob's lines now read sector (0-15)
    K <seq>                                  LED frame <seq> shown: send the next
    T <us>                                   heartbeat with the bridge's clock
    E <text...>                              a problem the bridge wants logged

Table -> bridge::

    HELLO? <protocol>                        please identify (and report the state)
    ST?                                      please report the state
    L <station> <on|off|blink>               button LED
    STX ...                                  one LED frame (binary, above)

``<us>`` is the bridge's own 64-bit microsecond clock since it booted. Edges are
stamped by the bridge when they happen, so USB and Python latency do not change
who was first.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

PROTOCOL_VERSION = 2
MAX_LINE = 4096  # a text line
MAX_RECORD = 8192  # any record; a binary frame of up to about 2,600 pixels
TEXT_START = b"$"
FRAME_START = b"\x02"
ESC = 0x1B
ESCAPED = bytes((0x01, 0x02, 0x03, 0x04, 0x0A, 0x0D, 0x1B, 0x24))
_ESCAPE_RE = re.compile(b"[" + re.escape(ESCAPED) + b"]")


class MalformedLine(ValueError):
    """A line that breaks the protocol; ``reason`` is the counter it goes under."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def checksum(body: bytes) -> int:
    value = 0
    for byte in body:
        value ^= byte
    return value


def encode(verb: str, *fields: object) -> bytes:
    """One protocol line, with checksum and newline."""
    body = " ".join([verb, *(str(f) for f in fields)]).encode("ascii")
    return b"$" + body + b"*%02X\n" % checksum(body)


@dataclass(frozen=True)
class Message:
    verb: str
    fields: tuple[str, ...]


# verb -> number of fields (None: at least one, free text)
BRIDGE_VERBS: dict[str, int | None] = {
    "HELLO": 3, "ST": 5, "B": 3, "S": 3, "R": 3, "A": 3, "K": 1, "T": 1, "E": None,
}
TABLE_VERBS: dict[str, int | None] = {"HELLO?": 1, "ST?": 0, "L": 2}


def decode(line: bytes, verbs: dict[str, int | None] = BRIDGE_VERBS) -> Message:
    """Parse one line (with or without its newline); raises :class:`MalformedLine`."""
    line = line.rstrip(b"\r\n")
    if line.startswith(TEXT_START):
        line = line[1:]
    if len(line) > MAX_LINE:
        raise MalformedLine("too_long")
    if not line:
        raise MalformedLine("empty")
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 3:
        raise MalformedLine("no_checksum")
    body, given = line[:star], line[star + 1:]
    try:
        text = body.decode("ascii")
        expected = int(given.decode("ascii"), 16)
    except (UnicodeDecodeError, ValueError):
        raise MalformedLine("not_ascii") from None
    if not text.isprintable():
        raise MalformedLine("not_ascii")
    if checksum(body) != expected:
        raise MalformedLine("bad_checksum")
    parts = text.split(" ")
    verb, fields = parts[0], tuple(parts[1:])
    if verb not in verbs:
        raise MalformedLine("unknown_verb")
    want = verbs[verb]
    if (want is None and not fields) or (want is not None and len(fields) != want):
        raise MalformedLine("bad_fields")
    return Message(verb, fields)


def int_field(msg: Message, index: int, lo: int | None = None, hi: int | None = None) -> int:
    """Field ``index`` as an integer within ``lo..hi``; raises :class:`MalformedLine`."""
    text = msg.fields[index]
    if not text.lstrip("-").isdigit() or len(text) > 20:
        raise MalformedLine("bad_number")
    value = int(text)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise MalformedLine("out_of_range")
    return value


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
    raw.append(sum(raw) & 0xFF)
    return FRAME_START + escape(bytes(raw)) + b"\n"


def decode_frame(record: bytes) -> tuple[int, list[tuple[int, int, int]]]:
    """(seq, pixels) of a binary frame record (with its STX, without the newline)."""
    raw = unescape(record.rstrip(b"\n")[1:])
    if len(raw) < 4 or sum(raw[:-1]) & 0xFF != raw[-1]:
        raise MalformedLine("bad_frame")
    seq, count, pixels = raw[0], raw[1] << 8 | raw[2], raw[3:-1]
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
