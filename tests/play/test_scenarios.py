"""The documented scenarios (docs/scenarios/): each ends as it says, and ``table play``
and ``table replay`` of its journal agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table.cli import main

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "docs" / "scenarios").glob("*.toml"))


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_documented_scenarios_end_as_they_say(scenario: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "play", str(scenario), "--json")
    assert code == 0, err
    report = json.loads(out)
    for key in ("game", "rounds", "scores", "winners", "events"):
        assert key in report


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_play_and_replay_agree(scenario: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "j.db"
    code, played, _ = run_cli(capsys, "play", str(scenario), "--json", "--journal", str(journal))
    assert code == 0
    code, replayed, _ = run_cli(capsys, "replay", str(journal), "--json")
    assert code == 0
    a, b = json.loads(played), json.loads(replayed)
    a.pop("actions")
    b.pop("actions")
    assert a == b


def test_an_input_of_a_kind_the_game_does_not_know_is_refused(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Played, it would change nothing and be dropped without a word."""
    script = tmp_path / "script.toml"
    script.write_text('game = "ubongo_shimo"\nstations = [0, 1]\n[[input]]\nkind = "prss"\nt = 1\nstation = 0\n')
    assert main(["play", str(script)]) == 2
    assert capsys.readouterr().err == f"table: {script}: input[0]: unknown kind 'prss' (did you mean 'press'?)\n"
