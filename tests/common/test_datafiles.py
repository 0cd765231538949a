"""Data files: shipped defaults inside the package, overridden file by file by a config directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from table.cli import main
from table.common import datafiles
from table.games.umtata.board import load_board
from table.games.umtata.deck import default_deck


@pytest.fixture(autouse=True)
def no_config_dir() -> Iterator[None]:
    datafiles.use_config_dir(None)
    yield
    datafiles.use_config_dir(None)


def test_the_defaults_are_found_through_the_package_not_the_current_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    defaults = datafiles.defaults_dir()
    assert (defaults / "table.toml").is_file() and (defaults / "umtata" / "board.toml").is_file()
    assert not str(defaults).startswith(str(tmp_path))
    assert datafiles.data_file("dice/faces.npz") == defaults / "dice" / "faces.npz"


def test_a_config_directory_overrides_file_by_file(tmp_path: Path) -> None:
    (tmp_path / "umtata").mkdir()
    (tmp_path / "umtata" / "speech.toml").write_text("speak_questions = false\n")
    assert datafiles.data_file("umtata/speech.toml", tmp_path) == tmp_path / "umtata" / "speech.toml"
    # What the directory lacks comes from the defaults.
    assert datafiles.data_file("umtata/board.toml", tmp_path) == datafiles.defaults_dir() / "umtata" / "board.toml"
    datafiles.use_config_dir(tmp_path)
    assert datafiles.data_file("umtata/speech.toml") == tmp_path / "umtata" / "speech.toml"


def test_deck_files_merge_by_name_and_the_owners_copy_wins(tmp_path: Path) -> None:
    shipped = datafiles.data_files("umtata", "questions*.toml")
    assert len(shipped) >= 8
    (tmp_path / "umtata").mkdir()
    own = tmp_path / "umtata" / "questions-ours.toml"
    own.write_text((datafiles.defaults_dir() / "umtata" / "questions-capitals.toml").read_text())
    replaced = tmp_path / "umtata" / "questions-sport.toml"
    replaced.write_text((datafiles.defaults_dir() / "umtata" / "questions-sport.toml").read_text())
    merged = datafiles.data_files("umtata", "questions*.toml", tmp_path)
    assert own in merged and replaced in merged
    assert datafiles.defaults_dir() / "umtata" / "questions-sport.toml" not in merged
    assert len(merged) == len(shipped) + 1
    assert [p.name for p in merged] == sorted(p.name for p in merged)


def test_the_engines_read_the_owners_board_and_deck(tmp_path: Path) -> None:
    """A board edited in the config directory is the one the game uses (names here)."""
    (tmp_path / "umtata").mkdir()
    text = (datafiles.defaults_dir() / "umtata" / "board.toml").read_text()
    board = load_board()
    first = board.countries[0]
    (tmp_path / "umtata" / "board.toml").write_text(text.replace(f'"{first.name}"', '"Owner Land"', 1))
    shipped_deck = default_deck()
    datafiles.use_config_dir(tmp_path)
    assert load_board().countries[0].name == "Owner Land"
    assert default_deck() == shipped_deck  # no owner deck: the shipped one
    datafiles.use_config_dir(None)
    assert load_board().countries[0].name == first.name


def test_check_config_reads_the_owners_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ubongo").mkdir()
    (tmp_path / "ubongo" / "die.toml").write_text("not toml [")
    assert main(["check-config", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "ubongo" / "die.toml") in err and "Traceback" not in err
    # An empty directory: every file from the defaults, and all is well.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["check-config", str(empty)]) == 0


def test_an_install_without_its_data_says_so_in_one_sentence(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    from table.common.errors import TableError

    datafiles.defaults_dir.cache_clear()
    monkeypatch.setattr(datafiles, "package_path", lambda folder: tmp_path / folder)
    try:
        with pytest.raises(TableError, match="reinstall the table") as info:
            datafiles.defaults_dir()
        assert "\n" not in str(info.value)
    finally:
        monkeypatch.undo()
        datafiles.defaults_dir.cache_clear()
