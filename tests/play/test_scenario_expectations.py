"""A scenario that does not end as its [expect] says names the stations as the report does: from 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.cli import main
from table.play.scenario import check_expectations, load_scenario, run_scenario

# docs/scenarios/shimo-basic.toml, with expectations it does not meet: it ends 1, 6, 0 unfinished.
SCENARIO = """game = "ubongo_shimo"
stations = [0, 1, 2]
seed = 7
until = 80.0

[options]
levels = [1, 2, 3]

[[input]]
t = 20.0
station = 1
kind = "press"

[[input]]
t = 50.0
station = 0
kind = "press"

[expect]
rounds = 1
scores = {{ {scores} }}
winners = [0]
"""


def problems(tmp_path: Path, scores: str) -> list[str]:
    path = tmp_path / "wrong.toml"
    path.write_text(SCENARIO.format(scores=scores))
    scenario = load_scenario(str(path))
    return check_expectations(scenario, run_scenario(scenario).report())


def test_stations_are_counted_from_1_like_the_report(tmp_path: Path) -> None:
    assert problems(tmp_path, "0 = 1, 1 = 5, 2 = 0") == [
        "scores: station 2 expected 5, got 6",
        "winners: expected station 1, got none",
    ]


def test_a_station_missing_from_either_side_is_named(tmp_path: Path) -> None:
    assert problems(tmp_path, "0 = 1, 1 = 6, 3 = 2")[:2] == [
        "scores: station 3 got 0, which [expect] does not list",
        "scores: station 4 expected 2, but it did not play",
    ]


def test_the_command_says_it_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "wrong.toml"
    path.write_text(SCENARIO.format(scores="0 = 1, 1 = 5, 2 = 0"))
    assert main(["play", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "  station 2: 6" in out
    assert err == (f"table: {path} did not end as expected: scores: station 2 expected 5, got 6; "
                   "winners: expected station 1, got none\n")
