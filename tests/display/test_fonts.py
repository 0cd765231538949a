"""The screens' one font cache: the same pictures as pygame's own default font, no file
kept open however many sizes are in use, and fonts that survive a ``pygame.quit()``."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from table.common.memory import FONTS
from table.display.theme import open_font


@pytest.fixture(autouse=True)
def _fonts() -> None:
    pygame.font.init()


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("px", [6, 14, 26, 41, 90, 233])
@pytest.mark.parametrize("bold", [False, True])
def test_a_kept_font_draws_what_pygames_default_font_draws(px: int, bold: bool) -> None:
    ours = open_font(px, bold)
    theirs = pygame.font.Font(None, px)
    theirs.set_bold(bold)
    for words in ("Tataaa! 16", "Größe Ägypten", "Wg"):
        a = ours.render(words, True, (255, 255, 255))
        b = theirs.render(words, True, (255, 255, 255))
        assert a.get_size() == b.get_size()
        assert pygame.image.tobytes(a, "RGBA") == pygame.image.tobytes(b, "RGBA")


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files through /proc")
def test_fonts_at_many_sizes_keep_no_file_open() -> None:
    before = _open_files()
    for px in range(8, 8 + 3 * FONTS):
        open_font(px, px % 2 == 0).size("x")
    assert _open_files() <= before


def test_fonts_come_back_after_pygame_quit() -> None:
    open_font(30).size("x")
    pygame.quit()
    pygame.font.init()
    assert open_font(30).size("Umtata")[0] > 0
