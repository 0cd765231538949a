"""Held-out setup conditions: how the pip reader does on setups it was never shown.

    python tools/dice/conditions.py --photos DIR [--adapt] [--pictures docs/images/dice]

DIR holds the tray photos and their ``labels.csv``. Every photo is turned into each
condition of :data:`CONDITIONS` (``table.dice.conditions``: camera tilt, light, a cheap
camera, another surface, desk clutter), with a seed per photo so a run is repeatable.

Without ``--adapt`` it scores the reader as shipped on every condition. With
``--adapt`` it also refits the face networks' last layer (as ``table dice teach`` does)
on the *training* conditions of the photos numbered 0, 1 and 2 modulo 4, and scores that
reader on the *held-out* condition (``desk``, never used for fitting) of the photos
numbered 3 modulo 4: conditions and photos both held out. ``--pictures`` writes one
picture per condition (PNG) for docs/dice.md.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from table.dice.conditions import Condition, apply_condition  # noqa: E402
from table.dice.model import FaceModel  # noqa: E402
from table.dice.reader import DiceReader  # noqa: E402
from table.dice.score import OVERLAP, Score, load_labels  # noqa: E402
from table.dice.teach import refit_head, samples  # noqa: E402

CONDITIONS = [
    Condition("lamp", tilt=15, cast=(0.75, 0.95, 1.2), ramp=0.45),
    Condition("paper", cast=(1.1, 1.0, 0.9), surface="paper", clutter=5, noise=3),
    Condition("cloth", tilt=20, surface="cloth", soft=0.5, noise=6, clutter=8),
    # Two more training conditions (fine-tuning only): other surfaces, steeper and
    # softer cameras, more clutter; wood grain stays unseen.
    Condition("stone", tilt=38, cast=(0.9, 0.95, 1.1), ramp=0.35, soft=0.55, noise=5, surface="stone", clutter=12),
    Condition("felt", tilt=25, cast=(1.15, 1.0, 0.85), ramp=0.2, soft=0.7, noise=5, surface="felt", clutter=12),
    Condition("desk", tilt=30, cast=(0.8, 0.95, 1.15), ramp=0.3, soft=0.6, noise=4, surface="wood", clutter=8),
]
HELD_OUT = "desk"
# The tests' teaching set (tests/dice/data/teach): a soft camera at an angle over a cloth.
VENUE = Condition("venue", tilt=20, surface="cloth", soft=0.5, noise=6)


def conditioned(photos: Path, names: list[str], labels: dict, cond: Condition) -> list:  # type: ignore[type-arg]
    out = []
    for name in names:
        img = cv2.imread(str(photos / name))
        rng = np.random.default_rng(zlib.crc32(f"{name}/{cond.name}".encode()))  # repeatable per photo
        moved, boxes = apply_condition(img, [b for b, _ in labels[name]], cond, rng)
        out.append((name, moved, [(b, f) for b, (_, f) in zip(boxes, labels[name], strict=True)]))
    return out


def finetune(  # type: ignore[type-arg]
    photos: Path, labels: dict, names: list[str], reader: DiceReader, epochs: int, shrink: bool = False
) -> DiceReader:
    """The shipped networks fine-tuned (all layers) on the training conditions and the plain photos.

    With ``shrink`` the samples include every finder box shrunk as the reader's
    ``shrink_boxes`` setting reads it (a die's, or "not a die" for clutter)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from train_faces import FreshCrops, train

    from table.dice.detect import find_dice
    from table.dice.reader import shrunk
    from table.dice.score import iou, match

    images = []
    boxes: list[tuple[float, float, float, float]] = []
    classes: list[int] = []
    owner: list[int] = []
    is_label: list[bool] = []
    rng = np.random.default_rng(0)
    sets = [[(n, cv2.imread(str(photos / n)), labels[n]) for n in names]]
    sets += [conditioned(photos, names, labels, c) for c in CONDITIONS if c.name != HELD_OUT]
    for pictures in sets:
        for _, img, lab in pictures:
            p = len(images)
            images.append(img)
            found, _ = find_dice(img)
            pairs = {j: i for i, j in match([b for b, _ in lab], found)}
            neg = [b for j, b in enumerate(found) if j not in pairs
                   and max((iou(lb, b) for lb, _ in lab), default=0.0) <= 0.1]
            keep = [neg[k] for k in rng.permutation(len(neg))[: 6 * len(lab) + 8]]
            items = [(found[j], lab[i][1], False) for j, i in pairs.items()] + [(b, 0, False) for b in keep]
            if shrink:  # the reader's second look at every box: shrunk dice and shrunk clutter
                h, w = img.shape[:2]
                items += [(shrunk(found[j], w, h), lab[i][1], False) for j, i in pairs.items()]
                items += [(shrunk(b, w, h), 0, False) for b in keep
                          if max((iou(lb, shrunk(b, w, h)) for lb, _ in lab), default=0.0) <= 0.1]
            items += [(b, f, True) for b, f in lab] * 2
            for b, f, lab_box in items:
                boxes.append(tuple(map(float, b)))  # type: ignore[arg-type]
                classes.append(f)
                owner.append(p)
                is_label.append(lab_box)
    specs = (np.array(boxes, np.float32), np.array(classes, np.int32), np.array(owner), np.array(is_label))
    crops = FreshCrops(images, specs, reader.model.side)
    print(f"fine-tuning on {len(images)} pictures, {len(classes)} samples, {epochs} epochs", flush=True)
    nets = [
        train(crops, specs[1], ",".join(net.arch), epochs, seed=k, lr=3e-4, log=True, init=net)
        for k, net in enumerate(reader.model.nets)
    ]
    tuned = DiceReader(replace(reader.settings, shrink_boxes=shrink))
    tuned._model = FaceModel(nets, engine=reader.settings.engine)
    return tuned


def write_teach_set(photos: Path, labels: dict, out: Path, condition: str = "venue",  # type: ignore[type-arg]
                    skip: int = 0) -> int:
    """Twelve photos of 6-14 dice (after the first ``skip`` such) in the VENUE condition
    or a named one, JPEG, with their labels.csv."""
    cond = VENUE if condition == "venue" else next((c for c in CONDITIONS if c.name == condition), None)
    if cond is None:
        print(f"conditions: no condition {condition!r}; there are venue, {', '.join(c.name for c in CONDITIONS)}",
              file=sys.stderr)
        return 2
    names = [n for n in labels if 6 <= len(labels[n]) <= 14][skip : skip + 12]
    out.mkdir(parents=True, exist_ok=True)
    rows = ["filename,face,xmin,ymin,xmax,ymax"]
    words = ["", "one", "two", "three", "four", "five", "six"]
    for k, (_, img, lab) in enumerate(conditioned(photos, names, labels, cond)):
        name = f"{cond.name}-{k:02d}.jpg"
        cv2.imwrite(str(out / name), img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        rows += [f"{name},{words[f]},{b[0]:.0f},{b[1]:.0f},{b[2]:.0f},{b[3]:.0f}" for b, f in lab]
    (out / "labels.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {len(names)} photos to {out}")
    return 0


def write_condition(photos: Path, labels: dict, name: str, out: Path) -> int:  # type: ignore[type-arg]
    """Every photo in condition ``name`` as PNG, with their labels.csv (for bench/bench_dice.py)."""
    cond = next((c for c in CONDITIONS if c.name == name), None)
    if cond is None:
        print(f"conditions: no condition {name!r}; there are {', '.join(c.name for c in CONDITIONS)}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    rows = ["filename,face,xmin,ymin,xmax,ymax"]
    words = ["", "one", "two", "three", "four", "five", "six"]
    for photo, img, lab in conditioned(photos, list(labels), labels, cond):
        png = Path(photo).stem + ".png"
        cv2.imwrite(str(out / png), img)
        rows += [f"{png},{words[f]},{b[0]:.0f},{b[1]:.0f},{b[2]:.0f},{b[3]:.0f}" for b, f in lab]
    (out / "labels.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {len(labels)} photos in the {name} condition to {out}")
    return 0


def score(reader: DiceReader, photos: list) -> Score:  # type: ignore[type-arg]
    s = Score()
    for _, img, lab in photos:
        s.add(lab, [(r.box, r.face, r.confidence) for r in reader.read(img)], min_iou=OVERLAP)
    return s


def general(  # type: ignore[type-arg]
    photos: Path, labels: dict, names: list[str], model: Path, shrink: bool, unused: list[str]
) -> None:
    """A saved model read as the reader reads it, on every condition; ``drop_below`` is
    chosen as the floor that gets most dice right less extra dice on the *training*
    conditions (never the held-out one), then every condition is scored with it. Then
    the held-out condition again on the ``unused`` photos (never fitted on, with
    ``--every`` 2 the odd-numbered ones): a larger sample of the figure that counts."""
    from table.dice.detect import find_dice
    from table.dice.reader import DieReading, _one_per_die
    from table.dice.settings import load_settings

    reader = DiceReader(replace(load_settings(), model_path=model, shrink_boxes=shrink))
    raw: dict[str, list[tuple[list[DieReading], list]]] = {}  # type: ignore[type-arg]
    for cond in [*CONDITIONS, None]:
        pictures = (conditioned(photos, names, labels, cond) if cond else
                    [(n, cv2.imread(str(photos / n)), labels[n]) for n in names])
        raw[cond.name if cond else "plain"] = [(reader._read_pips(img, find_dice(img)[0]), lab)
                                               for _, img, lab in pictures]

    def scored(key: str, floor: float) -> Score:
        s = Score()
        for readings, lab in raw[key]:
            kept = _one_per_die([r for r in readings if r.confidence >= floor])
            s.add(lab, [(r.box, r.face, r.confidence) for r in kept], min_iou=OVERLAP)
        return s

    training = [c.name for c in CONDITIONS if c.name != HELD_OUT]
    floors = [k / 20 for k in range(19)]
    gains = [sum(s.right - s.extra for s in (scored(k, f) for k in training)) for f in floors]
    chosen = floors[int(np.argmax(gains))]
    for floor in (0.0, chosen) if chosen else (0.0,):
        print(f"{model.name}{' with shrink_boxes' if shrink else ''}, drop_below {floor:.2f}"
              f"{' (chosen on the training conditions)' if floor else ''}"
              f"{'' if chosen else ' (no floor does better on the training conditions)'}:")
        for key in [*(c.name for c in CONDITIONS), "plain"]:
            s = scored(key, floor)
            print(f"  {key:6s}{' (held out)' if key == HELD_OUT else '           '}: right {s.accuracy:.1%} "
                  f"({s.right}/{s.labelled}), extra {s.extra_rate:.1%} ({s.extra}/{s.reported})", flush=True)
    if unused:
        held_out = next(c for c in CONDITIONS if c.name == HELD_OUT)
        s = score(reader, conditioned(photos, unused, labels, held_out))
        print(f"  {HELD_OUT} (held out) on the {len(unused)} photos never fitted on, drop_below 0: right "
              f"{s.accuracy:.1%} ({s.right}/{s.labelled}), extra {s.extra_rate:.1%} ({s.extra}/{s.reported})")


SIZES = (0.6, 0.65, 0.7, 0.75, 0.8)
DIE_BELOW = (0.5, 0.8, 0.95, 1.0)
REJECT_BELOW = (0.999, 0.9999, 0.99999, 1.0)
FLOORS = (0.0, 0.4, 0.5, 0.55, 0.6)


def choose_second_look(  # type: ignore[type-arg]
    photos: Path, labels: dict, names: list[str], model: Path
) -> list[dict[str, float]]:
    """The second look's size, thresholds and views and ``general_drop_below`` for the
    general networks, chosen on the *training* conditions' scored photos only: the most
    dice right less extra dice (of equals the fewest network passes; a box read in eight
    views is eight) among the settings that need no more network passes than the
    second look as it first was (every box, 0.8 of its size, eight views when unsure).
    Every box's first reading and its second readings at each size (in one view and in
    eight when unsure) are computed once, then every combination is scored."""
    from table.dice.detect import find_dice
    from table.dice.features import canonical_crop, face_inputs
    from table.dice.model import VIEWS
    from table.dice.reader import DieReading, _look_again, _one_per_die, shrunk
    from table.dice.settings import ReaderSettings

    nets = FaceModel.load(model, "auto")

    def passes(p: np.ndarray, views: int) -> np.ndarray:  # type: ignore[type-arg]
        return np.where((p.max(axis=1) < nets.sure) & (views > 1), views, 1)

    cached = []
    for cond in CONDITIONS:
        if cond.name == HELD_OUT:
            continue
        for _, img, lab in conditioned(photos, names, labels, cond):
            boxes, _ = find_dice(img)
            if not boxes:
                continue
            h, w = img.shape[:2]

            def inputs(bs: list, img: np.ndarray = img) -> np.ndarray:  # type: ignore[type-arg]
                return face_inputs(np.stack([canonical_crop(img, b, side=nets.side) for b in bs]))

            first = nets.probabilities(inputs(boxes))
            again = {}
            for f in SIZES:
                small = [shrunk(b, w, h, f) for b in boxes]
                x = inputs(small)
                for views in (1, VIEWS):
                    p = nets.probabilities(x, views)
                    again[f, views] = (small, p, passes(nets.probabilities(x, 1), views))
            cached.append((lab, boxes, first, passes(first, VIEWS), again))
    scored = []
    for size in SIZES:
        for views in (1, VIEWS):
            for die in DIE_BELOW:
                for reject in REJECT_BELOW:
                    rule = ReaderSettings(second_look_below=die, second_look_reject_below=reject)
                    for floor in FLOORS:
                        s, cost = Score(), 0
                        for lab, boxes, first, first_cost, again in cached:
                            out = []
                            sb, p, p_cost = again[size, views]
                            cost += int(first_cost.sum())
                            for i, b in enumerate(boxes):
                                c = int(first[i].argmax())
                                if c and first[i][c] >= floor:
                                    out.append(DieReading(c, b, float(first[i][c])))
                                if _look_again(c, float(first[i][c]), rule):
                                    cost += int(p_cost[i])
                                    c2 = int(p[i].argmax())
                                    if c2 and p[i][c2] >= floor:
                                        out.append(DieReading(c2, sb[i], float(p[i][c2])))
                            kept = _one_per_die(out)
                            s.add(lab, [(r.box, r.face, r.confidence) for r in kept], min_iou=OVERLAP)
                        scored.append(((s.right - s.extra, -cost), dict(
                            second_look_size=size, second_look_views=views, second_look_below=die,
                            second_look_reject_below=reject, general_drop_below=floor)))
    # The budget: the network passes of the second look as it first was (every box again
    # at 0.8 of its size, unsure ones in eight views, no floor): it may not get dearer.
    first_way = dict(second_look_size=0.8, second_look_views=VIEWS, second_look_below=1.0,
                     second_look_reject_below=1.0, general_drop_below=0.0)
    (old_gain, old_cost), _ = next(x for x in scored if x[1] == first_way)
    best = max(scored, key=lambda x: x[0])
    chosen = max((x for x in scored if -x[0][1] <= -old_cost), key=lambda x: x[0])
    for what, ((gain, cost), settings) in (("as it first was", ((old_gain, old_cost), first_way)),
                                            ("best, whatever it costs", best),
                                            ("chosen: best within the first way's passes", chosen)):
        print(f"second look {what} (right - extra {gain}, {-cost} network passes): "
              + ", ".join(f"{k} = {v}" for k, v in settings.items()), flush=True)
    one_view = max((x for x in scored if x[1]["second_look_views"] == 1 and -x[0][1] <= -old_cost),
                   key=lambda x: x[0])
    print(f"best in one view (right - extra {one_view[0][0]}, {-one_view[0][1]} network passes): "
          + ", ".join(f"{k} = {v}" for k, v in one_view[1].items()), flush=True)
    others = [x[1] for x in (best, one_view) if x[1] != chosen[1]]
    return [chosen[1], *[o for k, o in enumerate(others) if o not in others[:k]]]  # the chosen first


def choose_tray_texture(photos: Path, labels: dict, names: list[str]) -> dict[str, float]:  # type: ignore[type-arg]
    """``tray_texture``: midway between the roughest tray photo (all of them, as they are:
    what the shipped networks were trained on) and the smoothest frame of the training
    conditions that lay another surface under the dice (``names``' photos); ``tray_grain``:
    5% above the roughest tray photo's grain, so that every tray photo stays with the
    tray's networks. The held-out condition plays no part."""
    from table.dice.detect import background_texture, find_dice

    def measure(img: np.ndarray) -> tuple[float, float]:  # type: ignore[type-arg]
        return background_texture(img, find_dice(img)[0])

    tray = np.array([measure(cv2.imread(str(photos / n))) for n in labels])
    other = np.array([measure(img) for c in CONDITIONS if c.surface and c.name != HELD_OUT
                      for _, img, _ in conditioned(photos, names, labels, c)])
    texture = round(float(tray[:, 0].max() + other[:, 0].min()) / 2, 2)
    grain = round(float(tray[:, 1].max()) * 1.05, 2)
    print(f"tray_texture: roughest tray photo {tray[:, 0].max():.3f}, smoothest frame of another surface "
          f"{other[:, 0].min():.3f}; midway {texture}. tray_grain: roughest tray photo {tray[:, 1].max():.3f}; "
          f"5% above, {grain} (frames of the other surfaces {other[:, 1].min():.2f}-{other[:, 1].max():.2f})",
          flush=True)
    return {"tray_texture": texture, "tray_grain": grain}


def textures(photos: Path, labels: dict, names: list[str]) -> None:  # type: ignore[type-arg]
    """The measure the reader chooses by (``background_texture``) in every condition, as
    rendered and without its camera noise: what sets a condition apart from the tray."""
    from table.dice.detect import background_texture, find_dice

    def spread(pictures: list) -> str:  # type: ignore[type-arg]
        v = np.array([background_texture(img, find_dice(img)[0]) for _, img, _ in pictures])
        return "; ".join(f"{what} {v[:, k].min():.2f}-{v[:, k].max():.2f} (median {float(np.median(v[:, k])):.2f})"
                         for k, what in enumerate(("texture", "grain")))

    print(f"tray photos (all {len(labels)}): {spread([(n, cv2.imread(str(photos / n)), None) for n in labels])}")
    for cond in CONDITIONS:
        print(f"{cond.name:6s} ({len(names)} photos): {spread(conditioned(photos, names, labels, cond))}; "
              f"without its camera noise: {spread(conditioned(photos, names, labels, replace(cond, noise=0)))}",
              flush=True)
    from table.dice.settings import load_settings

    quiet = conditioned(photos, names, labels, replace(next(c for c in CONDITIONS if c.name == HELD_OUT), noise=0))
    base = load_settings()
    general = base.model_path.with_name("faces-general.npz")
    for what, settings in (
        ("the reader choosing by itself", replace(base, general_model=general)),
        ("the general networks on every frame", replace(base, model_path=general, shrink_boxes=True,
                                                        drop_below=base.general_drop_below)),
    ):
        reader, s, chose = DiceReader(settings), Score(), 0
        for _, img, lab in quiet:
            s.add(lab, [(r.box, r.face, r.confidence) for r in reader.read(img)], min_iou=OVERLAP)
            chose += reader.last_general
        print(f"{HELD_OUT} without camera noise, {what}: right {s.accuracy:.1%} ({s.right}/{s.labelled}), "
              f"extra {s.extra_rate:.1%} ({s.extra}/{s.reported}); {chose} of {len(quiet)} frames to the general "
              "networks")


def auto(photos: Path, labels: dict, names: list[str], unused: list[str], model: Path, chosen: dict) -> None:  # type: ignore[type-arg]
    """The reader with ``general_model`` (it chooses its networks from each frame) on every
    condition's scored photos, the held-out condition's unused photos, and all tray photos
    (how many of those it gave to the general networks: none means the tray figure is the
    shipped networks' held-out one)."""
    from table.dice.settings import load_settings

    reader = DiceReader(replace(load_settings(), general_model=model, **chosen))  # type: ignore[arg-type]

    def scored(pictures: list) -> tuple[Score, int]:  # type: ignore[type-arg]
        s, general = Score(), 0
        for _, img, lab in pictures:
            s.add(lab, [(r.box, r.face, r.confidence) for r in reader.read(img)], min_iou=OVERLAP)
            general += reader.last_general
        return s, general

    held_out = next(c for c in CONDITIONS if c.name == HELD_OUT)
    runs = [(c.name + (" (held out)" if c.name == HELD_OUT else ""), conditioned(photos, names, labels, c))
            for c in CONDITIONS]
    runs.append((f"{HELD_OUT} (held out), the {len(unused)} photos never fitted on",
                 conditioned(photos, unused, labels, held_out)))
    runs.append((f"tray photos (all {len(labels)})", [(n, cv2.imread(str(photos / n)), labels[n]) for n in labels]))
    print(f"reader choosing by itself (tray_texture {reader.settings.tray_texture}, "
          f"tray_grain {reader.settings.tray_grain}):")
    for name, pictures in runs:
        s, general = scored(pictures)
        print(f"  {name}: right {s.accuracy:.1%} ({s.right}/{s.labelled}), extra {s.extra_rate:.1%} "
              f"({s.extra}/{s.reported}); {general} of {len(pictures)} frames read by the general networks",
              flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--photos", required=True, type=Path)
    ap.add_argument("--adapt", action="store_true")
    ap.add_argument("--every", type=int, default=1, help="use every N-th photo (faster runs)")
    ap.add_argument("--pictures", type=Path)
    ap.add_argument("--finetune", type=int, default=0, metavar="EPOCHS",
                    help="also fine-tune the whole networks (JAX) on the training conditions and the plain photos")
    ap.add_argument("--shrink", action="store_true",
                    help="with --finetune: train for, and score with, the reader's shrink_boxes setting")
    ap.add_argument("--general", type=Path, metavar="MODEL",
                    help="score this model file as a reader (with --shrink: shrink_boxes) on every condition, "
                         "choosing drop_below on the training conditions only")
    ap.add_argument("--auto", type=Path, metavar="MODEL",
                    help="choose the second look and drop_below for these general networks on the training "
                         "conditions, then score the reader that picks its networks from each frame")
    ap.add_argument("--textures", action="store_true",
                    help="print the texture measure the reader chooses by in every condition, with and without noise")
    ap.add_argument("--skip-shipped", action="store_true", help="do not score the shipped reader first")
    ap.add_argument("--save-general", type=Path, help="with --finetune: write the fine-tuned model here")
    ap.add_argument("--teach-set", type=Path, help="write the tests' small teaching set here and stop")
    ap.add_argument("--teach-condition", default="venue",
                    help="with --teach-set: the condition its photos are in (default: venue)")
    ap.add_argument("--teach-skip", type=int, default=0,
                    help="with --teach-set: leave out this many suitable photos first")
    ap.add_argument("--write", nargs=2, metavar=("CONDITION", "DIR"),
                    help="write every photo in this condition (PNG, with labels.csv) to DIR and stop")
    a = ap.parse_args()
    labels = load_labels(a.photos)
    if a.teach_set:
        return write_teach_set(a.photos, labels, a.teach_set, a.teach_condition, a.teach_skip)
    if a.write:
        return write_condition(a.photos, labels, a.write[0], Path(a.write[1]))
    names = list(labels)[:: a.every]
    fit_names = [n for i, n in enumerate(names) if i % 4 != 3]
    test_names = [n for i, n in enumerate(names) if i % 4 == 3]
    reader = DiceReader()
    if a.pictures:
        a.pictures.mkdir(parents=True, exist_ok=True)
        for cond in CONDITIONS:
            _, img, _ = conditioned(a.photos, [names[5]], labels, cond)[0]
            cv2.imwrite(str(a.pictures / f"condition-{cond.name}.png"), cv2.resize(img, (320, 320)))
    t0 = time.time()

    def report(kind: str, candidate: DiceReader) -> None:
        """A reader's figures on every condition (the held-out one marked) and on the plain tray."""
        for cond in CONDITIONS:
            s = score(candidate, conditioned(a.photos, test_names, labels, cond))
            print(f"{kind} reader, {cond.name:6s}{' (held out)' if cond.name == HELD_OUT else ''}: "
                  f"right {s.accuracy:.1%}, extra {s.extra_rate:.1%}", flush=True)
        s = score(candidate, [(n, cv2.imread(str(a.photos / n)), labels[n]) for n in test_names])
        print(f"{kind} reader on the plain tray photos: right {s.accuracy:.1%}, extra {s.extra_rate:.1%}")

    for cond in [] if a.skip_shipped else CONDITIONS:
        s = score(reader, conditioned(a.photos, test_names, labels, cond))
        print(f"shipped reader, {cond.name:6s} on {len(test_names)} photos ({s.labelled} dice): "
              f"right {s.accuracy:.1%}, extra {s.extra_rate:.1%}", flush=True)
    if a.general:
        general(a.photos, labels, test_names, a.general, a.shrink, [n for n in labels if n not in set(names)])
    if a.textures:
        textures(a.photos, labels, test_names)
    if a.auto:
        texture = choose_tray_texture(a.photos, labels, names)
        for k, second in enumerate(choose_second_look(a.photos, labels, test_names, a.auto)):
            print("the chosen settings:" if k == 0 else
                  f"for comparison, {', '.join(f'{k} = {v}' for k, v in second.items())}:")
            chosen = {**texture, **second}
            auto(a.photos, labels, test_names, [n for n in labels if n not in set(names)], a.auto, chosen)
    if a.adapt:
        fit = []
        for cond in CONDITIONS:
            if cond.name != HELD_OUT:
                fit += conditioned(a.photos, fit_names, labels, cond)
        x, y = samples(fit, reader.model.side)
        nets = []
        for net in reader.model.nets:
            feats = np.concatenate([net.features(x[i : i + 256]) for i in range(0, len(x), 256)])
            nets.append(refit_head(net, feats, y))
        adapted = DiceReader(reader.settings)
        adapted._model = FaceModel(nets, engine=reader.settings.engine)
        print(f"refitted on {len(fit)} pictures of the training conditions ({len(y)} samples)", flush=True)
        report("adapted", adapted)
    if a.finetune:
        finetuned = finetune(a.photos, labels, fit_names, reader, a.finetune, a.shrink)
        report("fine-tuned", finetuned)
        if a.save_general:
            from table.dice.cnn import save_members

            save_members(a.save_general, finetuned.model.nets)
    print(f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
