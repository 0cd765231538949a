"""The serial I/O bridge over a real pty pair: pyserial on the table's end, a fake
microcontroller on the other. Covers the whole protocol, unplug / re-plug, a bridge
reboot, and 100,000 random and malformed lines."""

from __future__ import annotations

import queue
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.bridge import FakeBridge, wait_for

from table.hardware.bridge_protocol import (
    PROTOCOL_VERSION,
    crc16,
    decode_frame,
    encode,
    encode_frame,
)
from table.hardware.buttons import Timing
from table.hardware.interfaces import HourglassLayout, LedState, StationInput
from table.hardware.serial_bridge import BridgeHourglass, SerialBridge

T = Timing(settle=0.015, tie_window=0.0005, debounce=0.030, long_push=0.2)  # short: real time passes


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[SerialBridge, FakeBridge, queue.Queue[StationInput]]]:
    fake = FakeBridge(tmp_path / "ttyBridge")
    bridge = SerialBridge(str(tmp_path / "ttyBridge"), 4, T, reconnect_every=0.05)
    got: queue.Queue[StationInput] = queue.Queue()
    bridge.start(got.put)
    assert wait_for(lambda: bridge.hello is not None)
    yield bridge, fake, got
    bridge.stop()
    fake.close()


def take(got: queue.Queue[StationInput], n: int, timeout: float = 30.0) -> list[StationInput]:
    return [got.get(timeout=timeout) for _ in range(n)]


Rig = tuple[SerialBridge, FakeBridge, "queue.Queue[StationInput]"]


def test_handshake_identifies_the_bridge(rig: Rig) -> None:
    bridge, fake, _ = rig
    assert bridge.hello == {"protocol": PROTOCOL_VERSION, "firmware": "fake-1.0", "stations": 4}
    assert fake.hello_requests == 1
    diag = bridge.diagnostics()
    assert diag["connected"] and diag["connects"] == 1 and diag["malformed_total"] == 0


def test_presses_are_ordered_by_the_bridge_timestamps(
    rig: tuple[SerialBridge, FakeBridge, queue.Queue[StationInput]],
) -> None:
    _, fake, got = rig
    base = 50_000_000
    # One write: sent apart, the second line could arrive after the first press's settle
    # window on a loaded machine, and the test would measure the machine, not the order.
    fake.send_raw(fake.line("B", 2, 1, base + 1000)  # sent first, happened 1 ms later
                  + fake.line("B", 0, 1, base))
    first, second = take(got, 2)
    assert (first.kind, first.station, second.station) == ("press", 0, 2)
    assert second.t - first.t == pytest.approx(0.001, abs=1e-9)


def test_knob_lines_become_turns_pushes_and_long_pushes(
    rig: tuple[SerialBridge, FakeBridge, queue.Queue[StationInput]],
) -> None:
    _, fake, got = rig
    us = 10_000_000
    # One write, so that how far apart the lines arrive is not the machine's speed.
    fake.send_raw(b"".join([
        fake.line("R", 1, 3, us),
        fake.line("R", 1, -1, us + 5_000),  # within the hold: summed
        fake.line("A", 3, 11, us + 100_000),
        fake.line("S", 2, 1, us + 110_000),
        fake.line("S", 2, 0, us + 150_000),
        fake.line("S", 2, 1, us + 200_000),
        fake.line("S", 2, 0, us + 500_000),  # held 0.3 s, longer than the long push
    ]))
    items = take(got, 4)
    assert [(i.kind, i.station, i.value) for i in items] == [
        ("turn", 1, {"delta": 2}),
        ("turn", 3, {"sector": 11, "sectors": 16}),
        ("push", 2, None),
        ("long_push", 2, None),
    ]
    assert items[3].t - items[2].t == pytest.approx(0.25, abs=1e-6)


def test_button_leds_and_led_frames_reach_the_bridge(
    rig: tuple[SerialBridge, FakeBridge, queue.Queue[StationInput]],
) -> None:
    bridge, fake, _ = rig
    bridge.set_leds({0: "on", 1: "blink", 2: "off"})
    assert wait_for(lambda: fake.leds == {0: "on", 1: "blink", 2: "off"})
    glass = BridgeHourglass(bridge, HourglassLayout(count=60), brightness=0.5, max_milliamps=None)
    glass.show([(200, 100, 50)] * 60)
    assert wait_for(lambda: len(fake.frames) == 1)
    assert fake.frames[0] == [(100, 50, 25)] * 60
    glass.close()
    assert wait_for(lambda: len(fake.frames) == 2 and fake.frames[1] == [(0, 0, 0)] * 60)


