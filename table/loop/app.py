"""The table loop: wires input backends, the journal, the session, screens and outputs.

One thread does everything, in this order each frame:

1. take the inputs that arrived (each an :class:`Action` stamped with the table's
   monotonic clock, presses with their edge time) and hand them to the top screen,
   unless they came while the screen was changing (see *One press, one meaning*);
2. deliver every game deadline that has passed as a ``tick``;
3. let screens advance their animation and, if the picture changed, draw it;
4. tell the outputs (button LEDs, hourglass, sounds) what the game looks like now.

Every input that changes a game goes through :meth:`Table.game_input`, which journals
it (append + fsync) *before* the session applies it. On start an unfinished game in
the journal is replayed and resumed at the same moment.

One press, one meaning: when a station's input changes what the table shows (another
screen, or the game's :class:`~table.games.base.Prompt` key: the next round, the next
player's turn, the final ranking), every station's press, turn and push that happened
(by its own time ``t``, the switch's edge) before the new picture was drawn, or within
:data:`SETTLE_S` after, belongs to that change and is dropped: nobody's second press
lands on a screen he has not seen. A dropped input, and one that comes before the
game's prompt opens (``opens_at``: a countdown), shows its station "Wait" (on the
screen at its place, and on its display) instead of vanishing.
"""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import pygame

from table.common.config import TableConfig
from table.common.i18n import _, language, set_language
from table.common.memory import give_back
from table.display.games import preparations
from table.display.layers import Composer, Part
from table.display.output import Output
from table.display.screens import AttractScreen, GameScreen, LobbyScreen, PausedScreen, Screen, player_theme
from table.display.station_marks import FLASH_S, WAIT_S, hold_ring, middle_ring_rect, press_flash, wait_mark
from table.display.theme import Theme
from table.games import registry
from table.games.base import PRESS, PUSH, TICK, TURN, Action, GameError, GameSetup
from table.play.journal import Journal
from table.play.session import Session

log = logging.getLogger(__name__)

PREPARE_AFTER_S = 2.0
"""Seconds without an input before the table builds ahead what the games' first frames
would otherwise stop to build (a map of Europe: about 0.37 s here, seconds on a Pi); a step
at a time, so a press waits at most for one step."""


class PreparationCancelled(Exception):
    """Raised by a stop (SIGTERM) into a preparation step that is running: a step may take
    a second or more on a Pi, and it builds nothing but cached pictures, so the table
    stops without waiting for it (:attr:`Table.preparing`)."""


SETTLE_S = 0.6
"""Seconds after a change of screen (its first frame drawn) in which every station's
input still belongs to the change and is dropped: about the time a player needs to see
that the picture changed at all, and longer than the gap between two players' presses
that both meant "go on"."""

SETTLED_KINDS = frozenset({PRESS, TURN, PUSH})
"""The inputs a change of screen settles. Any station's input may make the change (a
long push opens the table menu); a long push itself, held for seconds, is never a press
meant for the screen before, and is never dropped."""


class InputSource(Protocol):
    """Where station inputs come from (GPIO, serial bridge, simulator, script)."""

    def poll(self, now: float) -> Iterable[Action]:
        """Inputs that have arrived by table time ``now``, oldest first."""
        ...


@runtime_checkable
class ShowsWait(Protocol):
    """An output that shows a station's "wait" (the station displays): told when an
    input of that station was seen but dropped (see :data:`SETTLE_S`) or came early."""

    def on_wait(self, station: int, at: float) -> None:
        """``station``'s input at game time ``at`` was taken by nothing: show "wait"."""
        ...


@runtime_checkable
class HeldPushes(Protocol):
    """An input source that can tell which knobs are held down (see
    :meth:`~table.hardware.interfaces.Stations.pushes_held`)."""

    def pushes_held(self) -> Mapping[int, float]:
        """Station: the table time its knob went down, for knobs held now."""
        ...


@dataclass
class ScriptedInputs:
    """Inputs from a list, released when the clock reaches their time (tests, demos)."""

    pending: list[Action] = field(default_factory=list)

    def add(self, *actions: Action) -> None:
        self.pending.extend(actions)
        self.pending.sort(key=lambda a: a.t)

    def poll(self, now: float) -> list[Action]:
        ready = [a for a in self.pending if a.t <= now]
        self.pending = self.pending[len(ready):]
        return ready


