"""Every Ugah Ugah! phase renders at both display sizes without touching the view."""

from __future__ import annotations

import copy
import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from games.ugah_ugah.screens import states
from table.display.games import RenderContext, renderers
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
