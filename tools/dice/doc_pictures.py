"""Draw the reader's boxes and faces on a few tray-d6 photos for docs/dice.md.

    python tools/dice/doc_pictures.py [--held-out] PHOTO_NUMBER...

Writes ``docs/images/dice/photo-NNN.jpg``: green = read right, red = wrong face or
matching no labelled die, orange = unsure (below min_confidence), white outline = a
labelled die the reader missed. With ``--held-out`` each photo is read with the
networks of its cross-validation fold (left in ``--fold-nets`` by ``train_faces.py
--folds 4``; seeds 0 to ``--members`` - 1, averaged), which never saw that photo;
without it, with the shipped model. The photos are from tray-d6 (BSD
3-Clause, see docs/dice.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "dice" / "tray-d6"

from table.dice.cnn import ConvNet  # noqa: E402
from table.dice.model import FaceModel  # noqa: E402
from table.dice.reader import DiceReader  # noqa: E402
from table.dice.score import load_labels, match  # noqa: E402


def main() -> None:
    out = ROOT / "docs" / "images" / "dice"
    out.mkdir(parents=True, exist_ok=True)
    ap = argparse.ArgumentParser()
    ap.add_argument("photos", nargs="+", type=int)
    ap.add_argument("--held-out", action="store_true")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--fold-nets", default="/tmp")
    ap.add_argument("--members", type=int, default=1)
    a = ap.parse_args()
    labels = list(load_labels(DATA).items())
    reader = DiceReader()
    for k in a.photos:
        if a.held_out:
            folder = Path(a.fold_nets)
            nets = [ConvNet.load(folder / f"dice_fold{k % a.folds}_seed{s}.npz") for s in range(a.members)]
            reader._model = FaceModel(nets)
        name, lab = labels[k]
        frame = cv2.imread(str(DATA / name))
        rd = reader.read(frame)
        pairs = {j: i for i, j in match([b for b, _ in lab], [r.box for r in rd])}
        found = set(pairs.values())
        pic = frame.copy()
        for i, (b, _) in enumerate(lab):
            if i not in found:
                cv2.rectangle(pic, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (255, 255, 255), 2)
        for j, r in enumerate(rd):
            ok = j in pairs and lab[pairs[j]][1] == r.face
            colour = (
                (0, 140, 255) if r.confidence < reader.settings.min_confidence else (0, 200, 0) if ok else (0, 0, 255)
            )
            cv2.rectangle(pic, r.box[:2], r.box[2:], colour, 2)
            text = f"{r.face}" + ("" if ok or j not in pairs else f" (is {lab[pairs[j]][1]})")
            cv2.putText(pic, text, (r.box[0], max(12, r.box[1] - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3)
            cv2.putText(pic, text, (r.box[0], max(12, r.box[1] - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1)
        path = out / f"photo-{k:03d}.jpg"
        cv2.imwrite(str(path), pic, [cv2.IMWRITE_JPEG_QUALITY, 80])
        print(path)


if __name__ == "__main__":
    main()
