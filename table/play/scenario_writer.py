"""Scenario scripts written rather than hand-made: random legal play as a scenario, and
a scenario as TOML text (the format :func:`table.play.scenario.load_scenario` reads).
"""

from __future__ import annotations

from collections.abc import Mapping

from table.games.base import TICK, Action
from table.play.session import Session


def random_script(game: str, seed: int, stations: int | None = None, meta_rate: float = 0.02,
                  variant: str | None = None) -> dict[str, object]:
    """A scenario (as TOML data) whose inputs are a random legal game of ``game``.

    The inputs are what :func:`table.play.autoplay.play_randomly` chose, ticks left out
    (the runner delivers them), so playing the script reproduces that game exactly.
    Used by the kill test, the soak test and ``bench/bench_kiosk.py``.
    """
    import random

    from table.games import get_engine
    from table.games.base import GameSetup
    from table.play.autoplay import play_randomly

    engine = get_engine(game)
    n = engine.max_stations if stations is None else stations
    setup = GameSetup(game=game, variant=variant or engine.variants[0], stations=tuple(range(n)))
    session = Session.start(game, setup, seed)
    actions: list[Action] = []
    play_randomly(session, random.Random(f"script:{game}:{seed}"), actions.append, meta_rate=meta_rate)
    return {
        "description": f"random legal play of {game}, seed {seed}",
        "game": game,
        "variant": setup.variant,
        "seed": seed,
        "stations": list(setup.stations),
        "input": [_scenario_input(a) for a in actions if a.kind != TICK],
    }


def _scenario_input(action: Action) -> dict[str, object]:
    """An action as a scenario ``[[input]]`` table (a tray reading is written as ``faces``)."""
    out = action.to_json()
    value = out.get("value")
    if action.kind == "dice" and isinstance(value, Mapping) and set(value) == {"faces"}:
        del out["value"]
        out["faces"] = list(value["faces"])
    return out


def _toml_value(value: object) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise ValueError(f"cannot write {value!r} as TOML")


def scenario_toml(data: dict[str, object]) -> str:
    """TOML text for a scenario dict (top-level keys, then ``[[input]]`` tables)."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in data.items() if k not in ("input", "expect", "options")]
    for table in ("options", "expect"):
        section = data.get(table)
        if isinstance(section, dict):
            lines.append(f"\n[{table}]")
            lines += [f"{json_key(k)} = {_toml_value(v)}" for k, v in section.items()]
    inputs = data.get("input", [])
    assert isinstance(inputs, list)
    for raw in inputs:
        lines.append("\n[[input]]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in raw.items()]
    return "\n".join(lines) + "\n"


def json_key(key: object) -> str:
    import json

    return json.dumps(str(key))
