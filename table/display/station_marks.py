"""Marks over any screen at a station's own place: a press that counted, an input that
must wait, a long push counting.

A station's place on the screen is its share of the bottom edge (stations sit round the
table in seat order, as the lobby's station panels show them). Two marks go there, drawn
by the table loop over whatever screen shows:

* :func:`press_flash` - a short bar in the station's colour along its share of the
  edge, fading out over :data:`FLASH_S`: the press was taken.
* :func:`wait_mark` - a small box with "Wait" above the station's share of the edge,
  over a striped bar: the input was seen but taken by nothing (the screen had just
  changed, or the game does not take input yet), shown for :data:`WAIT_S`.
* :func:`hold_ring` - a ring in the station's colour that fills while the knob is held,
  full when the long push opens the table menu (``seconds`` after it went down); a
  station that does not play the game on screen gets it in the middle instead
  (:func:`middle_ring_rect`).
"""

from __future__ import annotations

import math

import pygame

from table.common.i18n import _, language
from table.display.layers import Live, Part
from table.display.theme import BACKGROUND, TEXT, Colour, Theme, note_cover, text

FLASH_S = 0.25
"""How long a press's flash shows (the button LED's flash lasts as long)."""

WAIT_S = 0.6
"""How long a "wait" mark shows: long enough to be read, gone before the next try."""

RING_STEPS = 60
"""Steps of the ring's filling: sixty over two seconds is a step every other frame."""


def station_slot(theme: Theme, size: tuple[int, int], station: int, stations: int) -> pygame.Rect:
    """``station``'s share of the screen's bottom edge, a strip 1.2 units high."""
    w, h = size
    n = max(1, stations)
    left = w * (station % n) // n
    right = w * (station % n + 1) // n
    height = max(2, theme.px(1.2))
    return pygame.Rect(left, h - height, right - left, height)


def _mix(colour: Colour, level: float) -> Colour:
    r, g, b = colour
    br, bg, bb = BACKGROUND
    return (int(br + (r - br) * level), int(bg + (g - bg) * level), int(bb + (b - bb) * level))


def press_flash(theme: Theme, size: tuple[int, int], station: int, stations: int, colour: Colour,
                at: float, name: int | None = None) -> Part:
    """The flash of a press by ``station`` at clock time ``at`` (shown until ``at + FLASH_S``).

    ``station`` and ``stations`` here and below are a place among places across the
    bottom edge (the table loop gives a game's players their panel's place); ``name``,
    the station itself, names the part (the place, without it)."""
    rect = station_slot(theme, size, station, stations)

    def level(now: float) -> int:
        return max(0, min(8, math.ceil(8 * (1 - (now - at) / FLASH_S))))

    def paint(surface: pygame.Surface, now: float) -> None:
        surface.fill(_mix(colour, level(now) / 8), rect)

    return Part(f"station:flash{station if name is None else name}", rect, (colour, at), paint,
                live=lambda now: (level(now), rect))


