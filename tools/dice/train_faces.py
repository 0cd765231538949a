"""Train the die-face classifier on the tray-d6 photos and report k-fold-by-photo accuracy.

    /work/venv/bin/python tools/dice/train_faces.py [--folds 5] [--save]

Samples are what the reader sees at run time: every box the die finder proposes. A box
that overlaps a labelled die (IoU >= 0.5) is an example of that face, any other box is an
example of "not a die" (class 0: tray holes, rim, shadows). Labelled boxes, slightly
shifted and scaled, are added as more face examples. Folds split by photo so that no die
of a test photo is seen in training; the figures printed are on held-out photos only.
With ``--save`` a final model is trained on all photos and written to
``config/dice/faces.npz`` (OpenCV's cv2.ml random forest, loaded by ``table.dice.model``).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from evaluate import DATA, load_labels, match  # noqa: E402

from table.dice.detect import find_dice  # noqa: E402
from table.dice.features import face_features  # noqa: E402
from table.dice.model import FaceModel  # noqa: E402


def build(seed: int = 7):
    """Features, classes and photo index of every sample (candidates + jittered labels)."""
    rng = np.random.default_rng(seed)
    labels = load_labels()
    xs, ys, photo, is_cand = [], [], [], []
    for p, (name, lab) in enumerate(labels.items()):
        img = cv2.imread(str(DATA / name))
        boxes, size = find_dice(img)
        pairs = dict((j, i) for i, j in match(lab, boxes))
        for j, b in enumerate(boxes):
            for r in range(3):
                xs.append(face_features(img, b, size, angle=0.0 if r == 0 else float(rng.uniform(0, 360))))
                ys.append(lab[pairs[j]][1] if j in pairs else 0)
                photo.append(p)
                is_cand.append(r == 0)
        for b, face in lab:
            for _ in range(6):
                w, h = b[2] - b[0], b[3] - b[1]
                dx, dy = rng.normal(0, 0.05, 2) * (w, h)
                sc = 1 + rng.normal(0, 0.06)
                cx, cy = (b[0] + b[2]) / 2 + dx, (b[1] + b[3]) / 2 + dy
                jb = (int(cx - w * sc / 2), int(cy - h * sc / 2), int(cx + w * sc / 2), int(cy + h * sc / 2))
                xs.append(face_features(img, jb, size, angle=float(rng.uniform(0, 360))))
                ys.append(face)
                photo.append(p)
                is_cand.append(False)
    return np.array(xs, np.float32), np.array(ys, np.int32), np.array(photo), np.array(is_cand)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--save", action="store_true")
    ap.add_argument("--cache", default="/tmp/dice_features.npz")
    a = ap.parse_args()
    t = time.time()
    cache = Path(a.cache)
    if cache.exists() and cache.stat().st_mtime > max(p.stat().st_mtime for p in (ROOT / "table/dice").glob("*.py")):
        z = np.load(cache)
        x, y, photo, cand = z["x"], z["y"], z["photo"], z["cand"]
    else:
        x, y, photo, cand = build()
        np.savez(cache, x=x, y=y, photo=photo, cand=cand)
    print(f"{len(y)} samples ({cand.sum()} candidates) in {time.time() - t:.0f}s")
    fold_of = photo % a.folds
    right = wrong = 0
    conf = np.zeros((7, 7), int)
    for k in range(a.folds):
        tr, te = fold_of != k, (fold_of == k) & cand
        model = FaceModel.train(x[tr], y[tr], members=1)
        pred, _ = model.predict(x[te])
        for t_, p_ in zip(y[te], pred, strict=True):
            conf[t_, p_] += 1
        right += int((pred == y[te]).sum())
        wrong += int((pred != y[te]).sum())
    print(f"held-out candidate accuracy {right / (right + wrong):.4f}")
    print("rows: true class (0 = not a die), columns: predicted\n", conf)
    if a.save:
        model = FaceModel.train(x, y)
        model.save(ROOT / "config" / "dice" / "faces.npz")
        print("saved config/dice/faces.npz")


if __name__ == "__main__":
    main()
