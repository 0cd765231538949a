"""The LED hourglass animation: a pure function from (time, state, layout) to pixels.

``hourglass_frame(now, state, layout)`` returns one colour per LED. It reads no
clock and keeps no memory, so the same call draws the real LEDs, the simulator's
on-screen hourglass and the test's expected frames.

What it shows:

* **idle** (no sand running): a slow breathing glow of the sand in the bottom bulb.
* **flip** (the first ``FLIP_SECONDS`` after the sand starts): the full bottom bulb
  slides up into the top bulb, as when the glass is turned over.
* **running**: the top bulb drains grain by grain (the surface sinks from the top),
  the bottom bulb fills from the bottom up, and one grain is always falling from
  the neck to the pile. Exactly ``floor(elapsed / sand_seconds * grains)`` grains
  have landed at any moment.
* **last seconds**: the sand blinks (slowly from ``last_seconds``, faster in the
  final three seconds).
* **end**: the whole glass flashes for ``END_FLASH_SECONDS``, then the full bottom
  glows steadily.
* **press flash**: a station's colour washes over the glass for
  ``PRESS_FLASH_SECONDS`` after its press, fading out (the newest flash wins).

Brightness and the current limit are *not* applied here; see :func:`limit_frame`,
which the LED backends call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from table.common.memory import LED_FRAMES, LED_LAYOUTS
from table.hardware.interfaces import RGB, HourglassLayout

OFF: RGB = (0, 0, 0)
SAND: RGB = (255, 150, 30)
END_COLOUR: RGB = (255, 40, 20)
FLIP_SECONDS = 0.6
END_FLASH_SECONDS = 2.0
PRESS_FLASH_SECONDS = 0.4
IDLE_PERIOD = 4.0
GLOW_LEVELS = 24
"""Brightness steps of the idle glow between its dimmest (15%) and brightest (45%): a
step is 1.25% of full brightness, as much as twenty frames a second moved it at its
fastest, so the breath looks as smooth; the glow's frame changes only at a step
(:func:`next_glow_change`), about twelve times a second on average."""


@dataclass(frozen=True)
class Flash:
    """A station's press shown on the glass: its colour from ``t`` on."""

    t: float
    colour: RGB
    station: int | None = None


@dataclass(frozen=True)
class HourglassState:
    """What the hourglass should be showing (owned by the table loop).

    ``sand_started`` is the table time at which the glass was (last) turned, or
    ``None`` when no sand runs (idle glow). ``paused_at`` freezes the sand at that
    time (the table menu's pause). ``flashes`` are recent presses to wash over.
    """

    sand_started: float | None = None
    sand_seconds: float = 60.0
    last_seconds: float = 10.0
    paused_at: float | None = None
    flashes: tuple[Flash, ...] = ()
    sand_colour: RGB = SAND


@dataclass(frozen=True)
class _Geometry:
    """Pixel indices of both bulbs in the order sand occupies them, and the path a
    falling grain takes from the neck down (bottom bulb, top to bottom)."""

    top_fill: tuple[int, ...]  # first = lowest cell next to the neck
    bottom_fill: tuple[int, ...]  # first = bottom of the bottom bulb
    fall_path: tuple[int, ...]  # from the neck downwards, centre column


def _matrix_index(layout: HourglassLayout, matrix: int, row: int, col: int) -> int:
    w = layout.width
    if layout.order == "serpentine" and row % 2 == 1:
        col = w - 1 - col
    return matrix * w * layout.height + row * w + col


def _centre_out(width: int) -> list[int]:
    """Columns ordered from the centre outwards (sand piles up in the middle)."""
    centre = (width - 1) / 2
    return sorted(range(width), key=lambda c: (abs(c - centre), c))