def wait_rect(theme: Theme, size: tuple[int, int], station: int, stations: int) -> pygame.Rect:
    """Where ``station``'s "wait" box shows: above its share of the bottom edge, across it,
    over the bottom line of a player's panel (what it asks of him), which it stands for."""
    slot = station_slot(theme, size, station, stations)
    width = slot.width - theme.px(7)
    height = theme.px(8.5)
    return pygame.Rect(slot.centerx - width // 2, slot.top - height - theme.px(1), width, height)


def wait_mark(theme: Theme, size: tuple[int, int], station: int, stations: int, colour: Colour,
              at: float, name: int | None = None) -> list[Part]:
    """The "wait" of ``station`` for an input at clock time ``at`` that nothing took
    (shown until ``at + WAIT_S``): a box with the word above its share of the edge, and
    the share itself striped in its colour. Two parts: the box, and the bar (which the
    press flash's part of the same station replaces while both show)."""
    box = wait_rect(theme, size, station, stations)
    bar = station_slot(theme, size, station, stations)
    word = _("Wait")
    label = name if name is not None else station

    def paint_box(surface: pygame.Surface, now: float) -> None:
        note_cover(box)  # the words under the box are hidden while it shows
        radius = theme.px(1.5)
        pygame.draw.rect(surface, BACKGROUND, box, border_radius=radius)
        pygame.draw.rect(surface, colour, box, max(2, theme.px(0.5)), border_radius=radius)
        text(surface, theme, word, box.center, size="large", colour=TEXT, anchor="center", bold=True,
             max_width=box.width - theme.px(2), box=box)

    def paint_bar(surface: pygame.Surface, now: float) -> None:
        surface.fill(BACKGROUND, bar)
        step = max(4, theme.px(2))
        for x in range(bar.left, bar.right, 2 * step):
            surface.fill(colour, pygame.Rect(x, bar.top, min(step, bar.right - x), bar.height))

    def still(rect: pygame.Rect) -> Live:
        # Live, though it does not change: the loop keeps drawing frames until it is gone.
        return lambda now: (0, rect)

    return [Part(f"station:wait{label}", box, (colour, at, word, language()), paint_box, live=still(box)),
            Part(f"station:waitbar{label}", bar, (colour, at), paint_bar, live=still(bar))]


def hold_ring_rect(theme: Theme, size: tuple[int, int], station: int, stations: int) -> pygame.Rect:
    """Where ``station``'s ring shows: above the right end of its share of the bottom
    edge (a panel's middle holds its words), clear of the panel's border."""
    slot = station_slot(theme, size, station, stations)
    d = theme.px(9)
    return pygame.Rect(slot.right - d - theme.px(4), slot.top - d - theme.px(3), d, d)


def ring_progress(down_at: float, seconds: float, now: float) -> int:
    """How far the ring has filled at ``now``, in :data:`RING_STEPS` (0 to all)."""
    if seconds <= 0:
        return RING_STEPS
    return max(0, min(RING_STEPS, int(RING_STEPS * (now - down_at) / seconds)))


def middle_ring_rect(theme: Theme, size: tuple[int, int]) -> pygame.Rect:
    """Where the ring of a station that does not play shows: the middle of the screen. A
    game's panels share the bottom edge among its players only, so a seat's share of it
    may lie in another player's panel, where the ring would read as that player's."""
    d = theme.px(14)
    return pygame.Rect(size[0] // 2 - d // 2, size[1] // 2 - d // 2, d, d)


def hold_ring(theme: Theme, size: tuple[int, int], station: int, stations: int, colour: Colour,
              down_at: float, seconds: float, name: int | None = None, rect: pygame.Rect | None = None) -> Part:
    """The ring of ``station``'s knob held since clock time ``down_at``; full ``seconds`` later
    (at ``rect`` if given, else at :func:`hold_ring_rect`)."""
    rect = rect if rect is not None else hold_ring_rect(theme, size, station, stations)

    def paint(surface: pygame.Surface, now: float) -> None:
        steps = ring_progress(down_at, seconds, now)
        radius = rect.width // 2
        width = max(2, theme.px(1.4))
        pygame.draw.circle(surface, BACKGROUND, rect.center, radius)
        pygame.draw.circle(surface, _mix(colour, 0.3), rect.center, radius, width)
        if steps:
            # Clockwise from twelve o'clock (pygame's arcs run anticlockwise in y-down).
            end = math.pi / 2
            start = end - 2 * math.pi * steps / RING_STEPS
            pygame.draw.arc(surface, colour, rect, start, end, width)
            if steps == RING_STEPS:
                pygame.draw.circle(surface, colour, rect.center, radius, width)

    return Part(f"station:ring{station if name is None else name}", rect, (colour, down_at, seconds), paint,
                live=lambda now: (ring_progress(down_at, seconds, now), rect))
