"""Shared code never names a game: a game is its own engine package and screen package,
and everything else (the lobby, the loop, the sounds, the config check, the pictures)
asks the registered games through the contract (:mod:`table.games.contract`,
:class:`table.display.games.GameRenderer`)."""

from __future__ import annotations

import importlib
import io
import re
import tokenize
from pathlib import Path

from table.games import games

ROOT = Path(__file__).resolve().parent.parent / "table"


def _own_folders() -> list[Path]:
    """Each registered game's own packages: its engine's and its screen's."""
    folders = []
    for game in games().values():
        for module in (type(game.engine).__module__, game.screen.partition(":")[0]):
            found = importlib.import_module(module)
            where = Path(found.__file__ or "")
            # The package a module is in: the engine module's folder, the screen package itself.
            folders.append(where.parent.resolve())
    return folders


def _names() -> re.Pattern[str]:
    """Every registered game's engine name and title, as whole words, in any case."""
    words = set()
    for game in games().values():
        words.add(re.escape(game.name))
        title = re.sub(r"^\W+|\W+$", "", game.engine.title)  # "Ugah Ugah!" also as "Ugah Ugah"
        words.add(r"\s+".join(re.escape(w) for w in title.split()))
    return re.compile(r"(?<!\w)(?:" + "|".join(sorted(words, key=len, reverse=True)) + r")(?!\w)", re.IGNORECASE)


def _shared_modules() -> list[Path]:
    own = _own_folders()
    return sorted(p for p in ROOT.rglob("*.py") if not any(p.resolve().is_relative_to(f) for f in own))


def _named(path: Path, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """``(line, name)`` for each identifier or string (docstrings too) of ``path`` that
    names a game; comments are not looked at."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type in (tokenize.NAME, tokenize.STRING) and (match := pattern.search(token.string)):
            found.append((token.start[0], match.group(0)))
    return found


def test_every_game_has_its_own_packages_apart_from_the_shared_code() -> None:
    own = _own_folders()
    assert len(own) == 2 * len(games()) >= 8
    assert all(f != ROOT / "games" and f != ROOT / "display" / "games" for f in own)


def test_no_shared_module_names_a_registered_game() -> None:
    pattern = _names()
    modules = _shared_modules()
    assert any(p.name == "screens.py" for p in modules) and any(p.name == "contract.py" for p in modules)
    found = [f"{path.relative_to(ROOT.parent)}:{line}: {name!r}" for path in modules
             for line, name in _named(path, pattern)]
    assert not found, "shared code names a game (ask the game's contract instead):\n" + "\n".join(found)


def test_the_check_sees_a_game_named_in_a_string_or_a_docstring(tmp_path: Path) -> None:
    name = next(iter(games()))
    module = tmp_path / "m.py"
    module.write_text(f'"""Not for {name.upper()}."""\n\n# {name} in a comment is not looked at\n'
                      f'first = "{name}"\n{name} = 1\nother = "{name}s"\n', encoding="utf-8")
    assert [line for line, _ in _named(module, _names())] == [1, 4, 5]
