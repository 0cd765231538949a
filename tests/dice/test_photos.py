"""The reader on all 200 tray-d6 photos (1,487 labelled dice): floors at what it reaches.

Two kinds of figure, both in docs/dice.md:

- The shipped networks were trained on these photos, so reading them with the shipped
  model checks that the reader as shipped still reads them as well as when it was
  trained (floors a little below the measured figures, so that a numpy/OpenCV version
  change does not flip the test). Under the issue's pairing (any overlap) that is 99.3%
  right with 0.47% extra, on photos the networks have seen.
- What it reads on photos it never saw comes from 4-fold cross-validation by photo,
  which needs a training run (tools/dice/train_faces.py, under two hours); the run that
  made the shipped model stored its held-out figures beside the weights, and the second
  test holds those to the issue's goals: 98.1% right with 0.87% extra (any overlap)
  against 98% and 1%.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from table.dice.reader import DiceReader
from table.dice.score import OVERLAP, Score, load_labels
from table.dice.settings import ReaderSettings

# Measured with the shipped model: strict pairing (IoU >= 0.5) 96.8% right, 3.0% extra;
# any overlap 99.3% right (1,476 / 1,487), 0.47% extra (7 / 1,488).
STRICT_RIGHT_FLOOR = 0.965
STRICT_EXTRA_CEILING = 0.032
OVERLAP_RIGHT_FLOOR = 0.99
OVERLAP_EXTRA_CEILING = 0.007
# Held out (4-fold by photo), stored in config/dice/faces.npz by its training run:
# strict 95.8% right, 3.4% extra; any overlap 98.1% right (1,459 / 1,487), 0.87% extra
# (13 / 1,492). The any-overlap figures are the goals.
HELD_OUT_FLOORS = {"held_out_right": 0.955, "held_out_right_any_overlap": 0.98}
HELD_OUT_CEILINGS = {"held_out_extra": 0.034, "held_out_extra_any_overlap": 0.01}


def test_reads_tray_d6_photos(tray_d6: Path) -> None:
    reader = DiceReader()
    strict = Score()
    loose = Score()
    for name, labels in load_labels(tray_d6).items():
        frame = cv2.imread(str(tray_d6 / name))
        assert frame is not None, name
        found = [(r.box, r.face, r.confidence) for r in reader.read(frame)]
        strict.add(labels, found)
        loose.add(labels, found, min_iou=OVERLAP)
    assert strict.labelled == 1487
    assert strict.accuracy >= STRICT_RIGHT_FLOOR, strict.confusion
    assert strict.extra_rate <= STRICT_EXTRA_CEILING
    assert loose.accuracy >= OVERLAP_RIGHT_FLOOR, loose.confusion
    assert loose.extra_rate <= OVERLAP_EXTRA_CEILING


def test_shipped_network_carries_its_held_out_figures() -> None:
    with np.load(ReaderSettings().model_path) as z:
        meta = {k.removeprefix("meta_"): float(z[k]) for k in z.files if k.startswith("meta_held_out")}
        assert int(z["meta_folds"]) == 4
        assert int(z["meta_members"]) == int(z["members"]) == 2
    for key, floor in HELD_OUT_FLOORS.items():
        assert meta[key] >= floor, (key, meta[key])
    for key, ceiling in HELD_OUT_CEILINGS.items():
        assert meta[key] <= ceiling, (key, meta[key])
