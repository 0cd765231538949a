"""What the table lights and where station inputs enter the loop.

* :class:`StationInputs` puts a :class:`~table.hardware.interfaces.Stations` backend
  (GPIO, serial bridge, simulator) behind the loop's ``poll`` interface: the backend's
  thread hands inputs to a queue and wakes the loop.
* :class:`ButtonLeds` lights the buttons of the stations that may act (from the
  view's ``may_act``) and arms them, so a press from any other station is a false
  start in the hardware layer.
* :class:`HourglassOutput` turns the game's sand (the view's ``sand``:
  ``{"started": game time or None, "seconds": length}``) and the
  stations' presses into LED frames with the pure ``hourglass_frame``.
* :class:`ScreenHourglass` is the simulator's LED hourglass: it keeps the last frame
  for the window to draw.
* :class:`StationScreens` keeps each station's private display (an OLED at the
  station, or the simulator's picture of it) on that station's own view; no other
  view reaches it. :class:`ScreenStationDisplays` is the simulator's.

Times: outputs are told the game's table time (``Table.game_time``); views carry
game time (pauses taken out), converted with ``session.game_time``.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from table.display.output import Output
from table.games.base import Action
from table.games.contract import table_view
from table.hardware.hourglass import Flash, HourglassState, fading_flashes, hourglass_frame, next_glow_change
from table.hardware.interfaces import (
    RGB,
    Hourglass,
    HourglassLayout,
    LedState,
    MonoPicture,
    StationDisplays,
    StationInput,
    Stations,
)
from table.play.session import Session

log = logging.getLogger(__name__)


class StationInputs:
    """A thread-safe bridge from a :class:`Stations` backend to the table loop."""

    def __init__(self, stations: Stations, wake: Callable[[], None] | None = None) -> None:
        self.stations = stations
        self.wake = wake
        self._queue: queue.SimpleQueue[StationInput] = queue.SimpleQueue()

    def start(self) -> None:
        self.stations.start(self._sink)

    def _sink(self, item: StationInput) -> None:
        self._queue.put(item)
        if self.wake is not None:
            self.wake()

    def poll(self, now: float) -> list[Action]:
        out: list[Action] = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return out
            out.append(Action(item.kind, item.t, item.station, item.value))

    def pushes_held(self) -> Mapping[int, float]:
        """The backend's knobs held down now (see :meth:`Stations.pushes_held`)."""
        return self.stations.pushes_held()

    def close(self) -> None:
        self.stations.stop()


def _may_act(session: Session | None) -> tuple[int, ...] | None:
    if session is None or session.paused or session.is_over():
        return None
    may = table_view(session.view(None)).get("may_act")
    if may is None:
        return None
    return tuple(sorted(int(s) for s in may))


def _may_act_after_deadline(session: Session) -> tuple[float, tuple[int, ...]] | None:
    """When nobody may act now but a deadline will open presses (a count-down), the
    deadline and who may act then, found by trying the expiry on the pure engine."""
    deadline = session.engine.next_deadline(session.state)
    if deadline is None:
        return None
    after = session.engine.apply(session.state, Action("tick", deadline))
    may = table_view(session.engine.view(after, None)).get("may_act") or []
    return deadline, tuple(sorted(int(s) for s in may))


def _callers(session: Session | None) -> list[int]:
    """The stations that called first this round (a game's view ``callers``), if any."""
    if session is None or session.is_over():
        return []
    callers = table_view(session.view(None)).get("callers")
    return [int(c) for c in callers] if isinstance(callers, list) and len(callers) == 1 else []


