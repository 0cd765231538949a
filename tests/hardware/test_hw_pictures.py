"""Pictures of the LED hourglass for the build guide (docs/images/hardware/).

Each picture shows the same frames the LEDs get - drawn with the simulator's LED
drawing - at the moments of a run: idle, flip, running, last seconds, end flash,
and a station's press flash.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from table.hardware.hourglass import FLIP_SECONDS, Flash, HourglassState, hourglass_frame
from table.hardware.interfaces import HourglassLayout

OUT = Path(__file__).resolve().parents[2] / "docs" / "images" / "hardware"

MOMENTS = [
    ("idle", 0.0, HourglassState()),
    ("flip", 100.0 + FLIP_SECONDS / 2, HourglassState(sand_started=100.0)),
    ("10 s", 110.0, HourglassState(sand_started=100.0)),
    ("30 s", 130.0, HourglassState(sand_started=100.0)),
    ("press", 140.05, HourglassState(sand_started=100.0, flashes=(Flash(140.0, (86, 180, 233), 1),))),
    ("last 5 s", 155.1, HourglassState(sand_started=100.0)),
    ("end", 160.1, HourglassState(sand_started=100.0)),
    ("after", 170.0, HourglassState(sand_started=100.0)),
]


@pytest.mark.parametrize(
    ("name", "layout", "cell"),
    [
        ("hourglass-strip-60", HourglassLayout(kind="strip", count=60), (90, 620)),
        ("hourglass-two-matrices", HourglassLayout(kind="matrix", width=8, height=8, matrices=2), (150, 300)),
    ],
)
def test_hourglass_pictures(name: str, layout: HourglassLayout, cell: tuple[int, int]) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    from table.loop.outputs import draw_led_hourglass

    pygame.font.init()
    w, h = cell
    pad = 20
    surface = pygame.Surface((pad + len(MOMENTS) * (w + pad), h + 70))
    surface.fill((24, 26, 34))
    font = pygame.font.Font(None, 28)
    for k, (label, now, state) in enumerate(MOMENTS):
        frame = hourglass_frame(now, state, layout)
        assert len(frame) == layout.pixels
        rect = pygame.Rect(pad + k * (w + pad), 50, w, h)
        draw_led_hourglass(surface, rect, frame, layout)
        img = font.render(label, True, (235, 235, 230))
        surface.blit(img, img.get_rect(midtop=(rect.centerx, 14)))
    OUT.mkdir(parents=True, exist_ok=True)
    pygame.image.save(surface, str(OUT / f"{name}.png"))
