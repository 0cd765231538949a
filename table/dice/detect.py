"""Find dice in a top-down photo of the tray (classical vision, no model).

Contract: :func:`find_dice` takes a BGR ``uint8`` image and returns candidate boxes
``(x0, y0, x1, y1)`` in the image's pixels plus the estimated die size. It aims at high
recall: anything die-like is returned and the face reader (which knows what a die looks
like) rejects what is not a die.

How: the empty tray is estimated as a smooth background (a coarse median, refined once
with the dice masked out so a crowd of dice does not bias it). A pixel belongs to a die
when it is much darker or brighter than the tray, differs in hue, or has fine texture
(pips and die edges, which is what makes a white die visible on a white tray). Shadows
(uniformly a little darker, no hue, no texture) are left out. Touching dice are split at
the peaks of the distance transform, spaced by the typical die size of the frame, and
boxes much smaller than that size (a pale die whose face merges with the tray, leaving
only its pips) are widened about their centre; for the same reason a round blob as
small as one pip is kept (``PIP_AREA``: a pale one or two on the white tray shows
nothing else), and the face reader rejects the specks that are not dice.
"""

from __future__ import annotations

import functools
import math
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from table.common.checks import number, whole
from table.dice.imagefile import MIN_SIDE
from table.dice.pictures import Image, f32, f32_planes, u8, u8_planes
from table.dice.schema import knob

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class DetectSettings:
    """Thresholds of the die finder (``[finder]`` of ``dice/reader.toml``); the defaults
    were measured on the tray-d6 photos."""

    # A die pixel is darker than this fraction of the tray's brightness ...
    dark_ratio: float = knob(0.6, number(0, 1))
    # ... or brighter than this ...
    bright_ratio: float = knob(1.2, number(1, 10))
    # ... or its colour ratio differs this much between channels ...
    hue_shift: float = knob(0.06, number(0, 1))
    # ... or its local texture (mean |pixel - 5x5 mean|) exceeds this.
    texture: float = knob(6.0, number(0, 255))
    # Touching dice are split at distance-transform peaks deeper than this x die size ...
    seed_depth: float = knob(0.1, number(0, 1))
    # ... and at least this x die size apart ...
    seed_spacing: float = knob(0.75, number(0.05, 5))
    # ... in blobs longer than this x die size.
    split_above: float = knob(1.35, number(0.5, 12))
    # The grey level under which a tray's dark rim is found.
    frame_dark: int = knob(70, whole(0, 255))
    # Boxes smaller than this x the frame's die size (0: none) ...
    grow_below: float = knob(0.85, number(0, 5))
    # ... are widened about their centre to this x die size.
    grow_to: float = knob(0.85, number(0, 5))


# Blobs smaller than MIN_AREA x die size squared are dropped, unless round and at least
# PIP_AREA x die size squared (a pale die showing only its pips). Not settings: halved
# or doubled, neither changed the dice read right or unsure on the held-out photos
# (docs/dice-settings.md, "What each setting does to the held-out figures").
MIN_AREA = 0.2
PIP_AREA = 0.02


def _background(
    small: Image, median: NDArray[np.float32], size: tuple[int, int], mask: NDArray[np.uint8] | None
) -> _BandedBackground:
    """Smooth estimate of the empty tray, one float32 plane per colour of ``size`` (w, h),
    plus one so it can divide. ``small`` is the picture shrunk to 80x80 and ``median``
    its 15x15 median (the estimate when ``mask`` is None); pixels under ``mask`` are
    ignored."""
    w, h = size
    if mask is None:
        bg = median
    else:
        keep = f32(cv2.resize((1 - mask).astype(np.float32), (80, 80), interpolation=cv2.INTER_AREA))
        keep = (keep > 0.99).astype(np.float32)
        num = f32(cv2.blur(small.astype(np.float32) * keep[..., None], (BG_WINDOW, BG_WINDOW)))
        den = f32(cv2.blur(keep, (BG_WINDOW, BG_WINDOW)))[..., None]
        bg = np.where(den > 0.05, num / np.maximum(den, 1e-3), median).astype(np.float32)
    return _BandedBackground(f32_planes(cv2.split(bg + np.float32(1.0))), w, h)


