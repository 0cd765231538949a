"""The bad-input corpus (tests/badinput/): one sentence and exit status 2, never a traceback.

Each folder is fed to the command that reads such files: ``configs/`` as
``table.toml`` of ``table check-config``, ``speech/`` as its ``umtata/speech.toml``,
``hardware/`` as its ``hardware.toml``, ``scenarios/`` to ``table play``,
``journals/`` to ``table replay``, ``decks/`` to ``table deck check``,
``images/`` to ``table dice read``; ``cli/`` holds whole command lines (``{tmp}`` is a
scratch folder holding a FIFO, a README, a journal...). Every case must give exactly
one line ``table: ...`` and exit status 2, and leave its input as it was: no byte
changed and nothing written beside it.

Every journal of the corpus, and every damaged one, must also let the table start:
the headless daemon sets the unusable file or the damaged tail aside, says so in
the log, and plays its game. Only files that are not the table's journal at all (not
SQLite, another program's, a newer schema) are refused in one sentence and left as
they are; a journal whose schema holds what the table never creates is kept aside
unchanged while the daemon starts a new one (``table replay`` and ``table play``
refuse it).
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from table.cli import build_parser, main
from table.kiosk.headless import run_headless
from table.play.clock import VirtualClock
from table.play.journal import Journal, JournalError
from table.play.resume import open_journal_resilient, resumable_game
from table.play.scenario import parse_scenario
from table.play.scenario_writer import random_script, scenario_toml

CORPUS = Path(__file__).resolve().parents[1] / "badinput"
REPO = CORPUS.parents[1]
FOLDERS = ("configs", "speech", "hardware", "scenarios", "journals", "decks", "images", "cli")


def corpus(folder: str) -> list[Path]:
    return sorted(p for p in (CORPUS / folder).iterdir() if p.is_file() and not p.name.startswith("_"))


def commands() -> set[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return set(sub.choices)  # type: ignore[arg-type]


def test_the_corpus_has_at_least_120_cases() -> None:
    files = [p for folder in FOLDERS for p in corpus(folder)]
    assert len(files) >= 120, len(files)
    named = {f"{f}/{p.name}" for f in FOLDERS for p in corpus(f)}
    assert set(SENTENCES) <= named, "every expected sentence belongs to a case of the corpus"


def scratch(tmp_path: Path) -> Path:
    """The ``{tmp}`` of ``cli/`` cases: odd files for commands to refuse."""
    tmp = tmp_path / "scratch"
    tmp.mkdir()
    os.mkfifo(tmp / "fifo")
    (tmp / "README.md").write_text("# A README\n\nNot a journal, not a picture.\n")
    (tmp / "empty.db").write_bytes(b"")
    (tmp / "script.toml").write_text(scenario_toml(random_script("ubongo_shimo", seed=2)))
    with Journal(tmp / "journal.db") as journal:
        journal.start_game(parse_scenario(tomllib.loads((tmp / "script.toml").read_text())).setup, 2)
    for name, odd in (("fifo-config", "fifo"), ("zero-config", "zero"), ("folder-config", "folder")):
        (tmp / name).mkdir()
        target = tmp / name / "table.toml"
        if odd == "fifo":
            os.mkfifo(target)
        elif odd == "zero":
            target.symlink_to("/dev/zero")
        else:
            target.mkdir()
    return tmp


def argv_for(folder: str, path: Path, tmp_path: Path) -> list[str]:
    if folder in ("configs", "speech", "hardware"):
        d = tmp_path / "config"
        d.mkdir()
        if folder == "configs":
            shutil.copy(path, d / "table.toml")
        elif folder == "speech":
            (d / "umtata").mkdir()
            shutil.copy(path, d / "umtata" / "speech.toml")
        else:
            shutil.copy(path, d / "hardware.toml")
        return ["check-config", str(d)]
    if folder == "scenarios":
        return ["play", str(path)]
    if folder == "journals":
        copy = tmp_path / path.name  # replay must not write: the test compares the copy after
        shutil.copy(path, copy)
        return ["replay", str(copy)]
    if folder == "decks":
        return ["deck", "check", str(path)]
    if folder == "cli":
        tmp = scratch(tmp_path)
        return [a.replace("{tmp}", str(tmp)) for a in shlex.split(path.read_text())]
    return ["dice", "read", str(path)]


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with the bytes of its regular files (None for the rest)."""
    out: dict[str, bytes | None] = {}
    for p in sorted(root.rglob("*")):
        out[str(p.relative_to(root))] = p.read_bytes() if p.is_file() and not p.is_symlink() else None
    return out


