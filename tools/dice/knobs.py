"""How much each of the reader's settings moves the held-out figures (development aid).

    python tools/dice/knobs.py --photos DIR [--nets DIR] [--fold 3] [--folds 4]
                               [--every 1] [--only NAME,...] [--no-desk]

Every setting (and a few module constants) is moved, one at a time (halved and doubled,
or off and on, or towards its ends for a probability), and the reader is scored with
each move on two held-out sets, any-overlap pairing (the goals' pairing):

- **tray**: the tray photos of fold ``--fold`` (photo number modulo ``--folds``), read
  with the tray networks ``DIR/dice_fold{fold}_seed{s}.npz`` that
  ``tools/dice/train_faces.py --only FOLD --fold-nets DIR`` trained without them. With
  no ``--nets`` the shipped networks are used, which saw these photos (not held out).
- **desk**: the same photos turned into the ``desk`` condition of
  ``tools/dice/conditions.py`` (wood, clutter, a tilted soft camera): the condition the
  general networks (``faces-general.npz``) were never fine-tuned on, on photos numbered
  3 modulo 4, which they never saw in it. It is what the general settings act on.

For each move it prints right %, extra % (reported dice matching no labelled die),
unsure % (labelled dice paired with a reading below ``min_confidence``) and asked %
(photos the table would ask by knob), and the change in dice right, extra and unsure
from the settings as they are. ``--every N`` keeps every Nth of the chosen photos
(a sample, for speed).
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from conditions import CONDITIONS, HELD_OUT  # noqa: E402

from table.dice import detect  # noqa: E402
from table.dice import reader as reader_module  # noqa: E402
from table.dice.cnn import ConvNet  # noqa: E402
from table.dice.conditions import apply_condition  # noqa: E402
from table.dice.model import FaceModel  # noqa: E402
from table.dice.reader import DiceReader, load_image  # noqa: E402
from table.dice.score import OVERLAP, Score, load_labels  # noqa: E402
from table.dice.settings import ReaderSettings, load_settings  # noqa: E402

DESK = next(c for c in CONDITIONS if c.name == HELD_OUT)
Photo = tuple[str, NDArray[np.uint8], list[Any]]


def _r(**kw: Any) -> Callable[[ReaderSettings], ReaderSettings]:
    return lambda s: replace(s, **kw)


def _f(**kw: Any) -> Callable[[ReaderSettings], ReaderSettings]:
    return lambda s: replace(s, finder=replace(s.finder, **kw))


@contextmanager
def _constant(module: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


# (knob, moved to, settings change, or a module constant (module, name, value), or a
# FaceModel attribute ("model", name, value)).
MOVES: list[tuple[str, str, Any]] = [
    ("min_confidence", "0.3", _r(min_confidence=0.3)),
    ("min_confidence", "0.8", _r(min_confidence=0.8)),
    ("shrink_boxes", "true", _r(shrink_boxes=True)),
    ("drop_below", "0.3", _r(drop_below=0.3)),
    ("drop_below", "0.65", _r(drop_below=0.65)),
    ("general_model", "off", _r(general_model=None)),
    ("tray_texture", "0.72", _r(tray_texture=0.72)),
    ("tray_texture", "2.88", _r(tray_texture=2.88)),
    ("tray_grain", "1.02", _r(tray_grain=1.02)),
    ("tray_grain", "4.08", _r(tray_grain=4.08)),
    ("general_drop_below", "0.275", _r(general_drop_below=0.275)),
    ("general_drop_below", "0.775", _r(general_drop_below=0.775)),
    ("second_look_below", "0.5", _r(second_look_below=0.5)),
    ("second_look_reject_below", "0.5", _r(second_look_reject_below=0.5)),
    ("second_look_reject_below", "1.0", _r(second_look_reject_below=1.0)),
    ("second_look_size", "0.5", _r(second_look_size=0.5)),
    ("second_look_size", "0.8", _r(second_look_size=0.8)),
    ("second_look_views", "1", _r(second_look_views=1)),
    ("second_look_views", "4", _r(second_look_views=4)),
    ("finder.dark_ratio", "0.3", _f(dark_ratio=0.3)),
    ("finder.dark_ratio", "0.8", _f(dark_ratio=0.8)),
    ("finder.bright_ratio", "1.1", _f(bright_ratio=1.1)),
    ("finder.bright_ratio", "1.4", _f(bright_ratio=1.4)),
    ("finder.hue_shift", "0.03", _f(hue_shift=0.03)),
    ("finder.hue_shift", "0.12", _f(hue_shift=0.12)),
    ("finder.texture", "3", _f(texture=3.0)),
    ("finder.texture", "12", _f(texture=12.0)),
    ("finder.seed_depth", "0.05", _f(seed_depth=0.05)),
    ("finder.seed_depth", "0.2", _f(seed_depth=0.2)),
    ("finder.seed_spacing", "0.375", _f(seed_spacing=0.375)),
    ("finder.seed_spacing", "1.5", _f(seed_spacing=1.5)),
    ("finder.split_above", "1.0", _f(split_above=1.0)),
    ("finder.split_above", "2.7", _f(split_above=2.7)),
    ("finder.frame_dark", "35", _f(frame_dark=35)),
    ("finder.frame_dark", "140", _f(frame_dark=140)),
    ("finder.grow_below", "0 (off)", _f(grow_below=0.0)),
    ("finder.grow_below", "1.7", _f(grow_below=1.7)),
    ("finder.grow_to", "0.425", _f(grow_to=0.425)),
    ("finder.grow_to", "1.7", _f(grow_to=1.7)),
    ("detect.MIN_AREA", "0.1", (detect, "MIN_AREA", 0.1)),
    ("detect.MIN_AREA", "0.4", (detect, "MIN_AREA", 0.4)),
    ("detect.PIP_AREA", "0.01", (detect, "PIP_AREA", 0.01)),
    ("detect.PIP_AREA", "0.04", (detect, "PIP_AREA", 0.04)),
    ("reader.COVERED", "0.3", (reader_module, "COVERED", 0.3)),
    ("reader.COVERED", "1.0", (reader_module, "COVERED", 1.0)),
    ("model.SURE", "0.5", ("model", "sure", 0.5)),
    ("model.SURE", "0.99", ("model", "sure", 0.99)),
    ("model.VIEWS", "1", ("model", "views", 1)),
    ("model.VIEWS", "4", ("model", "views", 4)),
    ("detect.BG_WINDOW", "5", (detect, "BG_WINDOW", 5)),
    ("detect.BG_WINDOW", "21", (detect, "BG_WINDOW", 21)),
    ("detect.GROW", "7", (detect, "GROW", 7)),
    ("detect.GROW", "31", (detect, "GROW", 31)),
]


def score(reader: DiceReader, photos: list[Photo]) -> tuple[Score, int]:
    s, asked = Score(), 0
    for _, img, lab in photos:
        rd = reader.read(img)
        s.add(lab, [(r.box, r.face, r.confidence) for r in rd], reader.settings.min_confidence, OVERLAP)
        asked += not rd or any(r.confidence < reader.settings.min_confidence for r in rd)
    return s, asked


def line(name: str, value: str, s: Score, asked: int, n: int, base: Score | None) -> str:
    text = (f"{name:26} {value:8} right {s.accuracy:7.2%} extra {s.extra_rate:6.2%} "
            f"unsure {s.unsure / max(s.labelled, 1):6.2%} asked {asked / max(n, 1):6.1%}")
    if base is not None:
        text += (f"  (right {s.right - base.right:+d}, extra {s.extra - base.extra:+d}, "
                 f"unsure {s.unsure - base.unsure:+d})")
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--photos", type=Path, required=True, help="tray photos with labels.csv")
    ap.add_argument("--nets", type=Path, default=None, help="folder of train_faces.py's fold networks")
    ap.add_argument("--fold", type=int, default=3)
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--every", type=int, default=1, help="keep every Nth held-out photo")
    ap.add_argument("--only", default="", help="comma-separated knob names to move (default: all)")
    ap.add_argument("--no-desk", action="store_true", help="score the tray photos only")
    a = ap.parse_args()
    labels = load_labels(a.photos)
    names = [n for i, n in enumerate(labels) if i % a.folds == a.fold][:: a.every]
    tray: list[Photo] = [(n, load_image(a.photos / n), labels[n]) for n in names]
    sets = {"tray": tray}
    if not a.no_desk:
        desk: list[Photo] = []
        for name, img, lab in tray:
            rng = np.random.default_rng(zlib.crc32(f"{name}/{DESK.name}".encode()))  # as conditions.py does
            moved, boxes = apply_condition(img, [b for b, _ in lab], DESK, rng)
            desk.append((name, moved, [(b, f) for b, (_, f) in zip(boxes, lab, strict=True)]))
        sets["desk"] = desk
    base_settings = load_settings()
    tray_model: FaceModel | None = None
    if a.nets is not None:
        nets = sorted(a.nets.glob(f"dice_fold{a.fold}_seed*.npz"))
        if not nets:
            sys.exit(f"no dice_fold{a.fold}_seed*.npz in {a.nets}")
        tray_model = FaceModel([ConvNet.load(p) for p in nets], engine=base_settings.engine)
        print(f"tray networks: {', '.join(p.name for p in nets)} (held out)")
    else:
        print("tray networks: the shipped ones (they saw these photos: not held out)")
    print(f"{len(tray)} photos ({sum(len(x[2]) for x in tray)} dice), fold {a.fold} of {a.folds}")

    def make(settings: ReaderSettings) -> DiceReader:
        r = DiceReader(settings)
        if tray_model is not None:
            r._model = tray_model
        return r

    only = {k for k in a.only.split(",") if k}
    base: dict[str, tuple[Score, int]] = {}
    for key, photos in sets.items():
        t0 = time.time()
        base[key] = score(make(base_settings), photos)
        print(line(f"[{key}] as shipped", "", *base[key], len(photos), None), f"[{time.time() - t0:.0f}s]", flush=True)
    for name, value, move in MOVES:
        if only and name not in only:
            continue
        for key, photos in sets.items():
            r = make(base_settings)
            if callable(move):
                r = make(move(base_settings))
                got = score(r, photos)
            elif move[0] == "model":
                models = [r.model] + ([r.general] if r.general is not None else [])
                old = [getattr(m, move[1]) for m in models]
                for m in models:
                    setattr(m, move[1], move[2])
                try:
                    got = score(r, photos)
                finally:
                    for m, v in zip(models, old, strict=True):
                        setattr(m, move[1], v)
            else:
                with _constant(*move):
                    got = score(r, photos)
            print(line(f"[{key}] {name}", value, *got, len(photos), base[key][0]), flush=True)


if __name__ == "__main__":
    main()
