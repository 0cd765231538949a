"""Where each registered game's own code and words are: for the tests that keep the
shared code and the shared catalogue free of games (``test_no_game_names.py``,
``common/test_i18n.py``).

A game is its engine's package and its screen's package (``docs/architecture.md``);
its words are in the catalogue its :class:`table.games.contract.Game` names. Everything
else in ``table/`` is shared, and its words are in ``table.common``'s catalogue.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib import resources
from pathlib import Path

import table
from table.common.pofile import Entry, message_sources, parse_po
from table.games import Game, games
from table.games.contract import engine_of

TABLE = Path(table.__file__).resolve().parent
SHARED_CATALOGUE = "table.common"


def own_folders(game: Game) -> list[Path]:
    """The folders of ``game``'s own packages: its engine module's and its screen's."""
    folders = []
    for module in (type(engine_of(game)).__module__, game.screen.partition(":")[0]):
        where = Path(importlib.import_module(module).__file__ or "")
        # The package a module is in: the engine module's folder, the screen package itself.
        folders.append(where.parent.resolve())
    return folders


def all_own_folders() -> list[Path]:
    return [folder for game in games().values() for folder in own_folders(game)]


def shared_files(root: Path = TABLE, pattern: str = "*.py") -> list[Path]:
    """The files under ``root`` matching ``pattern`` outside every game's own folders."""
    own = all_own_folders()
    return sorted(p for p in root.rglob(pattern) if not any(p.resolve().is_relative_to(f) for f in own))


@cache
def catalogue_sources() -> dict[str | None, list[Path]]:
    """The files whose messages each catalogue must hold, by the catalogue's
    package: the shared one's, then each game's (``None``: the games without a catalogue,
    whose modules must mark nothing)."""
    out: dict[str | None, list[Path]] = {SHARED_CATALOGUE: shared_files()}
    for game in games().values():
        files = {p for folder in own_folders(game) for p in message_sources(folder)}
        out[game.catalogue] = sorted({*out.get(game.catalogue, []), *files})
    return out


@cache
def catalogue(package: str, code: str) -> tuple[Entry, ...]:
    """The messages of ``package``'s catalogue in language ``code`` (the header left out)."""
    text = (resources.files(package) / "locale" / f"{code}.po").read_text(encoding="utf-8")
    return tuple(e for e in parse_po(text, f"{package} {code}.po") if e.msgid)


def catalogues(code: str) -> dict[str, tuple[Entry, ...]]:
    """Every catalogue in language ``code`` by package: the shared one, then each game's."""
    return {package: catalogue(package, code) for package in catalogue_sources() if package is not None}


def all_messages(code: str) -> list[Entry]:
    """The messages of every catalogue in language ``code``, shared and the games'."""
    return [e for entries in catalogues(code).values() for e in entries]
