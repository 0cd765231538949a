"""Teach the pip reader a venue's own tray, dice and light from a few labelled photos.

Contract: :func:`teach` takes labelled photos (:func:`load_teach_set`: a folder and a
``labels.csv`` of ``filename,face,xmin,ymin,xmax,ymax`` rows, face as 1-6 or a word),
holds back every fourth photo (at least one), adapts the reader on the others, and
scores the old and the new reader on the held-back photos. It returns a
:class:`TeachResult`; :func:`save_taught` writes the new model into the config
directory only when the new reader is better on the held-back photos (more dice right
less extra dice), so a teach makes things better or changes nothing.

How it adapts (a calibration, minutes on a Pi rather than a training run): the face
networks' convolutions stay as shipped and their last layer (pooled features to the
seven classes) is refitted on the venue's dice. Every box the die finder proposes on a
teaching photo is a sample (its labelled face when it is paired with a labelled die,
"not a die" when it overlaps none: the venue's own clutter becomes a hard negative),
and every labelled box is one too, each in its eight turned and mirrored views. The fit
is softmax regression by gradient descent starting from the shipped weights and pulled
towards them (weight decay towards the start), so a handful of photos shifts the
reader rather than replacing it.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from table.common.checks import read_text_input
from table.common.errors import TableError
from table.dice.cnn import CLASSES, ConvNet, save_members
from table.dice.detect import DetectSettings, find_dice
from table.dice.features import canonical_crop, face_inputs
from table.dice.model import FaceModel
from table.dice.reader import DiceReader, load_image
from table.dice.score import OVERLAP, WORDS, LabelBox, Score, iou, match

F32 = NDArray[np.float32]
Labels = list[tuple[LabelBox, int]]
HOLD_BACK_EVERY = 4
MIN_PHOTOS = 2
TAUGHT_MODEL = "taught.npz"
STEPS = 300
RATE = 0.5
PULL = 1e-3  # weight decay towards the shipped last layer
NEGATIVES_PER_DIE = 3  # at most this many "not a die" boxes per labelled die of a photo
AMBIGUOUS = 0.1  # a proposal overlapping a labelled die this much, but unpaired, is left out


@dataclass(frozen=True)
class TeachSet:
    """Labelled photos: ``(name, BGR image, labels)`` in file-name order."""

    folder: Path
    photos: list[tuple[str, NDArray[np.uint8], Labels]]


@dataclass(frozen=True)
class TeachResult:
    """Scores of the old and new reader on the held-back photos, and the new networks."""

    before: Score
    after: Score
    nets: list[ConvNet]
    taught_photos: int
    held_back: list[str]
    samples: int
    general_floor: float | None = None
    """Set when the networks taught are the general ones (they scored better on the
    held-back photos): the taught reader then gives every frame the second look and
    drops readings below this floor, as the reader did on the frames it gave them."""

    @property
    def better(self) -> bool:
        """The new reader gets more dice right less extras on the held-back photos."""
        return _merit(self.after) > _merit(self.before)

    def summary(self) -> str:
        return (
            f"{len(self.held_back)} held-back photos ({self.before.labelled} dice): before "
            f"{_figure(self.before)}, after {_figure(self.after)}"
        )


def _merit(s: Score) -> int:
    return s.right - s.extra


def _figure(s: Score) -> str:
    return f"{s.accuracy:.1%} right, {s.extra_rate:.1%} extra"


def _face(text: str, where: str) -> int:
    word = text.strip().lower()
    if word in WORDS:
        return WORDS[word]
    if word in {"1", "2", "3", "4", "5", "6"}:
        return int(word)
    raise TableError(f"{where}: the face {text!r} is not 1-6 (or one ... six)")


def load_teach_set(folder: Path, labels: Path | None = None) -> TeachSet:
    """The labelled photos; TableError with one sentence for anything wrong with them."""
    if not folder.is_dir():
        raise TableError(f"the teaching folder {folder} does not exist")
    labels = labels or folder / "labels.csv"
    if not labels.is_file():
        raise TableError(f"no labels file at {labels} (rows of filename,face,xmin,ymin,xmax,ymax)")
    rows: dict[str, Labels] = {}
    # A regular file of bounded size only: a FIFO or a device would block or never end.
    text = read_text_input(labels, "labels file")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    need = {"filename", "face", "xmin", "ymin", "xmax", "ymax"}
    if reader.fieldnames is None or not need <= set(reader.fieldnames):
        raise TableError(f"{labels}: the first line must name the columns filename,face,xmin,ymin,xmax,ymax")
    try:
        for line, row in enumerate(reader, start=2):
            where = f"{labels} line {line}"
            name = (row["filename"] or "").strip()
            if not name or Path(name).name != name:
                raise TableError(f"{where}: the file name {name!r} is not a plain name in the folder")
            try:
                box = tuple(float(row[k]) for k in ("xmin", "ymin", "xmax", "ymax"))
            except (TypeError, ValueError):
                raise TableError(f"{where}: the box needs four numbers") from None
            if not all(np.isfinite(box)) or box[2] <= box[0] or box[3] <= box[1]:
                raise TableError(f"{where}: the box {box} is empty or not finite")
            rows.setdefault(name, []).append((box, _face(row["face"] or "", where)))  # type: ignore[arg-type]
    except csv.Error as exc:
        raise TableError(f"{labels} is not a readable CSV file ({exc})") from None
    if len(rows) < MIN_PHOTOS:
        raise TableError(f"{labels} labels {len(rows)} photo(s); a teach needs at least {MIN_PHOTOS}")
    photos = []
    for name, lab in sorted(rows.items()):
        try:
            img = load_image(folder / name)
        except OSError as exc:
            raise TableError(f"cannot read a labelled photo ({exc})") from None
        h, w = img.shape[:2]
        if any(b[2] > w + 1 or b[3] > h + 1 for b, _ in lab):
            raise TableError(f"{labels}: a box of {name} reaches outside its {w}x{h} picture")
        photos.append((name, img, lab))
    return TeachSet(folder, photos)


def split(photos: list[tuple[str, NDArray[np.uint8], Labels]]) -> tuple[list[int], list[int]]:
    """(teaching, held back): every HOLD_BACK_EVERY-th photo is held back, at least one."""
    held = [i for i in range(len(photos)) if i % HOLD_BACK_EVERY == HOLD_BACK_EVERY - 1] or [len(photos) - 1]
    return [i for i in range(len(photos)) if i not in held], held


def score(reader: DiceReader, photos: list[tuple[str, NDArray[np.uint8], Labels]]) -> Score:
    """The reader on labelled photos, any-overlap pairing (the reader's goals' pairing)."""
    s = Score()
    for _, img, lab in photos:
        s.add(lab, [(r.box, r.face, r.confidence) for r in reader.read(img)], min_iou=OVERLAP)
    return s


def _views(x: F32) -> F32:
    turned = [np.rot90(x, k, axes=(1, 2)) for k in range(4)]
    return np.ascontiguousarray(np.concatenate(turned + [t[:, :, ::-1] for t in turned]))


def samples(
    photos: list[tuple[str, NDArray[np.uint8], Labels]], side: int, finder: DetectSettings | None = None
) -> tuple[F32, NDArray[np.int64]]:
    """Network inputs and classes of the teaching photos (see module doc), in 8 views
    each; boxes proposed by the die finder with ``finder``'s thresholds (the reader's)."""
    crops: list[F32] = []
    classes: list[int] = []
    rng = np.random.default_rng(0)  # which clutter boxes are kept: the same on every run
    for _, img, lab in photos:
        boxes, _ = find_dice(img, finder)
        paired = {j: i for i, j in match([b for b, _ in lab], boxes)}
        negatives = []
        for j, b in enumerate(boxes):
            if j in paired:
                crops.append(canonical_crop(img, b, side=side))
                classes.append(lab[paired[j]][1])
            elif max((iou(lb, b) for lb, _ in lab), default=0.0) <= AMBIGUOUS:
                negatives.append(b)  # (a piece of a die, or two dice in one box, is left out)
        # A printed page or a keyboard offers hundreds of boxes; a sample of them teaches
        # "not a die" as well and keeps the teach to minutes.
        keep = rng.permutation(len(negatives))[: NEGATIVES_PER_DIE * len(lab) + 4]
        for k in sorted(keep):
            crops.append(canonical_crop(img, negatives[k], side=side))
            classes.append(0)
        for labelled, face in lab:
            crops.append(canonical_crop(img, labelled, side=side))
            classes.append(face)
    if not crops:
        return np.zeros((0, side, side, 4), np.float32), np.zeros(0, np.int64)
    x = _views(face_inputs(np.stack(crops)))
    return x, np.tile(np.array(classes, np.int64), 8)


def refit_head(net: ConvNet, feats: F32, classes: NDArray[np.int64], steps: int = STEPS) -> ConvNet:
    """``net`` with its last layer refitted to (feats, classes) (see module doc)."""
    w0, b0 = (a.astype(np.float64) for a in net.head)
    w, b = w0.copy(), b0.copy()
    f = feats.astype(np.float64)
    scale = f.std(axis=0).mean() + 1e-6
    onehot = np.eye(CLASSES)[classes]
    # Classes weighted equally whatever their counts: a venue's photos may have few 1s.
    counts = np.bincount(classes, minlength=CLASSES).astype(np.float64)
    weight = np.where(counts > 0, 1.0 / np.maximum(counts, 1), 0.0)[classes]
    weight /= weight.sum()
    m_w, v_w, m_b, v_b = (np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b))
    lr = RATE * 0.02 / scale
    for t in range(1, steps + 1):
        z = f @ w + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * weight[:, None]
        gw = f.T @ g + PULL * (w - w0)
        gb = g.sum(axis=0)
        # Adam: the features' scales differ by orders of magnitude between filters.
        m_w = 0.9 * m_w + 0.1 * gw
        v_w = 0.999 * v_w + 0.001 * gw**2
        m_b = 0.9 * m_b + 0.1 * gb
        v_b = 0.999 * v_b + 0.001 * gb**2
        c1, c2 = 1 - 0.9**t, 1 - 0.999**t
        w -= lr * (m_w / c1) / (np.sqrt(v_w / c2) + 1e-8)
        b -= lr * (m_b / c1) / (np.sqrt(v_b / c2) + 1e-8)
    return net.with_head(w.astype(np.float32), b.astype(np.float32))


def teach(data: TeachSet, reader: DiceReader, progress: Callable[[str], None] = lambda _: None) -> TeachResult:
    """Adapt ``reader``'s face model to the photos; score old and new on the held-back ones."""
    if len(data.photos) < MIN_PHOTOS:
        raise TableError(f"a teach needs at least {MIN_PHOTOS} labelled photos")
    teach_idx, held_idx = split(data.photos)
    taught = [data.photos[i] for i in teach_idx]
    held = [data.photos[i] for i in held_idx]
    progress(f"reading {len(held)} held-back photos with the reader as it is")
    before = score(reader, held)
    # The networks that read the venue's frames are taught: the tray's, and with a
    # general_model in force the general ones too (the reader gives them every frame
    # unlike the tray); whichever taught set reads the held-back photos better is kept.
    candidates: list[tuple[str, FaceModel, float | None]] = [("tray", reader.model, None)]
    general = reader.general
    if general is not None:
        candidates.append(("general", general, reader.settings.general_drop_below))
    cut: dict[int, tuple[F32, NDArray[np.int64]]] = {}
    best: tuple[Score, list[ConvNet], float | None, int] | None = None
    for which, model, floor in candidates:
        if model.side not in cut:
            progress(f"cutting samples from {len(taught)} teaching photos")
            cut[model.side] = samples(taught, model.side, reader.settings.finder)
        x, y = cut[model.side]
        if len(y) == 0 or not (y > 0).any():
            raise TableError("the teaching photos hold no labelled dice the reader could use")
        nets = []
        for k, net in enumerate(model.nets):
            progress(f"refitting the {which} network {k + 1} of {len(model.nets)} on {len(y)} samples")
            feats = np.concatenate([net.features(x[i : i + 256]) for i in range(0, len(x), 256)])
            nets.append(refit_head(net, feats, y))
        # The taught networks read every frame: the venue's own tray is what they were
        # taught on, whatever its surface (a general_model in force is no longer asked).
        settings = replace(reader.settings, general_model=None)
        if floor is not None:
            settings = replace(settings, shrink_boxes=True, drop_below=floor)
        new = DiceReader(settings, reader.symbols)
        try:
            new._model = FaceModel(
                nets, views=model.views, sure=model.sure, engine=reader.settings.engine, graph=model.graph
            )
        except ValueError as exc:  # e.g. the opencv engine, which runs only the shipped weights
            raise TableError(f"the taught {which} networks cannot run on engine = "
                             f'"{reader.settings.engine}" ({exc}); set engine = "auto" under [reader] '
                             "in dice/reader.toml and teach again") from None
        progress(f"reading the held-back photos with the taught {which} networks")
        after = score(new, held)
        if best is None or _merit(after) > _merit(best[0]):
            best = (after, nets, floor, len(y))
    assert best is not None
    after, nets, floor, count = best
    return TeachResult(before, after, nets, len(taught), [data.photos[i][0] for i in held_idx], count, floor)


