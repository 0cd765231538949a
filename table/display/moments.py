"""Celebrations: the first press, a round's winner and the game's end, in the player's colour.

A *moment* is a short animation over the game screen: a banner that grows out of its
place (eased) and shrinks away again, and a glow along the screen's edges that pulses in
the player's colour and fades. The banner sits where no words are (the game screen's
``banner_at``) and never travels: a banner that dropped in from the top edge and left
the same way swept over the header and the seconds on its way. The game's end adds
fireworks whose sparks burn only on the dark background, going out near every lit line
of the ranking. The game screen makes moments from the game's events (:func:`moment_for`:
those the game's screen celebrates) and from the game ending; while one runs its parts
are live, and once it is over the screen stops listing them, so an idle screen stays idle.

Everything is a :class:`~table.display.layers.Part`: the banner's rect follows the
banner (the composer repaints only where it was and is), and the glow is four thin
strips along the edges, so a celebration costs a few small regions per frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import pygame

from table.common.i18n import _
from table.display import draw
from table.display.games import GameRenderer
from table.display.layers import Part
from table.display.theme import ACCENT, BACKGROUND, BAD, PANEL_LIGHT, TEXT, Colour, Theme
from table.games.base import Event

if TYPE_CHECKING:  # numpy loads with the first spark, not with the table
    import numpy as np

DURATIONS = {"first": 1.8, "round": 2.6, "final": 4.5, "notice": 4.0}
"""Seconds each kind of moment lasts."""

FRAME_RATE = 30
"""Moments change their picture at most this often (the key counts these frames)."""


@dataclass(frozen=True)
class Moment:
    """One celebration: ``kind`` ("first", "round" or "final"), the banner's ``text``,
    the ``colours`` it shows (the player's, or every winner's in turn) and when it
    started on the table's clock."""

    kind: str  # "first", "round", "final", or "notice" (what a menu choice did: no glow)
    text: str
    colours: tuple[Colour, ...]
    start: float

    @property
    def duration(self) -> float:
        return DURATIONS[self.kind]

    def progress(self, now: float) -> float:
        """0 at the start, 1 at the end (clamped)."""
        return min(1.0, max(0.0, (now - self.start) / self.duration))

    def running(self, now: float) -> bool:
        return self.start <= now < self.start + self.duration


def ease_out_cubic(x: float) -> float:
    """Fast at first, settling without overshoot: 0 -> 0, 1 -> 1."""
    return 1 - (1 - x) ** 3


def ease_in_cubic(x: float) -> float:
    return x * x * x


def moment_for(renderer: GameRenderer | None, event: Event, name: str, colour: Colour,
               start: float) -> Moment | None:
    """The celebration an engine event deserves, if any: the one the game's ``renderer``
    names (:meth:`~table.display.games.GameRenderer.celebration`; ``None``: no screen,
    no celebration). ``name`` and ``colour`` are the event's station's."""
    found = renderer.celebration(event, name) if renderer is not None else None
    if found is None:
        return None
    kind, text = found
    return Moment(kind, text, (colour,), start)


def final_moment(winners: Sequence[tuple[str, Colour]], start: float) -> Moment:
    """The end of the game: every winner named, the glow cycling through their colours."""
    names = [n for n, _ in winners]
    if not names:
        text = _("Game over")
    elif len(names) == 1:
        text = _("{name} wins!").format(name=names[0])
    else:
        text = _("{names} share the win!").format(names=" & ".join(names))
    colours = tuple(c for _, c in winners) or ((255, 196, 64),)
    return Moment("final", text, colours, start)


def _frame(moment: Moment, now: float) -> int:
    return int((now - moment.start) * FRAME_RATE) if moment.running(now) else -1


def _colour_at(moment: Moment, now: float) -> Colour:
    step = int(max(0.0, now - moment.start) * 2.5)
    return moment.colours[step % len(moment.colours)]


UNPLACED = (0.5, 14.0)
"""Where the banner settles for a game without a screen: (centre as a share of the
width, top in units), below the headline."""


