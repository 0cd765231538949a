"""Where the table finds its data files: the shipped defaults, overridden file by file.

The default configuration and data (``table.toml``, ``hardware.toml``, each game's own
files under its name, such as a board, a map, decks, a die or chip values, the dice
reader's settings and face model) ship inside the installed package as ``table/defaults``; in the
repository they are the top-level ``config/`` folder, which the build (``setup.py``) maps
there. They are found where the installed package is (as :mod:`importlib.resources` finds
them), never beside the source tree.

An owner's config directory (``--config DIR``, ``/etc/table`` in the kiosk) overrides them
file by file: :func:`data_file` returns ``DIR/<relative>`` when that file exists and the
shipped default otherwise, and :func:`data_files` merges a folder's files by name, the
owner's copy winning. The directory in force is set once per process by the command that
runs (:func:`use_config_dir`), because the engines and screens look their data up by
name and must all see the same files.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from table.common.errors import TableError

DEFAULTS = "defaults"
"""The folder of the ``table`` package that holds the shipped defaults."""

_config_dir: Path | None = None


@cache
def defaults_dir() -> Path:
    """The folder holding the shipped defaults (inside the installed package).

    Raises :class:`TableError` with one sentence when the install carries no defaults
    (a broken or partial install), rather than letting a later file open fail obscurely.
    """
    path = package_path(DEFAULTS)
    if not (path / "table.toml").is_file():
        raise TableError(f"the table's shipped data is incomplete ({path / 'table.toml'} is missing); "
                         "reinstall the table")
    return path


SOURCE_FOLDERS = {"defaults": "config", "system": "systemd", "docs": "docs", "firmware": "firmware"}
"""Which top-level folder of the project each shipped data folder is built from."""


def package_path(folder: str) -> Path:
    """A data folder shipped inside the installed ``table`` package (``defaults``,
    ``system``, ``docs``, ``firmware``), as a file-system path.

    In a wheel install it is ``table/<folder>`` beside the code. An editable install
    (a developer's checkout) has no such folder, so the checkout's top-level folder that
    the build would copy is used instead, found through the install's own record of
    where it came from (``direct_url.json``, PEP 610), not through the current directory.
    """
    inside = _package_root() / folder
    if inside.is_dir():
        return inside
    checkout = editable_source()
    if checkout is not None and (checkout / SOURCE_FOLDERS[folder]).is_dir():
        return checkout / SOURCE_FOLDERS[folder]
    return inside


def _package_root() -> Path:
    """The folder of the installed ``table`` package: beside its ``__init__.py`` when the
    package is a folder on disk (a wheel or editable install), which is what
    :mod:`importlib.resources` answers there; anything else (a zip) is asked of it.
    Importing it (with tempfile, zipfile and random) cost the start more than this test."""
    spec = sys.modules["table"].__spec__  # this module's own package: always imported
    origin = spec.origin if spec is not None else None
    if origin is not None and os.path.basename(origin) == "__init__.py" and os.path.isfile(origin):
        return Path(origin).parent
    import importlib.resources

    return Path(str(importlib.resources.files("table")))


@cache
def editable_source() -> Path | None:
    """The checkout an editable install of the table came from, else ``None``.

    Every ``game-table`` distribution on the path is asked, not only the first: a stray
    ``*.egg-info`` left by a build in some folder on the path must not hide the install's
    own record.
    """
    from urllib.parse import unquote, urlparse

    for _, folder in distribution_folders():
        if _distribution_name(folder.name) != "game_table":
            continue
        try:
            raw = (folder / "direct_url.json").read_text(encoding="utf-8")
        except OSError:
            continue
        try:
            info = json.loads(raw)
        except ValueError:
            continue
        url = str(info.get("url", ""))
        if info.get("dir_info", {}).get("editable") and url.startswith("file://"):
            return Path(unquote(urlparse(url).path))
    return None


def distribution_folders() -> Iterator[tuple[str, Path]]:
    """Every installed distribution's metadata folder (``NAME-VERSION.dist-info`` or
    ``.egg-info``) in the folders of ``sys.path``, in path order: its normalised name
    and the folder. Read directly: importing ``importlib.metadata`` (the e-mail, zip
    and URL packages with it) cost the kiosk's start more than this scan."""
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                yield _distribution_name(name), Path(entry or ".") / name


def _distribution_name(folder: str) -> str:
    """``Game-Table-0.1.0.dist-info`` -> ``game_table`` (the names' normal form)."""
    return re.sub(r"[-_.]+", "_", folder.rpartition(".")[0].partition("-")[0]).lower()


def use_config_dir(directory: str | Path | None) -> None:
    """Make ``directory`` the owner's config directory for this process (``None``: defaults only).

    Cached loaders key on the resolved file path, so switching directories never serves a
    file read from the previous one.
    """
    global _config_dir
    _config_dir = Path(directory) if directory is not None else None


def config_dir() -> Path | None:
    """The owner's config directory in force, or ``None`` when only the defaults are used."""
    return _config_dir


def data_file(relative: str, directory: str | Path | None = None) -> Path:
    """The file ``relative`` (a ``/``-separated path such as ``"GAME/board.toml"``).

    ``directory`` (default: the one set by :func:`use_config_dir`) wins when it holds the
    file; otherwise the shipped default is returned. The returned path may not exist when
    neither has the file: the caller reports that in its own words.
    """
    base = Path(directory) if directory is not None else _config_dir
    if base is not None:
        own = base / relative
        if os.path.lexists(own):
            # Present but not a regular file (a FIFO, a device, a folder): the reader
            # refuses it in one sentence instead of the default taking its place unseen.
            return own
    return defaults_dir() / relative


def data_files(folder: str, pattern: str, directory: str | Path | None = None) -> list[Path]:
    """Every file matching ``pattern`` in ``folder`` of the defaults and the config directory.

    Files are merged by name (the config directory's copy replaces the default of the same
    name, and its extra files are added) and returned sorted by name, so an owner adds a
    deck by dropping a file in and replaces a shipped one by giving it the same name.
    """
    base = Path(directory) if directory is not None else _config_dir
    found: dict[str, Path] = {}
    for root in (defaults_dir(), base):
        if root is None or not (root / folder).is_dir():
            continue
        for path in (root / folder).glob(pattern):
            if path.is_file():
                found[path.name] = path
    return [found[name] for name in sorted(found)]
