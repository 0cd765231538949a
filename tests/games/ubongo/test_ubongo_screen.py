"""The Ubongo screen draws every phase at both display sizes without touching the view."""

from __future__ import annotations

import copy
import os
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from make_ubongo_screens import SHOTS, make

from table.display.games import RenderContext, renderers
from table.display.games.ubongo.screen import GEM_SHAPES, RENDERER, _with_player_colours, gem_points
from table.display.theme import STATION_COLOURS, Theme

pytestmark = pytest.mark.heavy  # draws: left out of the fast tier


def test_renderer_is_registered_for_the_engine() -> None:
    assert renderers()["ubongo"] is RENDERER


def test_every_phase_draws_at_both_sizes(tmp_path: Path) -> None:
    written = make(tmp_path)
    assert len(written) == 2 * len(SHOTS)
    for path in written:
        image = pygame.image.load(str(path))
        assert image.get_size() in ((1920, 1080), (1280, 720))


def test_draw_changes_nothing_but_the_surface() -> None:
    pygame.init()
    for build in SHOTS.values():
        table, now = build()
        view = table.view()
        kept = copy.deepcopy(view)
        surface = pygame.Surface((1280, 720))
        RENDERER.draw(surface, view, RenderContext(Theme(1280, 720), now, paused=True))
        assert view == kept


def test_every_gem_colour_has_its_own_shape() -> None:
    assert len(set(GEM_SHAPES.values())) == len(GEM_SHAPES) == 6
    outlines = {shape: gem_points(shape, 0, 0, 10) for shape in GEM_SHAPES.values()}
    assert sum(1 for pts in outlines.values() if pts is None) == 1  # one plain circle, the rest polygons
    assert len({len(pts) for pts in outlines.values() if pts is not None}) >= 4


def test_players_keep_the_colours_they_chose_in_the_lobby() -> None:
    from ubongo_driver import Table

    table = Table(2, options={"colours": [4, 0]})
    players = table.view()["players"]
    assert [p["colour"] for p in players] == [4, 0]
    theme = _with_player_colours(Theme(1280, 720), players)
    assert theme.station_colour(0) == STATION_COLOURS[4]
    assert theme.station_colour(1) == STATION_COLOURS[0]


@pytest.mark.parametrize(("shot", "why", "said", "not_said"), [
    ("6-results", "sand ran out", "Sand has run out", "Everyone has taken gems"),
    ("6-results-everyone-took", "everyone has taken", "Everyone has taken gems", "Sand has run out"),
])
def test_the_results_say_how_the_round_ended(shot: str, why: str, said: str, not_said: str) -> None:
    """A round that ended because every finisher had taken never claims the sand ran out."""
    from table.common.i18n import set_language
    from table.display.theme import TextDrawn, record_text

    pygame.init()
    table, now = SHOTS[shot]()
    view = table.view()
    assert view["phase"] == "results" and view["round_end"] == why
    for lang, words, other in (("en", said, not_said),
                               ("de", *(("Alle haben Edelsteine genommen", "Die Sanduhr ist abgelaufen")
                                        if why == "everyone has taken" else
                                        ("Die Sanduhr ist abgelaufen", "Alle haben Edelsteine genommen")))):
        set_language(lang)
        drawn: list[TextDrawn] = []
        try:
            with record_text(drawn.append):
                RENDERER.draw(pygame.Surface((1280, 720)), view, RenderContext(Theme(1280, 720), now))
        finally:
            set_language("en")
        shown = {d.message for d in drawn}
        assert words in shown and other not in shown, (lang, shown)
