"""The Umtata screens render every phase at both display sizes; speech is optional."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import json
from collections.abc import Sequence

import numpy as np
import pygame
import pytest

from games.umtata.screens import phases, render
from table.display.games import renderers
from table.display.games.umtata.map import GREY_ID0, draw_map, label_layout, load_map, map_rect_for, raster
from table.display.games.umtata.screen import map_area
from table.display.games.umtata.speech import QuestionSpeaker, SpeechSettings
from table.display.theme import Theme
from table.games.umtata.board import load_board
from table.games.umtata.engine import ENGINE

pytestmark = pytest.mark.heavy  # draws: left out of the fast tier


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


def _areas(size: tuple[int, int]) -> list[pygame.Rect]:
    """The map as the game screens draw it, and as the full-screen map picture."""
    return [map_area(Theme(*size)), map_rect_for(pygame.Rect(0, 0, *size))]


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_every_country_is_labelled_and_labels_neither_overlap_nor_stray(size: tuple[int, int]) -> None:
    pygame.init()
    board = load_board()
    europe = load_map()
    for area in _areas(size):
        layout = label_layout(area.w, area.h)
        ids = raster(area.w, area.h)
        value = {c.id: i + 1 for i, c in enumerate(board.countries)}
        value |= {g.key: GREY_ID0 + j for j, g in enumerate(europe.grey)}
        assert {lb.key for lb in layout.labels if not lb.grey} == {c.id for c in board.countries}
        boxes = [(lb.key, lb.rect) for lb in layout.labels] + [(f"tag {r}", rect) for r, rect in layout.tags]
        for i, (ka, a) in enumerate(boxes):
            assert pygame.Rect(0, 0, area.w, area.h).contains(a), ka
            for kb, b in boxes[i + 1 :]:
                assert not a.colliderect(b), (area.size, ka, kb)
        for lb in layout.labels:
            if lb.leader_to is None:  # no leader line: every pixel under the label is its country
                patch = ids[lb.rect.top : lb.rect.bottom, lb.rect.left : lb.rect.right]
                assert patch.size and (patch == value[lb.key]).all(), (area.size, lb.key)
            else:  # a leader line ends on the country, or on its marker
                x, y = lb.leader_to
                marker = layout.markers.get(lb.key)
                assert ids[y, x] == value[lb.key] or (marker is not None and marker.centre == (x, y)), lb.key
        # The micro-states can be pointed at: each has a marker on its own spot.
        assert {"mc", "li", "mt", "lu"} <= set(layout.markers)


def test_the_map_shows_the_answer_and_dims_the_rest() -> None:
    pygame.init()
    size = (1280, 720)
    area = map_area(Theme(*size))
    plain = pygame.Surface(size)
    draw_map(plain, area, Theme(*size))
    marked = pygame.Surface(size)
    used = draw_map(marked, area, Theme(*size), highlight=["it"], focus="it", dim_others=True)
    assert used == area
    layout = label_layout(area.w, area.h)
    ids = raster(area.w, area.h)
    board = load_board()
    # A pixel deep inside Poland (not highlighted) is darker; one inside Italy is unchanged.
    for cid, darker in (("pl", True), ("it", False)):
        ys, xs = np.nonzero(ids == [c.id for c in board.countries].index(cid) + 1)
        labels = [lb.rect for lb in layout.labels]
        k = next(k for k in range(len(xs)) if not any(r.inflate(8, 8).collidepoint(xs[k], ys[k]) for r in labels)
                 # Deep inside: clear of the focus outline on every side, not only the diagonals.
                 and all(ids[ys[k] + dy, xs[k] + dx] == ids[ys[k], xs[k]] for dx in (-8, 0, 8) for dy in (-8, 0, 8)))
        p = (area.x + int(xs[k]), area.y + int(ys[k]))
        before, after = sum(plain.get_at(p)[:3]), sum(marked.get_at(p)[:3])
        assert (after < before * 0.6) if darker else (after == before), cid


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


@pytest.mark.parametrize("size", [(800, 480), (3840, 2160)])
def test_the_map_screens_also_draw_on_other_displays(size: tuple[int, int]) -> None:
    pygame.init()
    for name in ("guess_start", "answer_country", "reveal"):
        assert render(phases()[name], size).get_size() == size
    area = map_area(Theme(*size))
    assert {lb.key for lb in label_layout(area.w, area.h).labels if not lb.grey} == {
        c.id for c in load_board().countries
    }


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_reveal_shows_every_card_whole(language: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reveal repeats the question under the explanation: for every card of both
    decks, at both display sizes and with five players, neither is cut ("…") and the
    players' rows below keep the height their names and statuses need."""
    import copy

    import table.display.games.umtata.screen as screen
    from table.common import i18n
    from table.games.contract import games
    from table.games.umtata.deck import default_deck

    pygame.init()
    games()  # the game's own catalogue of words, as at the table
    cut: list[str] = []
    block = screen._block

    def whole(surface: pygame.Surface, theme: Theme, message: str, rect: pygame.Rect, size: str,
              colour: tuple[int, int, int], max_lines: int = 3, bold: bool = False) -> int:
        if len(screen.fit_lines(theme, message, rect.w, size, max_lines, bold)[1]) > max_lines:
            cut.append(message)
        return block(surface, theme, message, rect, size, colour, max_lines, bold)

    monkeypatch.setattr(screen, "_block", whole)
    i18n.set_language(language)
    try:
        board = load_board()
        view = ENGINE.view(phases()["reveal"], None)
        view["players"].append({**view["players"][-1], "station": 4, "name": "Eve", "reader": False})
        for size in ((1280, 720), (1920, 1080)):
            theme = Theme(*size)
            u = theme.px
            area = map_area(theme)
            column = pygame.Rect(area.right + u(2), u(1.5), size[0] - area.right - u(3.5), size[1] - u(2.5))
            rows = column.bottom - 5 * (u(screen.PLAYER_ROW_MIN) + u(1)) + u(1)
            for q in default_deck(language):
                card = copy.deepcopy(view)
                country = board.get(q.country)
                card["question"].update(text=q.text, topic=q.topic)
                card["reveal"].update(country=q.country, explain=q.explain, region=country.region,
                                      colour=country.colour)
                bottom = screen.RENDERER._header(screen._scratch(), card, theme, column)
                assert bottom + u(1.5) <= rows, (size, q.source, bottom)
            assert not cut, (language, size, cut[:3])
    finally:
        i18n.set_language("en")
