"""Ubongo (the original, with the gem board): engine, die and public view.

``ENGINE`` is what the registry discovers; see :mod:`table.games.ubongo.engine`.
``config_options`` is the table's hook for the game's data files (see ``table.play.gamedata``).
"""

from pathlib import Path
from typing import Any

from table.common.datafiles import data_file
from table.games.contract import Game
from table.games.ubongo.die import load_die
from table.games.ubongo.engine import ENGINE, Ubongo
from table.games.ubongo.state import UbongoState


def config_options(config_dir: Path | None) -> dict[str, Any]:
    """Setup options: the die file ``ubongo/die.toml`` of ``config_dir`` (``None``: the one
    in force), else the shipped one, when there is one."""
    path = data_file("ubongo/die.toml", config_dir)
    return {"die": load_die(path)} if path.is_file() else {}


GAME = Game(ENGINE, "table.display.games.ubongo:RENDERER", data_options=config_options,
            catalogue="table.games.ubongo", lobby_order=20)
"""Ubongo as the table registers it (entry point ``table.games``)."""

__all__ = ["ENGINE", "GAME", "Ubongo", "UbongoState", "config_options"]