def save_taught(result: TeachResult, config: Path, shipped_settings: Path) -> Path:
    """Write the taught model to ``config/dice/`` and point ``config/dice/reader.toml`` at it.

    The settings file keeps everything the owner set; only its ``model`` line changes (or
    is added), ``general_model`` is emptied (the taught networks read every frame), and
    networks taught from the general ones also get ``shrink_boxes = true`` and their
    ``drop_below`` (every frame is read as the general networks read theirs). When the
    config directory has no settings file, the shipped one is copied first.
    """
    folder = config / "dice"
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / TAUGHT_MODEL
    tmp = folder / (TAUGHT_MODEL + ".new.npz")
    save_members(
        tmp,
        result.nets,
        taught_right=result.after.accuracy,
        taught_extra=result.after.extra_rate,
        before_right=result.before.accuracy,
        before_extra=result.before.extra_rate,
    )
    tmp.replace(model)  # a reader never sees half a file
    settings = folder / "reader.toml"
    text = settings.read_text(encoding="utf-8") if settings.is_file() else shipped_settings.read_text("utf-8")
    text = _set_line(text, "model", f'"{TAUGHT_MODEL}"')
    if re.search(r"(?m)^\s*general_model\s*=.*$", text):
        text = _set_line(text, "general_model", '""')
    if result.general_floor is not None:
        # Taught from the general networks: read every frame as they read theirs.
        text = _set_line(text, "shrink_boxes", "true")
        text = _set_line(text, "drop_below", f"{result.general_floor:g}")
    tmp_settings = folder / "reader.toml.new"
    tmp_settings.write_text(text, encoding="utf-8")
    tmp_settings.replace(settings)
    return model