def parts(moment: Moment, size: tuple[int, int], theme: Theme, index: int = 0,
          renderer: GameRenderer | None = None) -> list[Part]:
    """The moment's parts (all live, times on the table's clock); the game's ``renderer``
    places the banner (its ``banner_at``; without one, :data:`UNPLACED`)."""
    w, h = size
    name = f"moment{index}:{moment.kind}:{moment.start}"
    # Thinner than the margin above the headers and beside the panels (2 units): the
    # glow frames the screen without touching its words.
    thick = theme.px(1.6)
    strips = {
        "top": pygame.Rect(0, 0, w, thick),
        "bottom": pygame.Rect(0, h - thick, w, thick),
        "left": pygame.Rect(0, 0, thick, h),
        "right": pygame.Rect(w - thick, 0, thick, h),
    }
    out: list[Part] = []

    def glow_width(now: float) -> int:
        if not moment.running(now):
            return 0
        p = moment.progress(now)
        pulse = 0.65 + 0.35 * math.cos((now - moment.start) * math.tau * 2.0)
        return max(0, round(thick * (1.0 - ease_in_cubic(p)) * pulse))

    for side, strip in (strips.items() if moment.kind != "notice" else ()):
        def live(now: float, strip: pygame.Rect = strip) -> tuple[object, pygame.Rect]:
            return (glow_width(now), _colour_at(moment, now) if moment.running(now) else None), strip

        def paint(surface: pygame.Surface, now: float, side: str = side, strip: pygame.Rect = strip) -> None:
            width = glow_width(now)
            if width <= 0:
                return
            band = strip.copy()
            if side == "top":
                band.height = width
            elif side == "bottom":
                band.height = width
                band.bottom = strip.bottom
            elif side == "left":
                band.width = width
            else:
                band.width = width
                band.right = strip.right
            surface.fill(_colour_at(moment, now), band)

        out.append(Part(f"{name}:glow-{side}", strip, moment, paint, live=live))

    if moment.kind == "final":
        # The game's own final screen names the winners: the moment adds fireworks (small
        # bursts of sparks, each a small part) and the glow, not a second headline.
        for k, (fx, fy, delay) in enumerate(BURSTS):
            out.append(_burst(f"{name}:burst{k}", moment, (round(fx * w), round(fy * h)), delay, theme, k))
        return out
    size_name = "large"
    font = theme.font(size_name, True)
    text_w, text_h = font.size(moment.text)
    pad = theme.px(2.5)
    share, top = renderer.banner_at if renderer is not None else UNPLACED
    centre_x = round(w * share)
    box = pygame.Rect(0, 0, min(2 * centre_x, 2 * (w - centre_x), w) - theme.px(2), text_h + pad)
    box.width = min(box.width, text_w + 2 * pad)
    rest = box.copy()
    rest.centerx = centre_x
    rest.top = theme.px(top)
    rest = rest.clip(pygame.Rect(0, 0, w, h))

    def banner_box(now: float) -> pygame.Rect | None:
        """Where the banner is at ``now``: growing out of its resting place (eased out),
        then shrinking back into it (eased in); never outside ``rest``."""
        if not moment.running(now):
            return None
        t = now - moment.start
        grow = ease_out_cubic(min(1.0, t / 0.35))
        leave = ease_in_cubic(max(0.0, (t - (moment.duration - 0.35)) / 0.35))
        scale = grow * (1.0 - leave)
        r = pygame.Rect(0, 0, round(rest.width * scale), round(rest.height * scale))
        r.center = rest.center
        return r if r.width > 2 and r.height > 2 else None

    def banner_live(now: float) -> tuple[object, pygame.Rect]:
        r = banner_box(now)
        if r is None:
            return None, pygame.Rect(rest.centerx, rest.centery, 0, 0)
        return (r.size, _colour_at(moment, now)), r

    def banner_paint(surface: pygame.Surface, now: float) -> None:
        r = banner_box(now)
        if r is None:
            return
        colour = _colour_at(moment, now)
        if r.height < rest.height * 0.9:
            # Still growing (or shrinking): the box alone; the words arrive with its full size.
            draw.panel(surface, r, PANEL_LIGHT if moment.kind == "notice" else colour, theme.px(1.6))
            return
        if moment.kind == "notice":
            draw.panel(surface, r, PANEL_LIGHT, theme.px(1.6), colour, theme.px(0.5))
            draw.label(surface, theme, moment.text, r.center, size_name, TEXT, "center", bold=True,
                       max_width=r.width - 2 * pad)
            return
        draw.panel(surface, r, colour, theme.px(1.6), BACKGROUND, theme.px(0.5))
        draw.label(surface, theme, moment.text, r.center, size_name, BACKGROUND, "center", bold=True,
                   max_width=r.width - 2 * pad)

    out.append(Part(f"{name}:banner", rest, moment, banner_paint, live=banner_live))
    return out


BURSTS = ((0.18, 0.30, 0.0), (0.82, 0.26, 0.5), (0.50, 0.20, 1.0), (0.30, 0.62, 1.5), (0.72, 0.60, 2.0),
          (0.15, 0.78, 2.6), (0.86, 0.80, 3.0))
"""Where (share of the width and height) and when (seconds in) the final fireworks burst."""

BURST_SECONDS = 1.3
SPARKS = 14


