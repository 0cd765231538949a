"""The daemon as its console entry point runs it (:func:`table.cli.main`), with the
stations' displays on :class:`fakes.i2c.FakeI2C` instead of the Pi's bus: for tests that
start it as a process and signal it.

    PYTHONPATH=tests python -m fakes.i2c_daemon MARKER WHEN -v run --config DIR ...

Blinka's ``board`` module is replaced by one whose ``I2C()`` hands out the fake bus, so
the table's own code (:meth:`table.hardware.oled.OledDisplays.start`, the runner, the
shutdown) and Adafruit's real drivers run unchanged on it. A transfer to a display then
blocks for ever (after the multiplexer's select, so the bus is locked and its channel
selected), as with a display that holds the clock line low, and MARKER is written as it
blocks, so the test knows the bus hangs. WHEN says which transfer:

* ``on-sigusr1``: the first one after the daemon gets SIGUSR1 (a hang mid-game);
* ``at-blank``: the first all-black picture after one that was not: the stop's blanking
  (the driver blanks a display as it starts it, before any picture), a hang at the stop;
* ``never``: none.
"""

from __future__ import annotations

import signal
import sys
import threading
import types
from pathlib import Path
from types import FrameType

from fakes.i2c import FakeI2C

MUX = 0x70
DISPLAY = 0x3C
WHEN = ("on-sigusr1", "at-blank", "never")


def black(data: bytes) -> bool:
    """Whether ``data`` is a whole picture (data prefix 0x40, then the pixels) all black."""
    return len(data) > 64 and data[0] == 0x40 and not any(data[1:])


def install(marker: Path, when: str) -> FakeI2C:
    """Put the fake bus where ``board.I2C()`` finds it, its hang armed as ``when`` says."""
    if when not in WHEN:
        raise SystemExit(f"fakes.i2c_daemon: WHEN is one of {', '.join(WHEN)}, not {when!r}")
    bus = FakeI2C({MUX, DISPLAY})
    armed = threading.Event()
    pictured = threading.Event()  # a picture has been shown
    never = threading.Event()  # nothing sets it: the transfer never ends

    def hang(address: int, data: bytes) -> None:
        if address == MUX:
            return
        if len(data) > 64 and not black(data):
            pictured.set()
        if armed.is_set() or (when == "at-blank" and pictured.is_set() and black(data)):
            marker.write_text(f"hung in a transfer of {len(data)} bytes to 0x{address:02X}\n")
            never.wait()

    def arm(signum: int, frame: FrameType | None) -> None:
        armed.set()

    bus.fault = hang
    if when == "on-sigusr1":
        signal.signal(signal.SIGUSR1, arm)
    board = types.ModuleType("board")
    board.I2C = lambda: bus  # type: ignore[attr-defined]
    sys.modules["board"] = board
    return bus


if __name__ == "__main__":
    install(Path(sys.argv[1]), sys.argv[2])
    from table.cli import main

    sys.exit(main(sys.argv[3:]))
