"""The lobby with more games (or players' options) than its columns hold: every line
reachable with the knob, none drawn over the station panels, a mark where lines hide."""

from __future__ import annotations

from itertools import pairwise

import pygame
import pytest

from table.display.screens import LobbyScreen
from table.display.theme import Theme
from table.games import lobby_games
from table.games.base import Action

from .test_lobby_names import _Control


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


def _shown(lobby: LobbyScreen, size: tuple[int, int]) -> tuple[dict[int, pygame.Rect], list[str]]:
    parts = lobby.parts(size, 0.0)
    lines = {int(p.name.removeprefix("lobby:line")): p.rect for p in parts if p.name.startswith("lobby:line")}
    marks = [p.name for p in parts if p.name.startswith("lobby:more-")]
    return lines, marks


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
@pytest.mark.parametrize("extra", [0, 2, 9])
def test_every_line_is_reachable_and_none_is_drawn_over_the_stations(size: tuple[int, int], extra: int) -> None:
    theme = Theme(*size)
    lobby = LobbyScreen(_Control(), theme, 4)
    # More games than the shipped ones, as a venue with plugins installed has (the
    # same engines listed again: the lobby lays out names, it plays none of them here).
    lobby.games = lobby.games + tuple(lobby_games()[i % len(lobby_games())] for i in range(extra))
    lines = lobby._lines()
    panels_top = theme.px(72)
    hidden_somewhere = False
    for cursor in range(len(lines)):
        lobby.cursor = cursor
        shown, marks = _shown(lobby, size)
        assert cursor in shown, f"line {cursor} ({lines[cursor]}) is not drawn while the knob is on it"
        assert all(rect.bottom <= panels_top for rect in shown.values())
        rects = sorted(shown.values(), key=lambda r: (r.left, r.top))
        assert all(not a.colliderect(b) for a, b in pairwise(rects))
        if len(shown) < len(lines):
            hidden_somewhere = True
            assert marks, "lines are hidden without a mark"
        else:
            assert not marks
    assert hidden_somewhere == (len(lobby.games) + 1 > 6)


def test_turning_down_the_games_scrolls_them_and_the_chosen_game_stays_in_view() -> None:
    size = (1920, 1080)
    lobby = LobbyScreen(_Control(), Theme(*size), 4)
    lobby.games = lobby.games + lobby.games
    last = len(lobby.games) - 1
    lobby.handle(Action("turn", 0.0, 0, {"delta": last}))
    lobby.handle(Action("push", 0.0, 0))  # choose the last game
    shown, marks = _shown(lobby, size)
    assert last in shown and 0 not in shown and "lobby:more-up" in " ".join(marks)
    # On the right-hand lines, the games' column shows the chosen one.
    lobby.handle(Action("turn", 0.0, 0, {"delta": len(lobby._lines())}))
    shown, _marks = _shown(lobby, size)
    assert last in shown and lobby.cursor in shown