@lru_cache(maxsize=LED_LAYOUTS)
def _geometry(layout: HourglassLayout) -> _Geometry:
    if layout.kind == "strip":
        half = layout.count // 2
        top = tuple(range(half - 1, -1, -1))  # neck end (half-1) first
        bottom = tuple(range(layout.count - 1, half - 1, -1))  # far end first
        return _Geometry(top, bottom, tuple(range(half, layout.count)))
    w, h = layout.width, layout.height
    cols = _centre_out(w)
    if layout.matrices >= 2:
        top_rows = [(0, r) for r in range(h)]
        bottom_rows = [(1, r) for r in range(h)]
    else:
        top_rows = [(0, r) for r in range(h // 2)]
        bottom_rows = [(0, r) for r in range(h // 2, h // 2 * 2)]
    top = tuple(
        _matrix_index(layout, m, r, c) for (m, r) in reversed(top_rows) for c in cols
    )
    bottom = tuple(
        _matrix_index(layout, m, r, c) for (m, r) in reversed(bottom_rows) for c in cols
    )
    fall = tuple(_matrix_index(layout, m, r, cols[0]) for (m, r) in bottom_rows)
    return _Geometry(top, bottom, fall)


def _scale(colour: RGB, k: float) -> RGB:
    return (int(colour[0] * k + 0.5), int(colour[1] * k + 0.5), int(colour[2] * k + 0.5))


def _blend(a: RGB, b: RGB, k: float) -> RGB:
    """``a`` moved towards ``b`` by ``k`` in 0..1."""
    return (
        int(a[0] + (b[0] - a[0]) * k + 0.5),
        int(a[1] + (b[1] - a[1]) * k + 0.5),
        int(a[2] + (b[2] - a[2]) * k + 0.5),
    )


def grains_landed(elapsed: float, sand_seconds: float, grains: int) -> int:
    """How many of ``grains`` have reached the bottom after ``elapsed`` seconds."""
    if elapsed <= 0:
        return 0
    if elapsed >= sand_seconds:
        return grains
    return min(grains, int(elapsed / sand_seconds * grains))


def hourglass_frame(now: float, state: HourglassState, layout: HourglassLayout) -> list[RGB]:
    """The colours of every LED at table time ``now`` (``layout.pixels`` entries)."""
    geo = _geometry(layout)
    frame: list[RGB] = [OFF] * layout.pixels
    grains = min(len(geo.top_fill), len(geo.bottom_fill))
    sand = state.sand_colour
    if state.sand_started is None:
        # Idle: the full bottom breathes gently between 15 % and 45 %.
        k = 0.15 + 0.30 * glow_level(now) / GLOW_LEVELS
        return _apply_flashes(list(_glow(layout, _scale(sand, k))), now, state.flashes)

    clock = now if state.paused_at is None else min(now, state.paused_at)
    elapsed = clock - state.sand_started
    remaining = state.sand_seconds - elapsed
    if elapsed < 0:
        elapsed = 0.0
    if elapsed < FLIP_SECONDS and state.paused_at is None:
        _draw_flip(frame, geo, grains, elapsed / FLIP_SECONDS, sand)
        return _apply_flashes(frame, now, state.flashes)

    if remaining <= 0:
        since_end = -remaining
        if since_end < END_FLASH_SECONDS and int(since_end * 8) % 2 == 0:
            return _apply_flashes([END_COLOUR] * layout.pixels, now, state.flashes)
        for i in geo.bottom_fill[:grains]:
            frame[i] = sand
        return _apply_flashes(frame, now, state.flashes)

    landed = grains_landed(elapsed, state.sand_seconds, grains)
    colour = sand
    if remaining <= state.last_seconds and state.paused_at is None:
        rate = 4.0 if remaining <= 3.0 else 2.0  # blinks per second
        if (remaining * rate * 2) % 2 < 1:
            colour = _scale(sand, 0.25)
    for i in geo.top_fill[: grains - landed]:
        frame[i] = colour
    for i in geo.bottom_fill[:landed]:
        frame[i] = colour
    if landed < grains:
        _draw_falling_grain(frame, geo, elapsed, state.sand_seconds, grains, landed, colour)
    return _apply_flashes(frame, now, state.flashes)


def glow_level(now: float) -> int:
    """The idle glow's brightness step (0 to :data:`GLOW_LEVELS`) at table time ``now``."""
    return round(GLOW_LEVELS * (0.5 + 0.5 * math.sin(2 * math.pi * now / IDLE_PERIOD)))


def next_glow_change(now: float) -> float:
    """The first table time after ``now`` at which :func:`glow_level` differs from its
    value at ``now``: where the sine next crosses the edge of its step, up or down."""
    theta = 2 * math.pi * now / IDLE_PERIOD
    level = glow_level(now)
    turn = 2 * math.pi
    best = math.inf
    for edge in (level + 0.5, level - 0.5):
        sine = 2 * edge / GLOW_LEVELS - 1
        if not -1 < sine < 1:
            continue  # the brightest or dimmest step: the sine turns before that edge
        first = math.asin(sine)
        for angle in (first, math.pi - first):
            angle += turn * math.ceil((theta - angle) / turn)
            if angle <= theta:
                angle += turn
            best = min(best, angle)
    # A hair past the crossing, so that the step read there is the new one.
    return best * IDLE_PERIOD / turn + 1e-6


@lru_cache(maxsize=LED_FRAMES)
def _glow(layout: HourglassLayout, colour: RGB) -> tuple[RGB, ...]:
    """The idle glow's frame in one colour: it takes at most a few dozen colours (its
    brightness steps), and an idle table draws one twenty times a second."""
    geo = _geometry(layout)
    frame: list[RGB] = [OFF] * layout.pixels
    for i in geo.bottom_fill[: min(len(geo.top_fill), len(geo.bottom_fill))]:
        frame[i] = colour
    return tuple(frame)


def _draw_flip(frame: list[RGB], geo: _Geometry, grains: int, p: float, sand: RGB) -> None:
    """The glass turning over: the sand slides from the bottom bulb into the top."""
    # Sand cells as one column of slots: top bulb (far end first) then bottom bulb.
    slots = list(reversed(geo.top_fill[:grains])) + list(reversed(geo.bottom_fill[:grains]))
    shift = round(grains * (1.0 - p))  # grains cells still below the neck
    for k in range(grains):
        frame[slots[k + shift]] = sand


def _draw_falling_grain(
    frame: list[RGB], geo: _Geometry, elapsed: float, sand_seconds: float,
    grains: int, landed: int, colour: RGB,
) -> None:
    """One grain on its way from the neck to the first free cell of the fall path."""
    free = [i for i in geo.fall_path if frame[i] == OFF]
    if not free:
        return
    phase = elapsed / sand_seconds * grains - landed  # 0..1 through this grain's fall
    frame[free[min(len(free) - 1, int(phase * len(free)))]] = colour


def fading_flashes(now: float, flashes: Sequence[Flash]) -> list[Flash]:
    """The press flashes still washing over the glass at table time ``now``."""
    return [f for f in flashes if 0 <= now - f.t < PRESS_FLASH_SECONDS]


def _apply_flashes(frame: list[RGB], now: float, flashes: Sequence[Flash]) -> list[RGB]:
    recent = fading_flashes(now, flashes)
    if not recent:
        return frame
    flash = max(recent, key=lambda f: f.t)
    k = 1.0 - (now - flash.t) / PRESS_FLASH_SECONDS
    return [_blend(c, flash.colour, k) for c in frame]


# --- brightness and current limit (applied by the LED backends) ----------------

MILLIAMPS_PER_CHANNEL = 20.0
"""A WS2812 draws about 20 mA per fully lit colour channel (60 mA for white)."""
IDLE_MILLIAMPS_PER_LED = 1.0
"""...and about 1 mA when dark (its controller chip)."""


def frame_milliamps(frame: Sequence[RGB]) -> float:
    """The estimated current of a frame as sent to the strip."""
    lit = sum(r + g + b for r, g, b in frame) / 255.0
    return lit * MILLIAMPS_PER_CHANNEL + IDLE_MILLIAMPS_PER_LED * len(frame)


def limit_frame(frame: Sequence[RGB], brightness: float, max_milliamps: float | None) -> list[RGB]:
    """Scale a frame by ``brightness`` (0..1) and then, if its estimated current
    exceeds ``max_milliamps``, scale it down uniformly until it fits (so a power
    supply sized for the limit is never overloaded, whatever the animation does)."""
    b = max(0.0, min(1.0, brightness))
    out = [_scale(c, b) for c in frame]
    if max_milliamps is None:
        return out
    budget = max_milliamps - IDLE_MILLIAMPS_PER_LED * len(out)
    lit = frame_milliamps(out) - IDLE_MILLIAMPS_PER_LED * len(out)
    if lit <= budget or lit <= 0:
        return out
    k = max(0.0, budget) / lit
    # Round down so that the scaled frame never exceeds the budget.
    return [(int(r * k), int(g * k), int(bl * k)) for r, g, bl in out]
