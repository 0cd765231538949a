"""Every rendered screen in every language (the table's own, every phase of every game and variant, the
menu's flows) at 1920x1080 and 1280x720: no two lines of text overlap, none leaves the
screen, and none is smaller than 24 px at 1080p (16 px at 720p). The drawing helpers
record each line's box (``table.display.theme.recording``), minus what an opaque panel
drawn later covers."""

from __future__ import annotations

import os

import pygame
import pytest

from table.common.i18n import LANGUAGES, set_language
from table.display.theme import recording
from table.loop.snapshots import all_moments

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

SIZES = ((1920, 1080), (1280, 720))
MIN_PX_1080 = 24
SLACK = 2  # antialiased edges: boxes may touch by a pixel or two


def _problems(size: tuple[int, int], name: str, snap: object) -> list[str]:
    surface = pygame.Surface(size)
    with recording() as drawn:
        snap(surface)  # type: ignore[operator]
    # A line painted twice in the same place (a part repainting over its own base) is one line.
    unique = {(tuple(d.rect), d.message): d for d in drawn}
    drawn = list(unique.values())
    problems = []
    screen = surface.get_rect()
    smallest = MIN_PX_1080 * size[1] / 1080
    for d in drawn:
        if not screen.contains(d.rect):
            problems.append(f"{name}: '{d.message}' leaves the screen at {tuple(d.rect)}")
        if d.height < smallest - 0.5:
            problems.append(f"{name}: '{d.message}' is {d.height} px high (at least {smallest:.0f})")
    for i, a in enumerate(drawn):
        for b in drawn[i + 1:]:
            if a.rect.inflate(-2 * SLACK, -2 * SLACK).colliderect(b.rect.inflate(-2 * SLACK, -2 * SLACK)):
                problems.append(f"{name}: '{a.message}' {tuple(a.rect)} overlaps '{b.message}' {tuple(b.rect)}")
    return problems


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_no_text_overlaps_leaves_the_screen_or_is_too_small(size: tuple[int, int], lang: str) -> None:
    pygame.display.init()
    pygame.font.init()
    problems: list[str] = []
    names = 0
    set_language(lang)
    try:
        for name, snap in all_moments():
            names += 1
            problems += _problems(size, name, snap)
    finally:
        set_language(LANGUAGES[0])
    assert names > 60
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:80])