def test_unplug_and_replug(rig: tuple[SerialBridge, FakeBridge, queue.Queue[StationInput]]) -> None:
    bridge, fake, got = rig
    bridge.set_leds({1: "on"})
    assert wait_for(lambda: fake.leds.get(1) == "on")
    fake.unplug()
    assert wait_for(lambda: not bridge.connected.is_set())
    bridge.set_leds({1: "blink", 3: "on"})  # changed while away: sent again on re-plug
    assert not bridge.send_frame([(1, 2, 3)])
    fake.leds.clear()
    fake.replug()
    assert wait_for(lambda: bridge.connected.is_set() and fake.leds == {1: "blink", 3: "on"})
    assert wait_for(lambda: fake.hello_requests == 2)  # the re-plugged bridge was asked again
    fake.send("B", 3, 1, 77_000_000)
    (press,) = take(got, 1)
    assert press.station == 3
    diag = bridge.diagnostics()
    assert diag["disconnects"] == 1 and diag["connects"] == 2 and diag["frames_dropped"] == 1


def test_a_rebooted_bridge_clock_starts_again(
    rig: tuple[SerialBridge, FakeBridge, queue.Queue[StationInput]],
) -> None:
    _, fake, got = rig
    fake.send("B", 0, 1, 900_000_000)
    fake.send("B", 0, 0, 900_100_000)
    (a,) = take(got, 1)
    fake.hello()
    fake.send("B", 1, 1, 2_000)  # just booted
    (b,) = take(got, 1)
    assert b.t > a.t


def test_protocol_version_mismatch_is_reported(tmp_path: Path) -> None:
    """An old firmware (protocol 2, XOR checksums) does not understand the table's
    HELLO?; the table asks again in the old format, and names the mismatch."""
    fake = FakeBridge(tmp_path / "tty", protocol=2)
    bridge = SerialBridge(str(tmp_path / "tty"), 4, T, reconnect_every=0.05)
    got: list[StationInput] = []
    bridge.start(got.append)
    try:
        assert wait_for(lambda: bridge.hello is not None)
        diag = bridge.diagnostics()
        assert diag["bridge"]["protocol"] == 2 and diag["connected"]
        assert diag["protocol_mismatch"] == (
            "the I/O bridge speaks protocol 2 and the table protocol 4: "
            "update the firmware (`table firmware` shows how)")
        fake.send("B", 0, 1, 1_000_000)  # an old line is counted, never acted on
        assert wait_for(lambda: bridge.diagnostics()["malformed"].get("old_protocol", 0) >= 6)
        bridge.pump(time.monotonic() + 1)
        assert got == [] and bridge.diagnostics()["stations"][0]["presses"] == 0
    finally:
        bridge.stop()
        fake.close()


def test_a_missing_port_is_waited_for(tmp_path: Path) -> None:
    bridge = SerialBridge(str(tmp_path / "nothing"), 2, T, reconnect_every=0.02)
    bridge.start(lambda item: None)
    try:
        assert not bridge.diagnostics()["connected"]
        fake = FakeBridge(tmp_path / "nothing", stations=2)
        assert wait_for(lambda: bridge.hello is not None)
        fake.close()
    finally:
        bridge.stop()


# --- malformed input ---------------------------------------------------------------

def good_line(rng: random.Random, fake: FakeBridge, us: int) -> bytes:
    """A numbered line of the fake bridge, as it sends them (in order, its clock rising)."""
    verb = rng.choice("BSRAT")
    if verb == "T":
        return fake.state_line(us)
    value = {"B": rng.randrange(2), "S": rng.randrange(2), "R": rng.randrange(-5, 6), "A": rng.randrange(16)}
    return fake.line(verb, rng.randrange(4), value[verb], us)


NOISE = [b for b in range(256) if b not in (0x0A, 0x24, 0x02)]  # start bytes: see the cut-line tests


def bad_line(rng: random.Random) -> bytes:
    kind = rng.randrange(9)
    if kind == 0:  # printable noise, no checksum
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789-"
        noise = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 40)))
        return noise.encode() + b"\n"
    if kind == 1:  # wrong CRC
        body = encode("B", rng.randrange(4), rng.randrange(2), rng.randrange(10**12), rng.randrange(1 << 30))[:-6]
        return body + b"*%04X\n" % (crc16(body.lstrip(b"$")) ^ rng.randrange(1, 1 << 16))
    if kind == 2:  # binary noise with a non-ASCII byte
        return bytes(rng.randrange(128, 256) for _ in range(1)) + bytes(
            rng.choice(NOISE) for _ in range(rng.randrange(0, 60))) + b"\n"
    if kind == 3:
        return encode("Z", 1, 2, 3)  # unknown verb
    if kind == 4:
        return encode("B", 1, 1, 5)  # a field missing
    if kind == 5:
        return encode("B", 9, 1, 1000, 5)  # no such station
    if kind == 6:
        return encode("S", 1, "x", 1000, 5)  # not a number
    if kind == 7:
        return b"B" * rng.randrange(5000, 20000) + b"\n"  # far too long
    return b"\n"  # empty


