"""The table loop while the journal cannot be written: the game goes on, the display
says so, and the held writes reach the journal once the fault clears."""

from __future__ import annotations

import os
from pathlib import Path

import pygame
import pytest

from table.common.config import TableConfig
from table.display.games.umtata.speech import QuestionSpeaker, SpeechSettings, settings_problems
from table.display.theme import BAD
from table.games.base import Action
from table.loop.app import ScriptedInputs, Table
from table.play.clock import VirtualClock
from table.play.journal import Journal, sqlite_fault
from table.play.journal_open import open_daemon_journal

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


def run(table: Table, clock: VirtualClock, inputs: ScriptedInputs, *actions: Action, until: float) -> None:
    start = clock.now
    inputs.add(*(Action(a.kind, start + a.t, a.station, a.value) for a in actions))
    while clock.now < start + until:
        clock.advance(1 / 30)
        table.step(clock.now)


def test_a_journal_fault_mid_game_shows_a_warning_and_loses_nothing(tmp_path: Path) -> None:
    """Another program takes the journal's write lock mid-game (SQLite answers "database
    is locked"): the game goes on from memory under a red band, and all of it is
    written once the lock goes."""
    import sqlite3

    path = tmp_path / "journal.db"
    journal = open_daemon_journal(path)
    clock = VirtualClock(1000.0)
    inputs = ScriptedInputs()
    surface = pygame.Surface((1280, 720))
    table = Table(TableConfig(stations=4), clock, surface, journal, inputs=[inputs], seed_source=lambda: 42)
    run(table, clock, inputs, Action("press", 0.1, 0), Action("press", 0.2, 1),
        Action("turn", 1.0, 0, {"sector": 15, "sectors": 16}), Action("push", 1.2, 0), until=1.5)
    assert table.session is not None and table.game_id is not None
    game = table.game_id  # rounds end once both have solved: the game may be over by the end
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    presses = [Action("press", 2.0 + i * 7.0, i % 2) for i in range(40)]
    run(table, clock, inputs, *presses, until=300.0)
    assert journal.fault is not None and "cannot be written" in journal.fault and journal.held > 0
    table.draw(clock.now, force=True)
    pygame.image.save(surface, str(tmp_path / "journal-locked.png"))
    bottom = surface.get_at((5, surface.get_height() - 5))
    assert tuple(bottom)[:3] == BAD, "the warning band is drawn over the picture"
    played = table.seq
    other.execute("COMMIT")
    other.close()
    journal._retry_at = 0.0
    table.step(clock.now + 0.1)
    assert journal.fault is None and journal.held == 0
    table.draw(clock.now, force=True)
    assert tuple(surface.get_at((5, surface.get_height() - 5)))[:3] != BAD
    table.close()
    with Journal.open_readonly(path) as again:
        assert len(again.load(game).actions) == played, "every action played from memory was written"


def test_sqlite_answers_are_told_apart(tmp_path: Path) -> None:
    import sqlite3

    db = sqlite3.connect(tmp_path / "x.db")
    db.execute("CREATE TABLE t (x)")
    db.execute("PRAGMA max_page_count = 1")
    with pytest.raises(sqlite3.Error) as full:
        db.execute("INSERT INTO t VALUES (zeroblob(100000))")
    assert sqlite_fault(full.value) == "full"
    other = sqlite3.connect(tmp_path / "x.db", timeout=0)
    db.execute("BEGIN EXCLUSIVE")
    with pytest.raises(sqlite3.Error) as busy:
        other.execute("SELECT * FROM t").fetchall()
    assert sqlite_fault(busy.value) == "busy"
    db.execute("ROLLBACK")
    (tmp_path / "bad.db").write_bytes(b"SQLite format 3\0" + b"\xff" * 4000)
    with pytest.raises(sqlite3.Error) as corrupt:
        sqlite3.connect(tmp_path / "bad.db").execute("SELECT * FROM sqlite_master").fetchall()
    assert sqlite_fault(corrupt.value) == "corrupt"


def test_the_question_is_never_an_option_to_the_speech_program() -> None:
    speaker = QuestionSpeaker(SpeechSettings(), which=lambda name: "/usr/bin/espeak-ng")
    argv = speaker.command("-w /tmp/owned.wav Where is Umtata?")
    assert argv is not None and argv[-2:] == ["--", "-w /tmp/owned.wav Where is Umtata?"]


@pytest.mark.parametrize(("text", "needle"), [
    ('speed = "fast"', "speed: must be a whole number"),
    ('speak_questions = "no"', "speak_questions: must be true or false"),
    ("spead = 150", "did you mean 'speed'"),
    ('voice = "-w x"', "voice: must be a voice name"),
])
def test_speech_settings_are_checked_where_they_are_used(text: str, needle: str, tmp_path: Path) -> None:
    path = tmp_path / "speech.toml"
    path.write_text(text + "\n")
    _, problems = settings_problems(path)
    assert len(problems) == 1 and needle in problems[0] and str(path) in problems[0]


def _rollback_mode_journal(path: Path) -> None:
    """A journal in SQLite's rollback mode, where a lock also keeps readers out."""
    from table.games.base import GameSetup

    with Journal(path) as journal:
        game = journal.start_game(GameSetup(game="ubongo_shimo", stations=(0, 1)), 5)
        journal.append(game, 0, Action("press", 1.0, 0))
    import sqlite3

    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=DELETE")
    db.close()


def test_a_lock_at_start_is_waited_for_then_refused_in_one_sentence(tmp_path: Path) -> None:
    import sqlite3
    import threading

    from table.play.journal import JournalBusy

    path = tmp_path / "journal.db"
    _rollback_mode_journal(path)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")
    messages: list[str] = []
    with pytest.raises(JournalBusy) as refused:
        open_daemon_journal(path, wait_s=1.0, on_wait=messages.append)
    assert messages and "locked by another program" in messages[0]
    assert "\n" not in str(refused.value) and not list(tmp_path.glob("*.damaged-*")), "a lock is not damage"
    # Released while the daemon waits: it opens and the unfinished game is there.
    threading.Timer(1.2, lambda: other.execute("COMMIT")).start()
    journal = open_daemon_journal(path, wait_s=10.0)
    try:
        record = journal.unfinished()
        assert record is not None and len(record.actions) == 1
    finally:
        journal.close()
        other.close()


def test_held_writes_reconnect_once_the_journal_is_writable_again(tmp_path: Path) -> None:
    """What a read-only folder leaves at start (a read-only connection, writes held): the
    first retry after the folder is writable again reconnects and writes them in order."""
    path = tmp_path / "journal.db"
    _rollback_mode_journal(path)
    journal = Journal(path, readonly=True)
    journal.hold_writes("readonly")
    journal.append(1, 1, Action("press", 2.0, 1))
    journal.append(1, 2, Action("press", 3.0, 0))
    assert journal.held == 2 and journal.fault is not None and "read-only" in journal.fault
    journal._retry_at = 0.0
    assert journal.retry() and journal.fault is None and journal.held == 0
    journal.close()
    with Journal.open_readonly(path) as again:
        assert [a.t for a in again.load(1).actions] == [1.0, 2.0, 3.0]
