"""Reader API: the simulator's entry point, confidence fallback, settings."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from table.common.errors import TableError
from table.dice.reader import DieReading, _one_per_die, read_tray_image, tray_faces
from table.dice.settings import load_settings


def test_tray_faces_falls_back_when_unsure() -> None:
    sure = [DieReading(3, (0, 0, 10, 10), 0.9), DieReading(5, (20, 0, 30, 10), 0.8)]
    assert tray_faces(sure, 0.6) == [3, 5]
    assert tray_faces([*sure, DieReading(2, (40, 0, 50, 10), 0.3)], 0.6) is None
    assert tray_faces([], 0.6) is None


def test_one_reading_per_die() -> None:
    left = DieReading(3, (0, 0, 40, 40), 0.99)
    right = DieReading(5, (40, 0, 80, 40), 0.98)
    piece = DieReading(2, (30, 5, 50, 45), 0.9)  # its centre is on the border of both dice
    straddle = DieReading(4, (20, 0, 60, 40), 0.7)  # covered by the two dice's boxes
    half_out = DieReading(6, (60, 20, 100, 60), 0.8)  # a neighbour's box covers a quarter of it
    kept = _one_per_die([straddle, piece, right, half_out, left])
    assert kept == [left, right, half_out]


def test_read_tray_image_unreadable_is_none(tmp_path: Path) -> None:
    assert read_tray_image(tmp_path / "missing.jpg") is None
    bad = tmp_path / "bad.png"
    bad.write_text("no")
    assert read_tray_image(bad) is None


def test_read_tray_image_on_a_photo(tray_d6: Path) -> None:
    faces = read_tray_image(tray_d6 / "IMG_20191208_111820.jpg")
    assert faces is None or all(f in range(1, 7) for f in faces)


def test_empty_tray_has_no_dice(tmp_path: Path) -> None:
    empty = np.full((640, 640, 3), 160, np.uint8)
    path = tmp_path / "empty.png"
    cv2.imwrite(str(path), empty)
    assert read_tray_image(path) is None  # nothing read: ask the players


def test_settings(tmp_path: Path) -> None:
    good = tmp_path / "reader.toml"
    good.write_text("[reader]\nmin_confidence = 0.7\n[tray]\narea = [1, 2, 300, 400]\n")
    s = load_settings(good)
    assert s.min_confidence == 0.7 and s.tray_area == (1, 2, 300, 400)
    bad = tmp_path / "bad.toml"
    bad.write_text("[reader\n")
    with pytest.raises(TableError):
        load_settings(bad)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text("[tray]\narea = [1, 2]\n")
    with pytest.raises(TableError):
        load_settings(wrong)


def test_shrunk_boxes() -> None:
    from table.dice.reader import shrunk

    assert shrunk((10, 10, 60, 50), 640, 640) == (15, 10, 55, 50)  # 0.8 x the longer side, same centre
    assert shrunk((0, 0, 50, 50), 30, 30) == (5, 5, 30, 30)  # kept inside the frame


def test_shrink_boxes_is_a_setting(tmp_path: Path) -> None:
    path = tmp_path / "reader.toml"
    assert load_settings(path).shrink_boxes is False
    path.write_text("[reader]\nshrink_boxes = true\n")
    assert load_settings(path).shrink_boxes is True
    path.write_text("[reader]\ndrop_below = 0.75\n")
    assert load_settings(path).drop_below == 0.75
    path.write_text('[reader]\nshrink_boxes = "yes"\n')
    with pytest.raises(TableError, match="shrink_boxes"):
        load_settings(path)


def test_a_reader_that_also_reads_shrunk_boxes_reports_each_die_once() -> None:
    from dataclasses import replace

    from table.dice.reader import DiceReader

    photo = Path(__file__).parent / "data" / "teach" / "venue-00.jpg"
    frame = cv2.imread(str(photo))
    # The tray's networks on every frame (the venue photo would go to the general ones).
    plain = DiceReader(replace(load_settings(), engine="numpy", general_model=None))
    both = DiceReader(replace(plain.settings, shrink_boxes=True))
    once, twice = plain.read(frame), both.read(frame)
    assert twice and len(twice) <= 2 * len(once) + 2
    strict = DiceReader(replace(both.settings, drop_below=0.9)).read(frame)
    assert [r for r in twice if r.confidence >= 0.9] == strict  # the rest are dropped
    for r in twice:  # no die's centre lies inside another reported die's box
        cx, cy = (r.box[0] + r.box[2]) / 2, (r.box[1] + r.box[3]) / 2
        assert not any(o is not r and o.box[0] < cx < o.box[2] and o.box[1] < cy < o.box[3] for o in twice)


def _smooth_tray_with_a_die(noise: float = 0.0) -> np.ndarray:
    """A plain grey tray with one white die showing five pips, optionally under sensor noise."""
    frame = np.full((320, 320, 3), 150, np.uint8)
    cv2.rectangle(frame, (140, 140), (180, 180), (235, 235, 235), -1)
    for x, y in ((148, 148), (172, 148), (160, 160), (148, 172), (172, 172)):
        cv2.circle(frame, (x, y), 3, (20, 20, 20), -1)
    if noise:
        rng = np.random.default_rng(0)
        frame = np.clip(frame + rng.normal(0, noise, frame.shape), 0, 255).astype(np.uint8)
    return frame


def test_background_texture_looks_away_from_the_dice() -> None:
    from table.dice.detect import background_texture

    plain = _smooth_tray_with_a_die()
    die = [(140, 140, 181, 181)]
    assert background_texture(plain, die) == (0.0, 0.0)  # the die's pips and edges are left out
    assert background_texture(plain, [])[0] > 0.0  # ... unless no box covers them
    texture, grain = background_texture(_smooth_tray_with_a_die(noise=8), die)
    assert texture > 3.0  # a noisy camera is rough in fine detail
    wood = plain.copy()
    for y in range(0, 320, 24):  # broad stripes, as wood grain: smooth in fine detail
        cv2.rectangle(wood, (0, y), (319, y + 11), (120, 120, 120), -1)
    wood = cv2.GaussianBlur(wood, (0, 0), 3)
    wood[140:181, 140:181] = plain[140:181, 140:181]
    texture, grain = background_texture(wood, die)
    assert texture < 1.44 < 2.04 < grain  # under the fine-detail limit, over the grain limit
    assert background_texture(plain, [(0, 0, 320, 320)]) == (float("inf"), float("inf"))  # nothing left


def test_the_choice_of_networks_agrees_with_the_measured_roughness() -> None:
    """``rougher_than`` counts where it can instead of measuring the median: the same
    answer as comparing :func:`background_texture`'s figures, at every limit."""
    from table.dice.detect import background_texture, rougher_than

    plain = _smooth_tray_with_a_die()
    wood = plain.copy()
    for y in range(0, 320, 24):
        cv2.rectangle(wood, (0, y), (319, y + 11), (120, 120, 120), -1)
    wood = cv2.GaussianBlur(wood, (0, 0), 3)
    die = [(140, 140, 181, 181)]
    for frame in (plain, wood, _smooth_tray_with_a_die(noise=8)):
        texture, grain = background_texture(frame, die)
        for t_limit in (-1.0, 0.0, texture - 0.01, texture, texture + 0.01, 50.0):
            for g_limit in (0.0, grain - 0.01, grain, grain + 0.01, 50.0):
                assert rougher_than(frame, die, t_limit, g_limit) == (texture > t_limit or grain > g_limit)
    assert rougher_than(plain, [(0, 0, 320, 320)], 1e9, 1e9)  # nothing left: rough


