"""Every line of text on every screen of every game fits its box, in both languages and
at both display sizes: measured from the pixels each line painted against the rectangle
it was given (its panel or row), the screen, and the clip the table repaints it under."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from display.textfit import SIZES, game_screens, misfits, shell_screens, size_misfits
from table.common.i18n import LANGUAGES, set_language
from table.display.theme import TextDrawn, Theme, one_size, record_text, text


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


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("screens", [shell_screens, game_screens], ids=["shell+pictures+finals", "games"])
def test_every_panel_draws_its_lines_of_one_type_at_one_size(lang: str, screens: object) -> None:
    """Text in one panel at one size: lines that share a panel (or a box) and a type size
    end the same height at 1920x1080 and 1280x720, in both languages - a long German word
    shrinks its whole panel alike (:func:`table.display.theme.one_size`), never itself alone."""
    set_language(lang)
    problems = []
    for name, paint in screens():  # type: ignore[operator]
        for size in SIZES:
            problems += size_misfits(name, paint, size)
    assert not problems, "\n".join(str(p) for p in problems)


def _drawn(paint: object, size: tuple[int, int]) -> list[TextDrawn]:
    drawn: list[TextDrawn] = []
    with record_text(drawn.append):
        paint(pygame.Surface(size))  # type: ignore[operator]
    return drawn


@pytest.mark.parametrize("size", SIZES)
def test_the_panels_named_in_german_share_one_scale(size: tuple[int, int]) -> None:
    """Ugah's tray names, the names of the dice set aside, the knob's tabs and the
    buttons of a choice, and every final ranking's rows: each drawn at its panel's one
    scale, in German, where the words are longest."""
    set_language("de")
    try:
        screens = dict(game_screens()) | dict(shell_screens())
        wanted = {
            "ugah_ugah/4-choose-symbols": ["Mammut", "Matscher", "Vogel", "Weglegen"],
            "ugah_ugah/10-give-the-other": ["Matscher", "Brecher", "Knochen"],
            "ugah_ugah/2-knob-dice-entry": ["Matscher", "Brecher", "Knochen"],
            **{f"{game}/final": [] for game in ("ubongo", "ubongo_shimo", "ugah_ugah", "umtata")},
        }
        for name, words in wanted.items():
            drawn = _drawn(screens[name], size)
            for word in words:
                found = [d for d in drawn if d.message.removeprefix("+") == word]
                assert found and all(d.panel is not None for d in found), (name, word)
            if name.endswith("/final"):
                # Below the header (a panel of its own): every row's words in one panel.
                names = [d for d in drawn if d.size == "large" and d.panel is not None and d.panel[1] > 0]
                assert len({d.panel for d in names}) == 1 and len(names) >= 6, name
            panels: dict[object, set[float]] = {}
            for d in drawn:
                if d.panel is not None:
                    panels.setdefault((d.panel, d.size), set()).add(round(d.scale, 2))
            assert all(max(v) - min(v) <= 0.02 for v in panels.values()), (name, panels)
    finally:
        set_language("en")


def test_one_size_shrinks_a_panel_together_and_the_check_catches_a_line_alone() -> None:
    theme = Theme(1280, 720)
    pygame.font.init()
    panel = pygame.Rect(100, 100, 150, 80)
    words = ["Dinosaurier", "Vogel"]
    fit = one_size(theme, panel, [(w, "body", True, 120) for w in words])
    assert 0.5 < fit.scale < 1

    def together(surface: pygame.Surface) -> None:
        for i, w in enumerate(words):
            text(surface, theme, w, (panel.x, panel.y + 30 * i), "body", bold=True, max_width=120, box=panel,
                 fit=fit)

    def alone(surface: pygame.Surface) -> None:
        for i, w in enumerate(words):
            text(surface, theme, w, (panel.x, panel.y + 30 * i), "body", bold=True, max_width=120, box=panel)

    drawn = _drawn(together, (1280, 720))
    assert len({d.image.get_height() for d in drawn if d.image is not None}) == 1
    assert all(abs(d.scale - fit.scale) < 0.06 and d.panel for d in drawn)  # a face in whole pixels
    assert size_misfits("together", together, (1280, 720)) == []
    assert [m.why.split(" in ")[0] for m in size_misfits("alone", alone, (1280, 720))] == ["share a box"]
