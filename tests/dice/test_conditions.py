"""Setup conditions made from a photo: repeatable, and the labelled boxes follow the dice."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from table.dice.conditions import Condition, apply_condition
from table.dice.teach import load_teach_set

TEACH = Path(__file__).resolve().parent / "data" / "teach"


def _photo() -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A grey floor with one white square die at a known place."""
    img = np.full((320, 320, 3), 120, np.uint8)
    cv2.rectangle(img, (100, 140), (140, 180), (250, 250, 250), -1)
    cv2.circle(img, (120, 160), 4, (0, 0, 0), -1)
    return img, [(100.0, 140.0, 141.0, 181.0)]


def test_a_condition_is_repeatable_from_its_seed() -> None:
    img, boxes = _photo()
    cond = Condition("desk", tilt=30, cast=(0.8, 0.95, 1.15), ramp=0.3, soft=0.6, noise=4, surface="wood", clutter=6)
    a, ba = apply_condition(img, boxes, cond, np.random.default_rng(5))
    b, bb = apply_condition(img, boxes, cond, np.random.default_rng(5))
    assert np.array_equal(a, b) and ba == bb
    assert a.shape == img.shape and not np.array_equal(a, img)


def test_the_box_follows_the_die_through_a_tilt() -> None:
    img, boxes = _photo()
    out, moved = apply_condition(img, boxes, Condition("tilt", tilt=35), np.random.default_rng(1))
    x0, y0, x1, y1 = (round(v) for v in moved[0])
    inside = out[y0:y1, x0:x1].mean()
    assert inside > 200  # the white die is inside its moved box
    assert (x1 - x0) * (y1 - y0) < 41 * 41  # seen at an angle, it looks smaller


def test_clutter_never_covers_a_die() -> None:
    img, boxes = _photo()
    out, _ = apply_condition(img, boxes, Condition("clutter", clutter=40), np.random.default_rng(2))
    assert np.array_equal(out[140:181, 100:141], img[140:181, 100:141])


def test_the_teaching_set_is_labelled_consistently() -> None:
    data = load_teach_set(TEACH)
    assert len(data.photos) == 12
    assert sum(len(lab) for _, _, lab in data.photos) >= 100
    faces = {f for _, _, lab in data.photos for _, f in lab}
    assert faces == {1, 2, 3, 4, 5, 6}


def test_every_surface_replaces_the_floor_and_keeps_the_die() -> None:
    img, boxes = _photo()
    for surface in ("wood", "paper", "cloth", "stone", "felt"):
        out, _ = apply_condition(img, boxes, Condition(surface, surface=surface), np.random.default_rng(2))
        assert out.shape == img.shape
        assert not np.array_equal(out[:60, :60], img[:60, :60]), surface  # the floor far from the die changed
        assert out[150:170, 105:115].mean() > 200, surface  # the white die is still there
