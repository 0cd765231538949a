"""The die finder's banded background scaling gives what scaling the whole plane gives."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from table.dice.detect import STRIP, _BandedBackground


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
