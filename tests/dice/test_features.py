"""What the face networks see: the faces' inputs, to the bit whichever way they are made."""

from __future__ import annotations

import numpy as np

from table.dice.features import face_inputs, skewed_left
from table.dice.reader import _inputs_beside_helper


def test_the_skew_sign_is_the_one_cubing_with_powf_gives() -> None:
    """Rows whose cubes cancel out (each value with its negative) have a mean within
    rounding of zero, where multiplying and ``** 3`` often disagree on its sign; the
    answer must still be the ``** 3`` one, there and on ordinary rows."""
    rng = np.random.default_rng(1)
    half = rng.standard_normal((500, 325)).astype(np.float32)
    balanced = rng.permuted(np.concatenate([half, -half], axis=1), axis=1)
    skewed = rng.gamma(2.0, 1.0, (200, 650)).astype(np.float32) * rng.choice([-1, 1], (200, 1)).astype(np.float32)
    for z in (balanced, skewed):
        exact = (z**3).mean(axis=1) < 0
        assert np.array_equal(skewed_left(z), exact)
    assert (((balanced * balanced * balanced).mean(axis=1) < 0) != ((balanced**3).mean(axis=1) < 0)).any()


def test_a_batch_of_crops_is_the_same_in_parts() -> None:
    """Each crop's input depends on that crop alone and parts of two or more crops sum
    in the whole batch's order: the reader's two parts, made on two threads, give to the
    bit what the whole batch gives, for any number of crops."""
    crops = np.random.default_rng(2).uniform(0, 255, (9, 40, 40, 3)).astype(np.float32)
    whole = face_inputs(crops)
    for cut in range(2, 8):
        assert np.array_equal(np.concatenate([face_inputs(crops[:cut]), face_inputs(crops[cut:])]), whole)
    for n in range(1, 10):
        assert np.array_equal(_inputs_beside_helper(crops[:n]), face_inputs(crops[:n]))
