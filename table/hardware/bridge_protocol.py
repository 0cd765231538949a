"""The serial I/O bridge's line protocol, version 1 (documented in docs/serial-bridge.md).

Every line is printable ASCII ending in ``\\n``: a verb, space-separated fields, then
``*`` and a two-digit hex checksum (the XOR of every byte before the ``*``). A line
that is too long, not ASCII, has no or a wrong checksum, an unknown verb, the wrong
number of fields or a field that is not a number is *malformed*: the reader counts
it under a reason and skips it - garbage never stops the table.

Bridge -> table::

    HELLO <protocol> <firmware> <stations>   who is there (on boot and on HELLO?)
    B <station> <level> <us>                 big button edge: level 1 = pressed
    S <station> <level> <us>                 knob switch edge
    R <station> <delta> <us>                 encoder steps (signed, clockwise +)
    A <station> <sector> <us>                absolute knob settled on sector (0-15)
    T <us>                                   heartbeat with the bridge's clock
    E <text...>                              a problem the bridge wants logged

Table -> bridge::

    HELLO? <protocol>                        please identify
    L <station> <on|off|blink>               button LED
    F <count> <rrggbb...>                    one LED frame, 6 hex digits per pixel

``<us>`` is the bridge's own microsecond clock since it booted (never wraps: the
firmware extends the 30-bit hardware counter). Edges are stamped by the bridge
when they happen, so USB and Python latency do not change who was first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

PROTOCOL_VERSION = 1
MAX_LINE = 4096  # a 600-pixel frame is 3,611 bytes


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
    return body + b"*%02X\n" % checksum(body)


@dataclass(frozen=True)
class Message:
    verb: str
    fields: tuple[str, ...]


# verb -> number of fields (None: at least one, free text)
BRIDGE_VERBS: dict[str, int | None] = {"HELLO": 3, "B": 3, "S": 3, "R": 3, "A": 3, "T": 1, "E": None}
TABLE_VERBS: dict[str, int | None] = {"HELLO?": 1, "L": 2, "F": 2}


def decode(line: bytes, verbs: dict[str, int | None] = BRIDGE_VERBS) -> Message:
    """Parse one line (with or without its newline); raises :class:`MalformedLine`."""
    line = line.rstrip(b"\r\n")
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


def encode_frame(frame: Sequence[tuple[int, int, int]]) -> bytes:
    return encode("F", len(frame), "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in frame))


def decode_frame(msg: Message) -> list[tuple[int, int, int]]:
    count = int_field(msg, 0, 0, MAX_LINE // 6)
    hexes = msg.fields[1]
    if len(hexes) != 6 * count:
        raise MalformedLine("bad_fields")
    try:
        raw = bytes.fromhex(hexes)
    except ValueError:
        raise MalformedLine("bad_number") from None
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]
