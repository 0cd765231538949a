"""A tiny headless table for Ubongo scenario tests: inputs at times, ticks in between.

Drives the real engine (no fakes): every input first delivers the ticks that fall
due before it, exactly as the table loop does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from table.games.base import Action, GameSetup
from table.games.ubongo.engine import ENGINE
from table.games.ubongo.state import UbongoState


class Table:
    """One Ubongo game on a virtual clock."""

    def __init__(
        self,
        stations: int = 4,
        variant: str = "easy",
        seed: int = 1,
        options: dict[str, Any] | None = None,
        names: Sequence[str] = (),
    ) -> None:
        setup = GameSetup(
            game="ubongo",
            variant=variant,
            stations=tuple(range(stations)),
            names=tuple(names),
            options=options or {},
        )
        self.state: UbongoState = ENGINE.new_game(setup, seed)

    # -- inputs -------------------------------------------------------------------------
    def ticks_until(self, t: float) -> None:
        while self.state.deadline is not None and self.state.deadline <= t and not ENGINE.is_over(self.state):
            self.state = ENGINE.apply(self.state, Action("tick", self.state.deadline))

    def act(self, kind: str, t: float, station: int | None = None, value: Any = None) -> UbongoState:
        self.ticks_until(t)
        self.state = ENGINE.apply(self.state, Action(kind, t, station, value))
        return self.state

    def press(self, t: float, station: int) -> UbongoState:
        return self.act("press", t, station)

    def turn(self, t: float, station: int, delta: int) -> UbongoState:
        return self.act("turn", t, station, {"delta": delta})

    def push(self, t: float, station: int) -> UbongoState:
        return self.act("push", t, station)

    def place(self, rows: Sequence[int], t: float = 0.5) -> None:
        """Place every figure: station i on ``rows[i]`` (encoder steps from row 0)."""
        for s, row in enumerate(rows):
            if row:
                self.turn(t, s, row)
            self.push(t, s)

    def rig_board(self, rows: Sequence[Sequence[str]]) -> None:
        """Replace the random gem layout (allowed only before anything is taken)."""
        self.state = replace(self.state, board=tuple(tuple(r) for r in rows))

    def sand_start(self) -> float:
        """Run up to the moment this round's sand starts; returns that time."""
        assert self.state.deadline is not None
        self.ticks_until(self.state.deadline)
        assert self.state.phase == "sand" and self.state.sand_started is not None
        return self.state.sand_started

    # -- looking ------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        return ENGINE.view(self.state, None)

    def gems(self, station: int) -> tuple[str, ...]:
        return self.state.collections[self.state.seat(station)]

    def figure(self, station: int) -> int | None:
        return self.state.figures[self.state.seat(station)]

    def events(self, kind: str) -> list[Any]:
        return [e for e in self.state.events if e.kind == kind]
