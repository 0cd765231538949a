"""The daemon as its console entry point runs it (:func:`table.cli.main`), with the
stations' displays on :class:`fakes.i2c.FakeI2C` instead of the Pi's bus: for tests that
start it as a process and signal it.

    PYTHONPATH=tests python -m fakes.i2c_daemon MARKER -v run --config DIR ...

Blinka's ``board`` module is replaced by one whose ``I2C()`` hands out the fake bus, so
the table's own code (:meth:`table.hardware.oled.OledDisplays.start`, the runner, the
shutdown) and Adafruit's real drivers run unchanged on it. SIGUSR1 arms the fault: the
next transfer to a display (after the multiplexer's select, so the bus is locked and its
channel selected) blocks for ever, as with a display that holds the clock line low, and
MARKER is written as it blocks, so the test knows the bus hangs.
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


def install(marker: Path) -> FakeI2C:
    """Put the fake bus where ``board.I2C()`` finds it and arm its hang on SIGUSR1."""
    bus = FakeI2C({MUX, DISPLAY})
    armed = threading.Event()
    never = threading.Event()  # nothing sets it: the transfer never ends

    def hang(address: int, data: bytes) -> None:
        if armed.is_set() and address != MUX:
            marker.write_text(f"hung in a transfer of {len(data)} bytes to 0x{address:02X}\n")
            never.wait()

    def arm(signum: int, frame: FrameType | None) -> None:
        armed.set()

    bus.fault = hang
    signal.signal(signal.SIGUSR1, arm)
    board = types.ModuleType("board")
    board.I2C = lambda: bus  # type: ignore[attr-defined]
    sys.modules["board"] = board
    return bus


if __name__ == "__main__":
    install(Path(sys.argv[1]))
    from table.cli import main

    sys.exit(main(sys.argv[2:]))
