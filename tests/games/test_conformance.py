"""The game contract's conformance test, run against every registered game (or the one
``pytest --game NAME`` names): one test per rule of :mod:`table.games.contract`
(``ends``, ``pure``, ``deterministic``, ``view``, ``ignores``, ``ranks``; the checks are in
``conformance.py``), whose failure names the rule, the case and the step; then replay
(straight, through an SQLite journal, and resumed from a cut at a random point) must
reproduce the same state, and a lazy engine's facts must be its engine's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from tier import fast

from games.conformance import (
    cases,
    check_deterministic,
    check_ends,
    check_ignores,
    check_pure,
    check_ranks,
    check_view,
    engine_named,
    tie_cases,
)
from table.games import games, registry
from table.games.base import Action, GameSetup
from table.games.contract import FACTS, LOBBY_OPTIONS, LazyEngine, engine_of
from table.play.autoplay import play_randomly
from table.play.journal import Journal
from table.play.session import Session


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``name``: every registered game, or the one ``--game`` names (which may be one of
    the broken games of ``broken/``, registered for this run only)."""
    if "name" in metafunc.fixturenames:
        chosen = metafunc.config.getoption("game")
        metafunc.parametrize("name", [chosen] if chosen else sorted(registry()))


def test_rule_ends(name: str) -> None:
    """Random legal play ends every case within ``MAX_ACTIONS`` actions, never stuck."""
    engine = engine_named(name)
    for case in cases(engine):
        check_ends(engine, case)


def test_rule_pure(name: str) -> None:
    """``apply`` never changes the state it is given (the fast tier's cases, every step)."""
    engine = engine_named(name)
    for case in cases(engine, full=False):
        check_pure(engine, case)


def test_rule_deterministic(name: str) -> None:
    """The same setup, seed and actions give equal states and views (every step)."""
    engine = engine_named(name)
    for case in cases(engine, full=False):
        check_deterministic(engine, case)


def test_rule_view(name: str) -> None:
    """Every public view has the keys the table reads and is JSON (every step)."""
    engine = engine_named(name)
    for case in cases(engine, full=False):
        check_view(engine, case)


def test_rule_ignores(name: str) -> None:
    """Inputs that mean nothing return the very same state and never raise."""
    engine = engine_named(name)
    for case in cases(engine, full=False):
        check_ignores(engine, case)


def test_rule_ranks(name: str) -> None:
    """At the game's own end, ``standing`` ranks best exactly the outcome's winners: the
    rulebook's tie-breaks are the final ranking's and a game ended early's too."""
    engine = engine_named(name)
    for case in tie_cases(engine):
        check_ranks(engine, case)


def test_the_lobbys_options_are_accepted(name: str) -> None:
    """A game that names its options names the ones the lobby adds to every game."""
    engine = engine_named(name)
    missing = LOBBY_OPTIONS - (engine.option_names or LOBBY_OPTIONS)
    assert not missing, f"{name}: option_names must include {sorted(missing)} (table.games.contract.LOBBY_OPTIONS)"
    setup = GameSetup(game=name, variant=engine.variants[0], stations=tuple(range(engine.min_stations)),
                      options={"colours": list(range(engine.min_stations))})
    engine.new_game(setup, 1)


def test_a_lazy_engines_facts_are_its_engines(name: str) -> None:
    """What a ``LazyEngine`` states of its engine (the lobby and the config check use it
    before the engine is imported) is what the engine says."""
    if name not in games():
        pytest.skip(f"{name} is not registered (a broken fixture game)")
    game = games()[name]
    engine = engine_of(game)
    assert not isinstance(engine, LazyEngine)
    for fact in FACTS:
        assert getattr(game.engine, fact) == getattr(engine, fact), f"{name}: {fact}"


def test_random_play_replays(name: str) -> None:
    """Replaying the recorded actions (the plays of ``test_rule_ends``), straight and
    resumed from a cut, gives the same state."""
    engine = engine_named(name)
    for case in cases(engine):
        actions, session = check_ends(engine, case)
        outcome = session.outcome()
        assert outcome is not None and outcome.winners
        json.dumps(session.report())

        again = _replay(case.setup, case.seed, actions)
        assert again.state == session.state

        cut = random.Random(f"{case} cut").randrange(len(actions) + 1)
        resumed = _replay(case.setup, case.seed, actions[:cut])
        for action in actions[cut:]:
            resumed.apply(action)
        assert resumed.state == session.state
        assert resumed.outcome() == outcome


def _replay(setup: GameSetup, seed: int, actions: list[Action]) -> Session:
    session = Session(engine=engine_named(setup.game), setup=setup, seed=seed)
    for action in actions:
        session.apply(action)
    return session


def test_journal_round_trip(name: str, tmp_path: Path) -> None:
    if name not in registry():
        pytest.skip(f"{name} is not registered (a broken fixture game): a journal replays registered games")
    engine = registry()[name]
    setup = GameSetup(game=name, variant=engine.variants[0], stations=tuple(range(engine.max_stations)))
    with Journal(tmp_path / "j.db") as journal:
        for seed in range(1 if fast() else 3):
            game = journal.start_game(setup, seed)
            session = Session.start(name, setup, seed)
            seq = 0

            def record(action: Action, game: int = game) -> None:
                nonlocal seq
                journal.append(game, seq, action)
                seq += 1

            play_randomly(session, random.Random(seed), record)
            record_ = journal.load(game)
            replayed = Session.replay(record_.engine, record_.setup, record_.seed, record_.actions)
            assert replayed.state == session.state


def test_a_games_own_action_kinds_are_its_own(name: str) -> None:
    """``own_kinds`` (what a journal may hold besides the base and the table menu's kinds)
    adds kinds: it never renames one the table already gives a meaning."""
    from table.games.base import BASE_KINDS
    from table.play.session import META_KINDS, known_kinds

    engine = engine_named(name)
    own = engine.own_kinds
    assert isinstance(own, frozenset) and all(isinstance(k, str) and k for k in own)
    assert not own & (BASE_KINDS | META_KINDS)
    assert known_kinds(engine) == BASE_KINDS | META_KINDS | own
