"""A very small convolutional network in plain numpy (inference and training).

Contract: :class:`TinyCNN` maps a batch of die crops ``(N, SIDE, SIDE, CHANNELS)``
float32 to class probabilities ``(N, 7)`` (0 = not a die, 1-6 = top face).
Layers: three 3x3 convolutions (16, 32, 64 filters, ReLU; 2x2 max-pooling after the
first two), global average pooling and a linear softmax layer. About 25k weights; a
forward pass of 20 crops is a few milliseconds of numpy matrix products, so it runs on a
Raspberry Pi 4 without any deep-learning library. :func:`train_cnn` fits it with Adam;
only ``tools/dice/train_faces.py`` calls that.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
CLASSES = 7
WIDTHS = (16, 32, 64)


def _im2col(x: F32) -> F32:
    """(N, H, W, C) -> (N, H, W, 9C): each pixel's 3x3 neighbourhood (zero padded)."""
    n, h, w, c = x.shape
    xp = np.zeros((n, h + 2, w + 2, c), np.float32)
    xp[:, 1:-1, 1:-1] = x
    cols = np.empty((n, h, w, 9 * c), np.float32)
    for k in range(9):
        i, j = divmod(k, 3)
        cols[..., k * c : (k + 1) * c] = xp[:, i : i + h, j : j + w]
    return cols


def _col2im(g: F32, c: int) -> F32:
    n, h, w, _ = g.shape
    gp = np.zeros((n, h + 2, w + 2, c), np.float32)
    k = 0
    for i in range(3):
        for j in range(3):
            gp[:, i : i + h, j : j + w] += g[..., k * c : (k + 1) * c]
            k += 1
    return gp[:, 1:-1, 1:-1]


def _pool(x: F32) -> tuple[F32, NDArray[np.bool_]]:
    n, h, w, c = x.shape
    r = x.reshape(n, h // 2, 2, w // 2, 2, c)
    out = r.max(axis=(2, 4))
    mask = r == out[:, :, None, :, None, :]
    return out, mask


def _unpool(g: F32, mask: NDArray[np.bool_]) -> F32:
    n, h2, _, w2, _, c = mask.shape
    return (mask * g[:, :, None, :, None, :]).reshape(n, h2 * 2, w2 * 2, c).astype(np.float32)


class TinyCNN:
    """Weights and the forward pass (see module doc)."""

    def __init__(self, params: dict[str, F32]) -> None:
        self.p = params

    @classmethod
    def initial(cls, channels: int, rng: np.random.Generator, widths: tuple[int, ...] = WIDTHS) -> TinyCNN:
        p: dict[str, F32] = {}
        cin = channels
        for i, cout in enumerate(widths):
            p[f"w{i}"] = rng.normal(0, np.sqrt(2 / (9 * cin)), (9 * cin, cout)).astype(np.float32)
            p[f"b{i}"] = np.zeros(cout, np.float32)
            cin = cout
        p["wf"] = rng.normal(0, np.sqrt(1 / cin), (cin, CLASSES)).astype(np.float32)
        p["bf"] = np.zeros(CLASSES, np.float32)
        return cls(p)

    def logits(self, x: F32, keep: list[object] | None = None) -> F32:
        h = x
        for i in range(len(WIDTHS)):
            cols = _im2col(h)
            pre = cols @ self.p[f"w{i}"] + self.p[f"b{i}"]
            act = np.maximum(pre, 0)
            mask = None
            if i < 2 and keep is None:
                n, hh, ww, cc = act.shape
                pooled = act.reshape(n, hh // 2, 2, ww // 2, 2, cc).max(axis=(2, 4))
            elif i < 2:
                pooled, mask = _pool(act)
            else:
                pooled = act
            if keep is not None:
                keep.append((h.shape[3], cols, pre, mask))
            h = pooled
        feat = h.mean(axis=(1, 2))
        if keep is not None:
            keep.append((h.shape, feat))
        return (feat @ self.p["wf"] + self.p["bf"]).astype(np.float32)

    def probabilities(self, x: F32) -> F32:
        out = []
        for start in range(0, len(x), 256):
            z = self.logits(x[start : start + 256])
            z -= z.max(axis=1, keepdims=True)
            e = np.exp(z)
            out.append(e / e.sum(axis=1, keepdims=True))
        return np.concatenate(out).astype(np.float32) if out else np.zeros((0, CLASSES), np.float32)

    def gradients(self, x: F32, onehot: F32) -> tuple[float, dict[str, F32]]:
        keep: list[object] = []
        z = self.logits(x, keep)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        loss = float(-(onehot * np.log(p + 1e-9)).sum() / len(x))
        gz = ((p - onehot) / len(x)).astype(np.float32)
        shape, feat = keep.pop()  # type: ignore[misc]
        g: dict[str, F32] = {"wf": feat.T @ gz, "bf": gz.sum(0)}
        gfeat = gz @ self.p["wf"].T
        _, hh, ww, _ = shape
        gh = np.broadcast_to(gfeat[:, None, None, :] / (hh * ww), shape).astype(np.float32)
        for i in reversed(range(len(WIDTHS))):
            cin, cols, pre, mask = keep.pop()  # type: ignore[misc]
            gact = _unpool(gh, mask) if mask is not None else gh
            gpre = gact * (pre > 0)
            flat = gpre.reshape(-1, gpre.shape[3])
            g[f"w{i}"] = cols.reshape(-1, cols.shape[3]).T @ flat
            g[f"b{i}"] = flat.sum(0)
            if i > 0:
                gh = _col2im((gpre @ self.p[f"w{i}"].T).astype(np.float32), cin)
        return loss, g

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **self.p)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path) -> TinyCNN:
        if not path.is_file():
            raise FileNotFoundError(f"the dice face model {path} is missing; run tools/dice/train_faces.py --save")
        with np.load(path) as z:
            return cls({k: z[k].astype(np.float32) for k in z.files})


