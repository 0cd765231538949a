"""Quick evaluation of the die finder / reader against tray-d6 labels (development aid).

    python tools/dice/evaluate.py detect [--show 0,5]
"""
from __future__ import annotations

import argparse
import collections
import csv
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "dice" / "tray-d6"
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def load_labels(data: Path = DATA) -> dict[str, list[tuple[tuple[float, float, float, float], int]]]:
    out: dict[str, list[tuple[tuple[float, float, float, float], int]]] = collections.defaultdict(list)
    with open(data / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            box = (float(row["xmin"]), float(row["ymin"]), float(row["xmax"]), float(row["ymax"]))
            out[row["filename"]].append((box, WORDS[row["face"]]))
    return dict(sorted(out.items()))


def iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def match(labels, boxes, thr: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one pairing of labelled and reported boxes by IoU >= thr."""
    pairs = sorted(((iou(l[0], d), i, j) for i, l in enumerate(labels) for j, d in enumerate(boxes)), reverse=True)
    used_l: set[int] = set()
    used_d: set[int] = set()
    out = []
    for v, i, j in pairs:
        if v < thr:
            break
        if i in used_l or j in used_d:
            continue
        used_l.add(i)
        used_d.add(j)
        out.append((i, j))
    return out


def main() -> None:
    from table.dice.detect import find_dice

    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["detect"])
    ap.add_argument("--show", default="")
    a = ap.parse_args()
    show = {int(v) for v in a.show.split(",") if v}
    labels = load_labels()
    tot = hit = extra = 0
    miss: collections.Counter[int] = collections.Counter()
    for i, (name, lab) in enumerate(labels.items()):
        img = cv2.imread(str(DATA / name))
        boxes, _ = find_dice(img)
        m = match(lab, boxes)
        tot += len(lab)
        hit += len(m)
        extra += len(boxes) - len(m)
        miss[i] = len(lab) - len(m)
        if i in show:
            c = img.copy()
            for d in boxes:
                cv2.rectangle(c, d[:2], d[2:], (0, 0, 255), 1)
            for b, _ in lab:
                cv2.rectangle(c, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (0, 255, 0), 1)
            cv2.imwrite(f"/tmp/dv/q{i}.png", c)
    print(f"recall {hit / tot:.4f} {hit}/{tot} unmatched {extra}", miss.most_common(12))


if __name__ == "__main__":
    main()
