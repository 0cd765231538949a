"""The documented Ubongo scenarios play as described, journal, and replay to the same state."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.games.base import Action
from table.play.journal import Journal
from table.play.scenario import check_expectations, load_scenario, run_scenario
from table.play.session import Session

ROOT = Path(__file__).resolve().parents[3]
SCENARIOS = sorted((ROOT / "docs" / "scenarios").glob("ubongo-*.toml"))


def test_there_are_ubongo_scenarios() -> None:
    assert len(SCENARIOS) >= 3


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_plays_as_described_and_replays(path: Path, tmp_path: Path) -> None:
    scenario = load_scenario(path)
    with Journal(tmp_path / "j.db") as journal:
        session = run_scenario(scenario, journal)
        report = session.report()
        assert check_expectations(scenario, report) == []
        record = journal.latest()
        assert record is not None
        again = Session.replay(record.engine, record.setup, record.seed, record.actions)
    assert again.state == session.state


def test_scenario_events_tell_the_story() -> None:
    session = run_scenario(load_scenario(ROOT / "docs" / "scenarios" / "ubongo-nobody-finishes.toml"))
    kinds = [e["kind"] for e in session.report()["events"]]
    assert kinds.count("sand_start") == 3
    assert "boards_used_up" in kinds and "too_late" in kinds


def test_undo_takes_back_a_gem_taking() -> None:
    session = run_scenario(load_scenario(ROOT / "docs" / "scenarios" / "ubongo-dice-reader.toml"))
    before = session.state.collections[3]
    assert len(before) == 2
    undone = Session.replay("ubongo", session.setup, session.seed, [])
    for action in session.history:
        undone.apply(Action(action.kind, action.t, action.station, action.value))
    undone.apply(Action("undo", undone.last_t + 1))
    # Undo removes the last player input (Dev's push); the sand then runs out as usual.
    assert undone.state.collections[3] == ()
