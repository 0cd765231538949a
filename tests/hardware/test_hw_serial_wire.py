"""The serial wire against broken input: the CRC-16 on every line and frame, strict
fields, and the reader's counters.

Properties (hypothesis): random garbage, truncated lines and lines with 1 to 4
flipped bits never become an input that the bridge did not send, never raise out
of the reader, and are each counted under a reason. A million corrupted lines go
through the :class:`SerialBridge` reader object itself (no port: its line handler and
its byte stream), whose counters must account for every one; a few thousand go through
a real pty to the reader, which must keep its link (no reconnect, nothing lost).
The firmware's own CRC (table-driven, for MicroPython) is checked against
``binascii.crc_hqx``."""

from __future__ import annotations

import binascii
import importlib.util
import queue
import random
import time
from pathlib import Path
from types import ModuleType

import pytest
from fakes.bridge import FakeBridge, wait_for
from hypothesis import given, settings
from hypothesis import strategies as st
from tier import examples

from table.common.datafiles import package_path
from table.hardware.bridge_protocol import (
    FRAME_START,
    Framer,
    MalformedLine,
    crc16,
    decode_frame,
    encode,
    encode_frame,
    encode_old,
    parse_report,
    version_mismatch,
)
from table.hardware.buttons import Timing
from table.hardware.interfaces import StationInput
from table.hardware.serial_bridge import SerialBridge

STATIONS = 4
T = Timing(settle=0.015, tie_window=0.0005, debounce=0.030, long_push=0.2)


def load_firmware_logic() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wire_bridge_logic", package_path("firmware") / "bridge_logic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FW = load_firmware_logic()

US = st.integers(0, (1 << 63) - 1)
STATION = st.integers(0, STATIONS - 1)
SEQ = st.integers(0, (1 << 30) - 1)
STATE = st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(-1, 15), st.integers(0, 65535), US)


def state_fields(groups: list[tuple[int, ...]]) -> tuple[int, ...]:
    return tuple(v for g in groups for v in g)


# every line the bridge sends, with its fields in range, each ending in its number
REPORT_LINES = st.one_of(
    st.tuples(st.sampled_from("BS"), STATION, st.integers(0, 1), US, SEQ),
    st.tuples(st.just("R"), STATION, st.integers(-20, 20), US, SEQ),
    st.tuples(st.just("A"), STATION, st.integers(0, 15), US, SEQ),
    st.tuples(st.just("T"), US, SEQ, st.lists(STATE, min_size=1, max_size=STATIONS).map(state_fields), SEQ)
    .map(lambda t: (t[0], t[1], t[2], *t[3], t[4])),
    st.tuples(st.just("K"), st.integers(0, 255), SEQ),
    st.tuples(st.just("HELLO"), st.just(4), st.just("table-bridge-4.0"), st.integers(0, 16), SEQ, US, SEQ),
    st.tuples(st.just("E"), st.just("edge queue overflowed"), st.integers(0, 999), SEQ),
).map(lambda t: encode(*t).rstrip(b"\n"))  # a record, as the framer hands it on


def flip(record: bytes, bits: list[int]) -> bytes:
    out = bytearray(record)
    for bit in bits:
        out[bit >> 3] ^= 1 << (bit & 7)
    return bytes(out)


def bridge_without_port() -> tuple[SerialBridge, list[StationInput]]:
    got: list[StationInput] = []
    bridge = SerialBridge("unused", STATIONS, T)
    bridge._sink = got.append  # what start() sets, without threads: the test drives it
    return bridge, got


# --- the CRC, the same at both ends ---------------------------------------------------

def test_crc_is_crc16_ccitt_false() -> None:
    assert crc16(b"123456789") == FW.crc16(b"123456789") == 0x29B1  # the published check value
    assert FW.crc16(b"") == crc16(b"") == 0xFFFF


@given(st.binary(max_size=300))
def test_the_firmware_crc_is_binascii_crc_hqx(data: bytes) -> None:
    assert FW.crc16(data) == binascii.crc_hqx(data, 0xFFFF) == crc16(data)


@given(REPORT_LINES)
def test_firmware_lines_are_table_lines(record: bytes) -> None:
    verb, fields = FW.parse_line(record.decode())
    assert FW.make_line(verb, *fields).encode() == record + b"\n"


