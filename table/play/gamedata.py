"""The options each game starts with: ``[games.NAME]`` from table.toml plus the game's
own data files under ``NAME/`` of the config directory or the shipped defaults (a die, a
map, a deck, chip values; see :mod:`table.common.datafiles`).

A game that reads data files says so in its contract (``Game.data_options``, see
:mod:`table.games.contract`; file reading stays out of the pure engine). It returns setup
options, raising :class:`table.common.errors.TableError` for a bad file; the options are
plain data, so a journaled setup replays without the files.

The table's language reaches every engine that takes a ``language`` option (a quiz plays
the deck written in it); a game's own ``[games.NAME] language`` in table.toml still wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table.common.checks import did_you_mean
from table.common.config import TableConfig
from table.common.errors import TableError
from table.games import games, registry
from table.games.base import GameError, GameSetup


def option_problems(
    config: TableConfig, config_dir: str | Path | None = None, language: str | None = None, *,
    trial: bool = True,
) -> list[str]:
    """Every problem with the games' options: unknown keys (with the key meant), bad data
    files, and (``trial``) values the engine refuses, found by setting up a trial game
    with them. The trials read every game's data (a quiz's whole deck): ``table run``
    leaves them to the game's start and ``table check-config`` makes them."""
    problems: list[str] = []
    where = config.source
    try:
        options = game_options(config, config_dir, language)
    except (TableError, ValueError) as exc:
        return [str(exc)]
    for name, opts in options.items():
        engine = registry()[name]
        known = engine.option_names
        if known is not None:
            for key in sorted(set(config.games.get(name, {})) - set(known)):
                problems.append(f"{where}: games.{name}.{key}: unknown option{did_you_mean(key, sorted(known))}")
        if not trial:
            continue
        n = max(engine.min_stations, min(engine.max_stations, config.stations))
        tried = {k: v for k, v in opts.items() if k not in ("levels", "colours")}
        try:
            engine.new_game(GameSetup(name, engine.variants[0], tuple(range(n)), options=tried), 0)
        except (GameError, TypeError, ValueError) as exc:
            problems.append(f"{where}: games.{name}: {exc}")
    return problems


def game_options(
    config: TableConfig, config_dir: str | Path | None = None, language: str | None = None
) -> dict[str, dict[str, Any]]:
    """Setup options by game name for the lobby to start games with (``config_dir``
    ``None``: the directory in force, else the shipped defaults; ``language``: "en" or
    "de", given to engines with a ``language`` option; ``None``: table.toml's
    ``[table] language``)."""
    options: dict[str, dict[str, Any]] = {}
    for name, engine in registry().items():
        opts: dict[str, Any] = {}
        known = engine.option_names or frozenset()  # None (takes any option): none is given unasked
        if "language" in known:
            # The table's language picks the game's language-bound data (a deck of questions);
            # the lobby replaces it with the language in force when a game starts.
            opts["language"] = language if language is not None else config.language
        if config.tray.camera and "dice_reader" in known:
            opts["dice_reader"] = True  # the tray camera reads throws; the knob stays the fallback
        opts.update(games()[name].data_options(Path(config_dir) if config_dir is not None else None))
        opts.update(config.games.get(name, {}))
        options[name] = opts
    return options
