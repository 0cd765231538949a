"""The reader on all 200 tray-d6 photos (1,487 labelled dice): floors at what it reaches.

The floors are the figures measured when the model was trained (see docs/dice.md), a
little below so that a numpy/OpenCV version change does not flip the test; they are not
the issue's goals (98% right, at most 1% extra), which the reader does not reach yet.
"""

from __future__ import annotations

from pathlib import Path

import cv2

from table.dice.reader import DiceReader
from table.dice.score import Score, load_labels

RIGHT_FLOOR = 0.935
EXTRA_CEILING = 0.035


def test_reads_tray_d6_photos(tray_d6: Path) -> None:
    reader = DiceReader()
    score = Score()
    for name, labels in load_labels(tray_d6).items():
        frame = cv2.imread(str(tray_d6 / name))
        assert frame is not None, name
        readings = reader.read(frame)
        score.add(labels, [(r.box, r.face, r.confidence) for r in readings])
    assert score.labelled == 1487
    assert score.accuracy >= RIGHT_FLOOR, score.confusion
    assert score.extra_rate <= EXTRA_CEILING
