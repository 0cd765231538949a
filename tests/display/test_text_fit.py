"""Every line of text on every screen of every game fits its box, in both languages and
at both display sizes: measured from the pixels each line painted against the rectangle
it was given (its panel or row), the screen, and the clip the table repaints it under."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from display.textfit import SIZES, game_screens, misfits, shell_screens
from table.common.i18n import LANGUAGES, set_language
from table.display.theme import Theme, text


@pytest.fixture(autouse=True)
def _display() -> None:
    pygame.display.init()
    pygame.font.init()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("screens", [shell_screens, game_screens], ids=["shell+pictures", "games"])
def test_every_line_fits_its_box(lang: str, screens: object) -> None:
    set_language(lang)
    problems = []
    count = 0
    for name, paint in screens():  # type: ignore[operator]
        for size in SIZES:
            # Shrinking to fit is allowed (how small a readable line may be is the layout
            # test's business); a line squeezed below a quarter of its size has not fitted
            # (the smallest today are the labels of the tiny spoils dice, at 30 %).
            problems += misfits(name, paint, size, min_scale=0.25)
            count += 1
    assert count > 10
    assert not problems, "\n".join(str(p) for p in problems)


def test_the_measure_catches_a_line_out_of_its_box_and_a_cut_one() -> None:
    """The check can fail: a line wider than its panel, and one drawn past its clip."""
    theme = Theme(1280, 720)
    box = pygame.Rect(100, 100, 120, 40)

    def too_wide(surface: pygame.Surface) -> None:
        text(surface, theme, "Donaudampfschifffahrtsgesellschaft", (box.x + 4, box.y + 4), box=box)

    def cut(surface: pygame.Surface) -> None:
        surface.set_clip(pygame.Rect(0, 0, 150, 720))
        text(surface, theme, "Tschechien", (120, 300))

    def fitted(surface: pygame.Surface) -> None:
        text(surface, theme, "Donaudampfschifffahrtsgesellschaft", (box.x + 4, box.y + 4), size="small",
             max_width=box.w - 8, box=box)

    assert [m.why.split(" (")[0] for m in misfits("wide", too_wide, (1280, 720))] == ["runs out of its box"]
    assert [m.why.split(" (")[0] for m in misfits("cut", cut, (1280, 720))] == ["is cut"]
    shrunk = misfits("fitted", fitted, (1280, 720), min_scale=0.9)
    assert [m.why.split(" to ")[0] for m in shrunk] == ["is shrunk"]
    assert misfits("fitted", fitted, (1280, 720), min_scale=0.1) == []
