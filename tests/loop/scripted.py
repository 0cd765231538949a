"""Running a :class:`~table.loop.app.Table` on a virtual clock with scripted inputs, as
the loop's tests and the games' table tests do."""

from __future__ import annotations

from table.games.base import Action
from table.loop.app import ScriptedInputs, Table
from table.play.clock import VirtualClock


def run(table: Table, clock: VirtualClock, inputs: ScriptedInputs, *actions: Action, until: float,
        fps: int = 30) -> None:
    """Feed ``actions`` (times relative to now) and run frames at ``fps`` until ``until``
    seconds later."""
    start = clock.now
    inputs.add(*(Action(a.kind, start + a.t, a.station, a.value) for a in actions))
    while clock.now < start + until:
        clock.advance(1 / fps)
        table.step(clock.now)