CASES = [(folder, path) for folder in FOLDERS for path in corpus(folder)]

# What some cases must say (the rest must only say it in one sentence).
TOO_DEEP = "nests tables and arrays more than 64 deep"
SENTENCES = {
    "configs/nested-20000-deep.toml": TOO_DEEP,
    "configs/nested-inline-tables.toml": TOO_DEEP,
    "configs/nested-dotted-keys.toml": TOO_DEEP,
    "configs/nested-header.toml": TOO_DEEP,
    "hardware/nested-20000-deep.toml": TOO_DEEP,
    "scenarios/nested-20000-deep.toml": TOO_DEEP,
    "scenarios/nested-inline-tables.toml": TOO_DEEP,
    "scenarios/nested-dotted-keys.toml": TOO_DEEP,
    "scenarios/nested-in-input-value.toml": TOO_DEEP,
    "scenarios/nested-in-a-string-then-deep.toml": TOO_DEEP,
    "configs/station-names-seven-for-four.toml": "table.station_names: 7 names for 4 stations",
    "configs/station-name-empty.toml": "table.station_names: name 2 must not be empty",
    "configs/station-name-nul.toml": "name 1 must not hold control characters",
    "configs/station-name-escape.toml": "name 1 must not hold control characters",
    "configs/station-name-huge.toml": "name 1 must be at most 24 characters, not 30,000",
    "configs/matrix-61-leds.toml": "hourglass.leds: a matrix layout needs a count of width x height",
    "configs/camera-usb-minus-1.toml": "tray.camera: 'usb:N' needs N from 0 to 255",
    "configs/camera-20-digits.toml": "tray.camera: 'usb:N' needs N from 0 to 255",
    "configs/journal-nul.toml": "table.journal: must not hold control characters",
    "configs/many-problems-at-once.toml": "the config has 4 problems",
    "scenarios/time-goes-backwards.toml": "input[1]: t = 3 is before input[0]'s t = 5",
    "journals/setup-nested-deep.db": "game 1 has an unreadable setup (line 1 nests tables and arrays more than 64",
    "journals/trigger-eats-actions.db": "it holds the trigger 'eat', which the table never creates",
    "journals/extra-view.db": "it holds the view 'presses'",
    "journals/extra-table.db": "it holds the table 'notes'",
    "journals/extra-index.db": "it holds the index 'by_action'",
    "journals/actions-redefined.db": "its table 'actions' is not defined the way the table defines it",
}


