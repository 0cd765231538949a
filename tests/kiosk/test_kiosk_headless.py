"""The headless daemon resumes a journal cut at *every* point to the uninterrupted result.

The kill test (test_kiosk_kill.py) does this with real processes at random moments; this
one is exhaustive and in-process: for each cut of the reference journal, a journal
holding only that prefix is resumed with ``run_headless`` in virtual time.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import tomllib
from pathlib import Path

import pytest

from table.games import registry
from table.games.base import Action
from table.kiosk.headless import run_headless
from table.play.clock import VirtualClock
from table.play.journal import Journal
from table.play.resume import script_position
from table.play.scenario import Scenario, parse_scenario, run_scenario
from table.play.scenario_writer import random_script, scenario_toml
from table.play.session import canonical


def reference(scenario: Scenario, path: Path) -> tuple[tuple[Action, ...], str]:
    with Journal(path) as journal:
        session = run_scenario(scenario, journal)
        record = journal.latest()
        assert record is not None
        return record.actions, canonical(session.report())


def write_prefix(path: Path, scenario: Scenario, actions: tuple[Action, ...]) -> None:
    """A journal holding the first actions, as an interrupted run leaves it (written in
    one transaction: this is set-up, the appends under test are the daemon's)."""
    with Journal(path) as journal:
        game = journal.start_game(scenario.setup, scenario.seed)
    db = sqlite3.connect(path)
    with db:
        db.executemany("INSERT INTO actions (game, seq, action) VALUES (?, ?, ?)",
                       [(game, seq, json.dumps(a.to_json())) for seq, a in enumerate(actions)])
    db.close()


def check_every_cut(scenario: Scenario, tmp_path: Path, step: int = 1) -> None:
    want_actions, want_report = reference(scenario, tmp_path / "ref.db")
    for cut in [*range(0, len(want_actions), step), len(want_actions)]:
        path = tmp_path / f"cut{cut}.db"
        write_prefix(path, scenario, want_actions[:cut])
        result = run_headless(path, scenario, VirtualClock())
        assert result.resumed_from == cut
        assert canonical(result.session.report()) == want_report, f"cut {cut}"
        with Journal(path) as journal:
            record = journal.latest()
            assert record is not None
            assert record.actions == want_actions, f"cut {cut}"
            assert record.finished == result.session.is_over()


@pytest.mark.parametrize("name", sorted(registry()))
def test_resume_from_every_cut_of_a_random_game(name: str, tmp_path: Path) -> None:
    engine = registry()[name]
    script = random_script(name, seed=11, stations=max(engine.min_stations, 2), meta_rate=0.05)
    # Long games are cut short (each resumed action is fsynced; the machine is shared).
    inputs = script["input"]
    assert isinstance(inputs, list)
    script["input"] = inputs[:120]
    scenario = parse_scenario(tomllib.loads(scenario_toml(script)))
    reference_length = len(reference(scenario, tmp_path / "length.db")[0])
    check_every_cut(scenario, tmp_path, step=max(1, reference_length // 8))


def test_inputs_at_the_same_instant_are_neither_lost_nor_doubled(tmp_path: Path) -> None:
    """A press that changes nothing is not journaled, so "skip what is not later than
    the last journaled time" would lose station 2's press here; the daemon does not."""
    scenario = parse_scenario({
        "game": "ubongo_shimo", "stations": [0, 1, 2], "seed": 3, "until": 200.0,
        "input": [
            {"kind": "press", "t": 20.0, "station": 0},
            {"kind": "press", "t": 20.0, "station": 0},  # again: means nothing
            {"kind": "press", "t": 20.0, "station": 1},
            {"kind": "press", "t": 40.0, "station": 2},
        ],
    })
    check_every_cut(scenario, tmp_path)
    want, _ = reference(scenario, tmp_path / "again.db")
    first_press = next(i for i, a in enumerate(want) if a.kind == "press")
    position = script_position(scenario, want[: first_press + 1])
    assert position is not None and position[0] == 1  # the repeated press comes next, then station 1's


def test_a_journal_of_another_game_is_closed_not_lost(tmp_path: Path) -> None:
    one = parse_scenario(tomllib.loads(scenario_toml(random_script("ubongo_shimo", seed=1))))
    two = parse_scenario(tomllib.loads(scenario_toml(random_script("ubongo_shimo", seed=2))))
    path = tmp_path / "j.db"
    actions, _ = reference(one, tmp_path / "ref.db")
    write_prefix(path, one, actions[:5])
    result = run_headless(path, two)
    assert result.session.is_over() and result.resumed_from == 0
    with Journal(path) as journal:
        assert journal.game_ids() == [1, 2]
        assert journal.load(1).actions == actions[:5]


def test_stop_event_ends_between_actions(tmp_path: Path) -> None:
    scenario = parse_scenario(tomllib.loads(scenario_toml(random_script("ubongo_shimo", seed=4))))
    stop = threading.Event()
    seen: list[Action] = []

    def after(action: Action) -> None:
        seen.append(action)
        if len(seen) == 7:
            stop.set()

    path = tmp_path / "j.db"
    first = run_headless(path, scenario, VirtualClock(), stop=stop, on_action=after)
    assert first.stopped and not first.session.is_over()
    second = run_headless(path, scenario, VirtualClock())
    want, report = reference(scenario, tmp_path / "ref.db")
    with Journal(path) as journal:
        assert journal.load(1).actions == want
    assert second.session.is_over() and canonical(second.session.report()) == report
