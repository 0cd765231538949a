"""A small driver for Ugah Ugah! scenario tests: inputs in time order, a stacked circle.

``Table`` feeds actions through the real engine exactly as the session does (one
``apply`` per input, time moving forward). ``stack`` replaces the shuffled circle by
a known one (place p holds a chip worth ``values[p]``), as a test might stack a deck.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from table.games.base import Action, GameSetup
from table.games.ugah_ugah.engine import ENGINE, Chip, UgahState


class Table:
    def __init__(self, players: int = 3, variant: str = "standard", seed: int = 1,
                 options: dict[str, Any] | None = None) -> None:
        self.setup = GameSetup("ugah_ugah", variant, tuple(range(players)), options=options or {})
        self.state: UgahState = ENGINE.new_game(self.setup, seed)
        self.t = 0.0

    def act(self, kind: str, station: int | None = None, value: Any = None) -> UgahState:
        self.t += 1.0
        self.state = ENGINE.apply(self.state, Action(kind, self.t, station, value))
        return self.state

    @property
    def active(self) -> int:
        return self.state.station

    def throw(self, *faces: Any) -> UgahState:
        """The tray reader reports ``faces`` (pip numbers or symbol names)."""
        return self.act("dice", None, {"faces": list(faces)})

    def turn(self, delta: int = 1) -> UgahState:
        return self.act("turn", self.active, {"delta": delta})

    def sector(self, sector: int, sectors: int = 16) -> UgahState:
        return self.act("turn", self.active, {"sector": sector, "sectors": sectors})

    def push(self) -> UgahState:
        return self.act("push", self.active)

    def press(self) -> UgahState:
        return self.act("press", self.active)

    def pick(self, option: str) -> UgahState:
        """Turn the knob to ``option`` of the current choice and push."""
        options = ENGINE.options(self.state)
        self.turn(options.index(option) - self.state.cursor)
        assert ENGINE.options(self.state)[self.state.cursor] == option
        return self.push()

    def choose(self, *symbols: str) -> UgahState:
        """Mark ``symbols`` with the knob and set them aside with the button."""
        for symbol in symbols:
            self.pick(symbol)
        return self.press()

    def stack(self, values: Sequence[int] | None = None, caterpillars: Sequence[int] = ()) -> None:
        """Lay a known circle: place p holds a chip of ``values[p]`` points (default p + 1)."""
        values = list(values) if values is not None else [p + 1 for p in range(31)]
        chips = tuple(Chip(v, p in caterpillars) for p, v in enumerate(values))
        rules = replace(self.state.rules, chips=chips)
        self.state = replace(self.state, rules=rules, circle=tuple(range(31)))

    def place_hunters(self, masher: int, breaker: int, taken: Sequence[int] = ()) -> None:
        """Put the hunters on (already emptied) places, as after earlier turns."""
        circle = list(self.state.circle)
        emptied = [*taken]
        if masher != -1:
            emptied.append(masher % 31)
        if breaker != 31:
            emptied.append(breaker % 31)
        for p in emptied:
            circle[p] = None
        self.state = replace(self.state, circle=tuple(circle), masher=masher, breaker=breaker)

    def value(self, place: int) -> int:
        chip = self.state.circle[place]
        assert chip is not None
        return self.state.rules.chips[chip].points

    def pile(self, station: int) -> list[int]:
        pile = self.state.piles[self.setup.stations.index(station)]
        return [self.state.rules.chips[c].points for c in pile]
