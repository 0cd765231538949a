"""Giving freed memory back to the system, and the bounds of the table's caches.

glibc's allocator keeps memory a program has freed for its next allocations, and it
serves even large blocks from that kept memory once blocks of that size have been
freed before (its threshold for mapping them separately rises with every such free).
Building a picture ahead (a map's layers, at the table's first idle moment) goes
through many large temporary arrays; without :func:`give_back` the kiosk would hold
their memory for as long as it runs.

The bounds below are the most each kind of cache keeps; every cache of the screens and
the outputs takes its size from here, so what the kiosk may hold is read in one place.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

# -- the bounds of the caches ------------------------------------------------------

TEXT_CACHE_BYTES = 3 << 20
"""Each of the three caches of rendered text (lines, shaped lines, shrunk lines) keeps
at most this many bytes of pictures: bounded by what it holds, not by how many lines (a
huge timer digit weighs far more than a small label)."""

SCREEN_SIZES = 2
"""Pictures made for one size of the screen (a map's layers, its outlines) are kept for
this many sizes: the table's own and one more (a screenshot, the simulator's window)."""

SIZE_ARRAYS = 4
"""What other layers are made from at one size (which country covers each pixel of a
map, the plain map, where its names go) is kept for this many sizes: the layers' sizes
and the label layout's own."""

STATE_PICTURES = 1
"""Screen-sized pictures of game states (a map with its marks) kept at once: the one
shown (5 MB at 1920x1080; a second one, for a state shown again, cost the kiosk's
memory more than its repaint costs the frame)."""

RENDERED_LABELS = 512
"""Single labels rendered once and kept (a map's country names in every colour)."""

FONTS = 16
"""Fonts kept, one per size and weight. Opening one costs little (0.03 ms: the face is
read from memory), but a font keeps the glyphs it has drawn, up to about 1 MB at a
timer's size, so the cache is kept small; drawn lines are kept in the text caches."""

LAYOUTS = 64
"""Computed placements kept (which names a highlight draws again above its outline)."""

SMALL_MEMOS = 8
"""Small helpers kept per key (a veil's tile per shade, lines per width and language)."""

LED_LAYOUTS = 32
"""The LED hourglass's geometry per layout (one, unless the simulator shows others)."""

LED_FRAMES = 128
"""Frames of the LED hourglass's idle glow, one per colour it passes (a few dozen)."""

DIE_FACES = 64
"""Dice faces drawn once and kept as pictures, per symbol, size and shade."""

PICTURE_FILES = 32
"""Pictures read from data files and kept (a die's faces drawn from image files)."""

SETUP_MEMOS = 16
"""Decks given in a game's setup, kept while replays build setups again."""


# -- giving memory back ------------------------------------------------------------


@functools.cache
def _trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (found among the process's own symbols); None on another
    C library, where there is nothing to do. ctypes is imported here, with the first
    give-back: the modules that import this one for the cache bounds load before the
    table's first frame."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def give_back() -> None:
    """Return the memory freed so far to the system (a few milliseconds; call it when a
    large piece of work ends, not every frame)."""
    trim = _trim()
    if trim is not None:
        trim(0)
