"""The registry of game engines.

Every module (or package) in this package that defines a module-level ``ENGINE``
is a game; its ``ENGINE.name`` is the key used by configs, scenarios and journals.
Discovery instead of a hand-kept list means adding a game touches no shared file.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

from table.games.base import Engine, GameError


class UnknownGameError(GameError):
    """A name that no registered engine answers to."""


@cache
def registry() -> dict[str, Engine[Any]]:
    """All engines by name, discovered once per process."""
    found: dict[str, Engine[Any]] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        engine = getattr(module, "ENGINE", None)
        if engine is not None:
            found[engine.name] = engine
    return dict(sorted(found.items()))


def get_engine(name: str) -> Engine[Any]:
    """The engine called ``name``; raises :class:`UnknownGameError` with the known names."""
    games = registry()
    try:
        return games[name]
    except KeyError:
        raise UnknownGameError(
            f"there is no game called '{name}' (known games: {', '.join(games)})"
        ) from None
