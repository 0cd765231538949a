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


def test_the_final_breakdown_of_a_game_ended_early_adds_up_to_the_score() -> None:
    """The final ranking's column ("chips N + M cards x 3") reads the piles the end
    reveals, so it adds up to the score that counts, hidden chips included."""
    import re

    from table.display.games.ugah_ugah.screen import RENDERER
    from table.display.theme import Theme

    session = Session.start("ugah_ugah", GameSetup("ugah_ugah", stations=(0, 1, 2)), 5)
    play_randomly(session, random.Random(5), max_actions=120)
    session.apply(Action("end", session.last_t + 1.0))
    outcome = session.outcome()
    assert outcome is not None
    view = session.final_view()
    took = {p["station"]: p["chips"] for p in view["players"]}
    assert sum(took.values()) >= 2  # chips were taken (face down until the end)
    for station, score in outcome.scores.items():
        detail = RENDERER.final_detail(view, station, Theme(1920, 1080))
        assert detail is not None and detail.words is not None
        numbers = [int(n) for n in re.findall(r"\d+", detail.words)]
        chips, cards = numbers[0], (numbers[1] if len(numbers) > 1 else 0)
        assert chips + 3 * cards == score, (detail.words, score)
