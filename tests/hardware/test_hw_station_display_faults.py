"""The stations' private displays when the I2C bus misbehaves: a multiplexer select
that raises, a bus that times out, a bus that vanishes for ten seconds, a driver that
raises something else, a bus that hangs at shutdown. Adafruit's real SSD1306 and
TCA9548A drivers run on the fake bus; retries run in virtual time."""

from __future__ import annotations

import errno
import logging
import os
import threading
import time

import pytest
from fakes.i2c import FakeI2C

from table.display.station_screen import StationPicture, station_picture
from table.hardware.config import StationDisplay
from table.hardware.oled import CLOSE_BUDGET, RETRY_MAX, OledDisplays, framebuffer_bytes

tca9548a = pytest.importorskip("adafruit_tca9548a")
pytest.importorskip("adafruit_ssd1306")

MUX = 0x70


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def picture(word: str) -> StationPicture:
    return station_picture([("S1", "small"), (word, "big")])


def frame_of(shown: StationPicture) -> bytes:
    return b"\x40" + bytes(framebuffer_bytes(shown))


def rig(bus: FakeI2C, clock: Clock, stations: tuple[int, ...] = (0, 1)) -> OledDisplays:
    displays = OledDisplays({s: StationDisplay(mux_channel=s) for s in stations}, i2c=bus, background=False,
                            clock=clock)
    displays.start()
    return displays


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "table.hardware.oled" and r.levelno >= logging.INFO]


def select_fails_once(bus: FakeI2C) -> None:
    armed = [True]

    def fault(address: int, data: bytes) -> None:
        if armed[0] and address == MUX and data not in (b"\x00",):
            armed[0] = False
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    bus.fault = fault


def test_the_drivers_own_channel_keeps_the_bus_locked_after_a_failed_select() -> None:
    """Why the table has its own channel: the driver's leaves the bus locked for ever."""
    bus = FakeI2C({MUX, 0x3C})
    channel = tca9548a.TCA9548A(bus, MUX)[0]
    select_fails_once(bus)
    with pytest.raises(OSError):
        channel.try_lock()
    assert bus.locked


def test_a_failed_select_leaves_the_bus_free_and_the_display_comes_back(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    bus, clock = FakeI2C({MUX, 0x3C}), Clock()
    displays = rig(bus, clock)
    select_fails_once(bus)
    first, second = picture("North"), picture("South")
    displays.show(0, first)
    assert not bus.locked and displays.failing() == {0: str(OSError(errno.EIO, os.strerror(errno.EIO)))}
    displays.show(1, second)  # the other station's display is not held up
    assert bus.frames()[-1] == frame_of(second)
    clock.now += RETRY_MAX
    displays.pump()
    assert bus.frames()[-1] == frame_of(first) and displays.failing() == {}
    assert lines(caplog) == [f"S1's display stopped taking pictures ({OSError(errno.EIO, os.strerror(errno.EIO))}); "
                             "retrying it until it answers", "S1's display answers again"]


@pytest.mark.parametrize("error", [OSError(errno.ETIMEDOUT, os.strerror(errno.ETIMEDOUT)),
                                   RuntimeError("driver bug"), ValueError("bad buffer")])
def test_any_error_is_one_line_not_a_traceback_per_picture(error: Exception,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    bus, clock = FakeI2C({MUX, 0x3C}), Clock()
    displays = rig(bus, clock, stations=(0,))

    def fault(address: int, data: bytes) -> None:
        if address == 0x3C:
            raise error

    bus.fault = fault
    for n in range(200):  # ten seconds of a 20 Hz screen
        clock.now += 0.05
        displays.show(0, picture(f"N{n}"))
        displays.pump()
    assert not bus.locked
    assert len(lines(caplog)) == 1
    assert not any(r.exc_info for r in caplog.records if r.levelno >= logging.INFO)


def test_a_bus_that_vanishes_for_ten_seconds(caplog: pytest.LogCaptureFixture) -> None:
    """The game goes on (showing never raises), the displays come back within two
    seconds of the bus with the newest picture, one line per change of state."""
    caplog.set_level(logging.INFO)
    bus, clock = FakeI2C({MUX, 0x3C}), Clock()
    displays = rig(bus, clock)
    displays.show(0, picture("before"))
    bus.vanished = True
    gone_at = clock.now
    shown = picture("before")
    while clock.now < gone_at + 10:
        clock.now += 1 / 30
        shown = picture(f"t{int(clock.now - gone_at)}")
        for station in (0, 1):
            displays.show(station, shown)
        displays.pump()
    assert set(displays.failing()) == {0, 1}
    bus.vanished = False
    back_at, written = clock.now, len(bus.writes)
    while displays.failing() and clock.now < back_at + 5:
        clock.now += 1 / 30
        displays.pump()
    assert displays.failing() == {}
    assert clock.now - back_at <= 2.0
    assert bus.frames()[-1] == frame_of(shown) and not bus.locked
    # Re-initialised on the way back: the panel may have lost power.
    assert (0x3C, b"\x80\xae") in bus.writes[written:]
    assert sorted(lines(caplog)) == sorted(
        [f"S{n}'s display stopped taking pictures ({OSError(errno.ENXIO, os.strerror(errno.ENXIO))}); "
         "retrying it until it answers"
         for n in (1, 2)] + [f"S{n}'s display answers again" for n in (1, 2)])


def test_closing_while_the_bus_hangs_takes_at_most_the_budget(caplog: pytest.LogCaptureFixture) -> None:
    """SIGTERM ends the daemon in a second whatever the bus does: closing leaves a
    display thread stuck in a transfer behind."""
    bus = FakeI2C({MUX, 0x3C})
    displays = OledDisplays({0: StationDisplay(mux_channel=0)}, i2c=bus)
    displays.start()
    release = threading.Event()
    stuck = threading.Event()

    def hang(address: int, data: bytes) -> None:
        stuck.set()
        release.wait(30)

    bus.fault = hang
    displays.show(0, picture("North"))
    assert stuck.wait(10)
    began = time.monotonic()
    displays.close()
    took = time.monotonic() - began
    release.set()
    # The budget is 0.5 s; four times that leaves room for a loaded machine.
    assert took < 4 * CLOSE_BUDGET, took
    assert "did not answer in time" in caplog.text


def test_a_display_thread_survives_failures_and_keeps_writing() -> None:
    bus = FakeI2C({MUX, 0x3C})
    displays = OledDisplays({0: StationDisplay(mux_channel=0)}, i2c=bus)
    displays.start()
    select_fails_once(bus)
    displays.show(0, picture("one"))
    assert displays.flush()
    deadline = time.monotonic() + 10
    while displays.failing() and time.monotonic() < deadline:  # retried by the thread itself
        time.sleep(0.05)
    assert displays.failing() == {} and bus.frames()[-1] == frame_of(picture("one"))
    displays.show(0, picture("two"))
    assert displays.flush()
    assert bus.frames()[-1] == frame_of(picture("two"))
    displays.close()
    assert bus.frames()[-1] == b"\x40" + bytes(1024)
