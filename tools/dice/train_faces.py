"""Train the die-face network on the tray-d6 photos; report k-fold-by-photo figures.

    pip install -r tools/dice/requirements.txt        # JAX, for training only
    python tools/dice/train_faces.py --photos DIR [--folds 4] [--members 2] [--save]

Samples are what the reader sees at run time: every box the die finder proposes (four
samples each). A box paired with a labelled die (IoU >= 0.5) is an example of that face,
a box overlapping no labelled die (IoU <= 0.1) is "not a die" (class 0: tray holes, rim,
shadows), a box in between is left out as ambiguous. Each labelled box is added eight
more times as an example of its face. A sample's crop is cut anew for every batch
(:class:`FreshCrops`): turned at random, and shifted and scaled a little (labelled boxes
more than proposals), so the network never sees the same pixels twice. Training (JAX,
Adam with a cosine learning rate, dropout before the last layer, weight decay) also
mirrors every batch and varies its brightness and colour balance.

With ``--folds K`` the photos are split by photo number modulo K; each fold's network is
trained without that fold's photos and the whole reader (die finder, this network,
duplicate removal) is scored on them, so the printed figures are on photos whose dice
were never seen. With ``--save`` a final network is trained on all photos and written to
``config/dice/faces.npz`` (loaded by ``table.dice.model``), with the held-out figures of
the same run stored beside the weights. With ``--members M`` every model (each fold's
and the final one) is M networks trained from seeds SEED ... SEED+M-1 and averaged.
Every network trained is also kept in ``--fold-nets`` as ``dice_fold{k}_seed{s}.npz`` or
``dice_all_seed{s}.npz``; ``--reuse`` loads those instead of training them again (for
instance to score two single-seed runs as one ensemble without retraining).

The reader only needs numpy at run time: JAX is imported here and nowhere else.
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from evaluate import PHOTOS_HELP, photo_folder  # noqa: E402

from table.dice.cnn import CLASSES, ConvNet, save_members  # noqa: E402
from table.dice.detect import find_dice  # noqa: E402
from table.dice.features import CHANNELS, canonical_crop, face_inputs  # noqa: E402
from table.dice.model import FaceModel  # noqa: E402
from table.dice.reader import DiceReader  # noqa: E402
from table.dice.score import OVERLAP, Score, iou, load_labels, match  # noqa: E402

SIDE = 40
ARCH = "16,p,32,32,p,64,p,64"
PROPOSAL_TURNS = 4  # samples per proposed box
LABEL_JITTERS = 8  # samples per labelled box
AMBIGUOUS_IOU = 0.1


Specs = tuple[NDArray[np.float32], NDArray[np.int32], NDArray[np.int64], NDArray[np.bool_]]
Image = NDArray[np.uint8]


def _photo_specs(args: tuple[Path, int, str, list[tuple[tuple[float, float, float, float], int]]]) -> Specs:
    """Boxes, classes, photo index and 'is a labelled box' of one photo's samples."""
    photos, p, name, lab = args
    img = cv2.imread(str(photos / name))
    boxes, _ = find_dice(img)
    pairs = {j: i for i, j in match([b for b, _ in lab], boxes)}
    out: list[tuple[tuple[float, float, float, float], int, bool]] = []
    for j, b in enumerate(boxes):
        if j not in pairs and max((iou(lb, b) for lb, _ in lab), default=0.0) > AMBIGUOUS_IOU:
            continue  # a piece of a die or two dice in one box: neither a face nor "no die"
        face = lab[pairs[j]][1] if j in pairs else 0
        out += [(tuple(map(float, b)), face, False)] * PROPOSAL_TURNS  # type: ignore[list-item]
    for b, face in lab:
        out += [(b, face, True)] * LABEL_JITTERS
    return (
        np.array([o[0] for o in out], np.float32).reshape(-1, 4),
        np.array([o[1] for o in out], np.int32),
        np.full(len(out), p),
        np.array([o[2] for o in out], bool),
    )


def build(photos: Path) -> tuple[list[Image], Specs]:
    """The photos and every sample's box, class, photo index and 'is a labelled box'."""
    labels = load_labels(photos)
    with Pool(2) as pool:
        parts = pool.map(_photo_specs, [(photos, p, n, lab) for p, (n, lab) in enumerate(labels.items())])
    images = [cv2.imread(str(photos / n)) for n in labels]
    return images, tuple(np.concatenate([part[k] for part in parts]) for k in range(4))  # type: ignore[return-value]


