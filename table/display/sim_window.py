"""The simulator's stations bar: the picture of the virtual stations under the table's.

The simulator (:class:`table.hardware.sim.SimStations`) turns keys and the mouse into
station inputs; this draws what it holds (each button with its LED, each knob with its
position and push, the keys, the tray line) and says where the buttons and knobs are,
so the mouse can find them. The display knows the simulator only by this protocol.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Protocol

import pygame

from table.display import draw
from table.display.station_screen import OneBitPicture, draw_station_picture
from table.display.theme import ACCENT, BACKGROUND, PANEL, PANEL_LIGHT, TEXT, TEXT_DIM, Theme

HINT = "Keys per station: button · turn left/right · push (hold 2 s: table menu) · Enter: dice tray"


class StationsBar(Protocol):
    """What the bar shows of the simulated stations."""

    @property
    def stations(self) -> int: ...

    @property
    def leds(self) -> Mapping[int, str]:
        """Each station's button LED: "on", "off" or "blink" (unset: on)."""
        ...

    @property
    def knob(self) -> Mapping[int, int]:
        """Each knob's position in detents (unset: 0)."""
        ...

    @property
    def held_push(self) -> Collection[int]:
        """The stations whose knob is held pushed."""
        ...

    @property
    def typing(self) -> str | None:
        """The tray line being typed, or None."""
        ...

    @property
    def tray_message(self) -> str: ...

    def key_hint(self, station: int) -> str:
        """The keys of ``station``, as shown on its panel."""
        ...


def draw_stations_bar(surface: pygame.Surface, area: pygame.Rect, theme: Theme, now: float,
                      bar: StationsBar, private: Mapping[int, OneBitPicture] | None = None,
                      ) -> dict[int, dict[str, pygame.Rect]]:
    """Draw the stations bar in ``area`` at table time ``now`` (blinking LEDs blink at 2 Hz);
    returns each station's ``{"button": rect, "knob": rect}`` for the mouse. ``private``:
    each station's private display as it was last given (drawn right of the knob), so the
    simulator shows what the OLED at that station would."""
    pygame.draw.rect(surface, BACKGROUND, area)
    n = bar.stations
    gap = 8
    w = (area.width - gap * (n + 1)) // n
    layout = {}
    for s in range(n):
        rect = pygame.Rect(area.left + gap + s * (w + gap), area.top + gap, w, area.height - 2 * gap - 24)
        colour = theme.station_colour(s)
        draw.panel(surface, rect, PANEL, 10, colour, 3)
        draw.label(surface, theme, f"Station {s + 1}", (rect.left + 10, rect.top + 6), "small", colour,
                   bold=True)
        screen = (private or {}).get(s)
        r = min(rect.height // 3 - 2, w // 6 if screen is None else w // 9)
        button = pygame.Rect(0, 0, 2 * r, 2 * r)
        button.center = (rect.left + w // 4, rect.centery + 10) if screen is None else \
            (rect.left + 10 + r, rect.centery + 10)
        led = bar.leds.get(s, "on")
        lit = led == "on" or (led == "blink" and int(now * 4) % 2 == 0)
        pygame.draw.circle(surface, colour if lit else PANEL_LIGHT, button.center, r)
        pygame.draw.circle(surface, TEXT, button.center, r, 2)
        knob = pygame.Rect(0, 0, 2 * r + 40, 2 * r)
        knob.center = (rect.left + 3 * w // 4 - 10, rect.centery + 10) if screen is None else \
            (button.right + 14 + r, rect.centery + 10)
        if screen is not None:
            left = knob.centerx + r + 10
            oled = pygame.Rect(left, rect.top + 28, max(8, rect.right - 8 - left), rect.height - 36)
            shown = draw_station_picture(surface, oled, screen)
            pygame.draw.rect(surface, PANEL_LIGHT, shown.inflate(6, 6), 2, 3)
        pygame.draw.circle(surface, PANEL_LIGHT, knob.center, r)
        angle = bar.knob.get(s, 0) * (2 * math.pi / 16) - math.pi / 2
        tip = (knob.centerx + r * 0.8 * math.cos(angle), knob.centery + r * 0.8 * math.sin(angle))
        pygame.draw.line(surface, ACCENT, knob.center, tip, 4)
        if s in bar.held_push:
            pygame.draw.circle(surface, ACCENT, knob.center, r, 3)
        draw.label(surface, theme, bar.key_hint(s), (rect.right - 10, rect.top + 6), "small", TEXT_DIM, "topright")
        layout[s] = {"button": button, "knob": knob}
    hint = bar.tray_message or HINT
    if bar.typing is not None:
        hint = f"Tray> {bar.typing}_"
    draw.label(surface, theme, hint, (area.centerx, area.bottom - 4), "small", TEXT, "midbottom")
    return layout
