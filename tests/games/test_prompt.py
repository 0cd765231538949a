"""Every registered game's :meth:`~table.games.contract.GameEngine.prompt`: what the table
loop reads to settle the inputs round a change of question (``tests/loop/test_settle.py``
plays that through the loop)."""

from __future__ import annotations

import random

import pytest

from table.games import registry
from table.games.base import PRESS, PUSH, Action, GameSetup, Prompt
from table.play.autoplay import next_random_action
from table.play.session import Session


@pytest.mark.parametrize("name", sorted(registry()))
def test_the_prompt_is_stated_for_every_state_and_an_early_input_moves_nothing(name: str) -> None:
    engine = registry()[name]
    stations = tuple(range(engine.min_stations))
    session = Session.start(name, GameSetup(name, engine.variants[0], stations), seed=5)
    rng = random.Random(5)
    early = 0
    for _ in range(2000):
        if session.is_over():
            break
        prompt = engine.prompt(session.state)
        assert isinstance(prompt, Prompt)
        hash(prompt.key)
        assert prompt.opens_at is None or isinstance(prompt.opens_at, (int, float))
        if prompt.opens_at is not None and prompt.opens_at > session.last_t:
            # Before the prompt opens, a press or a push asks nothing new of anyone.
            for kind in (PRESS, PUSH):
                for s in stations:
                    at = Action(kind, (session.last_t + prompt.opens_at) / 2, s)
                    after = engine.apply(session.state, at)
                    assert engine.prompt(after).key == prompt.key, (name, kind, s)
                    early += 1
        action = next_random_action(session, rng, mean_gap=1.0)
        assert action is not None
        session.apply(action)
    assert session.is_over()
    if name in ("ubongo", "ubongo_shimo"):  # the games with a countdown and results that hold
        assert early > 0
