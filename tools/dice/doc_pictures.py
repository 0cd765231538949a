"""Draw the reader's boxes and faces on a few tray-d6 photos for docs/dice.md.

    python tools/dice/doc_pictures.py --photos DIR [--held-out] PHOTO_NUMBER...
    python tools/dice/doc_pictures.py --photos DIR --label-errors
    python tools/dice/doc_pictures.py --photos DIR --condition desk [--model FILE] [--shrink] [--drop-below X] \
        PHOTO_NUMBER...
    python tools/dice/doc_pictures.py --photos DIR --condition desk --general-model config/dice/faces-general.npz \
        PHOTO_NUMBER...

Writes ``docs/images/dice/photo-NNN.jpg``: green = read right, red = wrong face or
matching no labelled die, orange = unsure (below min_confidence), white outline = a
labelled die the reader missed. With ``--held-out`` each photo is read with the
networks of its cross-validation fold (left in ``--fold-nets`` by ``train_faces.py
--folds 4``; seeds 0 to ``--members`` - 1, averaged), which never saw that photo;
without it, with the shipped model. With ``--condition`` the photo is first turned
into that setup (``tools/dice/conditions.py``) and written as ``NAME-NNN.jpg``, paired
at any overlap. The photos are from tray-d6 (BSD
3-Clause, see docs/dice.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from evaluate import PHOTOS_HELP, photo_folder  # noqa: E402

from table.dice.cnn import ConvNet  # noqa: E402
from table.dice.model import FaceModel  # noqa: E402
from table.dice.reader import DiceReader  # noqa: E402
from table.dice.score import MIN_IOU, OVERLAP, load_labels, match  # noqa: E402

# Checked by eye: (photo number, top-left corner of the labelled box, labelled face,
# face on top in the photo).
LABEL_ERRORS = [(53, (297, 462), 2, 3), (109, (317, 372), 5, 4), (145, (220, 318), 2, 3), (197, (410, 415), 6, 5)]
# Checked by eye: dice lying in the tray with no label (photo number, centre, top face).
UNLABELLED = [(53, (270, 151), 3), (54, (321, 377), 3), (115, (340, 364), 6)]


def _tile(frame: cv2.typing.MatLike, cx: int, cy: int, text: str) -> cv2.typing.MatLike:
    tile = cv2.resize(frame[cy - 32 : cy + 32, cx - 32 : cx + 32], (256, 256), interpolation=cv2.INTER_CUBIC)
    cv2.rectangle(tile, (0, 0), (255, 28), (40, 40, 40), -1)
    cv2.putText(tile, text, (6, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
    return tile


def label_remarks(photos: Path, out: Path) -> None:
    """Close-ups of the label errors and unlabelled dice listed above."""
    labels = list(load_labels(photos).items())
    wrong = []
    for k, corner, said, shows in LABEL_ERRORS:
        name, lab = labels[k]
        frame = cv2.imread(str(photos / name))
        box = next(b for b, face in lab if face == said and (round(b[0]), round(b[1])) == corner)
        centre = int((box[0] + box[2]) / 2), int((box[1] + box[3]) / 2)
        wrong.append(_tile(frame, *centre, f"photo {k}: label {said}, shows {shows}"))
    missing = [
        _tile(cv2.imread(str(photos / labels[k][0])), *centre, f"photo {k}: a {face}, no label")
        for k, centre, face in UNLABELLED
    ]
    for name, tiles in (("label-errors.jpg", wrong), ("unlabelled-dice.jpg", missing)):
        cv2.imwrite(str(out / name), cv2.hconcat(tiles), [cv2.IMWRITE_JPEG_QUALITY, 85])
        print(out / name)


def main() -> None:
    out = ROOT / "docs" / "images" / "dice"
    out.mkdir(parents=True, exist_ok=True)
    ap = argparse.ArgumentParser()
    ap.add_argument("photos", nargs="*", type=int)
    ap.add_argument("--photos", dest="folder", required=True, type=Path, help=PHOTOS_HELP)
    ap.add_argument("--label-errors", action="store_true")
    ap.add_argument("--held-out", action="store_true")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--fold-nets", default="/tmp")
    ap.add_argument("--members", type=int, default=1)
    ap.add_argument("--condition", help="read the photos as this condition of tools/dice/conditions.py shows them")
    ap.add_argument("--model", type=Path, help="with --condition: this model file instead of the shipped one")
    ap.add_argument("--shrink", action="store_true", help="with --condition: the shrink_boxes setting")
    ap.add_argument("--drop-below", type=float, default=0.0, help="with --condition: the drop_below setting")
    ap.add_argument("--general-model", type=Path,
                    help="with --condition: the reader choosing its networks per frame (general_model); "
                         "pictures named CONDITION-auto-NNN.jpg")
    a = ap.parse_args()
    photos = photo_folder(a.folder)
    if a.label_errors:
        label_remarks(photos, out)
    labels = list(load_labels(photos).items())
    reader = DiceReader()
    cond = None
    if a.condition:
        from dataclasses import replace

        sys.path.insert(0, str(ROOT / "tools" / "dice"))
        from conditions import CONDITIONS, conditioned

        cond = next(c for c in CONDITIONS if c.name == a.condition)
        settings = replace(reader.settings, shrink_boxes=a.shrink, drop_below=a.drop_below)
        reader = DiceReader(replace(settings, model_path=a.model) if a.model else settings)
        if a.general_model:
            reader = DiceReader(replace(reader.settings, general_model=a.general_model))
    for k in a.photos:
        if a.held_out:
            folder = Path(a.fold_nets)
            nets = [ConvNet.load(folder / f"dice_fold{k % a.folds}_seed{s}.npz") for s in range(a.members)]
            reader._model = FaceModel(nets)
        name, lab = labels[k]
        frame = cv2.imread(str(photos / name))
        if cond is not None:  # the condition's picture, its boxes moved with the dice
            _, frame, lab = conditioned(photos, [name], dict(labels), cond)[0]
        rd = reader.read(frame)
        # Paired as the figures are: IoU >= 0.5 for the tray photos, any overlap for a condition.
        pairs = {j: i for i, j in match([b for b, _ in lab], [r.box for r in rd], OVERLAP if cond else MIN_IOU)}
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
        kind = f"{cond.name}-auto" if cond and a.general_model else cond.name if cond else "photo"
        path = out / f"{kind}-{k:03d}.jpg"
        cv2.imwrite(str(path), pic, [cv2.IMWRITE_JPEG_QUALITY, 80])
        print(path)


if __name__ == "__main__":
    main()
