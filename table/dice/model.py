"""The die-face classifier: a small multilayer perceptron over :mod:`table.dice.features`.

Contract: :class:`FaceModel` ``.predict(features)`` returns, per row, the class (0 = not a
die, 1-6 = the top face) and a confidence in 0..1 (the softmax probability of that class,
averaged over a few networks trained from different seeds). It is trained by
``tools/dice/train_faces.py`` with :func:`train_mlp` and stored in ``config/dice/faces.npz``;
at run time it is a handful of numpy matrix products, fine on a Raspberry Pi 4 CPU.
(OpenCV 5 wheels no longer ship ``cv2.ml``, so the network is plain numpy.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

CLASSES = 7
F32 = NDArray[np.float32]


@dataclass(frozen=True)
class Net:
    """One network: standardisation, a hidden ReLU layer and a softmax output."""

    mean: F32
    scale: F32
    w1: F32
    b1: F32
    w2: F32
    b2: F32

    def probabilities(self, x: F32) -> F32:
        h = np.maximum(((x - self.mean) / self.scale) @ self.w1 + self.b1, 0.0)
        z = h @ self.w2 + self.b2
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def train_mlp(
    x: F32, y: NDArray[np.int32], seed: int = 0, hidden: int = 128, epochs: int = 30, weight_decay: float = 3e-3
) -> Net:
    """Fit one network with Adam on cross-entropy (mini-batches of 64, fixed ``seed``)."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0).astype(np.float32)
    scale = (x.std(axis=0) + 1e-3).astype(np.float32)
    xs = ((x - mean) / scale).astype(np.float32)
    n, d = xs.shape
    params = [
        (rng.normal(0, np.sqrt(2 / d), (d, hidden))).astype(np.float32),
        np.zeros(hidden, np.float32),
        (rng.normal(0, np.sqrt(1 / hidden), (hidden, CLASSES))).astype(np.float32),
        np.zeros(CLASSES, np.float32),
    ]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    onehot = np.eye(CLASSES, dtype=np.float32)[y]
    step, lr = 0, 2e-3
    for epoch in range(epochs):
        order = rng.permutation(n)
        rate = lr * (0.5 * (1 + np.cos(np.pi * epoch / epochs)))
        for start in range(0, n, 64):
            idx = order[start : start + 64]
            xb, tb = xs[idx], onehot[idx]
            w1, b1, w2, b2 = params
            pre = xb @ w1 + b1
            h = np.maximum(pre, 0)
            z = h @ w2 + b2
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            gz = (p - tb) / len(idx)
            gh = (gz @ w2.T) * (pre > 0)
            grads = [xb.T @ gh + weight_decay * w1, gh.sum(0), h.T @ gz + weight_decay * w2, gz.sum(0)]
            step += 1
            for i, g in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                mh = m[i] / (1 - 0.9**step)
                vh = v[i] / (1 - 0.999**step)
                params[i] = (params[i] - rate * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
    return Net(mean, scale, *params)


class FaceModel:
    """An ensemble of networks whose probabilities are averaged."""

    def __init__(self, nets: list[Net]) -> None:
        self.nets = nets

    @classmethod
    def train(cls, x: F32, y: NDArray[np.int32], members: int = 3) -> FaceModel:
        return cls([train_mlp(x, y, seed=s) for s in range(members)])

    @classmethod
    def load(cls, path: Path) -> FaceModel:
        if not path.is_file():
            raise FileNotFoundError(f"the dice face model {path} is missing; run tools/dice/train_faces.py --save")
        with np.load(path) as z:
            count = int(z["members"])
            nets = [Net(*(z[f"{k}{i}"].astype(np.float32) for k in ("mean", "scale", "w1", "b1", "w2", "b2")))
                    for i in range(count)]
        return cls(nets)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, NDArray[np.float32] | NDArray[np.int64]] = {"members": np.array(len(self.nets))}
        for i, net in enumerate(self.nets):
            for k in ("mean", "scale", "w1", "b1", "w2", "b2"):
                arrays[f"{k}{i}"] = getattr(net, k)
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    def probabilities(self, x: F32) -> F32:
        return np.mean([n.probabilities(x) for n in self.nets], axis=0).astype(np.float32)

    def predict(self, x: F32) -> tuple[NDArray[np.int32], F32]:
        if len(x) == 0:
            return np.zeros(0, np.int32), np.zeros(0, np.float32)
        p = self.probabilities(np.asarray(x, np.float32))
        best = p.argmax(axis=1).astype(np.int32)
        return best, p[np.arange(len(best)), best]
