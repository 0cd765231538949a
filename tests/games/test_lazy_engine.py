"""``LazyEngine``: an engine's facts without its import; the rest imports it once."""

from __future__ import annotations

import logging
import sys
import types
from typing import Any

import pytest

from table.games.base import Action, GameSetup
from table.games.contract import GameEngine, LazyEngine


class Counting(GameEngine[int]):
    """A game whose state counts the actions applied."""

    name = "counting"
    title = "Counting"
    variants = ("standard",)
    min_stations = 1
    max_stations = 2

    def new_game(self, setup: GameSetup, seed: int) -> int:
        return 0

    def apply(self, state: int, action: Action) -> int:
        return state + 1

    def is_over(self, state: int) -> bool:
        return state >= 2

    def view(self, state: int, station: int | None) -> dict[str, Any]:
        return {"count": state}


def lazy(monkeypatch: pytest.MonkeyPatch, **facts: Any) -> tuple[LazyEngine, types.ModuleType]:
    module = types.ModuleType("counting_rules")
    module.ENGINE = Counting()  # type: ignore[attr-defined]
    monkeypatch.delitem(sys.modules, "counting_rules", raising=False)
    stated = {"name": "counting", "title": "Counting", "variants": ("standard",), "min_stations": 1,
              "max_stations": 2, **facts}
    return LazyEngine("counting_rules:ENGINE", **stated), module


def test_the_facts_need_no_import_and_a_game_imports_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    engine, module = lazy(monkeypatch)
    assert (engine.name, engine.variants, engine.option_names) == ("counting", ("standard",), None)
    assert "counting_rules" not in sys.modules  # the facts alone import nothing
    monkeypatch.setitem(sys.modules, "counting_rules", module)
    state = engine.new_game(GameSetup("counting", "standard", (0,)), 1)
    state = engine.apply(engine.apply(state, Action("press", 0.0, station=0)), Action("press", 1.0, station=0))
    assert engine.is_over(state) and engine.view(state, None) == {"count": 2}
    assert engine.engine is module.ENGINE  # type: ignore[attr-defined]


def test_a_fact_that_differs_from_the_engines_is_logged(monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    engine, module = lazy(monkeypatch, max_stations=4)
    monkeypatch.setitem(sys.modules, "counting_rules", module)
    with caplog.at_level(logging.ERROR):
        assert engine.new_game(GameSetup("counting", "standard", (0,)), 1) == 0
    assert "max_stations 4" in caplog.text and "has 2" in caplog.text
