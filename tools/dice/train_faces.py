"""Train the die-face network on the tray-d6 photos; report k-fold-by-photo accuracy.

    /work/venv/bin/python tools/dice/train_faces.py [--folds 4] [--epochs 30] [--save]

Samples are what the reader sees at run time: every box the die finder proposes. A box
that overlaps a labelled die (IoU >= 0.5) is an example of that face, any other box is an
example of "not a die" (class 0: tray holes, rim, shadows, bits of dice). The labelled
boxes, shifted, scaled and turned a little at random, are added as more face examples.
Folds split by photo (photo number modulo the fold count), so the figures printed are on
photos whose dice were never seen in training; they count the finder's proposals only.
With ``--save`` a final network is trained on all photos and written to
``config/dice/faces.npz`` (loaded by ``table.dice.model``).
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

from evaluate import DATA  # noqa: E402

from table.dice.cnn import train_cnn  # noqa: E402
from table.dice.detect import find_dice  # noqa: E402
from table.dice.features import face_input  # noqa: E402
from table.dice.model import FaceModel  # noqa: E402
from table.dice.reader import DiceReader  # noqa: E402
from table.dice.score import OVERLAP, Score, iou, load_labels, match  # noqa: E402

WIDTHS = (16, 32, 64)


def build(seed: int = 7):
    """Inputs, classes, photo index and 'is an untouched proposal' of every sample."""
    rng = np.random.default_rng(seed)
    labels = load_labels(DATA)
    xs, ys, photo, is_cand = [], [], [], []
    for p, (name, lab) in enumerate(labels.items()):
        img = cv2.imread(str(DATA / name))
        boxes, _ = find_dice(img)
        pairs = {j: i for i, j in match([b for b, _ in lab], boxes)}
        for j, b in enumerate(boxes):
            if j not in pairs and max((iou(lb, b) for lb, _ in lab), default=0.0) > 0.1:
                continue  # a piece of a die or two dice in one box: neither a face nor "no die"
            for r in range(3):
                xs.append(face_input(img, b, angle=0.0 if r == 0 else float(rng.uniform(0, 360))))
                ys.append(lab[pairs[j]][1] if j in pairs else 0)
                photo.append(p)
                is_cand.append(r == 0)
        for b, face in lab:
            for _ in range(5):
                w, h = b[2] - b[0], b[3] - b[1]
                dx, dy = rng.normal(0, 0.05, 2) * (w, h)
                sc = 1 + rng.normal(0, 0.06)
                cx, cy = (b[0] + b[2]) / 2 + dx, (b[1] + b[3]) / 2 + dy
                jb = (int(cx - w * sc / 2), int(cy - h * sc / 2), int(cx + w * sc / 2), int(cy + h * sc / 2))
                xs.append(face_input(img, jb, angle=float(rng.uniform(0, 360))))
                ys.append(face)
                photo.append(p)
                is_cand.append(False)
    return np.array(xs, np.float32), np.array(ys, np.int32), np.array(photo), np.array(is_cand)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folds", type=int, default=4, help="0: no cross-validation")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--save", action="store_true")
    ap.add_argument("--cache", default="/tmp/dice_inputs.npz")
    a = ap.parse_args()
    t = time.time()
    cache = Path(a.cache)
    newest = max(p.stat().st_mtime for p in (ROOT / "table/dice").glob("*.py"))
    if cache.exists() and cache.stat().st_mtime > newest:
        z = np.load(cache)
        x, y, photo, cand = z["x"], z["y"], z["photo"], z["cand"]
    else:
        x, y, photo, cand = build()
        np.savez(cache, x=x, y=y, photo=photo, cand=cand)
    print(f"{len(y)} samples ({cand.sum()} proposals) in {time.time() - t:.0f}s", flush=True)
    if a.folds:
        fold_of = photo % a.folds
        conf = np.zeros((7, 7), int)
        labels = list(load_labels(DATA).items())
        score = Score()
        loose = Score()
        for k in range(a.folds):
            tr, te = fold_of != k, (fold_of == k) & cand
            net = train_cnn(x[tr], y[tr], epochs=a.epochs, seed=k, widths=WIDTHS)
            net.save(Path(a.cache).with_name(f"dice_fold{k}.npz"))  # for looking at errors later
            pred = net.probabilities(x[te]).argmax(axis=1)
            for t_, p_ in zip(y[te], pred, strict=True):
                conf[t_, p_] += 1
            # The whole reader, with this fold's network, on this fold's photos only.
            reader = DiceReader()
            reader._model = FaceModel(net)
            for i, (name, lab) in enumerate(labels):
                if i % a.folds == k:
                    rd = reader.read(cv2.imread(str(DATA / name)))
                    found = [(r.box, r.face, r.confidence) for r in rd]
                    score.add(lab, found, reader.settings.min_confidence)
                    loose.add(lab, found, reader.settings.min_confidence, min_iou=OVERLAP)
            print(
                f"fold {k}: proposals {np.mean(pred == y[te]):.4f}, reader so far {score.accuracy:.4f} "
                f"({time.time() - t:.0f}s)",
                flush=True,
            )
        print(f"held-out proposal accuracy {np.trace(conf) / conf.sum():.4f}")
        print("rows: true class (0 = not a die), columns: predicted\n", conf)
        print(
            f"HELD-OUT READER: right {score.right}/{score.labelled} = {score.accuracy:.4f}; "
            f"extra {score.extra}/{score.reported} = {score.extra_rate:.4f}; "
            f"unsure {score.unsure} (right among them {score.unsure_right})"
        )
        print("rows: labelled face 1-6; columns: not found, read as 1-6\n", score.confusion[1:])
        print(
            f"HELD-OUT READER, boxes only overlapping: right {loose.right}/{loose.labelled} = "
            f"{loose.accuracy:.4f}; extra {loose.extra}/{loose.reported} = {loose.extra_rate:.4f}"
        )
        print(loose.confusion[1:])
    if a.save:
        net = train_cnn(x, y, epochs=a.epochs, seed=99, log=True, widths=WIDTHS)
        net.save(ROOT / "config" / "dice" / "faces.npz")
        print("saved config/dice/faces.npz")


if __name__ == "__main__":
    main()
