"""The bad-input corpus (tests/badinput/): one sentence and exit status 2, never a traceback.

Each folder is fed to the command that reads such files: ``configs/`` as
``table.toml`` of ``table check-config``, ``scenarios/`` to ``table play``,
``journals/`` to ``table replay``, ``decks/`` to ``table deck check`` and
``images/`` to ``table dice read`` (the last two once those commands exist).

Every journal of the corpus, and every damaged one, must also let the table start:
the headless daemon sets the unusable file or the damaged tail aside, says so in
the log, and plays its game.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from table.cli import build_parser, main
from table.headless import (
    VirtualClock,
    open_journal_resilient,
    random_script,
    resumable_game,
    run_headless,
    scenario_toml,
)
from table.journal import Journal
from table.scenario import parse_scenario

CORPUS = Path(__file__).resolve().parents[1] / "badinput"
REPO = CORPUS.parents[1]
FOLDERS = ("configs", "scenarios", "journals", "decks", "images")


def corpus(folder: str) -> list[Path]:
    return sorted(p for p in (CORPUS / folder).iterdir() if p.is_file() and not p.name.startswith("_"))


def commands() -> set[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return set(sub.choices)  # type: ignore[arg-type]


def test_the_corpus_has_at_least_30_files() -> None:
    files = [p for folder in FOLDERS for p in corpus(folder)]
    assert len(files) >= 30, len(files)


def argv_for(folder: str, path: Path, tmp_path: Path) -> list[str]:
    if folder == "configs":
        d = tmp_path / "config"
        d.mkdir()
        shutil.copy(path, d / "table.toml")
        return ["check-config", str(d)]
    if folder == "scenarios":
        return ["play", str(path)]
    if folder == "journals":
        copy = tmp_path / path.name  # the journal code may write (WAL) into what it opens
        shutil.copy(path, copy)
        return ["replay", str(copy)]
    if folder == "decks":
        return ["deck", "check", str(path)]
    return ["dice", "read", str(path)]


CASES = [(folder, path) for folder in FOLDERS for path in corpus(folder)]


@pytest.mark.parametrize(("folder", "path"), CASES, ids=[f"{f}/{p.name}" for f, p in CASES])
def test_one_sentence_and_exit_2(
    folder: str, path: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    needed = {"decks": "deck", "images": "dice"}.get(folder)
    if needed and needed not in commands():
        pytest.skip(f"'table {needed}' is not in this build yet")
    status = main(argv_for(folder, path, tmp_path))
    err = capfd.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    headlines = [line for line in err.splitlines() if line.startswith("table: ")]
    assert len(headlines) == 1, err
    assert len(headlines[0]) > len("table: ") + 10


def test_no_traceback_from_a_real_process(tmp_path: Path) -> None:
    """One of each kind through ``python -m table`` itself, as a person would type it."""
    for folder in ("configs", "scenarios", "journals"):
        work = tmp_path / folder
        work.mkdir()
        argv = argv_for(folder, corpus(folder)[0], work)
        done = subprocess.run([sys.executable, "-m", "table", *argv], cwd="/", capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and done.stderr.startswith("table: ")


SET_ASIDE_WHOLE = {"text-file.db", "random-bytes.db", "sqlite-header-then-garbage.db", "truncated-half.db",
                   "corrupted-pages.db", "schema-99.db", "setup-not-json.db"}
JOURNALS = corpus("journals") + corpus("damaged-journals")


@pytest.mark.parametrize("path", JOURNALS, ids=[p.name for p in JOURNALS])
def test_a_bad_journal_never_stops_the_table(
    path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    journal = tmp_path / "journal.db"
    shutil.copy(path, journal)
    scenario = parse_scenario(tomllib.loads(scenario_toml(random_script("ubongo_shimo", seed=3))))
    result = run_headless(journal, scenario, VirtualClock())
    assert result.session.is_over()
    log = "\n".join(r.getMessage() for r in caplog.records)
    if path.name in SET_ASIDE_WHOLE:
        assert "set aside as" in log
        assert list(tmp_path.glob("journal.db.damaged-*")), "the damaged file must be kept, renamed"
    elif path.parent.name == "damaged-journals":
        assert "damaged tail" in log
    with Journal(journal) as j:
        record = j.latest()
        assert record is not None and record.finished and record.engine == "ubongo_shimo"


@pytest.mark.parametrize("name", ["truncated-half.db", "setup-not-json.db", "unknown-game.db"])
def test_table_run_starts_with_a_bad_journal(name: str, tmp_path: Path) -> None:
    """The daemon itself (``table run --headless``) must start too, not only the scripted one."""
    journal = tmp_path / "journal.db"
    shutil.copy(CORPUS / "journals" / name, journal)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    done = subprocess.run([sys.executable, "-m", "table", "run", "--headless", "--journal", str(journal),
                           "--seconds", "0.3"], cwd="/", capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("path", JOURNALS, ids=[p.name for p in JOURNALS])
def test_resumable_game_never_raises(path: Path, tmp_path: Path) -> None:
    """What ``table run`` needs on start: the file opened and the unfinished game replayed, or neither."""
    journal_path = tmp_path / "journal.db"
    shutil.copy(path, journal_path)
    with open_journal_resilient(journal_path) as journal:
        found = resumable_game(journal)
        if path.name in ("unknown-game.db", "unknown-variant.db"):
            assert found is None and journal.unfinished() is None  # closed, kept in the journal
            assert journal.game_ids() == [1]
        elif path.parent.name == "damaged-journals":
            assert found is not None and 3 <= len(found[0].actions) <= 4  # the good rows before the damage
