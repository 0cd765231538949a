"""``table new-game NAME [--dir DIR]``: write a new game's distribution to start from.

The new folder ``DIR/table-NAME`` (the distribution's name, ``_`` written ``-``) gets a
complete game in a distribution of its own, registered through the table's entry point
group: its ``pyproject.toml``, the registration and the
rules (package ``NAME``), the screen (package ``NAME_screen``), its words in every
language the table speaks, a written game for ``table play``, its own tests and a
README. As written it plays (a press race over a few rounds), keeps the game contract,
draws in every language, installs with ``pip install -e DIR/table-NAME`` and type-checks
with ``mypy --strict``; its author changes it from there (``docs/writing-a-game.md``).

The files come from the template folder ``game_template`` beside this module (package
data of the wheel): each ``*.tmpl`` file with ``$name``, ``$title`` and ``$dist``
filled in, ``NAME`` in a path replaced by the game's name.
"""

from __future__ import annotations

import argparse
import importlib.util
import keyword
import os
import re
import shutil
import tempfile
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from string import Template

from table.commands import COMMANDS, named_path
from table.common.errors import TableError

NAME_RULE = re.compile(r"[a-z][a-z0-9_]{1,39}")
"""A game's name: a lower-case Python identifier of 2 to 40 characters (it is the game's
key in configs and journals, and the name of its package)."""

SUFFIX = ".tmpl"


def check_name(name: str) -> str:
    """``name`` if it can name a new game here; else :class:`TableError`, one sentence."""
    if not NAME_RULE.fullmatch(name) or keyword.iskeyword(name) or name.endswith("_"):
        raise TableError(f"'{name}' cannot name a game: use 2 to 40 lower-case letters, digits and '_', "
                         "starting with a letter (a Python package name, such as my_game)")
    from table.games.contract import games

    if name in games():
        raise TableError(f"there is a game called '{name}' installed already: choose another name")
    for package in (name, f"{name}_screen"):
        try:
            taken = importlib.util.find_spec(package) is not None
        except (ImportError, ValueError):
            taken = True
        if taken:
            raise TableError(f"a Python module called '{package}' is installed already, which the game's "
                             f"package would clash with: choose another name")
    return name


def title_of(name: str) -> str:
    """The title a new game starts with: ``my_game`` is "My game"."""
    words = name.replace("_", " ").split()
    return " ".join(words)[:1].upper() + " ".join(words)[1:]


def _files(folder: Traversable, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Traversable]]:
    """Every template file under ``folder`` with its path as parts, sorted."""
    out: list[tuple[tuple[str, ...], Traversable]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            if entry.name != "__pycache__":
                out += _files(entry, (*prefix, entry.name))
        elif entry.name.endswith(SUFFIX):
            out.append(((*prefix, entry.name.removesuffix(SUFFIX)), entry))
    return out


def _target(parts: tuple[str, ...], name: str) -> Path:
    """A template file's place in the new game's folder (``NAME`` in a name replaced)."""
    return Path(*(part.replace("NAME", name) for part in parts))


def distribution_of(name: str) -> str:
    """The distribution (and folder) name of the game ``name``: ``my_game`` is
    ``table-my-game``. A folder named as the package would shadow it for Python run
    beside it, as a namespace package."""
    return "table-" + name.replace("_", "-")


def write_game(name: str, folder: Path) -> Path:
    """Write the game ``name`` (checked) as the new folder ``folder/table-NAME``; returns
    it. Nothing is left behind when writing fails."""
    check_name(name)
    if not folder.is_dir():
        raise TableError(f"{folder} is not a folder: --dir names the folder the game's folder is made in")
    target = folder / distribution_of(name)
    if target.exists() or target.is_symlink():
        raise TableError(f"{target} exists already: the game gets a new folder (choose another --dir or name)")
    values = {"name": name, "title": title_of(name), "dist": distribution_of(name)}
    template = resources.files("table.commands") / "game_template"
    files = _files(template)
    if not files:
        raise TableError("the game template is missing from this installation of the table: reinstall it")
    # Written beside the target first, then renamed: never half a game in its place.
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=folder))
    try:
        for parts, source in files:
            path = work / _target(parts, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(Template(source.read_text(encoding="utf-8")).substitute(values), encoding="utf-8")
        os.chmod(work, 0o755)
        work.rename(target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target


def cmd_new_game(args: argparse.Namespace) -> int:
    folder = Path(named_path(args.dir, "--dir") or ".")
    target = write_game(args.name, folder)
    shown = str(target) if target.is_absolute() else f"./{target}"
    print(f"table: the game '{args.name}' is in {shown}; next: pip install -e {shown}, then python -m pytest {shown}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("new-game", help=COMMANDS["new-game"].help,
                       description="Write a new game's distribution (rules, screen, words, tests) to start "
                                   "from; docs/writing-a-game.md goes on from there.")
    p.add_argument("name", help="the game's name: lower-case letters, digits and '_' (such as my_game)")
    p.add_argument("--dir", default=None, help="the folder to make the game's folder in (default: here)")
    p.set_defaults(func=cmd_new_game)