class ButtonLeds(Output):
    """Blink the buttons of the stations that may act; arm only those for presses.

    Outside a game (menu, attract mode) every button may be pressed and all LEDs glow.
    While nobody may press but a deadline will let them (the count-down before the
    cards turn), the stations are armed *from that moment*, so a press a hair after the
    deadline counts even if the loop has not run yet, and one before it is a false start.
    ``clock`` is the backend's clock (the table's monotonic clock).

    A press that counted flashes its station's LED for ``FLASH_S`` (:meth:`on_press`):
    the light turns the other way (off if it was on, on if it was off or blinking).
    """

    FLASH_S = 0.25

    def __init__(self, stations: Stations, count: int, clock: Callable[[], float] | None = None) -> None:
        self.stations = stations
        self.count = count
        self.clock = clock
        self._last: object = "unset"
        self._seen: tuple[object, bool, frozenset[int]] | None = None
        self._armed: object = "unset"
        self._flashes: dict[int, float] = {}  # station: when its flash ends (the table's game time)

    def on_press(self, station: int, at: float) -> None:
        """A press by ``station`` counted at ``at`` (the time ``update`` is given): flash it."""
        self._flashes[station] = at + self.FLASH_S

    def update(self, session: Session | None, now: float) -> None:
        self._flashes = {s: end for s, end in self._flashes.items() if now < end}
        flashing = frozenset(self._flashes)
        # Who may act only changes with the state: no view or trial expiry per frame.
        seen = (None if session is None else session.state, bool(session and session.paused), flashing)
        if self._seen is not None and self._seen[0] is seen[0] and self._seen[1:] == seen[1:]:
            return
        self._seen = seen
        may = _may_act(session)
        upcoming = None
        if session is not None and may == () and self.clock is not None:
            upcoming = _may_act_after_deadline(session)
        callers = tuple(_callers(session))
        key = (may, upcoming, callers, flashing)
        if key == self._last:
            return
        self._last = key
        if may is None:
            states: dict[int, LedState] = {s: "on" for s in range(self.count)}
        else:
            # Whoever called first keeps a steady light for the rest of the round (the
            # buzzer's "you were first"); the others blink while they may still press.
            states = {s: ("blink" if s in may else "on" if s in callers else "off") for s in range(self.count)}
        for s in flashing:
            if s in states:
                states[s] = "off" if states[s] == "on" else "on"
        self.stations.set_leds(states)
        if (may, upcoming) == self._armed:
            return  # only a flash began or ended: who may press is as it was
        self._armed = (may, upcoming)
        if upcoming is not None and self.clock is not None and session is not None:
            deadline, stations = upcoming
            # Game time to the backend's clock: the same distance from now.
            at = self.clock() + (deadline - session.game_time(now))
            self.stations.arm(set(stations), at)
        else:
            self.stations.arm(None if may is None else set(may))

    def close(self) -> None:
        return None


def hourglass_state(session: Session | None, now: float, colours: Sequence[RGB],
                    flashes: Sequence[Flash] = ()) -> tuple[HourglassState, float]:
    """The hourglass to show for ``session`` at table time ``now``, and the game time
    to draw it at (the view's times are game times)."""
    if session is None:
        return HourglassState(flashes=tuple(flashes)), now
    game_now = session.game_time(session.paused_since if session.paused_since is not None else now)
    view = table_view(session.view(None))
    sand = view.get("sand")
    if isinstance(sand, Mapping):
        started, seconds = sand.get("started"), sand.get("seconds", 60.0)
    else:
        started, seconds = None, 60.0  # a game without an hourglass: the idle glow
    paused_at = game_now if session.paused else None
    state = HourglassState(
        sand_started=None if started is None else float(started),
        sand_seconds=float(seconds or 60.0),
        paused_at=paused_at,
        flashes=tuple(flashes),
    )
    return state, game_now


