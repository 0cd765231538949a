"""The numpy engine reads every shipped photo exactly as ONNX Runtime does, warning-free.

numpy is what the table falls back to where ONNX Runtime does not work (its probe in a
child process fails), so it has to read the same dice: the same boxes and faces on each
photo in docs/images/dice, confidences within float rounding, and no floating-point
warning on the way (``tests/target/dice_photos.py`` makes them errors). The target check
runs the same comparison inside the arm64 root.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from target.dice_photos import differences, photos, read_all

from table.dice.cnn import ConvNet

PHOTOS = Path(__file__).resolve().parents[2] / "docs" / "images" / "dice"


@pytest.mark.heavy
def test_numpy_reads_every_shipped_photo_as_onnxruntime_does() -> None:
    assert len(photos(PHOTOS)) >= 10
    used, reference = read_all(PHOTOS, "onnxruntime")
    assert used == "onnxruntime"
    used, by_numpy = read_all(PHOTOS, "numpy")
    assert used == "numpy"
    assert differences(by_numpy, reference) == []
    assert sum(len(r) for r in reference.values()) > 30  # dice were read, not nothing twice


def test_a_reading_differs_when_a_face_or_box_does() -> None:
    one = {"a.jpg": [{"face": 3, "box": [1, 2, 3, 4], "confidence": 0.99}]}
    assert differences(one, one) == []
    assert differences(one, {"a.jpg": [{"face": 4, "box": [1, 2, 3, 4], "confidence": 0.99}]})
    assert differences(one, {"a.jpg": [{"face": 3, "box": [1, 2, 3, 5], "confidence": 0.99}]})
    assert differences(one, {"a.jpg": [{"face": 3, "box": [1, 2, 3, 4], "confidence": 0.9}]})
    assert differences(one, {"a.jpg": []})
    assert differences(one, {}) == ["a.jpg was read on one side only"]


def test_the_forward_pass_reads_no_floating_point_flags() -> None:
    """Even where every floating-point flag is an error (as numpy's warnings were under
    emulation), the forward pass runs: here the unlikely classes' exponentials underflow
    to 0, which is right, and what comes out is a probability per class."""
    rng = np.random.default_rng(9)
    p = {"w0": rng.normal(0, 1, (3, 3, 4, 3)).astype(np.float32), "b0": np.zeros(3, np.float32),
         "w1": rng.normal(0, 400, (3, 7)).astype(np.float32), "b1": np.zeros(7, np.float32)}
    net = ConvNet(["3"], p, 4)
    with np.errstate(all="raise"):
        probs = net.probabilities(rng.normal(0, 3, (5, 4, 4, 4)).astype(np.float32))
    assert np.isfinite(probs).all() and np.allclose(probs.sum(axis=1), 1)
    assert (probs == 0).any()  # an exponential did underflow