class FreshCrops:
    """Makes a batch's crops anew each time it is asked: a new turn for every sample and,
    for labelled boxes, a new shift and scale (proposals move a little too, as the die
    finder's boxes do between photos). A network that sees each die in a different pose
    every epoch cannot learn the pixels of one crop by heart."""

    def __init__(self, images: list[Image], specs: Specs, side: int) -> None:
        self.images = images
        self.boxes, _, self.photo, self.labelled = specs  # the classes go to train() as y
        self.side = side

    def __call__(self, idx: NDArray[np.int64], rng: np.random.Generator) -> NDArray[np.uint8]:
        out = np.empty((len(idx), self.side, self.side, 3), np.uint8)
        for n, i in enumerate(idx):
            x0, y0, x1, y1 = self.boxes[i]
            w, h = x1 - x0, y1 - y0
            spread, grow = (0.06, 0.08) if self.labelled[i] else (0.03, 0.04)
            dx, dy = rng.normal(0, spread, 2) * (w, h)
            sc = 1 + rng.normal(0, grow)
            cx, cy = (x0 + x1) / 2 + dx, (y0 + y1) / 2 + dy
            box = (cx - w * sc / 2, cy - h * sc / 2, cx + w * sc / 2, cy + h * sc / 2)
            crop = canonical_crop(self.images[self.photo[i]], box, angle=float(rng.uniform(0, 360)), side=self.side)
            out[n] = crop  # resampling a uint8 photo stays within 0..255
        return out


