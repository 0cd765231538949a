"""The final ranking: one screen for the end of every registered game, ranks shared by
ties, "ended early" after the table menu, the note about the menu in one place, and a
first press that leaves only once the ranking has stood a moment."""

from __future__ import annotations

import os
import random

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import dataclasses

import pygame
import pytest

from table.common.i18n import _
from table.display import final
from table.display.games import renderers
from table.display.howto import card_lines, card_parts
from table.display.screens import GameScreen
from table.display.theme import Theme, recording
from table.games import registry
from table.games.base import Action, GameSetup
from table.play.autoplay import play_randomly
from table.play.session import END, Session

NAMES = ("Ada", "Ben", "Cleo", "Dan")
SIZE = (1280, 720)


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


def _finished(game: str, seed: int = 3) -> Session:
    engine = registry()[game]
    n = max(engine.min_stations, min(engine.max_stations, 3))
    session = Session.start(game, GameSetup(game, engine.variants[0], tuple(range(n)), NAMES[:n]), seed)
    play_randomly(session, random.Random(seed), mean_gap=2.0)
    return session


def _text(parts: list, size: tuple[int, int] = SIZE) -> list[str]:  # type: ignore[type-arg]
    surface = pygame.Surface(size)
    with recording() as drawn:
        for part in parts:
            part.paint(surface, 0.0)
    return [entry.message for entry in drawn]


class _Control:
    """Just enough of the table loop for a game screen."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.left = False

    def leave_game(self) -> None:
        self.left = True

    def game_time(self, t: float) -> float:
        return t


@pytest.mark.parametrize("game", sorted(registry()))
def test_every_games_end_is_drawn_by_the_final_ranking(game: str) -> None:
    session = _finished(game)
    assert session.is_over(), game
    control = _Control(session)
    screen = GameScreen(control, Theme(*SIZE), celebrations=False)  # type: ignore[arg-type]
    screen.update(10.0)
    parts = screen.parts(SIZE, 10.0)
    assert {"final:ranking", "final:note"} <= {p.name for p in parts}, game
    lines = _text(parts)
    assert _(final.OVER_NOTE) in lines
    for row in final.final_rows(session):
        assert row.name in lines and f"{row.rank}." in lines
        assert renderers()[game].score_text(row.score) in lines
    assert _("Ended early") not in lines


def test_the_first_press_after_the_hold_returns_to_the_menu() -> None:
    session = _finished("ubongo_shimo")
    control = _Control(session)
    screen = GameScreen(control, Theme(*SIZE), celebrations=False)  # type: ignore[arg-type]
    screen.update(10.0)
    note = next(p for p in screen.parts(SIZE, 10.0) if p.name == "final:note")
    assert note.live is not None and note.at(10.0) != note.at(10.0 + final.HOLD_S)  # lit when presses count
    screen.handle(Action("press", 10.0 + final.HOLD_S / 2, 0))  # a late press meant for the game
    assert not control.left
    screen.handle(Action("press", 10.0 + final.HOLD_S, 1))
    assert control.left
    lit = next(p for p in screen.parts(SIZE, 10.0 + final.HOLD_S) if p.name == "final:note")
    assert lit.live is None  # nothing moves any more: the table may sleep


def test_ties_share_a_rank_and_the_next_rank_skips() -> None:
    session = Session.start("ubongo", GameSetup("ubongo", "easy", (0, 1, 2, 3), NAMES), 7)
    collections = (("red", "red", "blue"), ("green", "green", "yellow"), ("brown", "brown", "violet"), ("red",))
    session.state = dataclasses.replace(session.state, collections=collections)
    session.apply(Action(END, session.last_t + 1.0, 0))
    rows = final.final_rows(session)
    assert [(r.name, r.rank) for r in rows] == [("Ada", 1), ("Ben", 1), ("Cleo", 1), ("Dan", 4)]
    assert not any(r.won for r in rows)  # ended early: ranked, but nobody won


def test_a_game_ended_from_the_menu_says_so() -> None:
    session = Session.start("umtata", GameSetup("umtata", registry()["umtata"].variants[0], (0, 1, 2), NAMES[:3]), 5)
    session.apply(Action(END, 1.0, 0))
    lines = _text(final.final_parts(session, Theme(*SIZE), SIZE))
    assert _("Ended early") in lines and _("No winner") in lines
    assert not any(line.endswith(("wins!", "share the win!")) for line in lines), lines
    assert any(line.startswith("Ended from the table menu") for line in lines), lines
    assert [line for line in lines if line.endswith(".")] == ["1.", "1.", "1."]  # nobody scored: all first


@pytest.mark.parametrize("game", sorted(registry()))
def test_every_game_has_a_short_how_to_play_card(game: str) -> None:
    lines = card_lines(game)
    assert 3 <= len(lines) <= 5, game
    assert any("button" in line for line in lines) or any("knob" in line for line in lines), lines
    drawn = _text(card_parts(game, Theme(*SIZE), SIZE))
    assert lines[0] in " ".join(drawn)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_game_waits_between_rounds_with_one_wording(lang: str) -> None:
    """The screen between two rounds says how to go on in the same words in every game
    that waits for a press there (the contract's ``NEXT_ROUND_NOTE``), in both languages."""
    import sys
    from pathlib import Path

    from table.common.i18n import set_language
    from table.display.games import NEXT_ROUND_NOTE
    from table.display.theme import TextDrawn, record_text

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from display.textfit import game_screens, shell_screens

    waiting = {"ubongo/6-results", "ubongo/6-results-everyone-took", "umtata/reveal", "ubongo_shimo/shimo-5-results"}
    set_language(lang)
    try:
        note = _(NEXT_ROUND_NOTE)
        found = set()
        for name, paint in [*game_screens(), *shell_screens()]:
            if name not in waiting:
                continue
            drawn: list[TextDrawn] = []
            with record_text(drawn.append):
                paint(pygame.Surface((1920, 1080)))
            assert any(note in d.message for d in drawn), (name, sorted(d.message for d in drawn))
            found.add(name)
        assert found == waiting
    finally:
        set_language("en")
