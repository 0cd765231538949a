"""The registry of games.

Games are found through the ``table.games`` entry point group (see
:mod:`table.games.contract`): a game in its own distribution registers the same way as
the four shipped with the table, and adding one touches no shared file.
"""

from __future__ import annotations

from typing import Any

from table.games.base import Engine, GameError
from table.games.contract import Game, games, lobby_games


class UnknownGameError(GameError):
    """A name that no registered engine answers to."""


def registry() -> dict[str, Engine[Any]]:
    """All engines by name (sorted by name), found once per process."""
    return {name: game.engine for name, game in games().items()}


def get_engine(name: str) -> Engine[Any]:
    """The engine called ``name``; raises :class:`UnknownGameError` with the known names."""
    return get_game(name).engine


def get_game(name: str) -> Game:
    """The game called ``name``; raises :class:`UnknownGameError` with the known names."""
    found = games()
    try:
        return found[name]
    except KeyError:
        raise UnknownGameError(
            f"there is no game called '{name}' (known games: {', '.join(found)})"
        ) from None


__all__ = ["Game", "UnknownGameError", "games", "get_engine", "get_game", "lobby_games", "registry"]
