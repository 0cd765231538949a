"""The test-only fault switch: a seam the boot test uses to see systemd's watchdog work.

``$TABLE_TEST_FAULTS`` is set only by the boot test image's drop-in (docs/kiosk.md);
on every venue's table it is unset and nothing here does anything.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from types import FrameType
from typing import Protocol

from table.common.errors import TableError

log = logging.getLogger("table.run")

TEST_FAULTS = "TABLE_TEST_FAULTS"
"""The test-only fault switch (docs/kiosk.md): set only by the boot test image's drop-in."""


def requested_test_fault() -> str | None:
    """The fault ``$TABLE_TEST_FAULTS`` asks for: None when unset (every venue's case).

    The only fault is ``hang-on-sigusr1``: SIGUSR1 makes the loop hang (no frames, no
    watchdog pings), so the boot test sees systemd's watchdog kill and restart the
    table. Any other value is refused in one sentence, so a typo never leaves a table
    silently armed or silently unarmed.
    """
    value = os.environ.get(TEST_FAULTS)
    if value is not None and value != "hang-on-sigusr1":
        raise TableError(f"{TEST_FAULTS}={value!r} is not a fault this table knows (only 'hang-on-sigusr1', "
                         "and only in the boot test's image)")
    return value


class Hangable(Protocol):
    """What a fault is armed on: the loop hangs once ``fault_hang`` turns true."""

    fault_hang: bool


def arm_test_fault(runner: Hangable) -> None:
    """Arm the fault :func:`requested_test_fault` names on ``runner`` (nothing when unset)."""
    if requested_test_fault() is None:
        return

    def arm(signum: int, frame: FrameType | None) -> None:
        runner.fault_hang = True

    signal.signal(signal.SIGUSR1, arm)
    log.warning("test fault switch armed: SIGUSR1 hangs the loop (%s is for the boot test only)", TEST_FAULTS)


def hang_for_the_watchdog() -> None:
    """The armed fault: stop pinging and drawing until systemd's watchdog kills us."""
    log.warning("test fault: the table loop hangs now; the service watchdog should restart it")
    while True:
        time.sleep(3600)
