"""A tiny counting game, right by the contract, and four ways to break it.

Each station presses to count; the first to :data:`TARGET` presses wins. The four
subclasses each break one rule of :mod:`table.games.contract`:

* :class:`NeverEnds` (rule ``ends``): a press passes the turn and counts nothing;
* :class:`MissingKey` (rule ``view``): its public view has no ``may_act``;
* :class:`Mutates` (rule ``pure``): ``apply`` counts in the list of the state it is given;
* :class:`TieBreakUnranked` (rule ``ranks``): a tie goes to the first to count, which its
  standing (the points-only default) does not say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from table.games.base import PRESS, Action, Event, GameSetup, JSONValue, Message, Outcome, StationId
from table.games.contract import GameEngine

TARGET = 3


@dataclass(frozen=True)
class CountState:
    setup: GameSetup
    counts: list[int]  # a list, so that Mutates can break purity the way a slip would
    turn: int = 0
    events: tuple[Event, ...] = ()

    @property
    def round(self) -> int:
        return 1

    @property
    def over(self) -> bool:
        return max(self.counts) >= TARGET


class Counter(GameEngine[CountState]):
    """The right one: the station whose turn it is presses, and counts one."""

    name = "broken_counter"
    title = "Counter"
    variants = ("standard",)
    min_stations = 2
    max_stations = 2

    def new_game(self, setup: GameSetup, seed: int) -> CountState:
        return CountState(setup, [0] * len(setup.stations))

    def legal_actions(self, state: CountState) -> Sequence[Action]:
        return [] if state.over else [Action(PRESS, 0.0, state.setup.stations[state.turn])]

    def apply(self, state: CountState, action: Action) -> CountState:
        if state.over or action.kind != PRESS or action.station != state.setup.stations[state.turn]:
            return state
        counts = list(state.counts)
        counts[state.turn] += 1
        return replace(state, counts=counts, turn=(state.turn + 1) % len(counts))

    def is_over(self, state: CountState) -> bool:
        return state.over

    def outcome(self, state: CountState) -> Outcome | None:
        if not state.over:
            return None
        scores = dict(zip(state.setup.stations, state.counts, strict=True))
        best = max(scores.values())
        return Outcome(scores, tuple(s for s, n in scores.items() if n == best), Message("counted first"))

    def view(self, state: CountState, station: StationId | None) -> dict[str, JSONValue]:
        return {
            "phase": "over" if state.over else "count",
            "round": 1,
            "scores": {str(s): n for s, n in zip(state.setup.stations, state.counts, strict=True)},
            "may_act": [] if state.over else [state.setup.stations[state.turn]],
        }


class NeverEnds(Counter):
    """Breaks rule ``ends``: a press passes the turn, and nobody ever counts."""

    name = "broken_never_ends"

    def apply(self, state: CountState, action: Action) -> CountState:
        if action.kind != PRESS or action.station != state.setup.stations[state.turn]:
            return state
        return replace(state, turn=(state.turn + 1) % len(state.counts))


class MissingKey(Counter):
    """Breaks rule ``view``: the public view leaves out ``may_act``, which the button
    lights read."""

    name = "broken_missing_key"

    def view(self, state: CountState, station: StationId | None) -> dict[str, JSONValue]:
        view = super().view(state, station)
        del view["may_act"]
        return view


class Mutates(Counter):
    """Breaks rule ``pure``: ``apply`` counts in the state it was given, then returns a copy."""

    name = "broken_mutates"

    def apply(self, state: CountState, action: Action) -> CountState:
        if state.over or action.kind != PRESS or action.station != state.setup.stations[state.turn]:
            return state
        state.counts[state.turn] += 1
        return replace(state, counts=list(state.counts), turn=(state.turn + 1) % len(state.counts))


class TieBreakUnranked(Counter):
    """Breaks rule ``ranks``: the game ends when everyone has counted to :data:`TARGET`,
    and the tie goes to the first seat (who counted first), but the standing is the
    contract's default, the points alone, which ranks everyone equal."""

    name = "broken_tie_break"

    def is_over(self, state: CountState) -> bool:
        return min(state.counts) >= TARGET

    def legal_actions(self, state: CountState) -> Sequence[Action]:
        return [] if self.is_over(state) else [Action(PRESS, 0.0, state.setup.stations[state.turn])]

    def apply(self, state: CountState, action: Action) -> CountState:
        if self.is_over(state) or action.kind != PRESS or action.station != state.setup.stations[state.turn]:
            return state
        counts = list(state.counts)
        counts[state.turn] += 1
        return replace(state, counts=counts, turn=(state.turn + 1) % len(counts))

    def outcome(self, state: CountState) -> Outcome | None:
        if not self.is_over(state):
            return None
        scores = dict(zip(state.setup.stations, state.counts, strict=True))
        return Outcome(scores, (state.setup.stations[0],), Message("counted first"))

    def view(self, state: CountState, station: StationId | None) -> dict[str, JSONValue]:
        over = self.is_over(state)
        return {**super().view(state, station), "phase": "over" if over else "count",
                "may_act": [] if over else [state.setup.stations[state.turn]]}
