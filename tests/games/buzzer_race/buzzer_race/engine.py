"""Buzzer race: who presses first after the signal?

A game written only against the table's game contract, in a distribution of its own.
How a round runs:

1. ``wait``: the screen says "Wait..."; the signal comes after a delay drawn from
   :func:`table.games.base.rng_for` (the game's seed and the round), so a replay sees
   the same delay. A press now is a false start: that station sits the round out (in
   the ``strict`` variant it also loses a point, never below none). When every station
   has started too early the round ends at once.
2. ``signal``: the screen says "Press!". The first press scores a point; presses whose
   edge times lie within the tie window of the first press score too. Nobody pressing
   before the deadline ends the round without a point.
3. ``results``: the round's result stays up for a few seconds; then the next round
   starts, or, once someone has the points to win, the game ends. Several reaching
   them in the same round share the win.

The delay before the signal is not in the public view (players would see it coming);
the table loop reads it through :meth:`BuzzerRace.next_deadline`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from table.common.i18n import N_
from table.games import base
from table.games.base import (
    PRESS,
    SKIP_ROUND,
    TICK,
    Action,
    Event,
    GameSetup,
    JSONValue,
    Outcome,
    SetupError,
    StationId,
    rng_for,
)
from table.games.contract import GameEngine

STANDARD = "standard"
STRICT = "strict"

WAIT = "wait"
SIGNAL = "signal"
RESULTS = "results"
OVER = "over"

ALONE = N_("first to reach the points to win")
TOGETHER = N_("reached the points to win together")
"""The outcome's reasons (message ids: the screen and the venue show them translated)."""



def _reason(message_id: str) -> Any:
    """An outcome's reason as the table's contract takes it: a ``Message`` where the
    contract has messages (words as data), else the bare message id."""
    message = getattr(base, "Message", None)
    return message(message_id) if message is not None else message_id


OPTIONS = ("points_to_win", "wait_min_seconds", "wait_max_seconds", "press_seconds", "results_seconds",
           "tie_window_ms")


@dataclass(frozen=True)
class Rules:
    """The numbers of a game, from the setup's options (all have defaults)."""

    points_to_win: int = 5
    wait_min: float = 2.0
    wait_max: float = 6.0
    press: float = 5.0
    """Seconds after the signal in which a press still counts."""
    results: float = 3.0
    """Seconds the round's result stays up before the next round."""
    tie_window: float = 0.002

    @staticmethod
    def from_options(options: Mapping[str, Any]) -> Rules:
        """The rules of ``options``; raises :class:`SetupError` for a bad value."""
        try:
            points = options.get("points_to_win", 5)
            if isinstance(points, bool) or not isinstance(points, int):
                raise ValueError(f"points_to_win {points!r} is not a whole number")
            rules = Rules(
                points_to_win=points,
                wait_min=float(options.get("wait_min_seconds", 2.0)),
                wait_max=float(options.get("wait_max_seconds", 6.0)),
                press=float(options.get("press_seconds", 5.0)),
                results=float(options.get("results_seconds", 3.0)),
                tie_window=float(options.get("tie_window_ms", 2.0)) / 1000.0,
            )
        except (TypeError, ValueError) as exc:
            raise SetupError(f"Buzzer race options must be numbers ({exc})") from None
        if not 1 <= rules.points_to_win <= 99:
            raise SetupError("points_to_win must be from 1 to 99")
        if not 0 < rules.wait_min <= rules.wait_max:
            raise SetupError("wait_min_seconds must be positive and at most wait_max_seconds")
        if rules.press <= 0 or rules.results < 0 or rules.tie_window < 0:
            raise SetupError("press_seconds must be positive; results_seconds and tie_window_ms not negative")
        return rules


@dataclass(frozen=True)
class RaceState:
    """The whole game. ``points`` follow ``setup.stations``; ``deadline`` is the signal
    (``wait``), the end of the pressing (``signal``) or of the result (``results``)."""

    setup: GameSetup
    seed: int
    rules: Rules
    points: tuple[int, ...]
    round: int = 1
    phase: str = WAIT
    now: float = 0.0
    deadline: float | None = None
    signal_at: float | None = None
    out: tuple[StationId, ...] = ()
    first_t: float | None = None
    scorers: tuple[StationId, ...] = ()
    ending: str = ""
    """How the round ended: "pressed", "nobody", "all_out" or "skipped" ("" while it runs)."""
    winners: tuple[StationId, ...] = ()
    reason: str = ""
    events: tuple[Event, ...] = ()

    def points_of(self, station: StationId) -> int:
        return self.points[self.setup.stations.index(station)]

    def playing(self, station: StationId) -> bool:
        """Whether ``station`` may still press this round."""
        return station in self.setup.stations and station not in self.out and station not in self.scorers


def _with_event(state: RaceState, t: float, kind: str, station: StationId | None = None,
                detail: JSONValue = None, **changes: Any) -> RaceState:
    return replace(state, events=(*state.events, Event(t, kind, station, detail)), **changes)


