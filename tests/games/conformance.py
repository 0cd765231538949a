"""The checks of the game contract's rules (:data:`table.games.contract.RULES`), for
``test_conformance.py`` (every registered game, or the one ``--game`` names) and
``test_broken_games.py`` (the games in ``broken/``, which must fail them).

Each check plays random legal play through a :class:`Session` (as the attract loop
and the soak test do) and stops at the first step that breaks its rule, failing with a
message that names the rule, the game, the case and the step, and says the rule.
"""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, NoReturn

import pytest
from tier import fast

from games.broken import BROKEN
from table.games import registry
from table.games.base import Action, Engine, GameSetup
from table.games.contract import DETERMINISTIC, ENDS, IGNORES, MAX_ACTIONS, PURE, RANKS, VIEW, Rule, view_problems
from table.play.autoplay import next_random_action
from table.play.session import Session

STATION_VIEWS_EVERY = 5
"""Every station's view is checked as JSON at every this many steps (and at the end);
the public view, which the table reads, at every step."""


def engine_named(name: str) -> Engine[Any]:
    """A registered game's engine, or a broken fixture game's (``broken/``)."""
    return registry().get(name) or BROKEN[name]


@dataclass(frozen=True)
class Case:
    """One random play: the setup, the game's seed, and the random inputs' seed."""

    setup: GameSetup
    seed: int

    def __str__(self) -> str:
        return f"{self.setup.game} {self.setup.variant} with {len(self.setup.stations)} stations, seed {self.seed}"

    def rng(self) -> random.Random:
        return random.Random(f"{self.setup.game}{self.setup.variant}{len(self.setup.stations)}{self.seed}")

    @property
    def meta_rate(self) -> float:
        """Table-menu inputs (pause, undo) now and then, in a third of the cases."""
        return 0.02 if self.seed % 3 == 0 else 0.0


