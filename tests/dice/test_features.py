"""What the face networks see: the faces' inputs, to the bit whichever way they are made."""

from __future__ import annotations

import numpy as np

from table.dice.features import skewed_left


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