class HourglassOutput(Output):
    """Drive an LED hourglass from the game; a station's press flashes its colour."""

    def __init__(self, hourglass: Hourglass, colours: Sequence[RGB], max_fps: float = 50.0) -> None:
        self.hourglass = hourglass
        self.layout: HourglassLayout = hourglass.layout
        self.colours = list(colours)
        self.min_interval = 1.0 / max_fps
        self.interval = self.min_interval
        self._last_shown = float("-inf")
        self._last_frame: list[RGB] | None = None
        self._flashes: list[Flash] = []
        self._glow_only = False
        """Whether the last frame was the idle glow alone (no game, no press fading)."""

    def on_input(self, session: Session, action: Action) -> None:
        """Called by the loop for every input that changed the game."""
        if action.kind == "press" and action.station is not None:
            colour = self.colours[action.station % len(self.colours)]
            self._flashes = [*self._flashes[-3:], Flash(session.game_time(action.t), colour, action.station)]

    IDLE_FPS = 20.0
    """Most frames a second of the idle glow (no game on: the lobby, the attract mode).
    The glow breathes over seconds in :data:`~table.hardware.hourglass.GLOW_LEVELS`
    steps, fewer than twenty a second, and its next frame is due at its next step."""

    def next_update(self, now: float) -> float:
        """When the LEDs want their next frame (game time, as ``update``): they animate
        (sand, flashes, the idle glow), so one interval after the last (``max_fps`` in a
        game, ``IDLE_FPS`` for the idle glow), or while only the idle glow shows, at its
        next brightness step (an unattended table wakes only as often as it changes)."""
        if now - self._last_shown < 0:
            return now
        if self._glow_only:
            return max(self._last_shown + self.interval, next_glow_change(self._last_shown))
        return self._last_shown + self.interval

    def update(self, session: Session | None, now: float) -> None:
        # Game time starts again at 0 with every game, so a jump backwards is a new frame too.
        self.interval = self.min_interval if session is not None else max(self.min_interval, 1.0 / self.IDLE_FPS)
        if 0 <= now - self._last_shown < self.interval:
            return
        self._last_shown = now
        state, at = hourglass_state(session, now, self.colours, self._flashes)
        self._glow_only = session is None and not fading_flashes(at, state.flashes)
        frame = hourglass_frame(at, state, self.layout)
        if frame != self._last_frame:
            self._last_frame = frame
            self.hourglass.show(frame)

    def close(self) -> None:
        self.hourglass.close()


class ScreenHourglass(Hourglass):
    """The simulator's hourglass: remembers the last frame for the window to draw."""

    def __init__(self, layout: HourglassLayout) -> None:
        self.layout = layout
        self.frame: list[RGB] = [(0, 0, 0)] * layout.pixels

    def show(self, frame: Sequence[RGB]) -> None:
        self.frame = list(frame)

    def close(self) -> None:
        self.frame = [(0, 0, 0)] * self.layout.pixels


def station_lines(session: Session | None, station: int) -> list[tuple[str, str]]:
    """What ``station``'s private display shows: the lines its game's screen makes of
    the station's own view (``session.view(station)``), else the station's name."""
    from table.common.i18n import _
    from table.display.games import renderer_of

    name = [(f"S{station + 1}", "big")]
    if session is None or station not in session.setup.stations:
        return name
    if session.paused:
        return [*name, (_("Paused"), "small")]
    if session.is_over():  # the last prompt would ask for a move that no longer counts
        return [*name, (_("Game over"), "small")]
    renderer = renderer_of(session.engine.name)
    lines = renderer.station_lines(session.view(station)) if renderer is not None else []
    return lines or name


class StationScreens(Output):
    """Each station display follows its own station's view, redrawn when the game's
    state (or the pause, or the language) changed and sent only when the picture did."""

    def __init__(self, displays: StationDisplays) -> None:
        self.displays = displays
        self._drawn = False
        self._state: object = None
        self._key: tuple[bool, str, frozenset[int]] = (False, "", frozenset())
        self._shown: dict[int, MonoPicture] = {}
        self._waits: dict[int, float] = {}  # station: the game time its "wait" sign goes

    def on_wait(self, station: int, at: float) -> None:
        """``station``'s input at game time ``at`` was seen but taken by nothing: its
        display says "Wait" for :data:`~table.display.station_marks.WAIT_S`."""
        from table.display.station_marks import WAIT_S

        self._waits[station] = at + WAIT_S

    def next_update(self, now: float) -> float | None:
        return min(self._waits.values()) if self._waits else None

    def update(self, session: Session | None, now: float) -> None:
        from table.common.i18n import _, language
        from table.display.station_marks import WAIT_S
        from table.display.station_screen import station_picture

        # (An end further off than a whole sign came from before a game's clock began.)
        self._waits = {s: end for s, end in self._waits.items() if now < end <= now + WAIT_S}
        waiting = frozenset(self._waits)
        # The state is compared by identity: an engine returns a new state for every change.
        state = None if session is None else session.state
        key = (bool(session and session.paused), language(), waiting)
        if self._drawn and self._state is state and self._key == key:
            return
        self._drawn, self._state, self._key = True, state, key
        for station in self.displays.stations:
            picture = station_picture(station_lines(session, station), self.displays.size,
                                      wait=_("Wait") if station in waiting else None)
            if self._shown.get(station) != picture:
                self._shown[station] = picture
                self.displays.show(station, picture)

    def close(self) -> None:
        self.displays.close()