def _add_point(state: RaceState, station: StationId, delta: int) -> tuple[int, ...]:
    i = state.setup.stations.index(station)
    return tuple(max(0, p + delta) if k == i else p for k, p in enumerate(state.points))


class BuzzerRace(GameEngine[RaceState]):
    """The Buzzer race engine (see the module docstring for the flow)."""

    name = "buzzer_race"
    title = "Buzzer race"
    variants = (STANDARD, STRICT)
    min_stations = 2
    max_stations = 4
    option_names = frozenset({*OPTIONS, "colours"})

    def new_game(self, setup: GameSetup, seed: int) -> RaceState:
        """Round 1 waits for its signal from time 0. Options: ``points_to_win`` (5),
        ``wait_min_seconds`` and ``wait_max_seconds`` (2 and 6), ``press_seconds`` (5),
        ``results_seconds`` (3), ``tie_window_ms`` (2); ``colours`` is the lobby's."""
        rules = Rules.from_options(setup.options)
        state = RaceState(setup=setup, seed=seed, rules=rules, points=tuple(0 for _ in setup.stations))
        return self._start_round(state, 0.0)

    def _start_round(self, state: RaceState, t: float) -> RaceState:
        rules = state.rules
        delay = rng_for(state.seed, "signal", state.round).uniform(rules.wait_min, rules.wait_max)
        # Whole milliseconds: the signal's time reads the same in a journal and a report.
        signal_at = round(t + delay, 3)
        return _with_event(state, t, "round_start", None, {"round": state.round},
                           phase=WAIT, now=t, deadline=signal_at, signal_at=signal_at, out=(), first_t=None,
                           scorers=(), ending="")

    # -- the interface ----------------------------------------------------------------
    def legal_actions(self, state: RaceState) -> list[Action]:
        """Presses that would change the game now (ticks come from ``next_deadline``)."""
        if state.phase in (WAIT, SIGNAL):
            return [Action(PRESS, state.now, s) for s in state.setup.stations if state.playing(s)]
        if state.phase == RESULTS and state.first_t is not None \
                and state.now - state.first_t <= state.rules.tie_window:
            return [Action(PRESS, state.now, s) for s in state.setup.stations if state.playing(s)]
        return []

    def next_deadline(self, state: RaceState) -> float | None:
        return state.deadline

    def is_over(self, state: RaceState) -> bool:
        return state.phase == OVER

    def apply(self, state: RaceState, action: Action) -> RaceState:
        """Apply one input; inputs that mean nothing now return ``state`` unchanged."""
        if state.phase == OVER:
            return state
        t = max(action.t, state.now)
        if action.kind == TICK:
            if state.deadline is None or t < state.deadline:
                return state
            return self._expire(replace(state, now=t), state.deadline)
        if action.kind == SKIP_ROUND:
            if state.phase not in (WAIT, SIGNAL):
                return state  # the round is already over
            return self._end_round(state, t, "skipped", "round_skipped")
        if action.kind != PRESS or action.station is None or not state.playing(action.station):
            return state
        if state.deadline is not None and t >= state.deadline:
            return state  # the loop delivers the expiry first; a press after it is too late
        station = action.station
        if state.phase == WAIT:
            return self._false_start(state, station, t)
        if state.phase == SIGNAL:
            return self._buzz(state, station, t, "buzz")
        # A nanosecond of slack: edge times are whole nanoseconds, floats are not.
        if state.phase == RESULTS and state.first_t is not None and t - state.first_t <= state.rules.tie_window + 1e-9:
            return self._buzz(state, station, t, "tie")
        return state

    # -- the round --------------------------------------------------------------------
    def _false_start(self, state: RaceState, station: StationId, t: float) -> RaceState:
        penalty = -1 if state.setup.variant == STRICT else 0
        points = _add_point(state, station, penalty)
        state = _with_event(state, t, "false_start", station, {"lost": points != state.points},
                            now=t, out=(*state.out, station), points=points)
        if all(s in state.out for s in state.setup.stations):
            return self._end_round(state, t, "all_out", "all_false_started")
        return state

    def _buzz(self, state: RaceState, station: StationId, t: float, kind: str) -> RaceState:
        assert state.signal_at is not None
        first_t = state.first_t if state.first_t is not None else t
        points = _add_point(state, station, 1)
        reaction_ms = round((t - state.signal_at) * 1000)
        state = _with_event(state, t, kind, station, {"reaction_ms": reaction_ms, "points": points[
            state.setup.stations.index(station)]}, now=t, points=points, scorers=(*state.scorers, station),
            first_t=first_t)
        if kind == "buzz":
            return replace(state, phase=RESULTS, ending="pressed", deadline=t + state.rules.results)
        return state

    def _end_round(self, state: RaceState, t: float, ending: str, kind: str) -> RaceState:
        return _with_event(state, t, kind, None, {"round": state.round}, now=t, phase=RESULTS, ending=ending,
                           deadline=t + state.rules.results)

    def _expire(self, state: RaceState, at: float) -> RaceState:
        if state.phase == WAIT:
            return _with_event(state, at, "signal", None, {"round": state.round}, phase=SIGNAL,
                               deadline=at + state.rules.press)
        if state.phase == SIGNAL:
            return self._end_round(state, at, "nobody", "nobody_pressed")
        if state.phase == RESULTS:
            best = max(state.points)
            if best >= state.rules.points_to_win:
                return self._finish(state, at)
            return self._start_round(replace(state, round=state.round + 1), at)
        return state

    def _finish(self, state: RaceState, at: float) -> RaceState:
        best = max(state.points)
        winners = tuple(s for s, p in zip(state.setup.stations, state.points, strict=True) if p == best)
        reason = ALONE if len(winners) == 1 else TOGETHER
        return _with_event(state, at, "game_over", None, {"winners": list(winners), "reason": reason},
                           phase=OVER, deadline=None, winners=winners, reason=reason)

    # -- results ----------------------------------------------------------------------
    def outcome(self, state: RaceState) -> Outcome | None:
        if state.phase != OVER:
            return None
        scores = dict(zip(state.setup.stations, state.points, strict=True))
        return Outcome(scores=scores, winners=state.winners, reason=_reason(state.reason))

    def view(self, state: RaceState, station: StationId | None) -> dict[str, JSONValue]:
        """Everything but the moment of the signal (``deadline`` and ``signal_at`` while
        the round waits) is public. ``may_act`` lists the stations still in the round
        while it waits too: a false start must reach the engine (the button lights arm
        only those stations), so their buttons stay lit through the wait. Words are
        message ids:
        ``headline`` is ``{"id", "params"}`` for the middle of the screen, each player's
        ``status`` a message id."""
        names = {s: state.setup.name_of(s) for s in state.setup.stations}
        players = []
        for s in state.setup.stations:
            if state.phase == OVER:
                status = N_("Winner") if s in state.winners else ""
            elif s in state.scorers:
                status = N_("Point!")
            elif s in state.out:
                status = N_("False start: out this round")
            elif state.phase == WAIT:
                status = N_("Wait for the signal")
            elif state.phase == SIGNAL:
                status = N_("Press now!")
            else:
                status = N_("Not this time")
            players.append({"station": s, "name": names[s], "points": state.points_of(s), "status": status,
                            "out": s in state.out, "scored": s in state.scorers})
        headline: dict[str, JSONValue]
        if state.phase == WAIT:
            headline = {"id": N_("Wait..."), "params": {}}
        elif state.phase == SIGNAL:
            headline = {"id": N_("Press!"), "params": {}}
        elif state.phase == OVER:
            winners = [names[s] for s in state.winners]
            headline = ({"id": N_("{name} wins!"), "params": {"name": winners[0]}} if len(winners) == 1 else
                        {"id": N_("{names} share the win!"), "params": {"names": " & ".join(winners)}})
        elif state.ending == "pressed":
            if len(state.scorers) == 1:
                headline = {"id": N_("{name} was first"), "params": {"name": names[state.scorers[0]]}}
            else:
                headline = {"id": N_("{names} pressed at the same moment"),
                            "params": {"names": " & ".join(names[s] for s in state.scorers)}}
        elif state.ending == "all_out":
            headline = {"id": N_("Everybody started too early"), "params": {}}
        elif state.ending == "nobody":
            headline = {"id": N_("Nobody pressed in time"), "params": {}}
        else:
            headline = {"id": N_("Round skipped"), "params": {}}
        first = next((e for e in reversed(state.events) if e.kind == "buzz"), None) \
            if state.ending == "pressed" else None
        hidden = state.phase == WAIT
        return {
            "game": self.name,
            "variant": state.setup.variant,
            "phase": state.phase,
            "round": state.round,
            "points_to_win": state.rules.points_to_win,
            "now": state.now,
            # Only the pressing has a deadline to show: the signal's moment is secret, and
            # a result that runs out is no countdown (the table ticks to a view's deadline).
            "deadline": state.deadline if state.phase == SIGNAL else None,
            "signal_at": None if hidden else state.signal_at,
            "headline": headline,
            "ending": state.ending,
            "reaction_ms": first.detail["reaction_ms"] if first is not None else None,
            "players": players,
            "scorers": list(state.scorers),
            # The table's button lights keep a steady light for a round's one first caller.
            "callers": list(state.scorers),
            "out": list(state.out),
            "scores": {str(s): p for s, p in zip(state.setup.stations, state.points, strict=True)},
            "winners": list(state.winners),
            "reason": state.reason,
            "may_act": [a.station for a in self.legal_actions(state)],
        }


ENGINE = BuzzerRace()
