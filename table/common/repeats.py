"""Log lines that can repeat (each frame, each line read, each retry) said once, then
counted: :class:`RepeatedLog`.

A fault that lasts (a camera giving tiny frames, a journal that cannot be checkpointed)
would otherwise write the same line many times a minute into the journald log of a
kiosk that runs for weeks, and bury what else happened. A :class:`RepeatedLog` writes
the first occurrence as it is; the repeats within ``every`` seconds of the last line
written are only counted, and the first repeat after that is written with the count::

    the tray camera's frame is 1x1 pixels, ... (… 212 more times since)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable


class RepeatedLog:
    """One log line of ``logger`` that may repeat, rate-limited with a count.

    ``key`` tells problems apart: a line with a key not seen for ``every`` seconds is
    written at once (by default the message's format string is the key, so the same
    line with other values counts as a repeat). ``clock`` gives seconds (monotonic; a
    virtual clock in tests). Safe to call from several threads.
    """

    def __init__(self, logger: logging.Logger, every: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not every > 0:
            raise ValueError(f"every must be more than 0 seconds, not {every!r}")
        self.logger = logger
        self.every = every
        self.clock = clock
        self._lock = threading.Lock()
        self._said: dict[Hashable, tuple[float, int]] = {}  # key -> (when last written, repeats held since)

    def log(self, level: int, msg: str, *args: object, key: Hashable = None) -> bool:
        """Write ``msg % args`` at ``level`` unless it is a repeat held back; True if written."""
        key = msg if key is None else key
        now = self.clock()
        with self._lock:
            last = self._said.get(key)
            if last is not None and now - last[0] < self.every:
                self._said[key] = (last[0], last[1] + 1)
                return False
            held = last[1] if last is not None else 0
            self._said[key] = (now, 0)
        if held:
            self.logger.log(level, msg + " (… %d more time%s since)", *args, held, "" if held == 1 else "s")
        else:
            self.logger.log(level, msg, *args)
        return True

    def warning(self, msg: str, *args: object, key: Hashable = None) -> bool:
        return self.log(logging.WARNING, msg, *args, key=key)

    def error(self, msg: str, *args: object, key: Hashable = None) -> bool:
        return self.log(logging.ERROR, msg, *args, key=key)

    def held(self, key: Hashable) -> int:
        """How many repeats of ``key`` (by default: the format string) are held back now."""
        with self._lock:
            found = self._said.get(key)
        return found[1] if found is not None else 0