def train_cnn(
    x: F32,
    y: NDArray[np.int32],
    epochs: int = 20,
    seed: int = 0,
    batch: int = 64,
    lr: float = 3e-3,
    log: bool = False,
    check: Callable[[TinyCNN, int], None] | None = None,
    widths: tuple[int, ...] = WIDTHS,
) -> TinyCNN:
    """Fit a TinyCNN; every batch is also turned by a random multiple of 90 degrees and mirrored."""
    rng = np.random.default_rng(seed)
    net = TinyCNN.initial(x.shape[3], rng, widths)
    m = {k: np.zeros_like(v) for k, v in net.p.items()}
    v = {k: np.zeros_like(v) for k, v in net.p.items()}
    eye = np.eye(CLASSES, dtype=np.float32)
    step = 0
    for epoch in range(epochs):
        rate = lr * 0.5 * (1 + np.cos(np.pi * epoch / epochs))
        order = rng.permutation(len(x))
        total = 0.0
        for start in range(0, len(x), batch):
            idx = order[start : start + batch]
            xb = np.rot90(x[idx], int(rng.integers(4)), axes=(1, 2))
            if rng.random() < 0.5:
                xb = xb[:, :, ::-1]
            loss, grads = net.gradients(np.ascontiguousarray(xb, np.float32), eye[y[idx]])
            total += loss * len(idx)
            step += 1
            for k, gk in grads.items():
                if k.startswith("w"):
                    gk = gk + 1e-4 * net.p[k]
                m[k] = 0.9 * m[k] + 0.1 * gk
                v[k] = 0.999 * v[k] + 0.001 * gk * gk
                mh = m[k] / (1 - 0.9**step)
                vh = v[k] / (1 - 0.999**step)
                net.p[k] = (net.p[k] - rate * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        if log:
            print(f"  epoch {epoch + 1}/{epochs} loss {total / len(x):.4f}", flush=True)
        if check is not None and (epoch % 3 == 2 or epoch == epochs - 1):
            check(net, epoch)
    return net
