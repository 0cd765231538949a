"""A game of Ubongo ended from the table menu ranks the players as its own end does:
the most gems of one colour, ties broken colour by colour."""

from __future__ import annotations

import dataclasses
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from table.display.final import final_parts
from table.display.theme import Theme, recording
from table.games.base import Action, GameSetup
from table.play.session import END, Session


def test_an_ended_game_breaks_a_tie_on_the_best_colour_with_the_next() -> None:
    session = Session.start("ubongo", GameSetup("ubongo", "easy", (0, 1, 2)), 7)
    # Seat 0: 2 red + 1 blue; seat 1: 2 green (no second colour); seat 2: 1 brown.
    collections = (("red", "red", "blue"), ("green", "green"), ("brown",))
    session.state = dataclasses.replace(session.state, collections=collections)
    session.apply(Action(END, session.last_t + 1.0, 0))
    outcome = session.outcome()
    assert outcome is not None
    assert outcome.scores == {0: 2, 1: 2, 2: 1}  # the shown score: most of one colour
    assert outcome.winners == ()  # ended early: nobody wins
    # ... but the tie on 2 is broken by the next colour (1 blue against none) for the order.
    assert session.standing(0) == (2, 1, 0, 0, 0, 0) and session.standing(1) == (2, 0, 0, 0, 0, 0)

    pygame.display.init()
    pygame.font.init()
    theme = Theme(1920, 1080)
    surface = pygame.Surface((1920, 1080))
    with recording() as drawn:
        for part in final_parts(session, theme, (1920, 1080)):
            part.paint(surface, 0.0)
    lines = [entry.message for entry in drawn]
    names = [session.setup.name_of(s) for s in (0, 1, 2)]
    # Each row: its rank, then its name.
    rows = [(lines[i], lines[i + 1]) for i, line in enumerate(lines[:-1]) if line in ("1.", "2.", "3.")]
    assert rows == [("1.", names[0]), ("2.", names[1]), ("3.", names[2])], lines
