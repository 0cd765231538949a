"""The die file in config/ubongo/ matches the built-in die, and bad files get one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.common.datafiles import defaults_dir
from table.common.errors import TableError
from table.games.base import SetupError
from table.games.ubongo.die import DEFAULT_DIE, die_from_options, load_die

CONFIG = defaults_dir() / "ubongo" / "die.toml"


def test_shipped_die_file_is_the_default_die() -> None:
    assert die_from_options(load_die(CONFIG)) == DEFAULT_DIE


def test_every_pip_count_names_a_symbol_and_a_row() -> None:
    rows = sorted(DEFAULT_DIE.symbols[DEFAULT_DIE.symbol_for_face(n) or 0].row for n in range(1, 7))
    assert rows == [1, 2, 3, 4, 5, 6]
    assert DEFAULT_DIE.symbol_for_face(0) is None
    assert DEFAULT_DIE.symbol_for_face(True) is None
    assert DEFAULT_DIE.symbol_for_face(" moon ") == 1


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[symbol]]\nname = 'A'\n", "exactly 6 symbols"),
        ("this is = not toml [", "cannot read"),
    ],
)
def test_bad_die_files_are_one_sentence(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "die.toml"
    path.write_text(text)
    with pytest.raises(TableError, match=words):
        load_die(path)


def test_missing_die_file(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="no Ubongo die file"):
        load_die(tmp_path / "nope.toml")


def test_die_options_are_checked() -> None:
    six = [{"name": f"S{n}", "picture": "ring", "row": n} for n in range(1, 7)]
    with pytest.raises(SetupError, match="different row"):
        die_from_options({"symbols": [{**s, "row": 1} for s in six]})
    with pytest.raises(SetupError, match="pips"):
        die_from_options({"symbols": six, "pips": {"1": "S1"}})
    with pytest.raises(SetupError, match="different symbols"):
        die_from_options({"symbols": six, "pips": {str(n): "S1" for n in range(1, 7)}})
    assert die_from_options({"symbols": six}).pips == (0, 1, 2, 3, 4, 5)