@given(st.sampled_from(["HELLO? 4", "ST? 12 3", "L 0 on", "L 3 blink", "L 1 off"]))
def test_the_firmware_reads_the_table_lines(body: str) -> None:
    verb, *fields = body.split(" ")
    assert FW.parse_line(encode(verb, *fields).decode()) == (verb, fields)
    assert FW.parse_line(encode_old(verb, *fields).decode()) is None  # protocol 2: not taken
    assert FW.parse_line(encode_old(verb, *fields).decode(), old=True) == (verb, fields)


@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)), max_size=80),
       st.integers(0, 255), st.lists(st.integers(0, 10**6), min_size=1, max_size=4))
def test_led_frames_with_flipped_bits_are_never_shown(
    pixels: list[tuple[int, int, int]], seq: int, positions: list[int]
) -> None:
    record = encode_frame(pixels, seq).rstrip(b"\n")
    assert decode_frame(record) == (seq, pixels)
    assert FW.decode_frame(record[1:]) == (seq, bytearray(b for p in pixels for b in p))
    payload = FW.unescape(record[1:])
    bits = sorted({p % (8 * len(payload)) for p in positions})
    broken = FRAME_START + FW.escape(flip(bytes(payload), bits))
    assert FW.decode_frame(broken[1:]) is None  # the CRC sees up to 3 flips always, 4 all but rarely
    with pytest.raises(MalformedLine):
        decode_frame(broken)


# --- strict fields: counted and skipped, never an exception ---------------------------

@pytest.mark.parametrize("field", ["--1", "-", "1-", "+1", "01", "-0", "1_0", "", "0x1", "1e3",
                                   "99999999999999999999"])
def test_a_malformed_field_with_a_good_crc_is_a_counted_line(field: str) -> None:
    bridge, got = bridge_without_port()
    for line in (encode("B", field, 1, 5000, 1), encode("B", 0, field, 5000, 1),
                 encode("T", field, 0, 0, 0, -1, 0, 0, 1), encode("T", 5, 0, 0, 0, field, 0, 0, 1),
                 encode("HELLO", field, "fw", 4, 1, 1), encode("HELLO", 4, "fw", 4, 1, 0, field),
                 encode("HELLO", 4, "fw", 4, 1, field, 1), encode("K", field, 1), encode("B", 0, 1, 5000, field)):
        bridge.handle_line(line.rstrip(b"\n"))
    arabic_one = "B \u0661 1 5000 1".encode()  # a digit to str.isdigit() and int(), not to the bridge
    bridge.handle_line(b"$" + arabic_one + b"*%04X" % crc16(arabic_one))
    diag = bridge.diagnostics()
    assert diag["malformed_total"] == bridge.lines == 10
    assert set(diag["malformed"]) <= {"bad_number", "out_of_range", "not_ascii", "bad_fields"}
    assert got == [] and bridge.hello is None


# --- properties: garbage, truncation, flipped bits ------------------------------------

@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=400))
def test_garbage_bytes_are_counted_and_never_raise(data: bytes) -> None:
    bridge, got = bridge_without_port()
    bridge.receive(data + b"\n")
    bridge.pump(1e9)
    diag = bridge.diagnostics()
    assert got == [] and diag["lines"] == diag["malformed_total"] >= 1  # every record was a bad one


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=120), st.integers(0, 999)), max_size=40), st.data())
def test_garbage_between_good_lines_costs_no_good_line(items: list[bytes | int], data: st.DataObject) -> None:
    """Garbage (start bytes and newlines included) between good lines, the stream cut
    into chunks anywhere: every good line is taken, every other record counted."""
    numbers = iter(range(1, len(items) + 1))
    stream = encode("HELLO", 4, "fw", STATIONS, 5, 0, 0) + b"".join(
        encode("E", "good", x, next(numbers)) if isinstance(x, int) else x for x in items) + b"\n"
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    bridge, got = bridge_without_port()
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        bridge.receive(stream[a:b])
    good = sum(isinstance(x, int) for x in items)
    diag = bridge.diagnostics()
    assert diag["bridge_errors"] == good and got == [] and diag["lines_waiting"] == 0
    assert diag["lines"] == 1 + good + diag["malformed_total"]


