"""The die-face classifier as the reader uses it.

Contract: :class:`FaceModel` ``.predict(inputs)`` takes a batch from
:func:`table.dice.features.face_input` and returns, per die, the class (0 = not a die,
1-6 = the top face) and a confidence in 0..1 (the network's probability for that class,
averaged over the die turned by quarter turns, which must all read the same). The network
(:mod:`table.dice.cnn`) is trained by ``tools/dice/train_faces.py`` and stored in
``config/dice/faces.npz``; nothing is downloaded at run time.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from table.dice.cnn import TinyCNN

F32 = NDArray[np.float32]
# Each die is shown to the network turned by 0, 90, 180 and 270 degrees and the
# probabilities are averaged: a die's face reads the same however it lies.
VIEWS = 4


class FaceModel:
    """A trained :class:`TinyCNN`, asked about each die in four orientations."""

    def __init__(self, net: TinyCNN, views: int = VIEWS) -> None:
        self.net = net
        self.views = views

    @classmethod
    def load(cls, path: Path) -> FaceModel:
        return cls(TinyCNN.load(path))

    def probabilities(self, x: F32) -> F32:
        x = np.asarray(x, np.float32)
        views = [np.ascontiguousarray(np.rot90(x, k, axes=(1, 2))) for k in range(self.views)]
        p = self.net.probabilities(np.concatenate(views))
        return p.reshape(self.views, len(x), -1).mean(axis=0).astype(np.float32)

    def predict(self, x: F32) -> tuple[NDArray[np.int32], F32]:
        if len(x) == 0:
            return np.zeros(0, np.int32), np.zeros(0, np.float32)
        p = self.probabilities(x)
        best = p.argmax(axis=1).astype(np.int32)
        return best, p[np.arange(len(best)), best]
