"""A game in progress: an engine state plus the table menu's meta actions.

The session is what the journal replays. It stays pure: it never reads a clock and
never writes a file; the table loop journals each action *before* handing it here.

Times: actions arrive in *table time* (seconds on the table's clock for this game).
While the table menu has the game paused, inputs are held back from the engine and
the pause's length is added to an offset, so the engine sees *game time* in which
the hourglass simply did not run during the pause.

Meta actions (from the long-push table menu):

* ``pause`` / ``resume`` - stop and restart game time.
* ``undo`` - take back the last player input that changed the game (with any
  expiries that followed it); the state is rebuilt by folding the remaining inputs.
* ``end`` - end the game now; the outcome is the standings at that moment.
* ``skip_round`` is a game action (each engine abandons its round its own way).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from table.common.i18n import N_
from table.games import get_engine
from table.games.base import (
    BASE_KINDS,
    TICK,
    Action,
    Engine,
    GameError,
    GameSetup,
    JSONValue,
    Message,
    Outcome,
    Prompt,
    check_setup,
)
from table.games.contract import table_view

PAUSE = "pause"
RESUME = "resume"
UNDO = "undo"
END = "end"
META_KINDS = frozenset({PAUSE, RESUME, UNDO, END})


def known_kinds(engine: Engine[Any]) -> frozenset[str]:
    """Every action kind a game of ``engine`` can journal: the base kinds, the table
    menu's and the engine's own."""
    return BASE_KINDS | META_KINDS | engine.own_kinds


def action_problem(engine: Engine[Any], setup: GameSetup, action: Action) -> str | None:
    """What makes ``action`` one that no table ever journals for this game, or None.

    Live play journals only inputs that change the game, so a journaled action of a kind
    the game does not know, or from a station its setup does not have, is damage (a
    hand-edited or corrupted row), not an input to ignore.
    """
    kinds = known_kinds(engine)
    if action.kind not in kinds:
        return f"unknown action kind {action.kind!r} (this game knows {', '.join(sorted(kinds))})"
    if action.station is not None and action.station not in setup.stations:
        return (f"station {action.station} is not one of the game's stations "
                f"({', '.join(str(s) for s in setup.stations)}, counted from 0)")
    return None


class ActionError(GameError):
    """A journaled action that the game cannot have (see :func:`action_problem`).

    ``index`` is its place among the game's actions (the journal's ``seq``), ``problem``
    what is wrong with it."""

    def __init__(self, index: int, problem: str) -> None:
        super().__init__(f"action {index}: {problem}")
        self.index = index
        self.problem = problem


@dataclass
class Session:
    """One game: engine, setup, seed, and everything applied so far.

    ``history`` holds the inputs that changed the game, in game time, which is what
    undo rewinds. ``state`` is always ``fold(history)``.
    """

    engine: Engine[Any]
    setup: GameSetup
    seed: int
    state: Any = None
    history: list[Action] = field(default_factory=list)
    paused_since: float | None = None
    paused_total: float = 0.0
    ended: bool = False
    last_t: float = 0.0
    applied: int = 0
    _public_view: tuple[Any, bool, dict[str, JSONValue]] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_setup(self.engine, self.setup)
        if self.state is None:
            self.state = self.engine.new_game(self.setup, self.seed)

    @classmethod
    def start(cls, game: str, setup: GameSetup, seed: int) -> Session:
        """A new session of the engine called ``game`` (raises for unknown games/variants)."""
        return cls(engine=get_engine(game), setup=setup, seed=seed)

    # -- time -------------------------------------------------------------------------
    @property
    def paused(self) -> bool:
        return self.paused_since is not None

    def game_time(self, table_t: float) -> float:
        """Game time for a table time (pauses taken out)."""
        return table_t - self.paused_total

    def deadline(self) -> float | None:
        """The table time at which the loop must deliver a ``tick``, or None."""
        if self.paused or self.is_over():
            return None
        d = self.engine.next_deadline(self.state)
        return None if d is None else d + self.paused_total

    def prompt(self) -> Prompt:
        """What the game asks of the players now (the engine's
        :class:`~table.games.base.Prompt`), its ``opens_at`` in table time; a game that is
        over asks nothing more (its key says so)."""
        if self.is_over():
            return Prompt(key=("over",))
        prompt = self.engine.prompt(self.state)
        if prompt.opens_at is None:
            return prompt
        return Prompt(prompt.key, prompt.opens_at + self.paused_total)

    # -- applying ---------------------------------------------------------------------
    def apply(self, action: Action, record: Callable[[Action], None] | None = None) -> bool:
        """Apply one action (table time). Returns whether anything changed.

        ``record`` (the journal's append) is called with the action *before* it takes
        effect, and only when it changes the game: an input that means nothing now is
        neither journaled nor applied. Never raises for a well-formed action; actions
        after the end are ignored.
        """
        if record is None:
            return self._apply(action)
        if self._changes(action):
            record(action)
            return self._apply(action)
        return False

    def _changes(self, action: Action) -> bool:
        if self.ended:
            return False
        kind = action.kind
        if kind == PAUSE:
            return not self.paused
        if kind == RESUME:
            return self.paused
        if kind == END:
            return True
        if kind == UNDO:
            return any(a.kind != TICK for a in self.history)
        if self.paused or self.engine.is_over(self.state):
            return False
        game_action = Action(action.kind, self.game_time(action.t), action.station, action.value)
        return self.engine.apply(self.state, game_action) is not self.state

    def _apply(self, action: Action) -> bool:
        self.last_t = max(self.last_t, action.t)
        self.applied += 1
        if self.ended:
            return False
        kind = action.kind
        if kind == PAUSE:
            if self.paused:
                return False
            self.paused_since = action.t
            return True
        if kind == RESUME:
            if self.paused_since is None:
                return False
            self.paused_total += max(0.0, action.t - self.paused_since)
            self.paused_since = None
            return True
        if kind == END:
            self.ended = True
            self.paused_since = None
            return True
        if kind == UNDO:
            return self._undo()
        if self.paused or self.engine.is_over(self.state):
            return False
        game_action = Action(action.kind, self.game_time(action.t), action.station, action.value)
        new_state = self.engine.apply(self.state, game_action)
        if new_state is self.state:
            return False
        self.state = new_state
        self.history.append(game_action)
        return True

    def _undo(self) -> bool:
        last_player = max((i for i, a in enumerate(self.history) if a.kind != TICK), default=None)
        if last_player is None:
            return False
        kept = self.history[:last_player]
        state = self.engine.new_game(self.setup, self.seed)
        for a in kept:
            state = self.engine.apply(state, a)
        self.state = state
        self.history = kept
        return True

    # -- results ----------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.ended or bool(self.engine.is_over(self.state))

    @property
    def ended_early(self) -> bool:
        """Ended from the table menu before the game itself was over: a result without
        a winner (:meth:`outcome`), which the report and the venue's result mark
        ``"ended": "early"``."""
        return self.ended and self.engine.outcome(self.state) is None

    def outcome(self) -> Outcome | None:
        """The engine's outcome; after ``end`` from the menu (:attr:`ended_early`), the
        scores then and **no winner**: a game cut short is played, never won, on every
        screen (the final ranking, the venue) and in every report. Its players are still
        ranked, by :meth:`standing` (the game's own tie-breaks)."""
        result: Outcome | None = self.engine.outcome(self.state)
        if result is not None:
            return result
        if self.ended:
            # Games with hidden scores (face-down chips) count them all for the end.
            final = self.engine.final_scores(self.state)
            scores = {int(k): int(v) for k, v in final.items()} if final is not None else self.scores()
            return Outcome(scores=scores, winners=(), reason=Message(N_("ended from the table menu")))
        return None

    def standing(self, station: int, scores: dict[int, int] | None = None) -> tuple[int, ...]:
        """What ranks ``station`` on the final ranking, compared left to right (greater is
        better): the engine's own tie-breaks where it has them (the counts of each colour
        of gems, best first, say), else the score. It alone orders a game ended early."""
        return tuple(self.engine.standing(self.state, station, scores if scores is not None else self.scores()))

    def final_view(self) -> dict[str, JSONValue]:
        """The public view the final ranking reads: for a game ended early, the engine's
        view with what its end reveals (``final_view``: hidden chips counted in
        :meth:`outcome`'s scores show in its columns too), else :meth:`view`."""
        if self.ended_early:
            revealed = self.engine.final_view(self.state)
            if revealed is not None:
                return {**revealed, "paused": self.paused}
        return self.view(None)

    def scores(self) -> dict[int, int]:
        """Current scores by station, from the public view's ``scores``."""
        view = table_view(self.engine.view(self.state, None))
        raw = view.get("scores", {})
        return {int(k): int(v) for k, v in raw.items()}

    def view(self, station: int | None = None) -> dict[str, JSONValue]:
        """The engine's view plus ``paused``. The public view (``station=None``) is
        computed once per state, since screens and every output ask each frame: treat
        it as read-only."""
        cached = self._public_view
        if station is None and cached is not None and cached[0] is self.state and cached[1] == self.paused:
            return cached[2]
        out = self.engine.view(self.state, station)
        out["paused"] = self.paused
        if station is None:
            self._public_view = (self.state, self.paused, out)
        return out

    def report(self) -> dict[str, JSONValue]:
        """The JSON report that ``table play`` and ``table replay`` print."""
        outcome = self.outcome()
        scores = outcome.scores if outcome else self.scores()
        report: dict[str, JSONValue] = {
            "game": self.engine.name,
            "variant": self.setup.variant,
            "seed": self.seed,
            "stations": list(self.setup.stations),
            "over": self.is_over(),
            "rounds": int(self.state.round),
            "scores": {str(k): v for k, v in sorted(scores.items())},
            "winners": list(outcome.winners) if outcome else [],
            "reason": outcome.reason.english() if outcome else "",
            "events": [e.to_json() for e in self.state.events],
            "actions": self.applied,
        }
        if self.ended_early:
            # Only when true: the reports of games played to the end stay as they were.
            report["ended"] = "early"
        return report

    @classmethod
    def replay(
        cls, game: str, setup: GameSetup, seed: int, actions: Iterable[Action]
    ) -> Session:
        """Fold journaled actions into a new session (what resuming does).

        Raises :class:`ActionError` for the first action no table journals for this game
        (an unknown kind, a station the setup does not have): replaying it would ignore
        it silently and report another game than the one played."""
        session = cls.start(game, setup, seed)
        for index, action in enumerate(actions):
            problem = action_problem(session.engine, setup, action)
            if problem is not None:
                raise ActionError(index, problem)
            session.apply(action)
        return session


def run_until_idle(session: Session, until: float | None = None, limit: int = 100_000) -> list[Action]:
    """Deliver ticks at every deadline up to table time ``until`` (None: while any).

    Returns the tick actions delivered (so a caller can journal them). ``limit``
    guards against an engine whose deadlines never stop.
    """
    delivered: list[Action] = []
    for _ in range(limit):
        d = session.deadline()
        if d is None or (until is not None and d > until):
            break
        tick = Action(TICK, max(d, session.last_t))
        delivered.append(tick)
        session.apply(tick)
    return delivered


def canonical(data: Mapping[str, JSONValue]) -> str:
    """Stable JSON text, for comparing reports."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))
