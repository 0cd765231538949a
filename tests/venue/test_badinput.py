"""The relay and the venue over the bad-input corpus (tests/badinput/): never a traceback.

``settings/`` holds settings files for ``table relay --config`` and ``table venue
--config``: each must be one sentence and exit status 2, whatever its nesting or types.
``journals/`` and ``damaged-journals/`` hold journals the table refuses, sets aside or
plays on (it closes a game it cannot read and keeps its rows): the relay following one
must never stop, must count and log an unreadable game once, and must publish the good
games after it.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from table.cli import main
from table.play.journal import Journal, JournalError
from table.play.resume import open_journal_resilient, resumable_game
from table.play.scenario import load_scenario, run_scenario
from table.venue.relay import Relay, RelayConfig
from venue.helpers import drain, publish_into_a_list

CORPUS = Path(__file__).resolve().parents[1] / "badinput"
SCENARIOS = CORPUS.parents[1] / "docs" / "scenarios"
SETTINGS = sorted((CORPUS / "settings").iterdir())
JOURNALS = sorted([*(CORPUS / "journals").glob("*.db"), *(CORPUS / "damaged-journals").glob("*.db")])
# Journals whose one game the relay cannot read: it is skipped, counted and logged once.
UNREADABLE = {"setup-nested-deep.db", "setup-not-json.db", "unknown-game.db", "unknown-variant.db"}
TOO_DEEP = "nests tables and arrays more than 64 deep"
SENTENCES = {
    "nested-20000-deep.toml": TOO_DEEP,
    "nested-inline-tables.toml": TOO_DEEP,
    "nested-dotted-keys.toml": TOO_DEEP,
    "nested-header.toml": TOO_DEEP,
    "not-toml.toml": "is not valid TOML",
    "not-utf8.toml": "is not UTF-8 text",
    "section-is-a-string.toml": "must be a table of settings",
    "port-a-word.toml": "port must be a whole number, not str",
    "port-out-of-range.toml": "must be a port number from 0 to 65535",
    "tls-a-string.toml": "tls must be true or false, not str",
    "password-file-a-number.toml": "password_file must be a string, not int",
    "misspelt-key.toml": "has no setting 'brokr'",
}


def test_every_settings_case_names_what_it_must_say() -> None:
    assert {p.name for p in SETTINGS} == set(SENTENCES)


@pytest.mark.parametrize("command", ["relay", "venue"])
@pytest.mark.parametrize("path", SETTINGS, ids=[p.name for p in SETTINGS])
def test_a_bad_settings_file_is_one_sentence(command: str, path: Path, tmp_path: Path,
                                             capfd: pytest.CaptureFixture[str]) -> None:
    # Each command is kept from running for ever should the file be taken: the relay only
    # writes its unit drop-in, the venue only imports (a journal that is not there).
    extra = ["--unit-dropin"] if command == "relay" else ["--db", str(tmp_path / "venue.db"), "--import",
                                                          f"T1={tmp_path / 'none.db'}"]
    try:
        status = main([command, "--config", str(path), *extra])
    except SystemExit as exc:
        status = int(exc.code or 0)
    err = capfd.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("table: "), err
    assert SENTENCES[path.name] in err
    assert not list(tmp_path.iterdir()), "nothing is written for a refused file"


@pytest.mark.parametrize("path", JOURNALS, ids=[p.name for p in JOURNALS])
def test_the_relay_skips_a_game_it_cannot_read_and_publishes_the_rest(
        path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    journal = tmp_path / "journal.db"
    shutil.copy(path, journal)
    # What the table does with such a file when it starts (its own opener): closes a game
    # it cannot read (keeping its rows) or sets a damaged tail aside, then plays on.
    try:
        with open_journal_resilient(journal) as table:
            found = resumable_game(table)
            if found is not None:
                table.finish(found[0].id, None)
            run_scenario(load_scenario(SCENARIOS / "ugah-whole-game.toml"), table)
        played = True
    except JournalError:
        played = False
    caplog.set_level(logging.WARNING, logger="table.venue")
    relay = Relay(RelayConfig(table="T1", journal=journal, state_dir=tmp_path / "state",
                              backlog_hours=1e6, republish_hours=1e6))
    sent = publish_into_a_list(relay)
    try:
        drain(relay, sent)
        relay._republish = True  # a reconnection: the results again, the unreadable game still skipped
        relay._last_status = ("", 0.0)
        drain(relay, sent)
    finally:
        relay.outbox.close()
        relay.follower.close()
    results = [m.payload for m in sent if m.payload["type"] == "result"]
    if played:
        assert results and results[-1]["engine"] == "ugah_ugah", results
        statuses = [m.payload for m in sent if m.payload["type"] == "status"]
        assert statuses and statuses[-1]["game"]["engine"] == "ugah_ugah"
    skipped = [r for r in caplog.records if "cannot be read" in r.getMessage()]
    if path.name in UNREADABLE:
        assert played and len(relay.follower.unreadable) == 1
        assert len(skipped) == 1, [r.getMessage() for r in skipped]  # once, over two passes and a republish
        assert "game 1 cannot be read" in skipped[0].getMessage() and "\n" not in skipped[0].getMessage()
        assert all(m.payload.get("game") != 1 for m in sent if m.payload["type"] != "status")
    else:
        assert not skipped and not relay.follower.unreadable
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


def test_the_relay_status_file_counts_skipped_games(tmp_path: Path) -> None:
    import json

    journal = tmp_path / "journal.db"
    shutil.copy(CORPUS / "journals" / "setup-not-json.db", journal)
    relay = Relay(RelayConfig(table="T1", journal=journal, state_dir=tmp_path / "state", backlog_hours=1e6))
    relay._publish = lambda msg: None  # type: ignore[method-assign,assignment]
    relay._connected.set()
    try:
        relay.step()
    finally:
        relay.outbox.close()
        relay.follower.close()
    assert json.loads((tmp_path / "state" / "relay-status.json").read_text())["games_skipped"] == 1


def test_venue_import_leaves_out_a_game_it_cannot_read(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "journal.db"
    shutil.copy(CORPUS / "journals" / "setup-not-json.db", journal)
    with Journal(journal) as table:
        table.finish(1, None)
        run_scenario(load_scenario(SCENARIOS / "ugah-whole-game.toml"), table)
    assert main(["venue", "--db", str(tmp_path / "venue.db"), "--import", f"T1={journal}"]) == 0
    out, err = capfd.readouterr()
    assert "game 1 of" in err and "cannot be read" in err and "Traceback" not in err
    assert "T1: 1 new result(s) of 2 finished game(s)" in out
