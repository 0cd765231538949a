"""The clock of the timed games: one deadline in the state, met by a tick.

Games with an hourglass run their phases against the clock. The state holds ``now``
(the latest game time it has seen) and ``deadline`` (when the phase ends by itself: the
countdown is over, the sand runs out, the results move on), and ``next_deadline`` is
that deadline. The loop delivers a ``tick`` when it passes; any other input at or after
the deadline is too late, since the loop delivers the tick first. The sand is one
deadline with its start (``sand_started``) kept for the hourglass; the results of a
round move on after ``next_round_after`` seconds, or wait for a press that comes at
least ``results_hold`` seconds after them.

This module is that skeleton, kept in one place; what happens at a deadline stays each
game's own (its ``expire``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, replace
from typing import Any, ClassVar, Protocol, TypeVar

from table.games.base import Action
from table.games.contract import Sand

RESULTS = "results"
"""The phase between rounds, in both games."""


class Timed(Protocol):
    """A game state (a frozen dataclass) with a deadline."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def now(self) -> float: ...

    @property
    def deadline(self) -> float | None: ...


class Sanded(Timed, Protocol):
    """A timed state with an hourglass: ``sand_started`` is when the sand running now
    was turned (``None``: none runs)."""

    @property
    def sand_started(self) -> float | None: ...


class WithResults(Timed, Protocol):
    """A timed state with a results phase: ``results_at`` is when the last one began."""

    @property
    def phase(self) -> str: ...

    @property
    def results_at(self) -> float | None: ...


class ResultsTiming(Protocol):
    """The rules' two numbers for the results between rounds."""

    @property
    def next_round_after(self) -> float: ...

    @property
    def results_hold(self) -> float: ...


T = TypeVar("T", bound=Timed)
S = TypeVar("S", bound=Sanded)
R = TypeVar("R", bound=WithResults)


def game_time(state: Timed, action: Action) -> float:
    """When ``action`` happened in game time: its ``t``, never before what the state saw."""
    return max(action.t, state.now)


def on_tick(state: T, t: float, expire: Callable[[T, float], T]) -> T:
    """A tick at ``t``: once the deadline has come, ``expire(state, deadline)`` with the
    state brought to ``t``; before it, or with no deadline, the very same state."""
    deadline = state.deadline
    if deadline is None or t < deadline:
        return state
    return expire(replace(state, now=t), deadline)


def too_late(state: Timed, t: float) -> bool:
    """Whether an input at ``t`` comes at or after the deadline and so means nothing
    (the loop delivers the deadline's tick first)."""
    return state.deadline is not None and t >= state.deadline


def turn_sand(state: S, at: float, seconds: float) -> S:
    """The sand turned at ``at``: it runs out, the deadline, ``seconds`` later."""
    return replace(state, sand_started=at, deadline=at + seconds)


def sand_view(state: Sanded, seconds: float) -> Sand:
    """The view's ``sand`` (:class:`table.games.contract.Sand`, what drives the LED
    hourglass): when it started, and how long it runs."""
    return {"started": state.sand_started, "seconds": seconds}


def show_results(state: R, at: float, timing: ResultsTiming) -> R:
    """The results phase from ``at``: it moves on by itself ``next_round_after`` seconds
    later (its deadline), or with 0 waits for a press."""
    deadline = at + timing.next_round_after if timing.next_round_after > 0 else None
    return replace(state, phase=RESULTS, deadline=deadline, results_at=at)


def results_held(state: WithResults, timing: ResultsTiming, t: float) -> bool:
    """Whether a press at ``t`` is too soon after the results began to start the next
    round (a late "done" press must not skip them)."""
    return state.results_at is not None and t - state.results_at < timing.results_hold


def next_round_press_at(state: WithResults, timing: ResultsTiming) -> float:
    """The earliest game time at which a press during the results starts the next round."""
    return max(state.now, (state.results_at or 0.0) + timing.results_hold)
