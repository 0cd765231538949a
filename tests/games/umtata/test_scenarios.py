"""The Umtata scenario files play through the table's scenario runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.play.scenario import check_expectations, load_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    scenario = load_scenario(path)
    session = run_scenario(scenario)
    assert check_expectations(scenario, session.report()) == []
