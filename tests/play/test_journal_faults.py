"""The journal when it cannot be written: SQLite's answers told apart, a lock at start
waited for, held writes written once the fault clears (the table loop's side:
``tests/loop/test_journal_fault.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.games.base import Action
from table.play.journal import Journal, sqlite_fault
from table.play.journal_open import open_daemon_journal


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


@pytest.mark.heavy  # waits for the lock in real time
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


@pytest.mark.parametrize(("journal", "said"), [
    ("/proc/version", "/proc/version is not a table journal (not an SQLite file)"),  # says size 0, holds text
    ("/proc/table-journal.db", "the journal /proc/table-journal.db cannot be created"),
])
def test_table_play_refuses_a_journal_it_cannot_write_before_playing(
    journal: str, said: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The daemon plays on from memory when its journal cannot be written; ``table play
    --journal`` was asked to journal the game, so it refuses such a journal up front."""
    from table.cli import main
    from table.play.scenario_writer import random_script, scenario_toml

    script = tmp_path / "script.toml"
    script.write_text(scenario_toml(random_script("ubongo_shimo", seed=2)))
    assert main(["play", str(script), "--journal", journal]) == 2
    out, err = capfd.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"table: {said}"), err


def test_a_journal_opened_with_its_writes_held_is_refused_for_table_play(tmp_path: Path) -> None:
    from table.play.journal import JournalError
    from table.play.journal_open import refuse_unwritable

    journal = open_daemon_journal(tmp_path / "journal.db")
    refuse_unwritable(journal)  # writable: nothing to refuse
    journal.hold_writes("full")  # what opening on a full disk leaves
    with pytest.raises(JournalError, match=r"journal\.db cannot be written \(the disk is full\)"):
        refuse_unwritable(journal)
