"""Journal rows that decode but that no table writes for their game: an action of a kind
the game does not know, or from a station its setup does not have.

``table replay`` refuses such a game in one sentence naming the file, the game, the
action and what is wrong (replaying past the row would ignore it and report another
game). The daemon keeps the table's policy for damaged journals: the row and every one
after it are set aside in the ``damaged`` table with the reason logged, and the game
resumes from the last good action.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from pathlib import Path

import pytest

from table.cli import main
from table.games import get_game
from table.games.base import Action, GameSetup
from table.games.contract import engine_of
from table.play.resume import open_journal_resilient, resumable_game
from table.play.session import ActionError, Session

CORPUS = Path(__file__).resolve().parents[1] / "badinput" / "journals"
SETUP = GameSetup(game="ubongo_shimo", stations=(0, 1, 2))
GOOD = [Action("tick", 3.0), Action("press", 20.0, 1)]
CASES = {
    "unknown-kind.db": "action 2: unknown action kind 'explode' (this game knows dice, end, pause, press, push, "
                       "resume, skip_round, tick, turn, undo)",
    "station-99.db": "action 2: station 99 is not one of the game's stations (0, 1, 2, counted from 0)",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_replay_refuses_the_game_in_one_sentence(name: str, tmp_path: Path,
                                                 capfd: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / name
    shutil.copy(CORPUS / name, journal)
    assert main(["replay", str(journal)]) == 2
    out, err = capfd.readouterr()
    assert out == ""
    assert err == (f"table: {journal}: game 1 (ubongo_shimo), {CASES[name]}; no table journals such a row, "
                   "so the game is not replayed\n")
    assert journal.read_bytes() == (CORPUS / name).read_bytes()


@pytest.mark.parametrize("name", sorted(CASES))
def test_resume_sets_the_row_aside_and_plays_on_from_before_it(
    name: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.WARNING)
    path = tmp_path / "journal.db"
    shutil.copy(CORPUS / name, path)
    with open_journal_resilient(path) as journal:
        found = resumable_game(journal)
        assert found is not None
        record, session = found
        assert record.id == 1 and list(record.actions) == GOOD
        assert session.state == Session.replay("ubongo_shimo", SETUP, 7, GOOD).state
    said = [r.getMessage() for r in caplog.records if "damaged tail" in r.getMessage()]
    assert said == [f"journal {path}: game 1 had a damaged tail from action 2 ({CASES[name].partition(': ')[2]}); "
                    "3 row(s) set aside in table 'damaged'"]
    db = sqlite3.connect(path)
    assert [r[0] for r in db.execute("SELECT seq FROM damaged ORDER BY seq")] == [2, 3, 4]
    assert [r[0] for r in db.execute("SELECT seq FROM actions ORDER BY seq")] == [0, 1]
    db.close()
    capfd.readouterr()
    assert main(["replay", str(path)]) == 0, "what is left replays"


def test_session_replay_refuses_what_it_would_ignore() -> None:
    with pytest.raises(ActionError) as kind:
        Session.replay("ubongo_shimo", SETUP, 7, [*GOOD, Action("explode", 30.0, 1)])
    assert kind.value.index == 2 and "unknown action kind 'explode'" in str(kind.value)
    with pytest.raises(ActionError) as station:
        Session.replay("ubongo_shimo", SETUP, 7, [Action("press", 1.0, 3)])  # 3 is not playing
    assert station.value.index == 0 and "station 3 is not one of the game's stations" in str(station.value)
    # Live play still ignores such inputs: they change nothing, so they are never journaled.
    session = Session.start("ubongo_shimo", SETUP, 7)
    recorded: list[Action] = []
    assert not session.apply(Action("explode", 1.0, 1), recorded.append)
    assert recorded == []


def test_a_games_own_kind_is_replayed(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = engine_of(get_game("ubongo_shimo"))
    monkeypatch.setattr(type(engine), "own_kinds", frozenset({"explode"}))
    session = Session.replay("ubongo_shimo", SETUP, 7, [*GOOD, Action("explode", 30.0, 1)])
    assert session.applied == 3
