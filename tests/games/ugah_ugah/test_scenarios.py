"""The Ugah Ugah! scenario files in docs/scenarios play as documented and replay from the journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.play.journal import Journal
from table.play.scenario import check_expectations, load_scenario, run_scenario
from table.play.session import Session

SCENARIOS = sorted((Path(__file__).resolve().parents[3] / "docs" / "scenarios").glob("ugah-*.toml"))


def test_there_are_ugah_scenarios() -> None:
    assert len(SCENARIOS) >= 3


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_ends_as_expected_and_replays(path: Path, tmp_path: Path) -> None:
    scenario = load_scenario(path)
    with Journal(tmp_path / "j.db") as journal:
        session = run_scenario(scenario, journal)
        assert check_expectations(scenario, session.report()) == []
        record = journal.latest()
        assert record is not None
        again = Session.replay(record.engine, record.setup, record.seed, record.actions)
    assert again.state == session.state
