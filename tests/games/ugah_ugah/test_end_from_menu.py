"""Ending Ugah Ugah! from the table menu counts the hidden chips too."""

from __future__ import annotations

import random

from table.games.base import Action, GameSetup
from table.play.autoplay import play_randomly
from table.play.session import Session


def test_end_from_the_menu_counts_face_down_chips() -> None:
    session = Session.start("ugah_ugah", GameSetup("ugah_ugah", stations=(0, 1, 2)), 5)
    play_randomly(session, random.Random(5), max_actions=120)
    assert not session.is_over()
    final = session.engine.final_scores(session.state)  # type: ignore[attr-defined]
    session.apply(Action("end", session.last_t + 1.0))
    outcome = session.outcome()
    assert outcome is not None and dict(outcome.scores) == final
    assert outcome.winners == ()  # ended early: played, never won