def test_a_field_like_minus_minus_one_no_longer_drops_the_link(tmp_path: Path) -> None:
    """Regression: int("--1") raised out of the reader, which reopened the port and
    lost the press buffered behind the bad line."""
    fake = FakeBridge(tmp_path / "ttyBridge")
    bridge = SerialBridge(str(tmp_path / "ttyBridge"), STATIONS, T, reconnect_every=0.05)
    got: queue.Queue[StationInput] = queue.Queue()
    bridge.start(got.put)
    try:
        assert wait_for(lambda: bridge.hello is not None)
        now_us = int(time.monotonic() * 1e6)  # the fake bridge's clock runs with the real one
        fake.send_raw(encode("B", "--1", 1, now_us, 1) + fake.line("B", 1, 1, now_us))  # one write: one buffer
        assert got.get(timeout=30).station == 1
        diag = bridge.diagnostics()
        assert diag["disconnects"] == 0 and diag["connects"] == 1 and diag["malformed"] == {"bad_number": 1}
    finally:
        bridge.stop()
        fake.close()


@settings(max_examples=examples(300), deadline=None)
@given(REPORT_LINES, REPORT_LINES, st.data())
def test_a_truncated_line_is_rejected_and_never_swallows_the_next(record: bytes, after: bytes,
                                                                   data: st.DataObject) -> None:
    for k in range(len(record)):
        with pytest.raises(MalformedLine):
            parse_report(record[:k], STATIONS)
    k = data.draw(st.integers(1, len(record) - 1))
    framer = Framer()
    assert framer.feed(record[:k]) + framer.feed(after + b"\n") == [after]
    assert framer.cut == 1


@settings(max_examples=examples(500), deadline=None)
@given(REPORT_LINES, st.lists(st.integers(0, 10**6), min_size=1, max_size=4, unique=True))
def test_one_to_four_flipped_bits_never_make_another_report(record: bytes, positions: list[int]) -> None:
    bits = sorted({p % (8 * len(record)) for p in positions})
    broken = flip(record, bits)
    try:
        got = parse_report(broken, STATIONS)
    except MalformedLine:
        return
    assert got == parse_report(record, STATIONS)  # (only the same report may come through)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.tuples(REPORT_LINES, st.lists(st.integers(0, 10**6), min_size=1, max_size=4, unique=True)),
                min_size=1, max_size=30))
def test_the_counters_account_for_every_corrupted_line(lines: list[tuple[bytes, list[int]]]) -> None:
    bridge, got = bridge_without_port()
    for record, positions in lines:
        bits = sorted({p % (8 * len(record)) for p in positions})
        bridge.handle_line(flip(record, bits))
    bridge.pump(1e12)
    diag = bridge.diagnostics()
    assert diag["lines"] == diag["malformed_total"] == len(lines)
    assert got == [] and diag["bridge"] is None and diag["bridge_errors"] == 0


def corruption_pool(rng: random.Random, size: int = 4000) -> list[bytes]:
    """Records of every kind the bridge sends (without the newline), fields in range."""
    pool: list[bytes] = []
    for _ in range(size):
        verb = rng.choice(["B", "S", "R", "A", "T", "K", "HELLO", "E"])
        us = rng.randrange(1 << 40)
        station = rng.randrange(STATIONS)
        seq = rng.randrange(1 << 30)
        if verb == "T":
            groups = [(rng.randrange(2), rng.randrange(2), rng.randrange(-1, 16), rng.randrange(1 << 16),
                       rng.randrange(1 << 40)) for _ in range(STATIONS)]
            line = encode("T", us, rng.randrange(1 << 30), *state_fields(groups), seq)
        elif verb == "K":
            line = encode("K", rng.randrange(256), seq)
        elif verb == "HELLO":
            line = encode("HELLO", 4, "table-bridge-4.0", rng.randrange(17), rng.randrange(1 << 30), us, seq)
        elif verb == "E":
            line = encode("E", "edge", "queue", "overflowed", rng.randrange(1000), seq)
        else:
            value = {"B": rng.randrange(2), "S": rng.randrange(2), "R": rng.choice([-1, 1]), "A": rng.randrange(16)}
            line = encode(verb, station, value[verb], us, seq)
        pool.append(line.rstrip(b"\n"))
    return pool


