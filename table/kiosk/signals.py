"""Process lifecycle for the table's long-running commands: signals become a clean stop."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

log = logging.getLogger(__name__)


@contextmanager
def sigterm_stops(stop: threading.Event) -> Iterator[None]:
    """Turn SIGTERM (and SIGINT) into ``stop.set()`` for the duration; restore after."""

    def handler(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: stopping cleanly after the current action", signum)
        stop.set()

    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)