def _burst(name: str, moment: Moment, centre: tuple[int, int], delay: float, theme: Theme, k: int) -> Part:
    """One firework: sparks flying out from ``centre`` with eased speed, shrinking as they go."""
    reach = theme.px(11)
    fall = theme.px(2)
    spark = theme.px(0.9)
    # Everything a spark can reach: the ring, the fall below it, the spark's own size.
    bounds = pygame.Rect(0, 0, 2 * (reach + spark) + 4, 2 * (reach + spark) + fall + 4)
    bounds.midtop = (centre[0], centre[1] - reach - spark - 2)
    colour = moment.colours[k % len(moment.colours)]
    frames = FRAME_RATE * BURST_SECONDS

    def frame(now: float) -> int | None:
        t = now - moment.start - delay
        return int(t * FRAME_RATE) if 0 <= t < BURST_SECONDS else None

    def phase(now: float) -> float | None:
        # The picture follows the frame number (the key), not the exact time.
        f = frame(now)
        return None if f is None else f / frames

    def live(now: float) -> tuple[object, pygame.Rect]:
        return frame(now), bounds

    def paint(surface: pygame.Surface, now: float) -> None:
        p = phase(now)
        if p is None:
            return
        out = 1 - (1 - p) ** 3  # ease out: fast at first, settling
        size = max(1, round(theme.px(0.9) * (1 - p)))
        margin = theme.px(0.9)
        for i in range(SPARKS):
            angle = math.tau * i / SPARKS + k
            r = reach * out
            x = centre[0] + math.cos(angle) * r
            y = centre[1] + math.sin(angle) * r + fall * p * p  # a little gravity
            spark_behind(surface, colour if i % 3 else (255, 255, 255), (x, y), size, margin)

    return Part(name, bounds, moment, paint, live=live)


DARK = 0.08
"""Relative luminance below which a pixel counts as background for a spark: the panels
and the screen's own dark blues (at most 0.045), the gem board's wood (0.07). Every line
of text keeps 4.5:1 against such a background, so its letters, antialiased edges half
included, are lighter than this."""



@cache
def _luminance_tables() -> tuple[np.ndarray, np.ndarray]:
    """sRGB byte -> linear light, and the luminance weights (numpy loads with the first spark)."""
    import numpy as np

    linear = np.array([(v / 255 / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4)
                       for v in range(256)])
    return linear, np.array([0.2126, 0.7152, 0.0722])


def spark_behind(surface: pygame.Surface, colour: Colour, centre: tuple[float, float], radius: int,
                 margin: int) -> None:
    """A round spark of ``radius`` at ``centre``, painted only where it and ``margin``
    pixels around it are all dark background: near anything lit (a line of text, a gem, a
    card) it goes out, so a firework never hides a word of the ranking; a dark letter on a
    light card is never wide enough to hold a spark and its margin."""
    area = pygame.Rect(math.floor(centre[0] - radius - margin), math.floor(centre[1] - radius - margin),
                       2 * (radius + margin) + 2, 2 * (radius + margin) + 2).clip(surface.get_clip())
    if area.width <= 0 or area.height <= 0:
        return
    linear, weights = _luminance_tables()
    pixels = pygame.surfarray.pixels3d(surface)
    dark = bool((linear[pixels[area.left:area.right, area.top:area.bottom]] @ weights < DARK).all())
    del pixels
    if dark:
        pygame.draw.circle(surface, colour, centre, radius)


def notice(text: str, start: float) -> Moment:
    """A plain banner saying what a table-menu choice did ("Round skipped")."""
    return Moment("notice", text, (ACCENT,), start)


TENSION_SECONDS = 10.0
"""The sand's last seconds, when the screen's edges pulse red once a second."""


def tension_parts(size: tuple[int, int], theme: Theme, deadline: float, clock: Callable[[float], float]) -> list[Part]:
    """The last ten seconds of the sand: red strips along the screen's edges that swell
    and fade once a second (with the tick the sound plays), nothing before. ``deadline``
    is in the game's time, ``clock`` turns the table's time into it."""
    w, h = size
    thick = theme.px(1.2)
    strips = {
        "top": pygame.Rect(0, 0, w, thick),
        "bottom": pygame.Rect(0, h - thick, w, thick),
        "left": pygame.Rect(0, 0, thick, h),
        "right": pygame.Rect(w - thick, 0, thick, h),
    }

    def width(now: float) -> int:
        left = deadline - clock(now)
        if not 0 < left <= TENSION_SECONDS:
            return 0
        beat = left % 1.0  # 1 just after a second ticks over, falling to 0
        frame = int(beat * FRAME_RATE) / FRAME_RATE
        return max(0, round(thick * ease_in_cubic(frame)))

    out = []
    for side, strip in strips.items():
        def paint(surface: pygame.Surface, now: float, side: str = side, strip: pygame.Rect = strip) -> None:
            n = width(now)
            if n <= 0:
                return
            band = strip.copy()
            if side in ("top", "bottom"):
                band.height = n
                if side == "bottom":
                    band.bottom = strip.bottom
            else:
                band.width = n
                if side == "right":
                    band.right = strip.right
            surface.fill(BAD, band)

        def live(now: float, strip: pygame.Rect = strip) -> tuple[object, pygame.Rect]:
            return width(now), strip

        out.append(Part(f"tension:{side}", strip, deadline, paint, live=live))
    return out
