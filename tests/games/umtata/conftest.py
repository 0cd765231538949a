"""Helpers for the Umtata scenario tests: a tiny deck and short-hand inputs."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from table.games.base import Action, GameSetup
from table.games.umtata.board import load_board, sector_of
from table.games.umtata.engine import ENGINE
from table.games.umtata.state import UmtataState

WORLD_CUP = {
    "country": "it",
    "text": "Umtata won the football World Cup in 2006.",
    "topic": "sport",
    "explain": "Italy beat France on penalties in the 2006 final in Berlin.",
}
WELTMEISTER = {
    "country": "it",
    "text": "Umtata wurde 2006 Fußball-Weltmeister.",
    "topic": "sport",
    "explain": "Im Finale von Berlin gewann Italien gegen Frankreich im Elfmeterschießen.",
}
"""The same card in German, for the German screens."""
PARIS = {
    "country": "fr",
    "text": "Umtata's capital is Paris.",
    "topic": "capital",
    "explain": "Paris is France's capital.",
}


def new(
    stations: Sequence[int] = (0, 1, 2), deck: Sequence[dict[str, str]] = (WORLD_CUP,), **options: object
) -> UmtataState:
    opts: dict[str, object] = {"deck": list(deck), "whole_deck": True, **options}
    return ENGINE.new_game(GameSetup("umtata", stations=tuple(stations), options=opts), seed=1)


def sector(country_id: str) -> int:
    c = load_board().get(country_id)
    return sector_of(c.region, c.colour)


def guess(state: UmtataState, station: int, country_id: str, t: float = 1.0) -> UmtataState:
    """Set the station's absolute knob to the country's sector and push."""
    state = ENGINE.apply(state, Action("turn", t, station, {"sector": sector(country_id), "sectors": 16}))
    return ENGINE.apply(state, Action("push", t, station))


def tataaa(state: UmtataState, station: int, t: float = 1.0) -> UmtataState:
    return ENGINE.apply(state, Action("press", t, station))


def answer(state: UmtataState, station: int, country_id: str, t: float = 5.0) -> UmtataState:
    """Answer as the current Tataaa player with an encoder: turn to the sector, push,
    turn to the country, push."""
    current = state.knobs[state.setup.stations.index(station)]
    delta = sector(country_id) - current
    if delta:
        state = ENGINE.apply(state, Action("turn", t, station, {"delta": delta}))
    state = ENGINE.apply(state, Action("push", t, station))
    names = [c.id for c in ENGINE.choices(state)]
    idx = names.index(country_id)
    if idx:
        state = ENGINE.apply(state, Action("turn", t, station, {"delta": idx}))
    return ENGINE.apply(state, Action("push", t, station))


@pytest.fixture
def engine() -> object:
    return ENGINE