@pytest.mark.heavy  # about half a minute: a million lines through two readers
def test_a_million_lines_with_one_to_four_flipped_bits_make_no_phantom_input() -> None:
    """Through the reader object itself: each record to ``handle_line``, and the same
    bytes as a stream to ``receive`` (where a flipped bit may also make a newline or a
    record's start). Every line is counted as malformed, and nothing becomes an input,
    a hello, a state report or an acknowledgement."""
    rng = random.Random(20261201)
    records = corruption_pool(rng)
    lines, got = bridge_without_port()
    stream, streamed = bridge_without_port()
    randrange, n = rng.randrange, 1_000_000
    batch: list[bytes] = []
    for k in range(n):
        out = bytearray(records[randrange(len(records))])
        nbits = 8 * len(out)
        flips = k % 4 + 1  # a quarter each of 1, 2, 3 and 4 flipped bits
        chosen: set[int] = set()
        while len(chosen) < flips:
            chosen.add(randrange(nbits))
        for bit in chosen:
            out[bit >> 3] ^= 1 << (bit & 7)
        record = bytes(out)
        lines.handle_line(record)
        batch.append(record)
        if len(batch) == 1000:
            stream.receive(b"\n".join(batch) + b"\n")
            batch.clear()
    for bridge in (lines, stream):
        bridge.pump(1e12)  # anything pending (a settle or tie window) comes out now
    diag = lines.diagnostics()
    assert diag["lines"] == diag["malformed_total"] == n
    assert diag["malformed"].get("bad_crc", 0) + diag["malformed"].get("no_crc", 0) > 0.99 * n, diag["malformed"]
    streamed_diag = stream.diagnostics()
    # A flipped bit that made a newline or a "$" splits a record: more records, each still counted.
    assert streamed_diag["lines"] == streamed_diag["malformed_total"] >= n
    for d, inputs in ((diag, got), (streamed_diag, streamed)):
        assert inputs == [], inputs[:5]
        assert d["bridge"] is None and d["state_reports"] == 0 and d["frames_acked"] == 0
        assert d["bridge_errors"] == 0 and d["malformed"].get("failed", 0) == 0
        assert all(s["presses"] == 0 for s in d["stations"])


# --- through a real pty: the link holds -------------------------------------------------

def corrupted_stream(rng: random.Random, good: int, fake: FakeBridge) -> tuple[list[bytes], int]:
    """Bytes to send: ``good`` E lines (each counted as a bridge error when taken)
    among corrupted lines of every kind, garbage, truncations, bad fields."""
    out: list[bytes] = []
    for k in range(good):
        out.append(fake.line("E", "marker", k))
        for _ in range(10):
            kind = rng.randrange(6)
            line = encode(rng.choice("BS"), rng.randrange(STATIONS), rng.randrange(2), rng.randrange(1 << 40),
                          rng.randrange(1 << 30))
            if kind == 0:  # bits flipped anywhere, the newline and "$" included
                bits = rng.sample(range(8 * len(line)), rng.randint(1, 4))
                out.append(flip(line, bits))
            elif kind == 1:  # garbage bytes
                out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80))) + b"\n")
            elif kind == 2:  # cut off: the next record starts in its middle
                out.append(line[:rng.randrange(1, len(line) - 1)])
            elif kind == 3:  # a good CRC around a field no parser may take
                out.append(encode("B", rng.choice(["--1", "1-", "-", "+2", "007"]), 1, 5000, 1))
            elif kind == 4:  # an unknown verb, and a line from protocol 2
                out.append(encode("Q", 1, 2) + encode_old("B", 0, 1, 5000))
            else:  # far too long
                out.append(b"$B " + b"7" * 20000 + b"\n")
    return out, good


