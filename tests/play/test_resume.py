"""A journal cut anywhere resumes to the same game: replayed from any cut, the rest
played on gives the same end; a damaged tail is set aside, not fatal."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from table.play.journal import Journal
from table.play.scenario import load_scenario, run_scenario
from table.play.session import Session

SCENARIOS = Path(__file__).resolve().parents[2] / "docs" / "scenarios"


def test_a_journal_cut_at_any_action_resumes_to_the_same_outcome(tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIOS / "shimo-full-game.toml")
    with Journal(tmp_path / "full.db") as journal:
        full = run_scenario(scenario, journal)
        record = journal.latest()
    assert record is not None and full.is_over()
    actions = record.actions
    for cut in range(len(actions) + 1):
        resumed = Session.replay(record.engine, record.setup, record.seed, actions[:cut])
        # The rest of the game arrives as it would have: same inputs, same times.
        for action in actions[cut:]:
            resumed.apply(action)
        assert resumed.state == full.state
        assert resumed.outcome() == full.outcome()


def test_the_table_resumes_an_unfinished_game_from_a_cut_journal(tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIOS / "shimo-full-game.toml")
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        full = run_scenario(scenario, journal)
        game = journal.latest()
    assert game is not None
    # Cut the journal in the middle, as a pulled plug would, and mark it unfinished again.
    db = sqlite3.connect(path)
    db.execute("DELETE FROM actions WHERE seq >= ?", (len(game.actions) // 2,))
    db.execute("UPDATE games SET finished = NULL")
    db.commit()
    db.close()
    with Journal(path) as journal:
        record = journal.unfinished()
        assert record is not None and len(record.actions) == len(game.actions) // 2
        resumed = Session.replay(record.engine, record.setup, record.seed, record.actions)
    for action in game.actions[len(record.actions):]:
        resumed.apply(action)
    assert resumed.outcome() == full.outcome()


def test_a_damaged_journal_tail_is_set_aside_not_fatal(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    scenario = load_scenario(SCENARIOS / "shimo-basic.toml")
    path = tmp_path / "j.db"
    with Journal(path) as journal:
        run_scenario(scenario, journal)
    db = sqlite3.connect(path)
    db.execute("UPDATE actions SET action = '{broken' WHERE seq = 2")
    db.commit()
    db.close()
    with Journal(path) as journal:
        record = journal.latest()
    assert record is not None and len(record.actions) == 2
    assert "damaged tail" in caplog.text
    with Journal(path) as journal:
        assert len(journal.latest().actions) == 2  # type: ignore[union-attr]