def train(
    crops: NDArray[np.uint8] | FreshCrops,
    y: NDArray[np.int32],
    arch: str,
    epochs: int,
    seed: int,
    lr: float = 2e-3,
    log: bool = False,
    init: ConvNet | None = None,
) -> ConvNet:
    """Fit a :class:`ConvNet` of layer list ``arch`` with JAX; returns numpy weights.

    ``crops`` is either the samples' crops (N, side, side, 3), used as they are, or a
    :class:`FreshCrops` that makes each batch's crops anew. With ``init`` training
    starts from that network's weights (fine-tuning; ``arch`` must be its layer list).
    """
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        sys.exit("training needs JAX: pip install -r tools/dice/requirements.txt")
    layers = arch.split(",")
    rng = np.random.default_rng(seed)
    params = []
    cin = CHANNELS
    for t in layers:
        if t != "p":
            cout = int(t)
            params.append((rng.normal(0, np.sqrt(2 / (9 * cin)), (3, 3, cin, cout)), np.zeros(cout)))
            cin = cout
    params.append((rng.normal(0, np.sqrt(1 / cin), (cin, CLASSES)), np.zeros(CLASSES)))
    if init is not None:
        params = [(init.p[f"w{k}"], init.p[f"b{k}"]) for k in range(len(params))]
    params = [(jnp.asarray(w, jnp.float32), jnp.asarray(b, jnp.float32)) for w, b in params]

    def forward(ps: Any, x: Any, key: Any = None) -> Any:
        h, k = x, 0
        for t in layers:
            if t == "p":
                h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
                continue
            w, b = ps[k]
            k += 1
            dims = ("NHWC", "HWIO", "NHWC")
            h = jax.nn.relu(jax.lax.conv_general_dilated(h, w, (1, 1), "SAME", dimension_numbers=dims) + b)
        f = h.mean(axis=(1, 2))
        if key is not None:  # dropout while training only
            f = f * jax.random.bernoulli(key, 0.8, f.shape) / 0.8
        w, b = ps[-1]
        return f @ w + b

    def loss_fn(ps: Any, x: Any, labels: Any, key: Any) -> Any:
        logp = jax.nn.log_softmax(forward(ps, x, key))
        nll = -jnp.mean(jnp.sum(logp * jax.nn.one_hot(labels, CLASSES), axis=1))
        return nll + 5e-5 * sum(jnp.sum(w * w) for w, _ in ps)

    @jax.jit
    def step(ps: Any, m: Any, v: Any, x: Any, labels: Any, key: Any, rate: float, t: int) -> Any:
        loss, g = jax.value_and_grad(loss_fn)(ps, x, labels, key)
        tm = jax.tree_util.tree_map
        m = tm(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
        v = tm(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
        ps = tm(lambda p_, m_, v_: p_ - rate * (m_ / (1 - 0.9**t)) / (jnp.sqrt(v_ / (1 - 0.999**t)) + 1e-8), ps, m, v)
        return ps, m, v, loss

    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    key = jax.random.PRNGKey(seed)
    batch, t = 64, 0
    for epoch in range(epochs):
        rate = lr * 0.5 * (1 + np.cos(np.pi * epoch / epochs))
        order = rng.permutation(len(y))
        total = 0.0
        for start in range(0, len(order) - batch + 1, batch):
            idx = order[start : start + batch]
            # Light and white balance vary between trays and lamps: scale the raw crop.
            xb = (crops(idx, rng) if isinstance(crops, FreshCrops) else crops[idx]).astype(np.float32)
            xb = xb * rng.uniform(0.8, 1.2, (batch, 1, 1, 1))
            xb = np.clip(xb * rng.uniform(0.92, 1.08, (batch, 1, 1, 3)), 0, 255).round()
            fb = np.rot90(face_inputs(xb), int(rng.integers(4)), axes=(1, 2))
            if rng.random() < 0.5:
                fb = fb[:, :, ::-1]
            key, sub = jax.random.split(key)
            t += 1
            fb = jnp.asarray(np.ascontiguousarray(fb))
            params, m, v, loss = step(params, m, v, fb, jnp.asarray(y[idx]), sub, rate, t)
            total += float(loss)
        if log:
            print(f"  epoch {epoch + 1}/{epochs} loss {total / max(1, len(order) // batch):.4f}", flush=True)
    weights: dict[str, NDArray[np.float32]] = {}
    for k, (w, b) in enumerate(params):
        weights[f"w{k}"] = np.asarray(w, np.float32)
        weights[f"b{k}"] = np.asarray(b, np.float32)
    return ConvNet(layers, weights, crops.side if isinstance(crops, FreshCrops) else crops.shape[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--photos", required=True, type=Path, help=PHOTOS_HELP)
    ap.add_argument("--folds", type=int, default=4, help="0: no cross-validation")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--side", type=int, default=SIDE)
    ap.add_argument("--arch", default=ARCH)
    ap.add_argument("--only", type=int, default=None, help="train and score this one fold (quick experiments)")
    ap.add_argument("--seed", type=int, default=0, help="another seed gives another network")
    ap.add_argument("--members", type=int, default=1, help="networks per model (seeds SEED, SEED+1, ...), averaged")
    ap.add_argument("--save", action="store_true")
    ap.add_argument("--fold-nets", default="/tmp", help="folder for every network trained (kept for a later look)")
    ap.add_argument("--reuse", action="store_true", help="load the networks an earlier run left in --fold-nets")
    a = ap.parse_args()
    photos = photo_folder(a.photos)
    t0 = time.time()
    images, specs = build(photos)
    y, photo, labelled = specs[1], specs[2], specs[3]
    print(f"{len(y)} samples ({(~labelled).sum()} from proposals) in {time.time() - t0:.0f}s", flush=True)

    def subset(keep: NDArray[np.bool_]) -> FreshCrops:
        return FreshCrops(images, tuple(part[keep] for part in specs), a.side)  # type: ignore[arg-type]

    def network(name: str, keep: NDArray[np.bool_], seed: int, log: bool) -> ConvNet:
        path = Path(a.fold_nets) / name
        if a.reuse and path.is_file():
            net = ConvNet.load(path)
            if net.arch != a.arch.split(",") or net.side != a.side:
                sys.exit(f"{path} is a network of another shape; leave out --reuse")
            print(f"  {name}: trained by an earlier run", flush=True)
            return net
        net = train(subset(keep), y[keep], a.arch, a.epochs, seed=seed, log=log)
        net.save(path)
        return net

    seeds = range(a.seed, a.seed + a.members)
    meta: dict[str, object] = {"arch": a.arch, "side": a.side, "epochs": a.epochs, "folds": a.folds}
    meta.update(members=a.members, seed=a.seed)
    if a.folds:
        labels = list(load_labels(photos).items())
        strict, loose = Score(), Score()
        for k in range(a.folds) if a.only is None else [a.only]:
            tr = photo % a.folds != k
            nets = [network(f"dice_fold{k}_seed{s}.npz", tr, k + 10 * s, a.only is not None) for s in seeds]
            # The whole reader, with this fold's networks, on this fold's photos only.
            reader = DiceReader()
            reader._model = FaceModel(nets)
            for i, (_, lab) in enumerate(labels):
                if i % a.folds == k:
                    found = [(r.box, r.face, r.confidence) for r in reader.read(images[i])]
                    strict.add(lab, found, reader.settings.min_confidence)
                    loose.add(lab, found, reader.settings.min_confidence, min_iou=OVERLAP)
            print(f"fold {k}: reader so far {strict.accuracy:.4f} / {loose.accuracy:.4f} ({time.time() - t0:.0f}s)")
        for title, s in (("strict pairing (IoU >= 0.5)", strict), ("any overlap", loose)):
            print(
                f"HELD-OUT READER, {title}: right {s.right}/{s.labelled} = {s.accuracy:.4f}; "
                f"extra {s.extra}/{s.reported} = {s.extra_rate:.4f}; unsure {s.unsure} ({s.unsure_right} right)"
            )
            print("rows: labelled face 1-6; columns: not found, read as 1-6\n", s.confusion[1:])
        if a.only is None:
            meta.update(held_out_right=strict.accuracy, held_out_extra=strict.extra_rate)
            meta.update(held_out_right_any_overlap=loose.accuracy, held_out_extra_any_overlap=loose.extra_rate)
    if a.save:
        every = np.ones(len(y), bool)
        nets = [network(f"dice_all_seed{s}.npz", every, 99 + s, True) for s in seeds]
        save_members(ROOT / "config" / "dice" / "faces.npz", nets, **meta)
        print("saved config/dice/faces.npz")


if __name__ == "__main__":
    main()