def test_general_model_and_second_look_are_settings(tmp_path: Path) -> None:
    path = tmp_path / "reader.toml"
    s = load_settings(path)
    assert s.general_model is None and s.second_look_size == 0.65
    path.write_text(
        '[reader]\ngeneral_model = "faces-general.npz"\ntray_texture = 2.5\ntray_grain = 3.5\n'
        "second_look_below = 0.5\nsecond_look_reject_below = 1.0\nsecond_look_size = 0.7\n"
        "general_drop_below = 0.25\n"
    )
    s = load_settings(path)
    assert s.general_model is not None and s.general_model.name == "faces-general.npz"
    got = (s.tray_texture, s.second_look_below, s.second_look_reject_below, s.second_look_size, s.general_drop_below)
    assert got == (2.5, 0.5, 1.0, 0.7, 0.25) and s.tray_grain == 3.5
    path.write_text('[reader]\ngeneral_model = ""\n')
    assert load_settings(path).general_model is None
    path.write_text("[reader]\ngeneral_model = 3\n")
    with pytest.raises(TableError, match="general_model"):
        load_settings(path)
    path.write_text("[reader]\nsecond_look_views = 1\n")
    assert load_settings(path).second_look_views == 1
    path.write_text("[reader]\nsecond_look_views = 9\n")
    with pytest.raises(TableError, match="second_look_views"):
        load_settings(path)