@pytest.mark.heavy
def test_hundred_thousand_random_and_malformed_lines_do_not_crash(
    rig: tuple[SerialBridge, FakeBridge, queue.Queue[StationInput]],
) -> None:
    bridge, fake, _ = rig
    rng = random.Random(1234)
    kinds = [rng.random() < 0.5 for _ in range(100_000)]
    lines = [bad_line(rng) if is_bad else good_line(rng, fake, 10**9 + 1000 * k) for k, is_bad in enumerate(kinds)]
    bad = sum(kinds)
    before = bridge.lines
    batch = 2000
    for k in range(0, len(lines), batch):
        fake.send_raw(b"".join(lines[k:k + batch]), proof=False)
    assert wait_for(lambda: bridge.lines - before >= 100_000, timeout=300)
    diag = bridge.diagnostics()
    assert diag["malformed_total"] == bad  # every bad line counted, every good one taken
    assert bridge.lines - before == 100_000
    assert diag["connected"]
    fake.send("B", 0, 1, 10**13)  # still working afterwards
    assert wait_for(lambda: bridge.diagnostics()["stations"][0]["presses"] >= 1)


def test_frame_encoding_round_trips() -> None:
    frame = [(0, 1, 2), (255, 128, 7), (10, 36, 3), (27, 13, 4)]  # bytes that must be escaped
    record = encode_frame(frame, seq=10)
    assert record.count(b"\n") == 1 and b"$" not in record and b"\x03" not in record
    assert decode_frame(record.rstrip(b"\n")) == (10, frame)


@pytest.mark.heavy  # waits out the self-test's real timeouts
def test_selftest_through_the_serial_bridge(tmp_path: Path) -> None:
    from table.hardware.config import parse_hardware
    from table.hardware.selftest import SelfTest, Step, build_backends

    link = tmp_path / "ttyBridge"
    fake = FakeBridge(link, stations=2)
    cfg = parse_hardware({"input": {"backend": "serial"}, "leds": {"backend": "serial", "count": 10},
                          "serial": {"port": str(link)}}, "test.toml")
    stations, glass = build_backends(cfg)
    assert isinstance(stations, SerialBridge) and glass is not None
    stations.stations = 2
    stations.core = type(stations.core)(2, stations.timing)
    def act(step: Step | None, text: str) -> None:
        if step is None:
            return
        assert wait_for(lambda: stations.hello is not None, 20), (fake.received, stations.diagnostics())
        now_us = int(time.monotonic() * 1e6)  # the fake bridge's clock runs with the real one
        s = step.station if step.station is not None else 0
        lines = {
            "press": [("B", s, 1), ("B", s, 0)],
            "confirm": [("B", 0, 1), ("B", 0, 0)],
            "turn clockwise": [("R", s, 1)],
            "turn counter-clockwise": [("R", s, -2)],
            "push the knob": [("S", s, 1), ("S", s, 0)],
        }[step.action]
        for k, (verb, station, value) in enumerate(lines):
            fake.send(verb, station, value, now_us + 50_000 * k)

    test = SelfTest(stations, 2, ["encoder", "encoder"], glass, say=act, timeout=3.0)
    try:
        results = test.run(["stations", "leds"])
    finally:
        fake.close()
    assert all(r.status == "pass" for r in results), results
    assert len(results) == 10
    assert f"bridge fake-1.0 protocol {PROTOCOL_VERSION}" in results[-2].detail
    assert fake.frames and fake.frames[-1] == [(0, 0, 0)] * 10


def test_leds_changing_while_the_bridge_reconnects(rig: Rig) -> None:
    """Regression: the reader re-sent the LED states while set_leds changed them."""
    bridge, fake, got = rig
    fake.unplug()
    assert wait_for(lambda: not bridge.connected.is_set())
    fake.replug()
    states: tuple[LedState, ...] = ("on", "off", "blink")
    deadline = time.monotonic() + 1.0
    k = 0
    while time.monotonic() < deadline:
        bridge.set_leds({k % 5: states[k % 3]})
        k += 1
    assert wait_for(bridge.connected.is_set)
    assert all(t.is_alive() for t in bridge._threads)
    fake.send("B", 1, 1, 5_000_000)
    assert take(got, 1)[0].station == 1


def test_a_state_report_after_a_replug_corrects_held_buttons(rig: Rig) -> None:
    bridge, fake, got = rig
    now_us = int(time.monotonic() * 1e6)  # the fake bridge's clock runs with the real one
    fake.send("B", 2, 1, now_us)  # held ...
    assert take(got, 1)[0].station == 2
    assert set(bridge.diagnostics()["held"]) == {"2"}
    fake.unplug()
    assert wait_for(lambda: not bridge.connected.is_set())
    fake.held = {1: (1, 0)}  # ... released while the cable was out; station 1 pressed meanwhile
    reports = bridge.diagnostics()["state_reports"]  # (the press was followed by one too)
    fake.replug()
    assert wait_for(lambda: bridge.diagnostics()["state_reports"] > reports)  # one state line per connect
    assert set(bridge.diagnostics()["held"]) == {"1"}  # held, but nobody saw a press
    fake.send("B", 2, 1, int(time.monotonic() * 1e6))  # station 2's next press is a press
    (press,) = take(got, 1)
    assert press.station == 2 and got.empty()