class ScreenStationDisplays(StationDisplays):
    """The simulator's station displays: the last picture of each, for the stations bar."""

    def __init__(self, stations: Sequence[int]) -> None:
        self.stations = tuple(stations)
        self.pictures: dict[int, MonoPicture] = {}

    def start(self) -> None:
        return None

    def show(self, station: int, picture: MonoPicture) -> None:
        self.pictures[station] = picture

    def close(self) -> None:
        self.pictures.clear()


def draw_led_hourglass(surface: Any, rect: Any, frame: Sequence[RGB], layout: HourglassLayout) -> None:
    """Draw an LED frame in ``rect`` as the strip or matrix it is (for the simulator)."""
    import pygame

    pygame.draw.rect(surface, (8, 10, 16), rect)
    if layout.kind == "strip":
        half = layout.count // 2
        step = rect.height / (layout.count + 2)
        r = max(2, int(min(step, rect.width / 4) / 2) - 1)
        for i, colour in enumerate(frame):
            # The first half is the top bulb (index 0 at its top), the second the bottom.
            y = rect.top + step * (i + 1 + (1 if i >= half else 0))
            pygame.draw.circle(surface, colour if any(colour) else (30, 30, 36), (rect.centerx, int(y)), r)
        return
    rows = layout.height * layout.matrices
    cell = min(rect.width / layout.width, rect.height / rows)
    r = max(2, int(cell / 2) - 1)
    for m in range(layout.matrices):
        for row in range(layout.height):
            for col in range(layout.width):
                serp = layout.order == "serpentine" and row % 2 == 1
                idx = m * layout.width * layout.height + row * layout.width + (layout.width - 1 - col if serp else col)
                colour = frame[idx] if idx < len(frame) else (0, 0, 0)
                x = rect.left + (col + 0.5) * cell
                y = rect.top + ((m * layout.height) + row + 0.5) * cell
                pygame.draw.circle(surface, colour if any(colour) else (30, 30, 36), (int(x), int(y)), r)


class GameOutputs(Output):
    """The outputs each game's screen drives besides the picture (``GameRenderer.outputs``:
    a quiz's question read aloud), made when a game of that kind first starts: the table
    starts without importing any game's screen. A game whose outputs cannot be set up (a
    bad data file) is logged in one sentence and plays without them."""

    def __init__(self, config_dir: Any = None) -> None:
        self.config_dir = config_dir
        self.made: dict[str, list[Output]] = {}

    def _outputs(self) -> list[Output]:
        return [output for outputs in self.made.values() for output in outputs]

    def update(self, session: Session | None, now: float) -> None:
        if session is not None and session.engine.name not in self.made:
            from table.common.errors import TableError
            from table.display.games import renderer_of

            name = session.engine.name
            screen = renderer_of(name)
            try:
                self.made[name] = [] if screen is None else list(screen.outputs(self.config_dir))
            except (TableError, ValueError, OSError) as exc:
                log.error("%s plays without its own outputs: %s", session.engine.title, exc)
                self.made[name] = []
        for output in self._outputs():
            output.update(session, now)

    def on_input(self, session: Session, action: Action) -> None:
        for output in self._outputs():
            output.on_input(session, action)

    def on_press(self, station: int, at: float) -> None:
        for output in self._outputs():
            output.on_press(station, at)

    def next_update(self, now: float) -> float | None:
        times = [t for output in self._outputs() if (t := output.next_update(now)) is not None]
        return min(times, default=None)

    def close(self) -> None:
        for output in reversed(self._outputs()):
            output.close()
