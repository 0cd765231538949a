"""A small convolutional network's forward pass in plain numpy (inference only).

Contract: :class:`ConvNet` maps a batch of die inputs ``(N, side, side, CHANNELS)``
float32 (from :func:`table.dice.features.face_inputs`) to class probabilities
``(N, 7)``: 0 = not a die, 1-6 = the top face.

The layer list is stored with the weights, so a retrained network of another shape needs
no code change: ``arch`` is a comma-separated list where a number is a 3x3 convolution
with that many filters (zero padding, ReLU) and ``p`` a 2x2 max-pooling; global average
pooling and one linear softmax layer follow. Convolutions are matrix products of each
pixel's 3x3 neighbourhood (numpy's BLAS), so nothing beyond numpy is needed on the Pi and
nothing is downloaded at run time. The weights are trained by ``tools/dice/train_faces.py``
(JAX, a tool dependency only) and stored in ``config/dice/faces.npz``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
CLASSES = 7
# Batches of this many crops bound the memory of the 3x3 neighbourhood matrices.
CHUNK = 128


def _im2col(x: F32) -> F32:
    """(N, H, W, C) -> (N, H, W, 9C): each pixel's 3x3 neighbourhood (zero padded).

    The 9C axis is ordered (row offset, column offset, channel), which is the order of
    a (3, 3, C, filters) kernel reshaped to (9C, filters).
    """
    n, h, w, c = x.shape
    xp = np.zeros((n, h + 2, w + 2, c), np.float32)
    xp[:, 1:-1, 1:-1] = x
    # In a row of the padded map, a pixel's three column neighbours and their channels
    # are 3C consecutive floats, so the neighbourhood is a strided view of three such
    # runs (one per row offset) and one copy makes it contiguous. Copying runs of 3C
    # floats is about three times faster than nine copies of C-float slivers.
    s0, s1, s2, s3 = xp.strides
    view = np.lib.stride_tricks.as_strided(xp, (n, h, w, 3, 3 * c), (s0, s1, s2, s1, s3), writeable=False)
    return np.ascontiguousarray(view).reshape(n, h, w, 9 * c)


def _pool(h: F32) -> F32:
    """2x2 max-pooling of (N, H, W, C) with even H and W.

    Two pairwise maxima of strided views: numpy's reduction over two inner axes at once
    is several times slower.
    """
    n, hh, ww, c = h.shape
    rows = h.reshape(n, hh // 2, 2, ww // 2, 2 * c)
    pairs = np.maximum(rows[:, :, 0], rows[:, :, 1]).reshape(n, hh // 2, ww // 2, 2, c)
    return np.maximum(pairs[..., 0, :], pairs[..., 1, :])


class ConvNet:
    """Weights, layer list and the forward pass (see module doc)."""

    def __init__(self, arch: list[str], params: dict[str, F32], side: int) -> None:
        convs = sum(1 for t in arch if t != "p")
        for k in range(convs):
            w = params[f"w{k}"]
            if w.ndim != 4 or w.shape[:2] != (3, 3):
                raise ValueError(f"layer {k} is not a 3x3 convolution")
        outputs = params[f"w{convs}"].shape[1]
        if outputs != CLASSES:
            raise ValueError(f"the last layer has {outputs} outputs, not {CLASSES}")
        self.arch = arch
        self.side = side
        # Kernels flattened once to the (9C, filters) matrices the forward pass multiplies by.
        self._mats = [params[f"w{k}"].reshape(-1, params[f"w{k}"].shape[3]) for k in range(convs)]
        self.p = params

    @property
    def head(self) -> tuple[F32, F32]:
        """The last (linear) layer's weights and bias: what a teach refits."""
        k = len(self._mats)
        return self.p[f"w{k}"], self.p[f"b{k}"]

    def features(self, x: F32) -> F32:
        """The pooled features ``(N, filters)`` the last layer reads (everything but the head)."""
        h = x
        k = 0
        for t in self.arch:
            if t == "p":
                h = _pool(h)
                continue
            h = _im2col(h) @ self._mats[k]
            h += self.p[f"b{k}"]
            np.maximum(h, 0, out=h)  # ReLU in place: no second map-sized array
            k += 1
        # Average over the map: where on the face a pip lies does not change the face.
        return np.asarray(h.mean(axis=(1, 2)), np.float32)

    def logits(self, x: F32) -> F32:
        w, b = self.head
        # Some BLAS kernels (OpenBLAS on arm64, seen under qemu-user) leave the CPU's
        # overflow and divide-by-zero flags set after products of finite numbers, which
        # numpy reports as warnings; the products are checked against the reference
        # engine instead (tests/dice/test_engine_photos.py), so the flags are not read.
        with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
            return (self.features(x) @ w + b).astype(np.float32)

    def with_head(self, w: F32, b: F32) -> ConvNet:
        """The same network with another last layer (a taught one)."""
        k = len(self._mats)
        return ConvNet(self.arch, {**self.p, f"w{k}": w.astype(np.float32), f"b{k}": b.astype(np.float32)}, self.side)

    def probabilities(self, x: F32) -> F32:
        """Class probabilities ``(N, 7)``, computed in chunks of CHUNK crops."""
        out = []
        for start in range(0, len(x), CHUNK):
            z = self.logits(np.asarray(x[start : start + CHUNK], np.float32))
            z -= z.max(axis=1, keepdims=True)
            with np.errstate(under="ignore"):  # exp of a very unlikely class is 0: right
                e = np.exp(z)
            out.append(e / e.sum(axis=1, keepdims=True))
        return np.concatenate(out).astype(np.float32) if out else np.zeros((0, CLASSES), np.float32)

    def arrays(self, prefix: str = "") -> dict[str, NDArray[np.generic]]:
        """Layer list, input side and weights as named arrays, names starting with ``prefix``."""
        own = {"arch": np.array(",".join(self.arch)), "side": np.array(self.side), **self.p}
        return {prefix + k: v for k, v in own.items()}

    def save(self, path: Path, **meta: object) -> None:
        """Write weights, layer list, input side and any ``meta`` (e.g. training figures)."""
        save_members(path, [self], **meta)

    @classmethod
    def load(cls, path: Path) -> ConvNet:
        """The (first) network in ``path``; FileNotFoundError / ValueError with one sentence."""
        return load_members(path)[0]


