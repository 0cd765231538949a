"""Shared code never names a game: a game is its own engine package and screen package,
and everything else (the lobby, the loop, the sounds, the config check, the pictures)
asks the registered games through the contract (:mod:`table.games.contract`,
:class:`table.display.games.GameRenderer`)."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from own_packages import all_own_folders, shared_files

from table.common.pofile import read_po
from table.games import games

ROOT = Path(__file__).resolve().parent.parent / "table"


def _names() -> re.Pattern[str]:
    """Every registered game's engine name and title, as whole words, in any case."""
    words = set()
    for game in games().values():
        words.add(re.escape(game.name))
        title = re.sub(r"^\W+|\W+$", "", game.engine.title)  # "Ugah Ugah!" also as "Ugah Ugah"
        words.add(r"\s+".join(re.escape(w) for w in title.split()))
    return re.compile(r"(?<!\w)(?:" + "|".join(sorted(words, key=len, reverse=True)) + r")(?!\w)", re.IGNORECASE)


def _shared_modules() -> list[Path]:
    return shared_files(ROOT)


def _shared_data() -> list[Path]:
    """The shared files that are not Python: catalogues, the venue's page and schema."""
    return [p for p in shared_files(ROOT, "*") if p.is_file() and p.suffix not in (".py", ".pyc", ".mo")]


def _named(path: Path, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """``(line, name)`` for each identifier or string (docstrings too) of ``path`` that
    names a game; comments are not looked at."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type in (tokenize.NAME, tokenize.STRING) and (match := pattern.search(token.string)):
            found.append((token.start[0], match.group(0)))
    return found


def test_every_game_has_its_own_packages_apart_from_the_shared_code() -> None:
    own = all_own_folders()
    assert len(own) == 2 * len(games()) >= 8
    assert all(f != ROOT / "games" and f != ROOT / "display" / "games" for f in own)


def test_no_shared_module_names_a_registered_game() -> None:
    pattern = _names()
    modules = _shared_modules()
    assert any(p.name == "screens.py" for p in modules) and any(p.name == "contract.py" for p in modules)
    found = [f"{path.relative_to(ROOT.parent)}:{line}: {name!r}" for path in modules
             for line, name in _named(path, pattern)]
    assert not found, "shared code names a game (ask the game's contract instead):\n" + "\n".join(found)


def test_no_shared_catalogue_or_data_file_names_a_registered_game() -> None:
    """The shared catalogue holds the shared words only (a game's words are in its own,
    :attr:`table.games.contract.Game.catalogue`); the venue's page and schema ask the
    results what was played."""
    pattern = _names()
    files = _shared_data()
    assert {p.name for p in files} >= {"en.po", "de.po", "page.html", "schema.json"}
    found = []
    for path in files:
        where = path.relative_to(ROOT.parent)
        if path.suffix == ".po":
            for entry in read_po(path):
                for text in (entry.msgid, entry.plural or "", *entry.msgstr):
                    if match := pattern.search(text):
                        found.append(f"{where}: {entry.msgid!r}: {match.group(0)!r}")
        else:
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if match := pattern.search(line):
                    found.append(f"{where}:{n}: {match.group(0)!r}")
    assert not found, "a shared file names a game (move the words to the game's catalogue):\n" + "\n".join(found)


def test_the_check_sees_a_game_named_in_a_string_or_a_docstring(tmp_path: Path) -> None:
    name = next(iter(games()))
    module = tmp_path / "m.py"
    module.write_text(f'"""Not for {name.upper()}."""\n\n# {name} in a comment is not looked at\n'
                      f'first = "{name}"\n{name} = 1\nother = "{name}s"\n', encoding="utf-8")
    assert [line for line, _ in _named(module, _names())] == [1, 4, 5]