BG_WINDOW = 11
GROW = 15


class _BandedBackground:
    """The 80x80 background planes, scaled up (bilinear) to the picture's size a band of
    rows at a time (:meth:`rows`), so the full-size planes never exist at once.

    When the picture's height is a whole multiple of 80 dividing the band height, a band
    is scaled from just the source rows it needs plus one on either side, and the rows
    the margin would clamp differently are cut off: the same values as scaling the
    whole plane. Otherwise the whole planes are scaled once and sliced.
    """

    def __init__(self, planes: list[NDArray[np.float32]], width: int, height: int) -> None:
        self.planes, self.width, self.height = planes, width, height
        factor = height // 80
        self.factor = factor if factor and factor * 80 == height and STRIP % factor == 0 else 0
        self.full: list[NDArray[np.float32]] | None = None

    def rows(self, y0: int, y1: int) -> list[NDArray[np.float32]]:
        w, f = self.width, self.factor
        if not f:
            if self.full is None:
                self.full = [f32(cv2.resize(p, (w, self.height), interpolation=cv2.INTER_LINEAR)) for p in self.planes]
            return [p[y0:y1] for p in self.full]
        s0, s1 = max(y0 // f - 1, 0), min(-(-y1 // f) + 1, 80)
        cut = y0 - s0 * f
        return [
            f32(cv2.resize(p[s0:s1], (w, (s1 - s0) * f), interpolation=cv2.INTER_LINEAR))[cut : cut + y1 - y0]
            for p in self.planes
        ]


def _texture(grey: Image) -> Image:
    """Local texture: mean |pixel - its 5x5 mean| over 7x7 (pips and die edges are high)."""
    return u8(cv2.blur(cv2.absdiff(grey, cv2.blur(grey, (5, 5))), (7, 7)))


def _die_mask(
    planes: list[Image],
    texture: Image,
    bg: _BandedBackground,
    s: DetectSettings,
    strong: bool = False,
) -> NDArray[np.uint8]:
    """1 where a pixel belongs to a die (see module doc); ``strong``: only sure die pixels."""
    h = texture.shape[0]
    mask = np.empty(texture.shape, np.uint8)

    # A band of rows at a time, so that the dozen intermediate planes stay in the CPU's
    # cache: over whole 640x640 float planes each step waited on memory (the finder took
    # 28.3 ms then, 13.6 ms in bands, on the crowded tray photos).
    def bands(start: int, stop: int) -> None:
        for y0 in range(start, stop, STRIP):
            rows = slice(y0, min(y0 + STRIP, h))
            below = bg.rows(y0, min(y0 + STRIP, h))
            # One pass converts and adds; OpenCV takes the scalar 1.0, which its stubs do not list.
            r = [
                cv2.divide(cv2.add(p[rows], 1.0, dtype=cv2.CV_32F), b)  # type: ignore[call-overload,unused-ignore]
                for p, b in zip(planes, below, strict=True)
            ]
            lum = (r[0] + r[1] + r[2]) * np.float32(1 / 3)
            hue = cv2.max(cv2.max(cv2.absdiff(r[0], lum), cv2.absdiff(r[1], lum)), cv2.absdiff(r[2], lum))
            tex = texture[rows]
            if strong:  # only sure die pixels: used to keep dice out of the background estimate
                band = (lum < 0.45) | (hue > 0.1) | (tex > 8)
            else:
                band = (lum < s.dark_ratio) | (lum > s.bright_ratio) | (hue > s.hue_shift) | (tex > s.texture)
            mask[rows] = band

    # The lower half of the bands on the other core: every pixel's test is its own.
    half = h // STRIP // 2 * STRIP
    bg.rows(0, min(STRIP, h))  # scaled whole at first use when not in bands: not by both threads
    lower = helper().submit(bands, half, h)
    bands(0, half)
    lower.result()
    return mask


# Rows a band. Each band costs a dozen calls and scales the background from two source
# rows more than it keeps, so taller bands cost less as long as a band's planes stay in
# cache: on the crowded tray photos the finder took 14.6 ms in bands of 32 rows, 13.3 ms
# in 64 or 80, 14.6 ms in 128 and 17.8 ms in 320 (a 2-core x86 with 2 MiB of cache a
# core; a band of 64 rows is about 1.5 MiB of planes). A multiple of 8 keeps 640-row
# pictures scaled in bands.
STRIP = 64


def tray_area(grey: Image, frame_dark: int = 70) -> NDArray[np.uint8] | None:
    """Inside of a tray with a dark rim (1 inside), or None when no rim spans the view."""
    h, w = grey.shape
    dark = cv2.morphologyEx((grey < frame_dark).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, lab, st, _ = cv2.connectedComponentsWithStats(dark)
    for k in range(1, n):
        _, _, bw, bh, _ = st[k]
        if bw > w // 2 and bh > h // 2:
            rim: Image = (lab == k).astype(np.uint8)
            inside = np.zeros_like(rim)
            # The hull of the rim's outer outline is the hull of all its pixels, from far
            # fewer points.
            outline, _ = cv2.findContours(rim, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            cv2.fillConvexPoly(inside, cv2.convexHull(np.concatenate(outline)), 1)
            inside[cv2.dilate(rim, np.ones((5, 5), np.uint8)) > 0] = 0
            return inside
    return None


def _split(blob: NDArray[np.uint8], size: float, s: DetectSettings) -> list[Box]:
    """Split a blob of touching dice into one box per die (empty list: keep it whole)."""
    dist = cv2.distanceTransform(blob, cv2.DIST_L2, 3)
    seeds: list[tuple[int, int]] = []
    work = dist.copy()
    while True:
        _, peak, _, loc = cv2.minMaxLoc(work)
        if peak < s.seed_depth * size:
            break
        seeds.append((int(loc[0]), int(loc[1])))
        cv2.circle(work, loc, int(s.seed_spacing * size), 0, -1)
    if len(seeds) <= 1:
        return []
    owner = _owners(blob, seeds)
    counts = np.bincount(owner.ravel(), minlength=len(seeds) + 1)[: len(seeds)]
    boxes: list[Box] = []
    for k in np.flatnonzero(counts >= 0.2 * size * size):
        sel = owner == k
        rows, cols = np.flatnonzero(sel.any(axis=1)), np.flatnonzero(sel.any(axis=0))
        boxes.append((int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1))
    return boxes


def _owners(blob: NDArray[np.uint8], seeds: list[tuple[int, int]]) -> NDArray[np.intp]:
    """Per pixel of ``blob``, the index of its nearest seed ``(x, y)`` (the first of equals);
    ``len(seeds)`` off the blob.

    In whole numbers: the squared distances are exact, so the split is the same as in
    floating point. They are sums of a row's and a column's square, taken over the blob's
    box seed by seed (cheaper than gathering the blob's pixels).
    """
    h, w = blob.shape
    pts = np.array(seeds, np.int32)
    dy2 = np.square(np.arange(h, dtype=np.int32)[None, :] - pts[:, 1:2])
    dx2 = np.square(np.arange(w, dtype=np.int32)[None, :] - pts[:, 0:1])
    nearest = dy2[0][:, None] + dx2[0][None, :]
    owner = np.zeros((h, w), np.intp)
    for j in range(1, len(seeds)):
        d = dy2[j][:, None] + dx2[j][None, :]
        owner[d < nearest] = j  # strictly nearer: on a tie the earlier seed keeps the pixel
        np.minimum(nearest, d, out=nearest)
    owner[blob == 0] = len(seeds)
    return owner


def too_small(image: Image) -> bool:
    """Whether ``image`` is under :data:`table.dice.imagefile.MIN_SIDE` pixels across or
    down: too small to hold a die the finder reads."""
    return bool(image.shape[0] < MIN_SIDE or image.shape[1] < MIN_SIDE)


def grey_of(image: Image) -> Image:
    """The picture in grey levels (what the rim, the texture and the tray's roughness use)."""
    return u8(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))


def texture_of(grey: Image) -> Image:
    """:func:`_texture` of a grey picture (pips and die edges are high), for callers that
    hand it to both :func:`find_dice` and :func:`background_texture`."""
    return _texture(grey)


@functools.cache
def helper() -> ThreadPoolExecutor:
    """One thread beside the caller's for the reader's independent steps (the tray's rim
    while the die pixels are found, the tray's roughness while the faces' inputs are
    made): OpenCV and numpy release the interpreter lock, so the two use two cores. The
    steps compute exactly what they compute one after the other."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="dice-helper")


def find_dice(
    image: Image, settings: DetectSettings | None = None,
    area: NDArray[np.uint8] | Future[NDArray[np.uint8] | None] | None = None, *,
    grey: Image | None = None, texture: Image | None = None,
) -> tuple[list[Box], float]:
    """Candidate die boxes and the frame's typical die size in pixels (see module doc).

    ``area`` (1 = inside the tray, or a future of it) limits the search; by default a
    dark tray rim is looked for and, when found, its inside is used, else the whole
    frame. ``grey`` and ``texture`` (:func:`grey_of`, :func:`texture_of`) may be given
    when the caller has them already.
    """
    s = settings or DetectSettings()
    if too_small(image):
        return [], 40.0  # no die fits (see MIN_SIDE); the filters below fail on a 1x1 frame
    if grey is None:
        grey = grey_of(image)
    if area is None:
        # The rim is found on the other core while this one finds the die pixels.
        area = helper().submit(tray_area, grey, s.frame_dark)
    if texture is None:
        texture = _texture(grey)
    planes = u8_planes(cv2.split(image))
    small = u8(cv2.resize(image, (80, 80), interpolation=cv2.INTER_AREA))
    shape = (image.shape[1], image.shape[0])
    median = cv2.medianBlur(small, 15).astype(np.float32)
    first = _die_mask(planes, texture, _background(small, median, shape, None), s, strong=True)
    grown = u8(cv2.dilate(first, np.ones((GROW, GROW), np.uint8)))
    mask = _die_mask(planes, texture, _background(small, median, shape, grown), s)
    if isinstance(area, Future):
        area = area.result()
    if area is not None:
        mask[area == 0] = 0
    mask = u8(cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
    mask = u8(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)))
    n, lab, st, _ = cv2.connectedComponentsWithStats(mask)
    sizes = [
        max(bw, bh) for _, _, bw, bh, a in st[1:] if 300 <= a <= 5000 and 0.7 < bw / bh < 1.4 and a > 0.55 * bw * bh
    ]
    size = float(np.median(sizes)) if sizes else 40.0
    boxes: list[Box] = []
    for k in range(1, n):
        x, y, bw, bh, a = (int(v) for v in st[k])
        if a > 12 * size * size:
            continue
        if a < MIN_AREA * size * size and not (
            a >= PIP_AREA * size * size and 0.6 < bw / bh < 1.6 and a > 0.5 * bw * bh
        ):
            continue
        if max(bw, bh) > s.split_above * size:
            parts = _split((lab[y : y + bh, x : x + bw] == k).astype(np.uint8), size, s)
            if parts:
                boxes += [(x + a0, y + b0, x + a1, y + b1) for a0, b0, a1, b1 in parts]
                continue
        boxes.append((x, y, x + bw, y + bh))
    if s.grow_below:
        boxes = [
            _grow(b, size * s.grow_to, image.shape[1], image.shape[0])
            if max(b[2] - b[0], b[3] - b[1]) < s.grow_below * size
            else b
            for b in boxes
        ]
    return boxes, size


def background_texture(
    image: Image, boxes: list[Box], area: NDArray[np.uint8] | None = None, *,
    grey: Image | None = None, texture: Image | None = None,
) -> tuple[float, float]:
    """How rough the tray is away from the dice, at two scales: (texture, grain).

    Every box is grown by a third of its size on each side, so that a die's edge and
    shadow stay out; what is left of the tray (``area``, 1 = inside; by default the
    inside of a dark rim when one spans the view, as :func:`find_dice` finds it) is the
    surface the dice lie on, as the camera sees it. When less than a twentieth of the
    frame is left inside the rim, the whole frame away from the boxes is used.

    - texture: the mean of :func:`_texture` (|pixel - its 5x5 mean|, grey levels) there:
      fine detail, which camera noise, printing and woven cloth raise;
    - grain: the median of |pixel - its 31x31 mean| there, on the picture halved (a
      15x15 mean): coarse structure such as wood grain, stone or felt blotches, which a
      clean camera shows too. The median ignores a tray wall or a corner of table
      showing in part of the view.

    Both are infinite when nothing is left at all. ``grey`` and ``texture`` as for
    :func:`find_dice`.
    """
    free, grey, texture = _away_from_dice(image, boxes, area, grey, texture)
    if free is None:
        return float("inf"), float("inf")
    return float(cv2.mean(texture, mask=free)[0]), _grain(grey, free)


def rougher_than(
    image: Image, boxes: list[Box], texture_limit: float, grain_limit: float, area: NDArray[np.uint8] | None = None,
    *, grey: Image | None = None, texture: Image | None = None,
) -> bool:
    """Whether :func:`background_texture`'s texture exceeds ``texture_limit`` or its grain
    ``grain_limit``: the same answer, found with less work (the grain is not needed when
    the texture decides, and a median's side of a limit is mostly told by a count)."""
    free, grey, texture = _away_from_dice(image, boxes, area, grey, texture)
    if free is None:
        return True
    if float(cv2.mean(texture, mask=free)[0]) > texture_limit:
        return True
    return _grain(grey, free, grain_limit) > grain_limit


def _away_from_dice(
    image: Image, boxes: list[Box], area: NDArray[np.uint8] | None, grey: Image | None, texture: Image | None
) -> tuple[NDArray[np.uint8] | None, Image, Image]:
    """The tray's pixels away from the dice (None when nothing is left), the grey picture
    and its texture."""
    if grey is None:
        grey = grey_of(image)
    if texture is None:
        texture = _texture(grey)
    if area is None:
        area = tray_area(grey)
    away = np.ones(grey.shape, np.uint8)
    for x0, y0, x1, y1 in boxes:
        dx, dy = (x1 - x0) // 3, (y1 - y0) // 3
        away[max(0, y0 - dy) : y1 + dy, max(0, x0 - dx) : x1 + dx] = 0
    free = away if area is None else away & (area > 0)
    if np.count_nonzero(free) < free.size / 20:
        free = away
    if not free.any():
        return None, grey, texture
    return free, grey, texture


def _grain(grey: Image, free: NDArray[np.uint8], limit: float | None = None) -> float:
    """The median of |pixel - its 31x31 mean| where ``free``, on the picture halved
    (infinite when nothing is left there). With ``limit``, a value on the same side of
    the limit as the median, found by counting where the count alone tells."""
    half = (grey.shape[1] // 2, grey.shape[0] // 2)
    small = cv2.resize(grey, half, interpolation=cv2.INTER_AREA).astype(np.float32)
    where = cv2.resize(free, half, interpolation=cv2.INTER_NEAREST) > 0
    if not where.any():
        return float("inf")
    values = cv2.absdiff(small, cv2.blur(small, (15, 15)))[where]
    if limit is not None:
        # np.median of n values: the middle one (odd n) or the mean of the two middle
        # ones (even n). When more than n // 2 + 1 values lie above the limit, both middle
        # ones do; when at most (n - 1) // 2 do, neither does: no need to sort.
        above = int(np.count_nonzero(values > limit))
        if above >= len(values) // 2 + 1:
            return math.inf
        if above <= (len(values) - 1) // 2:
            return -math.inf
    return float(np.median(values))


def _grow(box: Box, side: float, width: int, height: int) -> Box:
    """Widen a small box about its centre to ``side`` (a pale die shows only its pips)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    w = max(box[2] - box[0], side)
    h = max(box[3] - box[1], side)
    return (
        max(0, int(cx - w / 2)),
        max(0, int(cy - h / 2)),
        min(width, int(cx + w / 2)),
        min(height, int(cy + h / 2)),
    )