def test_the_second_look_is_for_unsure_dice_and_unsure_rejections() -> None:
    from table.dice.reader import _look_again
    from table.dice.settings import ReaderSettings

    s = ReaderSettings(second_look_below=0.8, second_look_reject_below=0.99)
    assert _look_again(3, 0.7, s) and not _look_again(3, 0.9, s)  # a die: only when unsure
    assert _look_again(0, 0.98, s) and not _look_again(0, 0.995, s)  # "not a die": unless very sure
    every = ReaderSettings(second_look_below=1.0, second_look_reject_below=1.0)
    assert _look_again(3, 1.0, every) and _look_again(0, 1.0, every)  # 1.0: every box, even at 1.0


def test_the_reader_chooses_its_networks_from_the_frame() -> None:
    from dataclasses import replace

    from table.dice.reader import DiceReader

    base = replace(load_settings(), engine="numpy", general_model=None)
    general = base.model_path.with_name("faces-general.npz")
    reader = DiceReader(replace(base, general_model=general))
    reader.read(_smooth_tray_with_a_die())
    assert reader.last_general is False  # a plain tray: the tray's own networks
    photo = Path(__file__).parent / "data" / "teach" / "venue-00.jpg"  # a noisy camera over a cloth
    frame = cv2.imread(str(photo))
    chosen = reader.read(frame)
    assert reader.last_general is True
    # ... read exactly as the general networks with the second look read it
    same = replace(base, model_path=general, shrink_boxes=True, drop_below=base.general_drop_below)
    assert chosen == DiceReader(same).read(frame)
    off = DiceReader(base)
    off.read(frame)
    assert off.last_general is False  # without a general_model the tray's networks read everything


def test_every_box_gets_the_second_look_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from table.dice.reader import DiceReader

    photo = Path(__file__).parent / "data" / "teach" / "venue-00.jpg"
    frame = cv2.imread(str(photo))
    base = replace(load_settings(), engine="numpy", shrink_boxes=True, general_model=None)
    sizes: list[int] = []
    for below in (0.0, 0.8, 1.0):
        reader = DiceReader(replace(base, second_look_below=below, second_look_reject_below=below))
        model = reader.model
        seen: list[int] = []
        real = model.predict
        def counted(x: np.ndarray, views: int | None = None, real=real, seen=seen):  # type: ignore[no-untyped-def]
            seen.append(len(x))
            return real(x, views)

        monkeypatch.setattr(model, "predict", counted)
        reader.read(frame)
        sizes.append(sum(seen[1:]))  # crops read on the second look
        assert len(seen) == (1 if below == 0 else 2)  # the second look is one more batch
        if below >= 1.0:
            assert seen[1] == seen[0]  # every box again
    assert sizes[0] == 0 < sizes[1] <= sizes[2]


def test_probabilities_in_one_view_read_each_crop_once() -> None:
    from table.dice.model import FaceModel

    model = FaceModel.load(load_settings().model_path, "numpy")
    x = np.random.default_rng(0).normal(0, 1, (5, model.side, model.side, 4)).astype(np.float32)
    once = model.probabilities(x, 1)
    assert np.array_equal(once, model._average(x))  # no unsure crop is read again
    assert model.probabilities(x).shape == once.shape


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (1, 640), (640, 1), (31, 480), (480, 31)])
def test_a_frame_too_small_to_hold_a_die_reads_as_no_dice(shape: tuple[int, int]) -> None:
    """A camera (or a picture standing in for it) that gives a tiny frame: no dice, so the
    table asks the players, never an error from the filters (a 1x1 frame broke them)."""
    from table.dice.detect import find_dice
    from table.dice.imagefile import MIN_SIDE
    from table.dice.reader import DiceReader

    frame = np.full((*shape, 3), 200, np.uint8)
    frame[: shape[0] // 2, : shape[1] // 2] = 20  # something dark, as a die would be
    assert min(shape) < MIN_SIDE
    assert find_dice(frame)[0] == []
    assert DiceReader().read(frame) == []
    # The smallest frame allowed is read (no die in it here).
    assert DiceReader().read(np.full((MIN_SIDE, MIN_SIDE, 3), 200, np.uint8)) == []


def test_tiny_frames_each_throw_are_logged_once_then_counted(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from table.dice import reader

    now = [0.0]
    monkeypatch.setattr(reader, "_too_small", reader.RepeatedLog(reader.log, clock=lambda: now[0]))
    tiny = np.full((1, 1, 3), 200, np.uint8)
    for _ in range(30):
        assert reader.DiceReader().read(tiny) == []
    now[0] += 60.0
    reader.DiceReader().read(tiny)
    said = [r.getMessage() for r in caplog.records if r.name == "table.dice.reader"]
    first = ("a frame of 1x1 pixels is too small to hold dice (a tray picture is at least 32x32 pixels): "
             "no dice read in it")
    assert said == [first, first + " (… 29 more times since)"]
