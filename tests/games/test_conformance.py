"""One conformance test run against every registered engine.

Random legal play from many seeds must reach the end; replaying the recorded
actions (straight, through an SQLite journal, and resumed from a cut at a random
point) must reproduce the same state; every view must be JSON; inputs that mean
nothing must be ignored, not raise.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from tier import fast

from table.games import games, registry
from table.games.base import Action, GameSetup
from table.games.contract import FACTS, LazyEngine, engine_of
from table.play.autoplay import play_randomly
from table.play.journal import Journal
from table.play.session import Session


def cases_for(name: str) -> list[tuple[GameSetup, int]]:
    """``(setup, seed)`` for each game the test plays. The full suite plays 12 seeds of
    every variant at the fewest, the most and a middle number of stations. The fast tier
    (tests/tier.py) plays each variant once, taking turns between the fewest stations
    with table-menu inputs (seed 0) and the most without (seed 1), and both for a game
    of one variant: enough to catch a broken contract in seconds."""
    engine = registry()[name]
    fewest, most = engine.min_stations, engine.max_stations

    def setup(variant: str, n: int) -> GameSetup:
        return GameSetup(game=name, variant=variant, stations=tuple(range(n)))

    if fast():
        turns = [(fewest, 0), (most, 1)]
        return [(setup(variant, turns[k % 2][0]), turns[k % 2][1])
                for k, variant in enumerate(engine.variants * (2 if len(engine.variants) == 1 else 1))]
    return [(setup(variant, n), seed) for variant in engine.variants
            for n in sorted({fewest, most, (fewest + most) // 2}) for seed in range(12)]


@pytest.mark.parametrize("name", sorted(registry()))
def test_a_lazy_engines_facts_are_its_engines(name: str) -> None:
    """What a ``LazyEngine`` states of its engine (the lobby and the config check use it
    before the engine is imported) is what the engine says."""
    game = games()[name]
    engine = engine_of(game)
    assert not isinstance(engine, LazyEngine)
    for fact in FACTS:
        assert getattr(game.engine, fact) == getattr(engine, fact), f"{name}: {fact}"


@pytest.mark.parametrize("name", sorted(registry()))
def test_random_play_reaches_the_end_and_replays(name: str, tmp_path: Path) -> None:
    for setup, seed in cases_for(name):
        session = Session.start(name, setup, seed)
        actions: list[Action] = []
        rng = random.Random(f"{name}{setup.variant}{len(setup.stations)}{seed}")
        play_randomly(session, rng, actions.append, meta_rate=0.02 if seed % 3 == 0 else 0.0)
        assert session.is_over(), f"{name} {setup.variant} seed {seed} did not finish"
        outcome = session.outcome()
        assert outcome is not None and outcome.winners
        json.dumps(session.report())
        for station in (None, *setup.stations):
            json.dumps(session.view(station))

        again = Session.replay(name, setup, seed, actions)
        assert again.state == session.state

        cut = rng.randrange(len(actions) + 1)
        resumed = Session.replay(name, setup, seed, actions[:cut])
        for action in actions[cut:]:
            resumed.apply(action)
        assert resumed.state == session.state
        assert resumed.outcome() == outcome


@pytest.mark.parametrize("name", sorted(registry()))
def test_journal_round_trip(name: str, tmp_path: Path) -> None:
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


@pytest.mark.parametrize("name", sorted(registry()))
def test_meaningless_inputs_are_ignored(name: str) -> None:
    engine = registry()[name]
    setup = GameSetup(game=name, variant=engine.variants[0], stations=tuple(range(engine.max_stations)))
    state = engine.new_game(setup, 1)
    for action in (
        Action("no-such-kind", 1.0, 0),
        Action("press", 1.0, 99),
        Action("turn", 1.0, 0, "garbage"),
        Action("push", 1.0, None),
        Action("dice", 1.0, None, {"faces": ["x"]}),
        Action("tick", 0.0),
    ):
        assert engine.apply(state, action) is not None


@pytest.mark.parametrize("name", sorted(registry()))
def test_a_games_own_action_kinds_are_its_own(name: str) -> None:
    """``own_kinds`` (what a journal may hold besides the base and the table menu's kinds)
    adds kinds: it never renames one the table already gives a meaning."""
    from table.games.base import BASE_KINDS
    from table.play.session import META_KINDS, known_kinds

    engine = registry()[name]
    own = engine.own_kinds
    assert isinstance(own, frozenset) and all(isinstance(k, str) and k for k in own)
    assert not own & (BASE_KINDS | META_KINDS)
    assert known_kinds(engine) == BASE_KINDS | META_KINDS | own
