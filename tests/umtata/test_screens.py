"""The Umtata screens render every phase at both display sizes; speech is optional."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import json
from collections.abc import Sequence

import pygame
import pytest

from table.display.games import renderers
from table.display.umtata_map import label_anchor, load_layout, map_rect_for
from table.display.umtata_speech import QuestionSpeaker, SpeechSettings
from table.games.umtata.board import load_board
from table.games.umtata.engine import ENGINE
from umtata.screens import phases, render


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_every_phase_renders(size: tuple[int, int]) -> None:
    pygame.init()
    assert renderers()["umtata"].game == "umtata"
    for name, state in phases().items():
        view = ENGINE.view(state, None)
        before = json.dumps(view, sort_keys=True)
        surface = render(state, size)
        assert surface.get_size() == size, name
        assert json.dumps(view, sort_keys=True) == before  # draw changes nothing but the surface
    render(phases()["guess_start"], size, paused=True)


def test_every_country_is_on_the_map_with_room_for_its_label() -> None:
    pygame.init()
    layout = load_layout()
    board = load_board()
    area = map_rect_for(pygame.Rect(0, 0, 1280, 720))
    anchors = []
    for c in board.countries:
        assert layout.cells_of(c.id), c.id
        rect, _ = label_anchor(area, layout, c.id)
        assert rect.w >= 40 and rect.h >= 30, c.id  # even Monaco and Liechtenstein get a whole cell
        anchors.append(rect)
    for i, a in enumerate(anchors):  # labels never share a cell
        for b in anchors[i + 1 :]:
            assert not a.colliderect(b)


def test_speech_is_used_when_installed_and_silent_without() -> None:
    view = ENGINE.view(phases()["guess_start"], None)
    spoken: list[Sequence[str]] = []
    speaker = QuestionSpeaker(
        which=lambda name: "/usr/bin/espeak-ng" if name == "espeak-ng" else None, runner=spoken.append
    )
    assert speaker.on_view(view) is True
    assert speaker.on_view(view) is False  # once per round
    assert spoken[0][0] == "/usr/bin/espeak-ng" and spoken[0][-1] == view["question"]["text"]
    silent = QuestionSpeaker(which=lambda name: None, runner=spoken.append)
    assert silent.on_view(view) is False and "nothing is wrong" in silent.status()
    off = QuestionSpeaker(
        settings=SpeechSettings(speak_questions=False), which=lambda n: "/x", runner=spoken.append
    )
    assert off.on_view(view) is False and "switched off" in off.status()
    assert len(spoken) == 1


def test_no_two_tiles_of_one_colour_touch_on_the_map() -> None:
    layout = load_layout()
    board = load_board()
    for (x, y), code in layout.cells.items():
        for other in (layout.cells.get((x + 1, y)), layout.cells.get((x, y + 1))):
            if other and other != code and board.has(code) and board.has(other):
                assert board.get(code).colour != board.get(other).colour, (code, other)
