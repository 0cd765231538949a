"""The Ubongo Shimo screen in every phase of a round and of a game, from real states:
the pictures ``table screens`` writes as ``shimo-N-phase.png`` (see ``docs/screens``)."""

from __future__ import annotations

from collections.abc import Iterator

import pygame

from table.display.games import GameRenderer, Picture, RenderContext
from table.display.layers import paint_all
from table.display.theme import Theme
from table.games.base import Action, GameSetup
from table.play.session import Session, run_until_idle

NAMES = ("Ada", "Ben", "Cleo", "Dan")


def _game(stations: int = 4, variant: str = "standard", levels: tuple[int, ...] = (1, 2, 3, 4)) -> Session:
    setup = GameSetup("ubongo_shimo", variant, tuple(range(stations)), NAMES[:stations],
                      {"levels": list(levels[:stations])})
    return Session.start("ubongo_shimo", setup, 7)


def _feed(session: Session, *actions: Action) -> None:
    for action in actions:
        run_until_idle(session, until=action.t)
        session.apply(action)


def pictures(renderer: GameRenderer) -> Iterator[tuple[str, Picture]]:
    """Every phase of a round and a game, drawn by ``renderer`` (the game's own)."""

    def draw(session: Session, now: float) -> Picture:
        view = session.view(None)
        paused = session.paused

        def picture(surface: pygame.Surface) -> None:
            if session.is_over():  # the end is the table's final ranking
                from table.display.final import final_parts  # the table's screen, above the games'

                size = surface.get_size()
                paint_all(surface, final_parts(session, Theme(*size), size), now)
                return
            renderer.draw(surface, view, RenderContext(Theme(*surface.get_size()), now, paused))

        return picture

    s = _game()
    yield "shimo-1-countdown", draw(s, 1.2)
    run_until_idle(s, until=3.0)
    yield "shimo-2-solving", draw(s, 14.0)
    _feed(s, Action("press", 21.0, 1))
    _feed(s, Action("press", 40.0, 3))
    yield "shimo-3-racing", draw(s, 46.0)
    yield "shimo-4-last-seconds", draw(s, 74.4)
    run_until_idle(s, until=200)
    yield "shimo-5-results", draw(s, 82.0)

    t = _game(3)
    run_until_idle(t, until=3.0)
    _feed(t, Action("press", 12.0, 0), Action("press", 12.0015, 2))
    yield "shimo-6-simultaneous-call", draw(t, 20.0)

    r = _game(2, "running-sand", (2, 2))
    run_until_idle(r, until=70.0)
    yield "shimo-7-running-sand", draw(r, 80.0)

    g = _game(3, levels=(1, 2, 3))
    clock = 0.0
    for rnd in range(9):
        clock = g.last_t + 3.0
        _feed(g, Action("press", clock + 10, rnd % 3), Action("press", clock + 20, (rnd + 1) % 3))
        run_until_idle(g)
        if not g.is_over():
            g.apply(Action("press", g.last_t + 5.0, 0))
    yield "shimo-8-final", draw(g, g.last_t + 1)

    # Tied on points and cards after round 9 (cards worth nothing here): the extra round.
    x = Session.start("ubongo_shimo", GameSetup("ubongo_shimo", "standard", (0, 1, 2), NAMES[:3],
                                                {"card_points": [0, 0, 0, 0]}), 7)
    for rnd, winner in enumerate([0, 2, 2, 1, 1, 2, 0, 0, 1]):
        start = x.last_t + 3.0
        _feed(x, Action("press", start + 10, winner))
        run_until_idle(x)
        if rnd < 8:
            x.apply(Action("press", x.last_t + 5.0, 0))
    yield "shimo-9-extra-round-announced", draw(x, x.last_t + 1)
    x.apply(Action("press", x.last_t + 5.0, 0))
    run_until_idle(x, until=x.last_t + 3.0)
    yield "shimo-10-extra-round", draw(x, x.last_t + 4)
