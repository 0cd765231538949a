"""``table dice read``: JSON lines, boxes in pixels, bad files reported and skipped."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.cli import main
from table.dice.synth import render_tray


@pytest.fixture()
def picture(tmp_path: Path) -> Path:
    frame, _ = render_tray(np.random.default_rng(3), 3)
    path = tmp_path / "tray.png"
    cv2.imwrite(str(path), frame)
    return path


def test_read_json_one_line_per_image(picture: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dice", "read", str(picture), str(picture), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        obj = json.loads(line)
        assert obj["image"] == str(picture)
        assert isinstance(obj["ms"], float | int)
        for die in obj["dice"]:
            assert set(die) == {"face", "box", "confidence"}
            x0, y0, x1, y1 = die["box"]
            assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 640
            assert 0.0 <= die["confidence"] <= 1.0


def test_missing_and_unreadable_files(picture: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_text("not a picture")
    status = main(["dice", "read", str(tmp_path / "nope.jpg"), str(picture), str(junk), "--json"])
    out, err = capsys.readouterr()
    assert status == 2
    assert len(out.strip().splitlines()) == 1  # the good image is still read
    errors = err.strip().splitlines()
    assert len(errors) == 2
    assert "nope.jpg" in errors[0] and "Traceback" not in err
    assert "junk.jpg" in errors[1]


def test_real_photo_reads_known_faces(tray_d6: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = "IMG_20191208_111820.jpg"
    assert main(["dice", "read", str(tray_d6 / name), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert len(obj["dice"]) >= 1
    assert all(1 <= d["face"] <= 6 for d in obj["dice"])


def test_unknown_symbol_set_is_one_sentence(picture: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dice", "read", str(picture), "--dice", "no-such-dice"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("table: ") and "calibrate" in err and "Traceback" not in err


def test_watch_saves_annotated_frames_headless(
    picture: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "watch"
    assert main(["dice", "watch", "--camera", str(picture.parent), "--out", str(out), "--frames", "3"]) == 0
    saved = sorted(out.glob("dice-*.png"))
    assert len(saved) == 1  # the folder holds one picture, then the source ends
    assert cv2.imread(str(saved[0])).shape == (640, 640, 3)


def test_watch_bad_camera_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dice", "watch", "--camera", str(tmp_path / "none"), "--out", str(tmp_path)]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(("width", "height"), [(1, 1), (2, 2), (1, 50), (31, 640)])
def test_a_picture_too_small_for_dice_is_one_sentence(width: int, height: int, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.full((height, width, 3), 200, np.uint8))
    assert main(["dice", "read", str(tiny)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err == (f"table: {tiny}: the PNG is {width}x{height} pixels, too small to hold dice "
                   "(a tray picture is at least 32x32 pixels)\n")
