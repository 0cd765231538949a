"""Measure the dice reader on the tray-d6 photos (development aid and docs figures).

    python tools/dice/evaluate.py read --photos DIR [--show 0,5] [--min-iou 0.5]
    python tools/dice/evaluate.py detect --photos DIR

``read`` runs the real reader (config/dice) on every photo and prints the share of
labelled dice read right, the share of reported dice that match no labelled die and
the confusion matrix; ``detect`` checks the die finder alone (share of labelled dice
with a proposal at IoU >= 0.5).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from table.dice.score import MIN_IOU, OVERLAP, Score, iou, load_labels, match  # noqa: E402,F401

PHOTOS_HELP = "the folder of the tray-d6 photos and their labels.csv (docs/dice.md, Data and licence)"


def photo_folder(path: Path) -> Path:
    """``--photos``, checked: the photos are not in the repository, so say where they go."""
    if not (path / "labels.csv").is_file():
        sys.exit(f"{path} holds no labels.csv: --photos takes {PHOTOS_HELP}")
    return path


def main() -> None:
    from table.dice.detect import find_dice
    from table.dice.reader import DiceReader

    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["detect", "read"])
    ap.add_argument("--photos", required=True, type=Path, help=PHOTOS_HELP)
    ap.add_argument("--show", default="")
    ap.add_argument("--min-iou", type=float, default=MIN_IOU)
    a = ap.parse_args()
    show = {int(v) for v in a.show.split(",") if v}
    photos = photo_folder(a.photos)
    labels = load_labels(photos)
    if a.what == "detect":
        tot = hit = extra = 0
        miss: collections.Counter[int] = collections.Counter()
        for i, (name, lab) in enumerate(labels.items()):
            img = cv2.imread(str(photos / name))
            boxes, _ = find_dice(img)
            m = match([b for b, _ in lab], boxes, a.min_iou)
            tot += len(lab)
            hit += len(m)
            extra += len(boxes) - len(m)
            miss[i] = len(lab) - len(m)
        print(f"recall {hit / tot:.4f} {hit}/{tot} unmatched {extra}", miss.most_common(12))
        return
    reader = DiceReader()
    score = Score()
    loose = Score()
    for i, (name, lab) in enumerate(labels.items()):
        img = cv2.imread(str(photos / name))
        rd = reader.read(img)
        found = [(r.box, r.face, r.confidence) for r in rd]
        score.add(lab, found, reader.settings.min_confidence, a.min_iou)
        loose.add(lab, found, reader.settings.min_confidence, OVERLAP)
        if i in show:
            c = img.copy()
            for b, f in lab:
                cv2.rectangle(c, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (0, 255, 0), 1)
                cv2.putText(c, str(f), (int(b[0]), int(b[3]) + 10), 0, 0.4, (0, 255, 0), 1)
            for r in rd:
                cv2.rectangle(c, r.box[:2], r.box[2:], (0, 0, 255), 1)
                cv2.putText(c, f"{r.face}", (r.box[0], r.box[1] - 2), 0, 0.4, (0, 0, 255), 1)
            cv2.imwrite(f"/tmp/dv/r{i}.png", c)
    print(
        f"right {score.right}/{score.labelled} = {score.accuracy:.4f}; "
        f"extra {score.extra}/{score.reported} = {score.extra_rate:.4f}; "
        f"unsure {score.unsure} (of which right {score.unsure_right})"
    )
    print("rows: labelled face 1-6; columns: not found, read as 1-6")
    print(score.confusion[1:])
    print(
        f"boxes only overlapping: right {loose.right}/{loose.labelled} = {loose.accuracy:.4f}; "
        f"extra {loose.extra}/{loose.reported} = {loose.extra_rate:.4f}"
    )
    print(loose.confusion[1:])


if __name__ == "__main__":
    main()
