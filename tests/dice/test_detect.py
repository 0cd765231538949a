"""The die finder's banded background scaling gives what scaling the whole plane gives,
and touching dice are split pixel by pixel to their nearest seed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from table.dice.detect import STRIP, DetectSettings, _BandedBackground, _owners, _split


@pytest.mark.parametrize(("height", "width"), [(640, 640), (320, 480), (1280, 960), (480, 640), (800, 600)])
def test_banded_background_equals_the_whole_plane_scaled(height: int, width: int) -> None:
    rng = np.random.default_rng(height + width)
    planes = [rng.uniform(1, 256, (80, 80)).astype(np.float32) for _ in range(3)]
    banded = _BandedBackground(planes, width, height)
    whole = [cv2.resize(p, (width, height), interpolation=cv2.INTER_LINEAR) for p in planes]
    for y0 in range(0, height, STRIP):
        y1 = min(y0 + STRIP, height)
        for band, plane in zip(banded.rows(y0, y1), whole, strict=True):
            assert np.array_equal(band, plane[y0:y1])  # bit for bit, not just close
    if (height, width) == (640, 640):
        assert banded.factor == 8  # the tray camera's pictures are scaled band by band


def _nearest_seed_boxes(blob: np.ndarray, seeds: list[tuple[int, int]], size: float) -> list[tuple[int, ...]]:
    """Each blob pixel to its nearest seed (the first of equals), written out pixel by pixel."""
    ys, xs = np.nonzero(blob)
    pts = np.array(seeds)
    owner = np.argmin((xs[:, None] - pts[None, :, 0]) ** 2 + (ys[:, None] - pts[None, :, 1]) ** 2, axis=1)
    counts = np.bincount(owner, minlength=len(seeds))
    return [(int(xs[owner == k].min()), int(ys[owner == k].min()), int(xs[owner == k].max()) + 1,
             int(ys[owner == k].max()) + 1) for k in np.flatnonzero(counts >= 0.2 * size * size)]


@pytest.mark.parametrize("gap", [0, 1, 2, 3])
def test_touching_dice_are_split_at_their_nearest_seed(gap: int) -> None:
    """Three touching squares, the middle one offset: every pixel goes to the nearest
    distance-transform peak, a tie to the earlier one, whatever way it is computed."""
    blob = np.zeros((70, 140), np.uint8)
    for i, (x, y) in enumerate([(2, 10), (42 + gap, 14), (83 + 2 * gap, 8)]):
        blob[y : y + 40 + i, x : x + 40] = 1
    size = 40.0
    boxes = _split(blob, size, DetectSettings())
    assert len(boxes) == 3
    dist = cv2.distanceTransform(blob, cv2.DIST_L2, 3)
    seeds, work = [], dist.copy()
    while (peak := cv2.minMaxLoc(work))[1] >= 0.1 * size:
        seeds.append((int(peak[3][0]), int(peak[3][1])))
        cv2.circle(work, peak[3], int(0.75 * size), 0, -1)
    assert boxes == _nearest_seed_boxes(blob, seeds, size)


def test_each_pixel_goes_to_its_nearest_seed_the_first_of_equals() -> None:
    """Seeds an even number of pixels apart tie on whole rows and columns between them."""
    blob = np.ones((9, 11), np.uint8)
    blob[0, 0] = 0
    seeds = [(2, 4), (8, 4), (2, 8), (5, 0)]
    ys, xs = np.mgrid[0:9, 0:11]
    d2 = np.stack([(xs - x) ** 2 + (ys - y) ** 2 for x, y in seeds])
    expected = np.where(blob == 1, np.argmin(d2, axis=0), len(seeds))  # argmin: the first of equals
    assert (np.sort(d2, axis=0)[0] == np.sort(d2, axis=0)[1]).any()  # there are ties
    assert np.array_equal(_owners(blob, seeds), expected)