def test_corrupted_lines_through_a_pty_never_drop_the_link(tmp_path: Path) -> None:
    fake = FakeBridge(tmp_path / "ttyBridge")
    bridge = SerialBridge(str(tmp_path / "ttyBridge"), STATIONS, T, reconnect_every=0.05)
    got: queue.Queue[StationInput] = queue.Queue()
    bridge.start(got.put)
    try:
        assert wait_for(lambda: bridge.hello is not None and bridge.state_reports >= 1)
        before = bridge.diagnostics()
        chunks, good = corrupted_stream(random.Random(77), 300, fake)
        for k in range(0, len(chunks), 50):
            fake.send_raw(b"".join(chunks[k:k + 50]), proof=False)
        assert wait_for(lambda: bridge.bridge_errors >= good, timeout=120)
        fake.send("B", 2, 1, 10**13)  # still listening, nothing buffered lost
        press = got.get(timeout=30)
        assert (press.kind, press.station) == ("press", 2)
        diag = bridge.diagnostics()
        assert diag["connects"] == 1 and diag["disconnects"] == 0 and diag["connected"]
        assert diag["bridge_errors"] == good  # every good line among the bad ones was taken
        bad = diag["malformed_total"] - before["malformed_total"]
        # every other record counted as bad (+ 2: the press and the state line after it)
        assert diag["lines"] - before["lines"] == good + 2 + bad
        assert {"bad_crc", "bad_number", "unknown_verb", "old_protocol", "cut", "too_long"} <= set(diag["malformed"])
        assert got.empty() and diag["stations"][2]["presses"] == 1  # no phantom input
    finally:
        bridge.stop()
        fake.close()


# --- the version exchange -----------------------------------------------------------------

def test_a_version_mismatch_says_which_end_to_update() -> None:
    assert version_mismatch(4) is None
    assert version_mismatch(3) == ("the I/O bridge speaks protocol 3 and the table protocol 4: "
                                   "update the firmware (`table firmware` shows how)")
    assert version_mismatch(5) == ("the I/O bridge speaks protocol 5 and the table protocol 4: "
                                   "update the table's software")


def test_a_protocol_3_firmware_is_named_and_its_lines_are_not_taken() -> None:
    """A protocol 3 bridge answers HELLO? with three fields and sends lines without
    numbers: named in one sentence, its lines counted, none acted on."""
    bridge, got = bridge_without_port()
    for line in (encode("HELLO", 3, "table-bridge-3.0", 4), encode("ST", 0, 0, 0, -1, 5000),
                 encode("B", 0, 1, 5000), encode("T", 9000)):
        bridge.handle_line(line.rstrip(b"\n"))
    bridge.pump(1e9)
    diag = bridge.diagnostics()
    assert got == [] and diag["bridge"] == {"protocol": 3, "firmware": "table-bridge-3.0", "stations": 4}
    assert diag["protocol_mismatch"] == version_mismatch(3) and diag["malformed"] == {"old_protocol": 3}
    bridge.handle_line(encode("HELLO", 4, "table-bridge-4.0", 4, 1, 0, 1).rstrip(b"\n"))
    assert bridge.diagnostics()["protocol_mismatch"] is None


def test_an_old_firmware_is_named_by_the_reader_and_fails_the_selftest() -> None:
    from table.hardware.selftest import SelfTest

    bridge, got = bridge_without_port()
    for line in (encode_old("HELLO", 2, "table-bridge-2.0", 4), encode_old("B", 0, 1, 5000), b"$B 0 1*0000"):
        bridge.handle_line(line.rstrip(b"\n"))
    bridge.pump(1e9)
    diag = bridge.diagnostics()
    assert got == [] and diag["bridge"] == {"protocol": 2, "firmware": "table-bridge-2.0", "stations": 4}
    assert diag["malformed"] == {"old_protocol": 2, "bad_crc": 1}
    result = SelfTest(bridge, STATIONS, [], None, say=lambda step, text: None)._ordering()
    assert result.status == "fail"
    assert result.detail == ("0 unordered, 0 late edges (worst 0 ms), bridge table-bridge-2.0 protocol 2, "
                             "3 bad records (1 bad_crc, 2 old_protocol), " + str(version_mismatch(2)))
    bridge.handle_line(encode("HELLO", 4, "table-bridge-4.0", 4, 1, 0, 1).rstrip(b"\n"))  # updated
    assert bridge.diagnostics()["protocol_mismatch"] is None