@pytest.mark.parametrize(("folder", "path"), CASES, ids=[f"{f}/{p.name}" for f, p in CASES])
def test_one_sentence_and_exit_2(
    folder: str, path: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    needed = {"decks": "deck", "images": "dice"}.get(folder)
    if needed and needed not in commands():
        pytest.skip(f"'table {needed}' is not in this build yet")
    argv = argv_for(folder, path, tmp_path)
    before = snapshot(tmp_path), path.read_bytes()
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's usage errors (one line, exit 2) end this way
        status = int(exc.code or 0)
    err = capfd.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    headlines = [line for line in err.splitlines() if line.startswith("table: ")]
    assert len(headlines) == 1, err
    assert len(headlines[0]) > len("table: ") + 10
    assert SENTENCES.get(f"{folder}/{path.name}", "") in err
    assert (snapshot(tmp_path), path.read_bytes()) == before, "a refused input is left exactly as it was"


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


# SQLite files that SQLite itself reports damaged: renamed aside, what is readable copied over.
SET_ASIDE_WHOLE = {"sqlite-header-then-garbage.db", "truncated-half.db", "corrupted-pages.db"}
# Not the table's journal at all (not SQLite, another program's, a newer schema): refused in
# one sentence, left as they are.
REFUSED = {"text-file.db", "random-bytes.db", "schema-99.db", "other-program.db"}
# A journal whose schema holds what the table never creates (a trigger that eats each
# action, a view, a table or an index of somebody else's, a table defined otherwise, a
# view in place of its games): never used; the daemon renames it aside, unchanged, and
# starts a new journal, so the table plays on and nothing in the file is lost.
FOREIGN_SCHEMA = {"trigger-eats-actions.db", "extra-view.db", "extra-table.db", "extra-index.db",
                  "actions-redefined.db", "games-not-a-table.db"}
JOURNALS = corpus("journals") + corpus("damaged-journals")


@pytest.mark.parametrize("path", JOURNALS, ids=[p.name for p in JOURNALS])
def test_a_bad_journal_never_stops_the_table(
    path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    journal = tmp_path / "journal.db"
    shutil.copy(path, journal)
    scenario = parse_scenario(tomllib.loads(scenario_toml(random_script("ubongo_shimo", seed=3))))
    if path.name in REFUSED:
        with pytest.raises(JournalError) as refused:
            run_headless(journal, scenario, VirtualClock())
        assert "\n" not in str(refused.value) and str(journal) in str(refused.value)
        assert journal.read_bytes() == path.read_bytes(), "a file that is not ours is never changed"
        assert {p.name for p in tmp_path.iterdir()} <= {"journal.db", "journal.db.lock"}, "nothing set aside"
        return
    result = run_headless(journal, scenario, VirtualClock())
    assert result.session.is_over()
    log = "\n".join(r.getMessage() for r in caplog.records)
    if path.name in FOREIGN_SCHEMA:
        (aside,) = tmp_path.glob("journal.db.foreign-*")
        assert aside.read_bytes() == path.read_bytes(), "kept whole, byte for byte"
        said = [r.getMessage() for r in caplog.records if "is not a journal as the table writes it" in r.getMessage()]
        assert said and "\n" not in said[0] and aside.name in said[0] and "starts a new journal" in said[0]
    elif path.name in SET_ASIDE_WHOLE:
        assert "set aside as" in log
        assert list(tmp_path.glob("journal.db.damaged-*")), "the damaged file must be kept, renamed"
    elif path.parent.name == "damaged-journals":
        assert "damaged tail" in log
    else:
        assert not list(tmp_path.glob("journal.db.damaged-*")), "only a file SQLite reports damaged is set aside"
    with Journal(journal) as j:
        record = j.latest()
        assert record is not None and record.finished and record.engine == "ubongo_shimo"


@pytest.mark.parametrize("name", ["truncated-half.db", "setup-not-json.db", "unknown-game.db",
                                  "trigger-eats-actions.db"])
def test_table_run_starts_with_a_bad_journal(name: str, tmp_path: Path) -> None:
    """The daemon itself (``table run --headless``) must start too, not only the scripted one:
    exiting would only start systemd's restart loop over the same file."""
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
    if path.name in REFUSED:
        with pytest.raises(JournalError):
            open_journal_resilient(journal_path)
        return
    with open_journal_resilient(journal_path) as journal:
        found = resumable_game(journal)
        if path.name in FOREIGN_SCHEMA:
            assert found is None and journal.game_ids() == []  # a new journal; the old one is kept aside
            assert list(tmp_path.glob("journal.db.foreign-*"))
        elif path.name in ("unknown-game.db", "unknown-variant.db", "setup-not-json.db", "setup-nested-deep.db"):
            assert found is None and journal.unfinished() is None  # closed, kept in the journal
            assert journal.game_ids() == [1]
        elif path.parent.name == "damaged-journals":
            assert found is not None and 3 <= len(found[0].actions) <= 4  # the good rows before the damage


@pytest.mark.parametrize("name", sorted(FOREIGN_SCHEMA))
def test_table_play_refuses_a_journal_with_a_foreign_schema(name: str, tmp_path: Path,
                                                            capfd: pytest.CaptureFixture[str]) -> None:
    """Only the daemon sets such a file aside; ``table play --journal`` refuses it in one sentence."""
    journal = tmp_path / "journal.db"
    shutil.copy(CORPUS / "journals" / name, journal)
    (tmp_path / "script.toml").write_text(scenario_toml(random_script("ubongo_shimo", seed=2)))
    assert main(["play", str(tmp_path / "script.toml"), "--journal", str(journal)]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "is not a journal as the table writes it" in err and "Traceback" not in err
    assert journal.read_bytes() == (CORPUS / "journals" / name).read_bytes()
    assert not list(tmp_path.glob("journal.db.*-*")), "nothing set aside"
