"""Capture: picture files as a camera, and waiting until the dice have settled."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from table.common.errors import TableError
from table.dice.capture import ImageFiles, open_source, wait_until_settled
from table.dice.synth import render_tray


class Clock:
    """Virtual time: each reading advances by one frame period."""

    def __init__(self, period: float) -> None:
        self.t = 0.0
        self.period = period

    def __call__(self) -> float:
        self.t += self.period
        return self.t


def _frames(tmp_path: Path) -> list[Path]:
    rng = np.random.default_rng(1)
    paths = []
    for i in range(4):  # four different throws: the dice are still rolling
        p = tmp_path / f"a{i}.png"
        cv2.imwrite(str(p), render_tray(rng, 3)[0])
        paths.append(p)
    still, _ = render_tray(rng, 3)
    for i in range(6):  # then the same picture: settled
        p = tmp_path / f"b{i}.png"
        cv2.imwrite(str(p), still)
        paths.append(p)
    return paths


def test_waits_for_still_frames(tmp_path: Path) -> None:
    paths = _frames(tmp_path)
    frame = wait_until_settled(ImageFiles(paths), settle_seconds=0.3, clock=Clock(0.1))
    assert frame is not None
    assert np.array_equal(frame, cv2.imread(str(paths[-1])))


def test_gives_up_when_never_still(tmp_path: Path) -> None:
    paths = _frames(tmp_path)[:4]
    assert wait_until_settled(ImageFiles(paths), settle_seconds=0.3, clock=Clock(0.1)) is None
    moving = ImageFiles(paths * 20)
    assert wait_until_settled(moving, settle_seconds=0.3, timeout_seconds=1.0, clock=Clock(0.1)) is None


def test_folder_source_and_bad_specs(tmp_path: Path) -> None:
    paths = _frames(tmp_path)
    source = open_source(str(tmp_path))
    assert source.grab() is not None
    assert open_source(str(paths[0])).grab() is not None
    with pytest.raises(TableError):
        open_source(str(tmp_path / "missing"))
    (tmp_path / "zz.png").write_text("junk")
    folder = ImageFiles(tmp_path)
    with pytest.raises(TableError):
        while folder.grab() is not None:
            pass


def test_read_settled_throw_from_picture_files(tmp_path: Path) -> None:
    from table.dice import read_settled_throw
    from table.dice.reader import DiceReader
    from table.dice.symbols import calibrate
    from table.dice.synth import SYMBOLS

    rng = np.random.default_rng(4)
    reader = DiceReader(symbols=calibrate("t", [(s, render_tray(rng, 1, (s,))[0]) for s in SYMBOLS]))
    moving = [render_tray(rng, 3)[0] for _ in range(3)]
    still, truth = render_tray(rng, 3)
    paths = []
    for i, frame in enumerate([*moving, *[still] * 8]):
        p = tmp_path / f"f{i:02d}.png"
        cv2.imwrite(str(p), frame)
        paths.append(p)
    faces = read_settled_throw(ImageFiles(paths), reader, Clock(0.1))
    assert faces is not None and sorted(map(str, faces)) == sorted(s for s, _ in truth)
    assert read_settled_throw(ImageFiles(paths[:3]), reader, Clock(0.1)) is None  # never settled
