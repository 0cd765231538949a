"""Ubongo (the original, with the gem board): engine, die and public view.

``GAME`` is what the registry discovers; the rules (:mod:`table.games.ubongo.engine`) are
imported when a game of it is played, not when the table starts
(:class:`table.games.contract.LazyEngine`). ``config_options`` is the table's hook for
the game's data files (see ``table.play.gamedata``).
"""

from pathlib import Path
from typing import Any

from table.common.datafiles import data_file
from table.games.contract import Game, LazyEngine


def config_options(config_dir: Path | None) -> dict[str, Any]:
    """Setup options: the die file ``ubongo/die.toml`` of ``config_dir`` (``None``: the one
    in force), else the shipped one, when there is one."""
    path = data_file("ubongo/die.toml", config_dir)
    if not path.is_file():
        return {}
    from table.games.ubongo.die import load_die  # the rules' module: only with a die file

    return {"die": load_die(path)}


GAME = Game(LazyEngine("table.games.ubongo.engine:ENGINE", name="ubongo", title="Ubongo", variants=("easy", "hard"),
                       min_stations=2, max_stations=4,
                       option_names=frozenset({"sand_seconds", "reveal_seconds", "next_round_after",
                                               "results_hold_seconds", "dice_reader", "start_player", "die",
                                               "colours"})),
            "table.display.games.ubongo:RENDERER", data_options=config_options,
            catalogue="table.games.ubongo", lobby_order=20)
"""Ubongo as the table registers it (entry point ``table.games``)."""

__all__ = ["GAME", "config_options"]
