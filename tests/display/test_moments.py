"""Celebrations: a first press, a round's winner and the game's end get a moment in the
player's colour, through the real table loop; moments end (an idle screen stays idle)
and a quiet venue can switch them off."""

from __future__ import annotations

import os

import pygame
import pytest

from table.display.moments import DURATIONS
from table.display.screens import GameScreen, player_theme
from table.display.theme import BAD, recording
from table.loop.snapshots import menu_choice, run_frames, walk_until

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


def _game_screen(table: object) -> GameScreen:
    return next(s for s in table.screens if isinstance(s, GameScreen))  # type: ignore[attr-defined]


def _moment_parts(table: object, now: float) -> list[str]:
    size = table.surface.get_size()  # type: ignore[attr-defined]
    return [p.name for s in table.screens for p in s.parts(size, now) if p.name.startswith("moment")]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("game", "kind"), [("ubongo_shimo", "first"), ("ubongo_shimo", "round"),
                                            ("ubongo", "first"), ("umtata", "first"), ("ugah_ugah", "round"),
                                            ("ubongo_shimo", "final")])
def test_a_moment_shows_in_the_players_colour_and_then_goes(game: str, kind: str) -> None:
    def showing(table: object) -> bool:
        return any(m.kind == kind for m in _game_screen(table).moments)

    found = walk_until(game, pygame.Surface((1280, 720)), showing)
    assert found is not None and showing(found[0])
    table, clock, inputs = found
    session = table.session
    assert session is not None
    moment = next(m for m in _game_screen(table).moments if m.kind == kind)
    theme = player_theme(table.theme, session)
    colours = {theme.station_colour(s) for s in session.setup.stations}
    assert set(moment.colours) <= colours
    if kind != "final":
        assert any(session.setup.name_of(s) in moment.text for s in session.setup.stations)
        run_frames(table, clock, inputs, [], 0.6)
        with recording() as drawn:
            table.draw(clock.now, force=True)
        assert moment.text in [d.message for d in drawn]
    assert _moment_parts(table, clock.now)
    run_frames(table, clock, inputs, [], DURATIONS[kind] + 0.5, fps=10)
    assert not [m for m in _game_screen(table).moments if m.kind == kind]
    assert not _moment_parts(table, clock.now)
    if kind == "final":
        assert not table.live  # the finished game's screen is idle again


def test_celebrations_can_be_switched_off_but_menu_notices_still_show() -> None:
    def called(table: object) -> bool:
        s = table.session  # type: ignore[attr-defined]
        return s is not None and bool(s.view(None).get("callers"))

    found = walk_until("ubongo_shimo", pygame.Surface((1280, 720)), called, celebrations=False)
    assert found is not None and called(found[0])
    table, clock, inputs = found
    run_frames(table, clock, inputs, [], 0.5)
    assert not _game_screen(table).moments
    menu_choice(table, clock, inputs, "undo")
    assert [m.kind for m in _game_screen(table).moments] == ["notice"]


def test_the_last_ten_seconds_of_sand_pulse_red_at_the_edges() -> None:
    def sand_running(table: object) -> bool:
        s = table.session  # type: ignore[attr-defined]
        view = s.view(None) if s is not None else {}
        return view.get("phase") == "racing"

    found = walk_until("ubongo_shimo", pygame.Surface((1280, 720)), sand_running, celebrations=True)
    assert found is not None and sand_running(found[0])
    table, clock, _ = found
    session = table.session
    assert session is not None
    screen = _game_screen(table)

    def red_edge_rows() -> int:
        table.draw(clock.now, force=True)
        return sum(1 for x in range(0, 1280, 40) if table.surface.get_at((x, 2))[:3] == BAD)

    deadline_clock = session.view(None)["deadline"] - screen._render_now(clock.now) + clock.now
    clock.now = deadline_clock - 15.0
    assert red_edge_rows() == 0  # not yet
    widths = []
    for k in range(10):
        clock.now = deadline_clock - 5.0 + k * 0.1
        widths.append(red_edge_rows())
    assert max(widths) > 0 and min(widths) == 0  # it pulses: on, then off within the second