def _set_line(text: str, key: str, value: str) -> str:
    """``text`` (a reader.toml) with ``key = value`` in its [reader] table: the key's line
    replaced where it is, else added under ``[reader]`` (a table made when there is none)."""
    line = f"{key} = {value}"
    pattern = rf"(?m)^\s*{re.escape(key)}\s*=.*$"
    if re.search(pattern, text):
        return re.sub(pattern, lambda _: line, text, count=1)
    if re.search(r"(?m)^\[reader\]\s*$", text):
        return re.sub(r"(?m)^\[reader\]\s*$", lambda _: "[reader]\n" + line, text, count=1)
    return f"[reader]\n{line}\n\n" + text


def teach_folder(
    folder: Path, labels: Path | None = None, progress: Callable[[str], None] = lambda _: None
) -> tuple[bool, str, str]:
    """Teach the reader in force from a folder and keep the result only when it is better.

    Returns (saved, a one-line report with the accuracy before and after on the
    held-back photos, the same in a few words for the simulator's tray line). Needs a
    config directory in force (``datafiles.use_config_dir``): that is where the taught
    model goes; TableError (one sentence) otherwise and for
    anything wrong with the photos or labels. After a save, the next
    :func:`table.dice.read_tray_image` uses the taught reader.
    """
    from table.common.datafiles import config_dir, package_path
    from table.dice import reader as reader_module
    from table.dice.settings import load_settings

    home = config_dir()
    if home is None:
        raise TableError("say where to keep the taught reader with --config DIR (the kiosk reads /etc/table)")
    data = load_teach_set(folder, labels)
    result = teach(data, DiceReader(load_settings()), progress)
    report = f"taught on {result.taught_photos} photos; {result.summary()}"
    short = (
        f"taught; held-back dice read right {result.before.accuracy:.0%} before, {result.after.accuracy:.0%} after"
    )
    if not result.better:
        return False, f"{report}; not better, so the reader is kept as it was", f"{short}: not better, kept the old"
    path = save_taught(result, home, package_path("defaults") / "dice" / "reader.toml")
    reader_module.forget_default_reader()
    return True, f"{report}; saved ({path.name} in {path.parent})", f"{short}: saved"
