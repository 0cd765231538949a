"""Random but legal play: the attract-mode demo, the conformance test and the soak test.

``play_randomly`` drives a :class:`Session` with inputs drawn from the engine's
``legal_actions`` at random moments of table time, delivering expiries as ticks, and
hands every action to ``record`` before applying it (as the live loop journals).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from table.games.base import TICK, Action
from table.play.session import PAUSE, RESUME, UNDO, Session


def next_random_action(session: Session, rng: random.Random, mean_gap: float = 4.0,
                       meta_rate: float = 0.0) -> Action | None:
    """One random legal action at a random later time, or the due tick; None when stuck."""
    deadline = session.deadline()
    now = session.last_t
    if session.paused:
        return Action(RESUME, now + rng.uniform(0.5, 5.0))
    if meta_rate and rng.random() < meta_rate:
        return Action(rng.choice((PAUSE, UNDO)), now + rng.uniform(0.1, 2.0))
    legal = list(session.engine.legal_actions(session.state))
    if legal:
        pick = rng.choice(legal)
        t = now + rng.expovariate(1.0 / mean_gap)
        if deadline is None or t < deadline:
            return Action(pick.kind, t, pick.station, pick.value)
    if deadline is not None:
        return Action(TICK, max(deadline, now))
    return None


def play_randomly(
    session: Session,
    rng: random.Random,
    record: Callable[[Action], None] | None = None,
    max_actions: int = 20_000,
    mean_gap: float = 4.0,
    meta_rate: float = 0.0,
) -> int:
    """Play until the game is over, stuck, or ``max_actions``; returns actions applied."""
    count = 0
    while not session.is_over() and count < max_actions:
        action = next_random_action(session, rng, mean_gap, meta_rate)
        if action is None:
            break
        if record is not None:
            record(action)
        session.apply(action)
        count += 1
    return count
