"""The table's clocks: table time in seconds, read by calling the clock.

A clock is read as ``clock()`` (what :class:`table.loop.app.Table` and the input backends
take: ``time.monotonic`` is one too), and a scripted run also ``start``\\ s it where
table time begins and waits on it with ``wait_until``:

* :class:`VirtualClock` moves only when told (``advance``, ``now``, or a wait, which
  jumps to the time waited for): tests and headless runs play an evening in
  milliseconds;
* :class:`ScaledClock` is real time at ``speed`` times the wall clock (1.0: the wall
  clock itself), for ``table run --script --speed`` and the scripted daemon.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol


class Clock(Protocol):
    """Table time for a scripted loop.

    ``clock()`` is table time now. ``start`` fixes where table time is at this moment
    (a resumed game continues at its last journaled time). ``wait_until`` returns True
    when table time ``t`` has come, or False early when ``should_stop()`` turns true;
    ``idle`` is called at least every slice of waiting (the watchdog's pings).
    """

    def __call__(self) -> float: ...

    def start(self, table_t: float) -> None: ...

    def wait_until(self, t: float, should_stop: Callable[[], bool], idle: Callable[[], None]) -> bool: ...


class VirtualClock:
    """Table time that moves only when told; a wait jumps to the time waited for."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def start(self, table_t: float) -> None:
        self.now = table_t

    def wait_until(self, t: float, should_stop: Callable[[], bool], idle: Callable[[], None]) -> bool:
        idle()
        self.now = max(self.now, t)
        return not should_stop()


class ScaledClock:
    """Real time, ``speed`` times faster (1.0 is the wall clock), reading ``at`` now;
    a wait sleeps in slices of ``slice_s`` real seconds."""

    def __init__(self, speed: float = 1.0, slice_s: float = 0.05, at: float = 0.0) -> None:
        if speed <= 0:
            raise ValueError("the clock speed must be positive")
        self.speed = speed
        self.slice_s = slice_s
        self._table_t = at
        self._real_t = time.monotonic()

    def __call__(self) -> float:
        return self._table_t + (time.monotonic() - self._real_t) * self.speed

    def start(self, table_t: float) -> None:
        self._table_t = table_t
        self._real_t = time.monotonic()

    def wait_until(self, t: float, should_stop: Callable[[], bool], idle: Callable[[], None]) -> bool:
        while True:
            idle()
            if should_stop():
                return False
            left = (t - self()) / self.speed
            if left <= 0:
                return True
            time.sleep(min(left, self.slice_s))