def cases(engine: Engine[Any], full: bool | None = None) -> list[Case]:
    """The cases the test plays. The full suite (``full``: not the fast tier) plays 12
    seeds of every variant at the fewest, the most and a middle number of stations. The
    fast tier plays each variant once, taking turns between the fewest stations with
    table-menu inputs (seed 0) and the most without (seed 1), and both for a game of one
    variant: enough to catch a broken contract in seconds."""
    full = not fast() if full is None else full
    fewest, most = engine.min_stations, engine.max_stations

    def setup(variant: str, n: int) -> GameSetup:
        return GameSetup(game=engine.name, variant=variant, stations=tuple(range(n)))

    if not full:
        turns = [(fewest, 0), (most, 1)]
        out = [Case(setup(variant, turns[k % 2][0]), turns[k % 2][1])
               for k, variant in enumerate(engine.variants * (2 if len(engine.variants) == 1 else 1))]
    else:
        out = [Case(setup(variant, n), seed) for variant in engine.variants
               for n in sorted({fewest, most, (fewest + most) // 2}) for seed in range(12)]
    # The cases without table-menu inputs first: a game that never ends fails on the first
    # case, before an undo replays thousands of actions.
    return sorted(out, key=lambda case: case.meta_rate)


TIE_SEEDS = 12
"""Seeds of every variant :func:`tie_cases` plays (24 in the full suite)."""


def tie_cases(engine: Engine[Any], full: bool | None = None) -> list[Case]:
    """Plays where ties are likely, for rule ``ranks``: two stations (or the fewest a game
    plays with, when more), :data:`TIE_SEEDS` seeds of every variant. A tie-break only
    shows where players tie; with two they tie often (about one game in eight of Ubongo
    Shimo ends tied on points)."""
    full = not fast() if full is None else full
    n = min(max(2, engine.min_stations), engine.max_stations)
    seeds = range(100, 100 + TIE_SEEDS * (2 if full else 1))
    return [Case(GameSetup(game=engine.name, variant=variant, stations=tuple(range(n))), seed)
            for variant in engine.variants for seed in seeds]


def broken(rule: Rule, case: Case, step: int | None, what: str) -> NoReturn:
    """Fail the test: ``rule`` broken in ``case`` at ``step`` (``None``: at the start)."""
    at = "at the start" if step is None else f"at step {step}"
    pytest.fail(f"rule '{rule.name}' broken by {case}, {at}: {what}\n"
                f"  the rule (table.games.contract.{rule.name.upper()}): {rule.says}", pytrace=False)


def _where(session: Session) -> str:
    view = session.engine.view(session.state, None)
    return f"phase {view.get('phase')!r}, round {view.get('round')!r}"


@dataclass
class Step:
    """One applied step of a random play: its number (from 1), the action, the state it
    was applied to and the session after it."""

    number: int
    action: Action
    before: Any
    session: Session


def random_play(engine: Engine[Any], case: Case, *, check_end: bool = True,
                session: Session | None = None) -> Iterator[Step]:
    """Random legal play of ``case`` (rule ``ends`` checked when ``check_end``), one step
    at a time, in ``session`` (a new one when ``None``); a raising ``apply`` breaks rule
    ``ignores``. Stops at the end, or after :data:`MAX_ACTIONS` actions."""
    session = session if session is not None else Session(engine=engine, setup=case.setup, seed=case.seed)
    rng = case.rng()
    for number in range(1, MAX_ACTIONS + 1):
        if session.is_over():
            return
        action = next_random_action(session, rng, meta_rate=case.meta_rate)
        if action is None:
            if check_end:
                broken(ENDS, case, number, f"stuck before the end ({_where(session)}): no legal action and no "
                                           f"deadline")
            return
        before = session.state
        try:
            session.apply(action)
        except Exception as exc:
            broken(IGNORES, case, number, f"apply raised {type(exc).__name__} ({exc}) for {action}")
        yield Step(number, action, before, session)
    if not session.is_over():
        if check_end:
            broken(ENDS, case, MAX_ACTIONS, f"the game is not over after {MAX_ACTIONS} actions ({_where(session)})")
        pytest.skip(f"{case} is not over after {MAX_ACTIONS} actions: test_rule_ends fails for it")


_PLAYED: dict[tuple[str, str, tuple[int, ...], int], tuple[list[Action], Session]] = {}
"""The plays :func:`check_ends` has checked, by game and case, for the replay test."""


def check_ends(engine: Engine[Any], case: Case) -> tuple[list[Action], Session]:
    """Rule ``ends``; returns the actions played and the finished session (kept: asked
    again for the same game and case, the same play is returned, not played again)."""
    key = (engine.name, case.setup.variant, case.setup.stations, case.seed)
    if key not in _PLAYED:
        session = Session(engine=engine, setup=case.setup, seed=case.seed)
        actions = [step.action for step in random_play(engine, case, session=session)]
        _PLAYED[key] = (actions, session)
    return _PLAYED[key]


def _snapshot(state: object) -> bytes:
    return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


def _changed_fields(was: object, now: object) -> str:
    """The fields of a dataclass state that differ, or a note that something inside did."""
    if is_dataclass(was) and is_dataclass(now):
        names = [f.name for f in fields(was) if getattr(was, f.name) != getattr(now, f.name)]
        if names:
            return ", ".join(f"{n} was {getattr(was, n)!r}, now {getattr(now, n)!r}" for n in names)
    return "something inside it changed"


def check_pure(engine: Engine[Any], case: Case) -> None:
    """Rule ``pure``: at every step, the state given to ``apply`` is byte for byte what it
    was before (pickled before and after: a deep comparison, and cheaper than a copy)."""
    session = Session(engine=engine, setup=case.setup, seed=case.seed)
    first = _snapshot(session.state)
    engine.new_game(case.setup, case.seed)
    if _snapshot(session.state) != first:
        broken(PURE, case, None, "a second new_game changed the first one's state")
    snapshot = first
    for step in random_play(engine, case, check_end=False):
        if step.before is not None:
            now = _snapshot(step.before)
            if now != snapshot:
                was = pickle.loads(snapshot)
                broken(PURE, case, step.number, f"apply({step.action}) changed the state it was given: "
                                                f"{_changed_fields(was, step.before)}")
        snapshot = _snapshot(step.session.state)


def check_deterministic(engine: Engine[Any], case: Case) -> None:
    """Rule ``deterministic``: two sessions of the same setup and seed, given the same
    actions, have equal states and equal public views at every step."""
    b = Session(engine=engine, setup=case.setup, seed=case.seed)
    if engine.new_game(case.setup, case.seed) != b.state:
        broken(DETERMINISTIC, case, None, "two new_game calls with the same setup and seed differ")
    for step in random_play(engine, case, check_end=False):
        b.apply(step.action)
        if step.session.state != b.state:
            broken(DETERMINISTIC, case, step.number, f"the same actions, up to {step.action}, gave unequal states")
        if engine.view(step.session.state, None) != engine.view(b.state, None):
            broken(DETERMINISTIC, case, step.number, f"equal states after {step.action} gave unequal public views")


def _view_check(engine: Engine[Any], case: Case, session: Session, step: int | None, stations: bool) -> None:
    view = engine.view(session.state, None)
    try:
        json.dumps(view)
    except (TypeError, ValueError) as exc:
        broken(VIEW, case, step, f"the public view is not JSON ({exc})")
    problems = view_problems(view)
    if problems:
        broken(VIEW, case, step, "; ".join(problems))
    for station in case.setup.stations if stations else ():
        try:
            json.dumps(engine.view(session.state, station))
        except (TypeError, ValueError) as exc:
            broken(VIEW, case, step, f"station {station}'s view is not JSON ({exc})")


def check_view(engine: Engine[Any], case: Case) -> None:
    """Rule ``view``: the public view has the table's keys (:class:`TableView`) and is
    JSON at every step; every station's view is JSON every :data:`STATION_VIEWS_EVERY`
    steps and at the end."""
    session = Session(engine=engine, setup=case.setup, seed=case.seed)
    _view_check(engine, case, session, None, True)
    last: Step | None = None
    for step in random_play(engine, case, check_end=False):
        _view_check(engine, case, step.session, step.number, step.number % STATION_VIEWS_EVERY == 0)
        last = step
    if last is not None:
        _view_check(engine, case, last.session, last.number, True)


MEANINGLESS = (
    Action("no-such-kind", 1.0, 0),
    Action("press", 1.0, 99),
    Action("turn", 1.0, 0, "garbage"),
    Action("push", 1.0, None),
    Action("tick", 0.0),
)
"""Inputs that mean nothing to any game at its start: a kind no game has, a station not
playing, a knob's value of no shape, a push from nowhere, a tick before any deadline."""

ODD = (Action("dice", 1.0, None, {"faces": ["x"]}),)
"""Well-formed inputs that a game may take up (an unreadable die is a problem to show)
but must not raise for."""


def check_ignores(engine: Engine[Any], case: Case) -> None:
    """Rule ``ignores``: each of :data:`MEANINGLESS` returns the very same first state;
    none of them, nor :data:`ODD`, raises."""
    state = engine.new_game(case.setup, case.seed)
    for action in (*MEANINGLESS, *ODD):
        try:
            after = engine.apply(state, action)
        except Exception as exc:
            broken(IGNORES, case, None, f"apply raised {type(exc).__name__} ({exc}) for {action}")
        if after is not state and action in MEANINGLESS:
            broken(IGNORES, case, None, f"apply({action}) returned a new state for an input that means nothing")


def check_ranks(engine: Engine[Any], case: Case) -> None:
    """Rule ``ranks``: at the game's own end, the stations ``standing`` ranks best (given
    the outcome's scores) are exactly the outcome's winners."""
    last: Step | None = None
    for step in random_play(engine, case, check_end=False):
        last = step
    if last is None or not last.session.is_over():
        return
    session = last.session
    outcome = engine.outcome(session.state)
    if outcome is None:
        return  # (ended by a table-menu input, not by the game)
    scores = dict(outcome.scores)
    standing = {s: tuple(engine.standing(session.state, s, scores)) for s in case.setup.stations}
    best = max(standing.values())
    ranked = sorted(s for s, v in standing.items() if v == best)
    if ranked != sorted(outcome.winners):
        said = ", ".join(f"station {s}: {v}" for s, v in standing.items())
        why = outcome.reason.english()
        broken(RANKS, case, last.number, f"the game ended with winners {sorted(outcome.winners)} ({why}), but its "
                                         f"standing ranks {ranked} best ({said}); scores {scores}")


CHECKS: dict[str, Callable[[Engine[Any], Case], object]] = {
    "ends": check_ends, "pure": check_pure, "deterministic": check_deterministic, "view": check_view,
    "ignores": check_ignores, "ranks": check_ranks,
}
"""Each rule's check, by the rule's name."""
