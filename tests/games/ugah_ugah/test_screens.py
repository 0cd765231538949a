"""Every Ugah Ugah! phase renders at both display sizes without touching the view."""

from __future__ import annotations

import copy
import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from games.ugah_ugah.screens import states
from table.common.i18n import format_message
from table.display.games import RenderContext, renderers
from table.display.games.ugah_ugah.screen import turn_summary
from table.display.theme import Theme
from table.games.ugah_ugah.engine import ENGINE

pytestmark = pytest.mark.heavy  # draws: left out of the fast tier

STATES = states()


def test_the_renderer_is_registered() -> None:
    assert renderers()["ugah_ugah"].game == "ugah_ugah"


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_every_phase_renders_and_leaves_the_view_alone(size: tuple[int, int]) -> None:
    pygame.init()
    renderer = renderers()["ugah_ugah"]
    phases = set()
    for name, state in STATES.items():
        view = ENGINE.view(state, None)
        before = copy.deepcopy(view)
        surface = pygame.Surface(size)
        renderer.draw(surface, view, RenderContext(Theme(*size), now=state.now, paused=name.startswith("4")))
        assert view == before, name
        phases.add(view["phase"])
    assert phases == {"throw", "choose", "spoils", "order", "keep", "give", "over"}


def test_the_turn_summary_says_what_the_dice_did() -> None:
    names = {0: "Ada", 1: "Ben", 2: "Cleo"}
    view = {"last_turn": {
        "station": 0, "skipped": False, "dice": {"mammoth": 3, "masher": 2},
        "spoils": {"card": "mammoth", "from": 2, "result": "took"},
        "steps": {"masher": 2, "breaker": 0},
        "chips": [{"place": 1, "to": 0, "points": None, "caterpillar": None},
                  {"place": 4, "to": 1, "points": None, "caterpillar": None}]}}
    said = [format_message(m.to_json()) for m in turn_summary(view, names)]
    assert said == ["Ada set aside 3\u00a0mammoths, 2\u00a0Mashers", "Ada took the Mammoth card from Cleo",
                    "Hunters walked: Masher\u00a02", "Ada kept a chip and gave Ben the other"]
    view["last_turn"]["chips"] = [{"place": 1, "to": 0, "points": 1, "caterpillar": True}]
    assert format_message(turn_summary(view, names, dice_line=False)[-1].to_json()) == \
        "Ada kept the chip caterpillar 1"
    assert turn_summary({"last_turn": None}, names) == []


def test_every_die_silhouette_keeps_its_contrast_lit_and_dimmed() -> None:
    """WCAG 2 contrast of each symbol's ink on the die face: 4.5:1 lit, 3:1 on the greyed
    face of a die not chosen; and the greyed face still reads as dimmer than a lit one."""
    from table.display.games.ugah_ugah.dice import FACE, FACE_DIM, INK
    from table.display.theme import contrast

    lit = {symbol: round(contrast(ink, FACE), 2) for symbol, ink in INK.items()}
    dim = {symbol: round(contrast(ink, FACE_DIM), 2) for symbol, ink in INK.items()}
    assert min(lit.values()) >= 4.5, lit
    assert min(dim.values()) >= 3.0, dim
    assert contrast(FACE, FACE_DIM) >= 1.5
