"""Press ordering, debouncing, false starts and long pushes: pure logic, no gpiozero.

Both real backends (gpio through gpiozero, the serial I/O bridge) feed raw edges
with their own timestamps into a :class:`StationCore` and pull finished
:class:`~table.hardware.interfaces.StationInput` values out of it with
:meth:`StationCore.poll`. Nothing here reads a clock: every method takes ``now``
(table time, seconds) so tests drive it in virtual time.

The rules (all windows come from the config, see ``config/hardware.toml``):

* **First edge counts.** A switch reports a press at the time of the *first* edge
  of the press and then ignores every edge for ``debounce`` seconds (bounce counts
  once and adds no delay). If the level changed for good during that lockout, the
  change is taken when the lockout ends.
* **Settle window.** Edges can reach us late and out of order (interrupt latency,
  a busy Python, the serial line). Every input is held until the table clock has
  passed ``t + settle + tie_window`` and inputs leave in order of ``t``, so a press
  that happened earlier but was delivered later is still ordered first.
* **Tie window.** Presses whose edge times lie within ``tie_window`` of each other
  are a tie: each such press names the others in ``StationInput.tie``.
* **False starts.** After :meth:`StationCore.arm`, a press from a station that is
  not armed, or that happened before the arming time, is dropped, counted, and
  locks that station's button out for ``false_start_lockout`` seconds.
* **Long push.** A knob switch held for ``long_push`` seconds reports
  ``long_push`` (at press time + long_push) and no ``push``; a shorter push reports
  ``push`` when it is released (so a long push never also acts in the game).
* A button held down (for minutes) only affects its own station; the others go on,
  and :meth:`StationCore.diagnostics` lists it as held.
* **Late delivery.** A switch's level is the level of its newest edge *in edge time*,
  so a bounce edge that arrives after newer ones changes nothing; a level change
  found at the end of a lockout is only taken once edges up to then have had time
  to arrive (``settle``, or the recent worst lateness when deliveries have been
  later; the hold of every queued input widens the same way). An edge
  that shows a press began earlier than the edge it was first seen by moves the
  press back (the first edge counts, whatever order they arrive in). A press that
  reaches the queue after a later press has already left cannot be ordered: it is
  still passed on, counted (``unordered`` in :meth:`StationCore.diagnostics`) and
  logged; edges arriving later than ``settle`` are counted as ``late_edges``. (Any
  input may still leave out of order then; presses are what races are made of.)
* **Reconciling.** A backend that learns a switch's level from a state report
  (:meth:`StationCore.reconcile`) sets it without reporting a press or push.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from table.hardware.interfaces import LONG_PUSH, PRESS, PUSH, TURN, KnobValue, StationInput

log = logging.getLogger(__name__)

LATE_MEMORY = 10.0  # seconds a late delivery keeps widening the lockout margin
MAX_MARGIN = 0.25  # never wait longer than this after a lockout


@dataclass(frozen=True)
class Timing:
    """The time windows of the station layer, in seconds."""

    settle: float = 0.015
    tie_window: float = 0.002
    debounce: float = 0.030
    false_start_lockout: float = 0.5
    long_push: float = 2.0
    absolute_stable: float = 0.020

    @property
    def hold(self) -> float:
        """How long every input waits before it leaves, so that its order is final."""
        return self.settle + self.tie_window


Level = Literal["down", "up"]


@dataclass
class Switch:
    """One push switch, debounced by taking the first edge and locking out.

    ``edge(pressed, t)`` feeds a raw edge (``pressed`` is the level after the edge);
    it returns the logical transition it caused, if any, as ``(level, t, earlier)``:
    ``earlier`` is True when the edge only shows that the current state began at
    ``t``, before the edge it was taken from (edges arrived out of order).
    ``poll(now, margin)`` returns a transition that happened during a lockout and
    has lasted past it, once ``margin`` seconds have passed after the lockout (so
    that edges of the lockout still in flight have arrived).
    """

    debounce: float
    pressed: bool = False
    raw: bool = False
    raw_t: float = float("-inf")
    lock_until: float = float("-inf")
    prev_lock: float = float("-inf")
    taken_t: float = float("-inf")
    down_since: float | None = None
    bounces: int = 0

    def edge(self, pressed: bool, t: float) -> tuple[Level, float, bool] | None:
        if t >= self.raw_t:  # the newest edge in edge time gives the level
            self.raw, self.raw_t = pressed, t
        if pressed == self.pressed and self.prev_lock <= t < self.taken_t:
            # The state we are in began earlier than the edge we took it from.
            self.taken_t = t
            self.lock_until = t + self.debounce
            if pressed:
                self.down_since = t
            return ("down" if pressed else "up"), t, True
        if t < self.lock_until:
            self.bounces += 1
            return None
        if pressed == self.pressed:
            return None  # an edge we already know about (or a missed one in between)
        return self._take(pressed, t)

    def poll(self, now: float, margin: float = 0.0) -> tuple[Level, float, bool] | None:
        if now >= self.lock_until + margin and self.raw != self.pressed:
            return self._take(self.raw, max(self.raw_t, self.lock_until))
        return None

    def wakeup(self, margin: float = 0.0) -> float | None:
        """When :meth:`poll` may next have something to do."""
        return self.lock_until + margin if self.raw != self.pressed else None

    def reconcile(self, pressed: bool, t: float) -> bool:
        """The level ``pressed`` was reported at ``t`` (a state report): take it without
        a transition. Returns True when it differed from what we believed."""
        changed = pressed != self.pressed
        if t >= self.raw_t:
            self.raw, self.raw_t = pressed, t
        if changed:
            self.pressed = pressed
            self.prev_lock = self.lock_until
            self.taken_t = t
            self.down_since = t if pressed else None
        return changed

    def assume(self, pressed: bool, t: float) -> None:
        """The level found when the switch is opened: no transition is reported
        (a button already held when the table starts is not a press), but a held
        button shows as held."""
        self.pressed = self.raw = pressed
        self.raw_t = t
        self.down_since = t if pressed else None

    def _take(self, pressed: bool, t: float) -> tuple[Level, float, bool]:
        self.pressed = pressed
        self.prev_lock = self.lock_until
        self.taken_t = t
        self.lock_until = t + self.debounce
        self.down_since = t if pressed else None
        return ("down" if pressed else "up"), t, False


def _since(now: float, t: float | None) -> float | None:
    return None if t is None else round(now - t, 3)


@dataclass
class _Station:
    button: Switch
    knob_switch: Switch
    push_long_fired: bool = False
    push_down_t: float = 0.0
    presses: int = 0
    pushes: int = 0
    false_starts: int = 0
    locked_out: int = 0
    lockout_until: float = float("-inf")


@dataclass
class StationCore:
    """Every station's switches plus the ordered output queue (see the module doc)."""

    stations: int
    timing: Timing = field(default_factory=Timing)

    def __post_init__(self) -> None:
        self._st = [
            _Station(Switch(self.timing.debounce), Switch(self.timing.debounce))
            for _ in range(self.stations)
        ]
        self._queue: list[tuple[float, int, StationInput]] = []
        self._seq = itertools.count()
        self._armed: frozenset[int] | None = None
        self._armed_at: float | None = None
        self._last_out = float("-inf")
        self._last_press_out = float("-inf")
        self.late_edges = 0
        self.unordered = 0
        self.max_lateness = 0.0
        self._late_buckets: dict[int, float] = {}  # recent worst lateness: widens the margins
        self._polled = float("-inf")
        self.ties = 0
        self._pending_turn: dict[int, tuple[float, int]] = {}
        self._recent_presses: deque[StationInput] = deque(maxlen=32)

    # --- inputs ------------------------------------------------------------------

    def arm(self, stations: Collection[int] | None, at: float | None = None) -> None:
        """Which stations may press from table time ``at`` on (``None``: all, always)."""
        self._armed = None if stations is None else frozenset(stations)
        self._armed_at = at

    def initial_levels(self, station: int, button: bool, knob_switch: bool, t: float) -> None:
        """The switches' levels when the backend opened them (see :meth:`Switch.assume`);
        a knob switch already held does not become a long push."""
        st = self._st[station]
        st.button.assume(button, t)
        st.knob_switch.assume(knob_switch, t)
        st.push_long_fired = knob_switch

    def button_edge(self, station: int, pressed: bool, t: float, now: float | None = None) -> None:
        """A raw edge of a station's big button (``pressed`` = level after the edge);
        ``now`` (table time of arrival) lets the core measure late delivery."""
        self._arrived(t, now)
        st = self._st[station]
        change = st.button.edge(pressed, t)
        if change is not None:
            self._button_change(station, change)

    def knob_switch_edge(self, station: int, pressed: bool, t: float, now: float | None = None) -> None:
        """A raw edge of the knob's push switch."""
        self._arrived(t, now)
        st = self._st[station]
        change = st.knob_switch.edge(pressed, t)
        if change is not None:
            self._knob_change(station, change)

    def reconcile(self, station: int, button: bool, knob_switch: bool, t: float) -> None:
        """The switches' levels reported at ``t`` by the hardware (a bridge's state
        report after a (re)connect): the belief is corrected without a press or push,
        so a button held across a re-plug and released meanwhile presses normally
        next time, and one pressed meanwhile shows as held."""
        st = self._st[station]
        if st.button.reconcile(button, t):
            log.info("station %d: button %s after reconnect", station, "held" if button else "released")
        if st.knob_switch.reconcile(knob_switch, t):
            st.push_long_fired = knob_switch  # a push held across the re-plug is no long push

    def turn_delta(self, station: int, delta: int, t: float) -> None:
        """Relative encoder steps; steps within one hold window are summed."""
        if delta == 0:
            return
        if station not in self._pending_turn:
            self._push(StationInput(TURN, station, t, None))  # placeholder, filled on poll
        first_t, total = self._pending_turn.get(station, (t, 0))
        self._pending_turn[station] = (first_t, total + delta)

    def turn_sector(self, station: int, sector: int, sectors: int, t: float) -> None:
        """An absolute knob settled on ``sector``."""
        value: KnobValue = {"sector": sector, "sectors": sectors}
        self._push(StationInput(TURN, station, t, value))

    # --- outputs -----------------------------------------------------------------

    def poll(self, now: float) -> list[StationInput]:
        """Everything that is final at ``now``, in order of ``t``."""
        margin = self.lateness_margin(now)
        self._polled = now
        for i, st in enumerate(self._st):
            change = st.button.poll(now, margin)
            if change is not None:
                self._button_change(i, change)
            change = st.knob_switch.poll(now, margin)
            if change is not None:
                self._knob_change(i, change)
            down = st.knob_switch.down_since
            if down is not None and not st.push_long_fired and now >= down + self.timing.long_push:
                st.push_long_fired = True
                self._push(StationInput(LONG_PUSH, i, down + self.timing.long_push))
        out: list[StationInput] = []
        # Deliveries running later than the settle window hold inputs longer too, so
        # that what can still be ordered is (the hold is back to normal once they stop).
        horizon = now - (margin + self.timing.tie_window)  # = now - hold when on time
        while self._queue and self._queue[0][0] <= horizon:
            _, _, item = heapq.heappop(self._queue)
            if item.kind == TURN and item.value is None:
                _, total = self._pending_turn.pop(item.station, (item.t, 0))
                if total == 0:
                    continue
                item = StationInput(TURN, item.station, item.t, {"delta": total})
            if item.kind == PRESS:
                item = self._with_ties(item)
                self._recent_presses.append(item)
                self._last_press_out = max(self._last_press_out, item.t)
            self._last_out = max(self._last_out, item.t)
            out.append(item)
        return out

    def next_wakeup(self) -> float | None:
        """The table time at which :meth:`poll` next has work (``None``: only on input)."""
        times: list[float] = []
        margin = self.lateness_margin(self._polled)  # as the last poll saw it
        if self._queue:
            times.append(self._queue[0][0] + (margin + self.timing.tie_window))
        for st in self._st:
            for sw in (st.button, st.knob_switch):
                w = sw.wakeup(margin)
                if w is not None:
                    times.append(w)
            if st.knob_switch.down_since is not None and not st.push_long_fired:
                times.append(st.knob_switch.down_since + self.timing.long_push)
        return min(times) if times else None

    @property
    def quiet(self) -> bool:
        """Nothing is waiting to be ordered (a safe moment to re-estimate clocks)."""
        return not self._queue

    def pushes_held(self) -> dict[int, float]:
        """Stations whose knob switch is down and has not made a long push yet, with the
        table time it went down."""
        return {
            i: st.knob_switch.down_since
            for i, st in enumerate(self._st)
            if st.knob_switch.down_since is not None and not st.push_long_fired
        }

    def held(self, now: float) -> dict[int, float]:
        """Stations whose big button is down, with how long it has been down."""
        return {
            i: now - st.button.down_since
            for i, st in enumerate(self._st)
            if st.button.down_since is not None
        }

    def diagnostics(self, now: float) -> dict[str, Any]:
        return {
            "stations": [
                {
                    "station": i,
                    "button_down_for": _since(now, st.button.down_since),
                    "knob_switch_down": st.knob_switch.down_since is not None,
                    "presses": st.presses,
                    "pushes": st.pushes,
                    "bounces": st.button.bounces + st.knob_switch.bounces,
                    "false_starts": st.false_starts,
                    "locked_out_presses": st.locked_out,
                }
                for i, st in enumerate(self._st)
            ],
            "held": {str(k): round(v, 3) for k, v in self.held(now).items()},
            "late_edges": self.late_edges,
            "max_lateness_ms": round(self.max_lateness * 1000, 1),
            "unordered": self.unordered,
            "ties": self.ties,
            "queued": len(self._queue),
        }

    # --- internals ----------------------------------------------------------------

    def _arrived(self, t: float, now: float | None) -> None:
        if now is None:
            return
        lateness = now - t
        if lateness > self.timing.settle:
            self.late_edges += 1
            self.max_lateness = max(self.max_lateness, lateness)
            # the worst lateness per half of LATE_MEMORY; the last two halves count
            bucket = int(now // (LATE_MEMORY / 2))
            worst = max(self._late_buckets.get(bucket, 0.0), min(lateness, MAX_MARGIN))
            self._late_buckets = {k: v for k, v in self._late_buckets.items() if k >= bucket - 1}
            self._late_buckets[bucket] = worst

    def lateness_margin(self, now: float) -> float:
        """How long after a lockout a level change (and every input in the queue)
        waits for edges still in flight: the settle window, or the worst lateness of
        the last LATE_MEMORY seconds or so when deliveries run later than that."""
        if not self._late_buckets:
            return self.timing.settle
        bucket = int(now // (LATE_MEMORY / 2))
        recent = max(self._late_buckets.get(bucket, 0.0), self._late_buckets.get(bucket - 1, 0.0))
        return max(self.timing.settle, recent)

    def _unorderable(self, item: StationInput) -> None:
        self.unordered += 1
        if self.unordered == 1 or self.unordered % 100 == 0:
            log.warning(
                "a press of station %d came %.1f ms after a later press had left: their order is not "
                "known (%d so far); inputs are delivered later than the settle window of %.0f ms",
                item.station, (self._last_press_out - item.t) * 1000, self.unordered,
                self.timing.settle * 1000,
            )

    def _push(self, item: StationInput) -> None:
        if item.kind == PRESS and item.t < self._last_press_out:
            # a pair of presses that could not be ordered: passed on anyway, counted
            self._unorderable(item)
        heapq.heappush(self._queue, (item.t, next(self._seq), item))

    def _retime_press(self, station: int, t: float) -> None:
        """A queued press of ``station`` began at ``t``, earlier than first seen."""
        for k, (qt, seq, item) in enumerate(self._queue):
            if item.kind == PRESS and item.station == station:
                if t < qt:
                    self._queue[k] = (t, seq, StationInput(PRESS, station, t, item.value, item.tie))
                    heapq.heapify(self._queue)
                return
        for item in reversed(self._recent_presses):  # already delivered with a later time
            if item.station == station:
                if any(o.station != station and t < o.t <= item.t for o in self._recent_presses):
                    self._unorderable(StationInput(PRESS, station, t))
                return

    def _button_change(self, station: int, change: tuple[Level, float, bool]) -> None:
        level, t, earlier = change
        if level != "down":
            return
        if earlier:
            self._retime_press(station, t)
            return
        st = self._st[station]
        if t < st.lockout_until:
            st.locked_out += 1
            return
        armed, at = self._armed, self._armed_at
        if armed is not None and (station not in armed or (at is not None and t < at)):
            st.false_starts += 1
            st.lockout_until = t + self.timing.false_start_lockout
            return
        st.presses += 1
        self._push(StationInput(PRESS, station, t))

    def _knob_change(self, station: int, change: tuple[Level, float, bool]) -> None:
        level, t, earlier = change
        st = self._st[station]
        if earlier:
            if level == "down":
                st.push_down_t = t
            return
        if level == "down":
            st.push_long_fired = False
            st.push_down_t = t
            return
        if not st.push_long_fired:
            if t - st.push_down_t >= self.timing.long_push:  # nobody polled while it was held
                self._push(StationInput(LONG_PUSH, station, st.push_down_t + self.timing.long_push))
            else:
                st.pushes += 1
                self._push(StationInput(PUSH, station, t))
        st.push_long_fired = False

    def _with_ties(self, item: StationInput) -> StationInput:
        """Name the stations whose presses lie within the tie window of ``item``."""
        w = self.timing.tie_window
        others = {
            other.station
            for other in itertools.chain(self._recent_presses, (q[2] for q in self._queue))
            if other.kind == PRESS and other.station != item.station and abs(other.t - item.t) <= w
        }
        if not others:
            return item
        self.ties += 1
        return StationInput(PRESS, item.station, item.t, None, tuple(sorted(others)))


def pump_until_stopped(
    pump: Callable[[], float | None],
    wake: threading.Condition,
    stopping: Callable[[], bool],
    clock: Callable[[], float],
) -> None:
    """A backend's input thread: run ``pump`` (which returns when it next needs to run,
    or None) until ``stopping()``; sleep on ``wake`` in between, at most 0.25 s.

    A failing pump (an ADC read, a closed port) is logged and retried: the stations
    must stay alive whatever one reading does.
    """
    while True:
        try:
            nxt = pump()
        except Exception:
            log.exception("station input processing failed")
            nxt = None
        with wake:
            if stopping():
                return
            timeout = 0.25 if nxt is None else max(0.0, min(0.25, nxt - clock()))
            if timeout > 0:
                wake.wait(timeout)
