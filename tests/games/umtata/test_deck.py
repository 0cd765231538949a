"""The question deck and ``table deck check``."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.cli import main
from table.common.datafiles import defaults_dir
from table.games.umtata.deck import check_deck, deck_files


def test_shipped_deck_is_good(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", "check"]) == 0
    out = capsys.readouterr().out
    assert "the deck is good" in out and "per topic" in out and "Liechtenstein" in out
    report = check_deck(deck_files(defaults_dir() / "umtata"))
    assert report.ok and len(report.questions) >= 400


def test_broken_deck_lists_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "questions-bad.toml"
    bad.write_text(
        'topic = "capital"\n'
        "question = [\n"
        '{ country = "xx", text = "Umtata has a capital.", explain = "nowhere" },\n'
        '{ country = "fr", text = "Umtata\'s capital is Paris.", explain = "Paris." },\n'
        '{ country = "fr", text = "UMTATA\'S capital is   Paris!", explain = "again" },\n'
        '{ country = "de", text = "Umtata\'s capital is Berlin." },\n'
        '{ country = "de", text = "Umtata bakes pretzels.", topic = "baking", explain = "Germany." },\n'
        '{ country = "de", text = "Germany is big.", explain = "no placeholder" },\n'
        "]\n",
        encoding="utf-8",
    )
    broken = tmp_path / "questions-syntax.toml"
    broken.write_text("question = [ { country = \n", encoding="utf-8")
    assert main(["deck", "check", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown country 'xx'" in err
    assert "duplicate question" in err
    assert "missing explanation" in err
    assert "unknown topic 'baking'" in err
    assert "Umtata" in err and "questions-syntax.toml: not valid TOML" in err
    assert "at least 5 needed" in err and "at least 400 needed" in err
    assert "Traceback" not in err


def test_missing_folder_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", "check", "--dir", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip() == f"table: the deck folder {tmp_path / 'nope'} does not exist"


def test_an_owner_file_joins_the_deck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in deck_files(defaults_dir() / "umtata"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (tmp_path / "questions-ours.toml").write_text(
        'question = [ { country = "mt", topic = "culture", text = "Umtata is where we met.",'
        ' explain = "Malta, 2019." } ]\n',
        encoding="utf-8",
    )
    assert main(["deck", "check", "--dir", str(tmp_path)]) == 0
    shipped = len(check_deck(deck_files(defaults_dir() / "umtata")).questions)
    assert f"{shipped + 1} good questions" in capsys.readouterr().out


def test_every_question_names_a_single_board_country() -> None:
    report = check_deck(deck_files(defaults_dir() / "umtata"))
    for q in report.questions:
        assert q.explain and len(q.explain) < 140, q.source
        assert len(q.text) < 130, q.source
