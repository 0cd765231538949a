"""The options each game starts with: ``[games.NAME]`` from table.toml plus the game's
own data files under ``config/NAME/`` (a die, a map, a deck, chip values).

A game package that reads data files offers a module-level
``config_options(config_dir) -> dict`` beside its ``ENGINE`` (file reading stays out of
the pure engine). It returns setup options, raising :class:`table.errors.TableError`
for a bad file; the options are plain data, so a journaled setup replays without the files.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from table.config import TableConfig
from table.games import registry


def game_options(config: TableConfig, config_dir: str | Path) -> dict[str, dict[str, Any]]:
    """Setup options by game name for the lobby to start games with."""
    options: dict[str, dict[str, Any]] = {}
    for name, engine in registry().items():
        opts: dict[str, Any] = {}
        package = ".".join(type(engine).__module__.split(".")[:3])
        loader = getattr(importlib.import_module(package), "config_options", None)
        if loader is not None:
            opts.update(loader(Path(config_dir)))
        opts.update(config.games.get(name, {}))
        options[name] = opts
    return options