def _member(prefix: int) -> str:
    # The first member's arrays carry no prefix, so a one-network file reads as before.
    return f"m{prefix}_" if prefix else ""


def save_members(path: Path, nets: list[ConvNet], **meta: object) -> None:
    """Write one or more networks (read back averaged: an ensemble) and ``meta`` to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, NDArray[np.generic]] = {"members": np.array(len(nets))}
    for j, net in enumerate(nets):
        arrays.update(net.arrays(_member(j)))
    arrays.update({f"meta_{k}": np.array(v) for k, v in meta.items()})
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


def load_members(path: Path) -> list[ConvNet]:
    """Every network in ``path``; FileNotFoundError / ValueError with one sentence."""
    if not path.is_file():
        raise FileNotFoundError(f"the dice face model {path} is missing; run tools/dice/train_faces.py --save")
    try:
        with np.load(path) as z:
            count = int(z["members"]) if "members" in z.files else 1
            nets = []
            for j in range(count):
                pre = _member(j)
                arch = str(z[pre + "arch"]).split(",")
                side = int(z[pre + "side"])
                names = [k[len(pre) :] for k in z.files if k.startswith(pre) and k[len(pre) :][:1] in ("w", "b")]
                params = {k: z[pre + k].astype(np.float32) for k in names if k[1:].isdigit()}
                nets.append(ConvNet(arch, params, side))
        return nets
    except (KeyError, ValueError, OSError) as exc:
        raise ValueError(f"{path} is not a dice face model ({exc}); retrain with tools/dice/train_faces.py") from exc