class Table:
    """The table: screens, the current game, its journal, and the outputs.

    ``clock`` is the table's monotonic clock in seconds; inputs carry times on it.
    Game time inside a session starts at 0 when the game starts (``epoch``), and a
    resumed game continues from its last journaled time.
    """

    def __init__(
        self,
        config: TableConfig,
        clock: Callable[[], float],
        surface: pygame.Surface,
        journal: Journal | None = None,
        inputs: Iterable[InputSource] = (),
        outputs: Iterable[Output] = (),
        seed_source: Callable[[], int] | None = None,
        attract: bool = True,
        game_options: dict[str, dict[str, Any]] | None = None,
        prepare: bool = True,
    ) -> None:
        self.config = config
        set_language(config.language)  # the table's language until the lobby switches it
        self.clock = clock
        self.surface = surface
        self.theme = Theme(surface.get_width(), surface.get_height())
        self.journal = journal
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.seed_source = seed_source or (lambda: int.from_bytes(os.urandom(4), "little"))
        self.attract_enabled = attract
        self.screens: list[Screen] = []
        self._session: Session | None = None
        self.game_id: int | None = None
        self.seq = 0
        self.epoch = 0.0
        self.last_input = clock()
        self.composer = Composer()
        self.dirty: list[pygame.Rect] = []
        self.live = False
        self._attract_next: int | None = None  # the demo's next picture step to draw (see ``step``)
        self.frames_drawn = 0
        self.redraw_due = True
        """The screens changed outside a step (a game started by a script or a test, a
        screen pushed): the next frame must draw, however still the table was."""
        self.input_filter: Callable[[Action], bool] | None = None
        self.prepare_enabled = prepare
        self.preparing = False
        """Inside a preparation step: nothing but cached pictures is built, so a stop may
        cut it short (:class:`PreparationCancelled`) without waiting for it to end."""
        self._dispatching = False
        self._pending_start: tuple[GameSetup, int | None] | None = None
        # Station inputs stamped up to this clock time are dropped: they were aimed at
        # what showed before a change of screen (infinite until the new one is drawn,
        # ``_settling``; then its first frame + SETTLE_S).
        self._settle_until = float("-inf")
        self._settling = False
        self._flashes: dict[int, float] = {}  # station: clock time of its last press that counted
        self._waits: dict[int, float] = {}  # station: clock time of its last input that had to wait
        self.long_push_s = config.timing.long_push_s
        self._prepared: object = None  # the (size, language) whose renderers are prepared
        self._preparing: tuple[object, Iterator[None]] | None = None
        options = game_options if game_options is not None else {k: dict(v) for k, v in config.games.items()}
        pinned = frozenset(name for name, opts in config.games.items() if "language" in opts)
        self.lobby = LobbyScreen(self, self.theme, config.stations, options, pinned_language=pinned,
                                 names=config.names, station_names=config.station_names)
        self.screens.append(self.lobby)

    # -- TableControl -----------------------------------------------------------------
    @property
    def session(self) -> Session | None:
        return self._session

    def push_screen(self, screen: Screen) -> None:
        self.screens.append(screen)
        self.redraw_due = True

    def pop_screen(self) -> None:
        if len(self.screens) > 1:
            self.screens.pop()
            self.redraw_due = True

    def start_game(self, setup: GameSetup, seed: int | None = None) -> None:
        """Start a new game; it is journaled from its first moment.

        Asked from a screen's input (the lobby's start line), the game is built only
        after the next frame is drawn, so the push is answered at once (the lobby shows
        it starting); every input from the push until the game's first frame is shown
        is dropped. Called outside the loop's inputs (a script, a test), it starts now."""
        if self._dispatching:
            self._pending_start = (setup, seed)
            self._settle_until = float("inf")
            self._settling = True
            return
        self._start_now(setup, seed)

    def _start_now(self, setup: GameSetup, seed: int | None) -> None:
        seed = self.seed_source() if seed is None else seed
        self._session = Session.start(setup.game, setup, seed)
        self.game_id = self.journal.start_game(setup, seed) if self.journal else None
        self.seq = 0
        self.epoch = self.clock()
        log.info("game %s started: %s (%s), stations %s, seed %d", self.game_id, setup.game, setup.variant,
                 list(setup.stations), seed)
        self.push_screen(GameScreen(self, self.theme, self.config.display.celebrations))
        self.lobby.starting = False  # for when the game is over and the lobby shows again

    def resume_unfinished(self) -> bool:
        """Resume the journal's unfinished game, if any, at the moment it stopped."""
        if self.journal is None:
            return False
        from table.play.resume import resumable_game

        # A game this build cannot replay is closed and logged; it never stops the table.
        found = resumable_game(self.journal)
        if found is None:
            return False
        record, session = found
        # The party that started it comes back with it: after it, the next game starts
        # with the same seats, names and colours, as it would have without the restart.
        self.lobby.take_party(record.setup)
        self._session = session
        self.game_id = record.id
        self.seq = len(record.actions)
        # Time stood still while the table was off: continue from the last journaled moment.
        self.epoch = self.clock() - session.last_t
        log.warning("resumed game %d (%s) after %d journaled actions", record.id, record.engine, self.seq)
        game = GameScreen(self, self.theme, self.config.display.celebrations)
        self.push_screen(game)
        if session.paused:
            # It stopped with the table menu's pause on: a push continues, as before.
            self.push_screen(PausedScreen(self, self.theme, game))
        if session.is_over():
            self._finish()
        return True

    def game_time(self, t: float) -> float:
        return t - self.epoch

    def game_input(self, action: Action) -> bool:
        """Journal and apply one input (table clock time); False if it meant nothing."""
        session = self._session
        if session is None:
            return False
        at = Action(action.kind, max(self.game_time(action.t), session.last_t), action.station, action.value)
        early = False
        if action.kind in SETTLED_KINDS and action.station is not None and not session.paused:
            opens_at = session.prompt().opens_at
            early = opens_at is not None and at.t < opens_at
        changed = session.apply(at, self._record)
        if early:
            assert action.station is not None
            self.show_wait(action.station, action.t)  # a countdown runs: the game takes nothing yet
        if changed:
            if action.kind == PRESS and action.station is not None and not early:
                self.press_counted(action.station, action.t)
            for output in list(self.outputs):
                self._guard(output, output.on_input, session, at)
            if session.is_over():
                self._finish()
        return changed

    def press_counted(self, station: int, t: float) -> None:
        """Flash ``station`` for its press at clock time ``t``: its button LED (each
        output's ``on_press``) and its place on the screen."""
        self._flashes[station] = t
        for output in list(self.outputs):
            self._guard(output, output.on_press, station, self.game_time(t))

    def show_wait(self, station: int, t: float) -> None:
        """Show ``station`` "wait" for its input at clock time ``t`` that nothing took:
        at its place on the screen, and on its display (each output's ``on_wait``)."""
        if not 0 <= station < self.config.stations:
            return
        self._waits[station] = t
        for output in list(self.outputs):
            if isinstance(output, ShowsWait):
                self._guard(output, output.on_wait, station, self.game_time(t))

    def _guard(self, output: Output, method: Callable[..., None], *args: object) -> None:
        """Run an output's method; an output that fails is logged once and dropped,
        and the game goes on without it."""
        try:
            method(*args)
        except Exception:
            log.exception("output %s failed; the table goes on without it", type(output).__name__)
            if output in self.outputs:
                self.outputs.remove(output)

    def _record(self, action: Action) -> None:
        if self.journal is not None and self.game_id is not None:
            self.journal.append(self.game_id, self.seq, action)
        self.seq += 1

    def _finish(self) -> None:
        session = self._session
        if session is None:
            return
        outcome = session.outcome()
        if self.journal is not None and self.game_id is not None:
            self.journal.finish(self.game_id, outcome)
        log.info("game %s over: winners %s", self.game_id, list(outcome.winners) if outcome else [])

    def leave_game(self) -> None:
        give_back()  # what the game's pictures and sounds made and dropped
        self._session = None
        self.game_id = None
        self.screens = [self.lobby]
        self.redraw_due = True

    # -- the loop ---------------------------------------------------------------------
    def dispatch(self, action: Action) -> None:
        """Hand one station input to the top screen (unless ``input_filter`` takes it, or
        it came while the screen changed: see :data:`SETTLE_S`)."""
        self.last_input = max(self.last_input, action.t)
        if self.input_filter is not None and self.input_filter(action):
            return
        settled = action.kind in SETTLED_KINDS and action.station is not None
        if settled and action.t <= self._settle_until:
            assert action.station is not None
            log.debug("dropped %s: it came as the screen changed", action)
            self.show_wait(action.station, action.t)
            return
        before = self.showing()
        top = self.screens[-1]
        self._dispatching = True
        try:
            top.handle(action)
        finally:
            self._dispatching = False
        if action.station is not None and self.showing() != before:
            # This input changed what everyone sees: the others' inputs from now until
            # the new picture has been up a moment were meant for the old one.
            self._settle_until = float("inf")
            self._settling = True
        elif (isinstance(top, GameScreen) and action.kind in (PRESS, PUSH) and action.station is not None
              and self._session is not None and self._session.is_over()):
            self.show_wait(action.station, action.t)  # the final ranking stands a moment before a press leaves it
        if (top is self.lobby and action.kind == PRESS and action.station is not None
                and 0 <= action.station < self.config.stations):
            self.press_counted(action.station, action.t)  # a join or a leave

    @property
    def settles_until(self) -> float:
        """The clock time up to which station inputs are dropped as meant for the screen
        before (``inf`` while a new screen waits for its first frame; ``-inf``: none)."""
        return self._settle_until

    def showing(self) -> tuple[object, ...]:
        """What the table shows, as far as reading a press goes: the screens (by
        identity), the game, and what the game asks (its prompt's key). A station input
        that changes it starts the settling of :data:`SETTLE_S`."""
        session = self._session
        key = session.prompt().key if session is not None else None
        return (tuple(id(screen) for screen in self.screens), id(session), key)

    def deliver_deadlines(self, now: float) -> None:
        """Deliver every expiry due by clock time ``now``, journaled like any input."""
        self._expire_until(self.game_time(now))

    def _expire_until(self, game_t: float) -> None:
        session = self._session
        while session is not None and session is self._session:
            deadline = session.deadline()
            if deadline is None or deadline > game_t:
                return
            if not session.apply(Action(TICK, max(deadline, session.last_t)), self._record):
                return
            if session.is_over():
                self._finish()

    def script_input(self, action: Action) -> bool:
        """Apply a scripted input whose ``t`` is already the game's table time (``table
        run --script``): the expiries due before it first, exactly as a scenario plays."""
        self._expire_until(action.t)
        session = self._session
        if session is None or session.is_over():
            return False
        changed = session.apply(action, self._record)
        if changed and session.is_over():
            self._finish()
        return changed

    def step(self, now: float) -> bool:
        """One frame at table time ``now``; returns whether a new picture was drawn."""
        starting = self._pending_start is not None
        if starting:
            # The frame that answered the starting push has been shown: now the (slow)
            # setup, then the game's first frame; inputs until it shows are dropped.
            assert self._pending_start is not None
            setup, seed = self._pending_start
            self._pending_start = None
            try:
                self._start_now(setup, seed)
            except (GameError, TypeError, ValueError) as exc:
                # The config's options for this game are refused by its engine: checked
                # here, when the game starts, not at every start of the table (the trial
                # setups cost seconds on a Pi); ``table check-config`` finds them ahead.
                log.error("%s cannot start: games.%s: %s", setup.game, setup.game, exc)
                self.lobby.message = _("{game} cannot start with this table's settings").format(
                    game=registry()[setup.game].title)
                self._settle_until, self._settling = float("-inf"), False
                self.lobby.starting = False
            except Exception:
                self._settle_until, self._settling = float("-inf"), False  # no game: the lobby takes inputs again
                self.lobby.starting = False
                raise
        arrived = sorted((a for source in self.inputs for a in source.poll(now)), key=lambda a: a.t)
        for action in arrived:
            # Expiries that happened before the input come first, whatever the frame
            # timing: a press a moment after the sand ran out is too late, always.
            self.deliver_deadlines(min(action.t, now))
            self.dispatch(action)
        self.deliver_deadlines(now)
        if self.journal is not None and self.journal.fault is not None:
            self.journal.retry()  # rate-limited inside: a cleared fault is noticed without an input
        if (self.attract_enabled and len(self.screens) == 1
                and now - self.last_input >= self.config.timing.attract_after_s):
            log.info("nobody has touched the table for %.0f s: attract mode", now - self.last_input)
            self.push_screen(AttractScreen(self, self.theme, now, seed=random.randrange(1 << 30)))
        top = self.screens[-1]
        if (not arrived and isinstance(top, AttractScreen) and self._attract_next is not None
                and top.picture_step(now) < self._attract_next):
            # The demo's picture steps at its own frame rate (``AttractScreen.FPS``): a wake
            # in between (the LED hourglass's glow) has nothing new to show or to play.
            drawn = False
        else:
            for screen in self.screens:
                screen.update(now)
            drawn = self.draw(now)
            top = self.screens[-1]
            if self._settling and self._pending_start is None:
                # The new screen's first frame is drawn: inputs settle a moment more.
                self._settle_until = self.clock() + SETTLE_S
                self._settling = False
            # Kept as a step, not a time: the picture and this check count a clock a hair
            # short of a step's time alike.
            self._attract_next = top.picture_step(top.next_frame(now)) if isinstance(top, AttractScreen) else None
        self.update_outputs(now)
        if (not arrived and not self.live and not self.composer.pending and self._unprepared()
                and now - self.last_input >= PREPARE_AFTER_S and not isinstance(top, AttractScreen)):
            self._prepare_step()
        return drawn

    def update_outputs(self, now: float, timed_only: bool = False) -> None:
        """Let the outputs follow the game at clock time ``now`` (``step`` does it too; the
        loop calls this alone, ``timed_only``, when only an output that animates by
        itself asked for the moment: the LEDs' glow; the others follow the game)."""
        game_now = self.game_time(now)
        for output in list(self.outputs):
            # An output that keeps time says when it next needs an update; the others
            # (their next_update None, Output's default) wait for the game.
            if not timed_only or output.next_update(game_now) is not None:
                self._guard(output, output.update, self._session, game_now)

    def _unprepared(self) -> bool:
        return self.prepare_enabled and self._prepared != (self.surface.get_size(), language())

    def _prepare_step(self) -> None:
        """One step of the renderers' preparation for this size and language (see
        :func:`~table.display.games.preparations`): a step builds one cached layer, so
        an input waits at most for that one."""
        key = (self.surface.get_size(), language())
        if self._preparing is None or self._preparing[0] != key:
            self._preparing = (key, preparations(self.theme))
        self.preparing = True
        try:
            next(self._preparing[1])
        except StopIteration:
            self._prepared = key
            self._preparing = None
        except BaseException:
            self._preparing = None  # cut short (a stop): the step starts again, if ever
            raise
        finally:
            self.preparing = False
        # A step frees large temporary arrays among the layers it keeps: given back at
        # once, before the next step's allocations land between them, or the kiosk
        # would hold them (about 10 MB more for a map at 1920x1080).
        give_back()

    def _visible(self) -> list[Screen]:
        first = len(self.screens) - 1
        while first > 0 and self.screens[first].overlay:
            first -= 1
        return self.screens[first:]

    def frame_parts(self, size: tuple[int, int], now: float) -> list[Part]:
        """The whole picture at ``now`` as parts: the visible screens, then the table's
        own marks over them (station flashes and rings, the journal's warning)."""
        parts = [part for screen in self._visible() for part in screen.parts(size, now)]
        parts += self._station_marks(size, now)
        fault = self.journal.fault if self.journal is not None else None
        if fault is not None:
            parts.append(self._journal_warning(fault))
        return parts

    def draw(self, now: float, force: bool = False) -> bool:
        """Repaint what changed in the visible screens since the last frame (everything
        with ``force``); the regions repainted are left in ``dirty``."""
        size = self.surface.get_size()
        parts = self.frame_parts(size, now)
        if force:
            self.composer.reset()
        self.composer.sweep = self.screens[-1].sweeps
        self.dirty = self.composer.compose(self.surface, parts, now)
        self.redraw_due = False
        # A sweep still owes regions of the new picture: frames must keep coming.
        self.live = any(part.live is not None for part in parts) or bool(self.composer.pending)
        if not self.dirty:
            return False
        self.frames_drawn += 1
        return True

    def pushes_held(self) -> dict[int, float]:
        """Knobs held down now, by station, from every input source that can tell."""
        held: dict[int, float] = {}
        for source in self.inputs:
            if isinstance(source, HeldPushes):
                held.update(source.pushes_held())
        return held

    def _station_colour(self, station: int) -> tuple[int, int, int]:
        session = self._session
        if session is not None:
            return player_theme(self.theme, session).station_colour(station)
        return self.theme.station_colour(self.lobby.settings.colours.get(station, station))

    def _station_marks(self, size: tuple[int, int], now: float) -> list[Part]:
        """The flashes of presses that counted, the "wait" of inputs that nothing took,
        and the ring of a knob held towards the table menu (only where a long push opens
        it: a game's screen, the pause)."""
        n = self.config.stations
        self._waits = {s: t for s, t in self._waits.items() if now < t + WAIT_S}
        # A station's newer mark wins its place on the edge: a wait hides an older flash.
        self._flashes = {s: t for s, t in self._flashes.items()
                         if now < t + FLASH_S and t >= self._waits.get(s, float("-inf"))}
        # A game's screens give each player a panel in seat order across the bottom:
        # a player's marks go on their own panel; anyone else's at their seat's share.
        players = self._session.setup.stations if self._session is not None else ()

        def place(s: int) -> tuple[int, int]:
            return (players.index(s), len(players)) if s in players else (s, n)

        out = [press_flash(self.theme, size, *place(s), self._station_colour(s), t, name=s)
               for s, t in sorted(self._flashes.items()) if 0 <= s < n]
        for s, t in sorted(self._waits.items()):
            # Someone who does not play has no panel, and nothing to wait for on the screen
            # (his own display says it).
            if 0 <= s < n and s not in self._flashes and (not players or s in players):
                out += wait_mark(self.theme, size, *place(s), self._station_colour(s), t, name=s)
        if self._session is not None and isinstance(self.screens[-1], (GameScreen, PausedScreen)):
            for s, down in sorted(self.pushes_held().items()):
                if 0 <= s < n:
                    # Someone who does not play has no panel: the middle, not a player's panel.
                    where = None if s in players else middle_ring_rect(self.theme, size)
                    out.append(hold_ring(self.theme, size, *place(s), self._station_colour(s), down,
                                         self.long_push_s, name=s, rect=where))
        return out

    def _journal_warning(self, fault: str) -> Part:
        """A red band over the bottom of the picture while the journal cannot be written:
        the game goes on, but whoever runs the table must know a power cut would lose it."""
        from table.display.theme import BAD, TEXT, text

        theme = self.theme
        band = pygame.Rect(0, self.surface.get_height() - theme.px(6.5), self.surface.get_width(), theme.px(6.5))
        message = fault[0].upper() + fault[1:] + "."

        def paint(surface: pygame.Surface, now: float) -> None:
            surface.fill(BAD, band)
            text(surface, theme, message, band.center, size="small", colour=TEXT, anchor="center", bold=True,
                 max_width=band.width - theme.px(3))

        return Part("table:journal-fault", band, message, paint)

    def next_change(self, now: float) -> float | None:
        """The clock time by which the table needs its next frame if no input arrives:
        soon while something on screen moves with time, else the next game deadline or
        the start of attract mode; None: nothing will change by itself."""
        top = self.screens[-1]
        if len(self.screens) > 1 and isinstance(top, AttractScreen):
            return max(now, top.next_frame(now))
        if self.live or self.redraw_due or self._pending_start is not None or self._settling:
            return now
        times: list[float] = []
        session = self._session
        if session is not None and not session.paused:
            deadline = session.deadline()
            if deadline is not None:
                times.append(deadline + self.epoch)
        if self.attract_enabled and len(self.screens) == 1:
            times.append(self.last_input + self.config.timing.attract_after_s)
        if self._unprepared() and not isinstance(top, AttractScreen):
            times.append(max(now, self.last_input + PREPARE_AFTER_S))
        return min(times) if times else None

    def close(self) -> None:
        """Stop the outputs in reverse order, then the journal."""
        for output in reversed(self.outputs):
            try:
                output.close()
            except Exception:  # an output failing to close must not lose the journal
                log.exception("an output failed to close")
        if self.journal is not None:
            self.journal.close()
