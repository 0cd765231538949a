"""The die-face classifier as the reader uses it.

Contract: :class:`FaceModel` ``.predict(inputs)`` takes a batch from
:func:`table.dice.features.face_inputs` (crops of ``.side`` pixels) and returns, per
die, the class (0 = not a die, 1-6 = the top face) and a confidence in 0..1 (the
network's probability for that class; for a die it is unsure of, averaged over the die
turned by quarter turns).
The network (:mod:`table.dice.cnn`) is trained by ``tools/dice/train_faces.py`` and
stored in ``config/dice/faces.npz``; nothing is downloaded at run time.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from table.dice.cnn import ConvNet

F32 = NDArray[np.float32]
# A die the network is not sure of at first sight (probability below SURE) is read again
# turned by 90, 180 and 270 degrees and the four answers are averaged: a die's face reads
# the same however it lies, and the average is steadier than any one view. Most dice are
# sure at first sight, so this costs little (measured in docs/dice.md).
VIEWS = 4
SURE = 0.95


class FaceModel:
    """A trained :class:`ConvNet`; a die it is unsure of is read in ``views`` quarter turns."""

    def __init__(self, net: ConvNet, views: int = VIEWS, sure: float = SURE) -> None:
        self.net = net
        self.views = views
        self.sure = sure

    @property
    def side(self) -> int:
        """Side in pixels of the crops the network was trained on."""
        return self.net.side

    @classmethod
    def load(cls, path: Path) -> FaceModel:
        return cls(ConvNet.load(path))

    def probabilities(self, x: F32) -> F32:
        """Class probabilities (N, 7); dice below ``sure`` averaged over ``views`` quarter turns."""
        x = np.asarray(x, np.float32)
        probs = self.net.probabilities(x)
        again = np.flatnonzero(probs.max(axis=1) < self.sure) if self.views > 1 else np.zeros(0, np.int64)
        if len(again):
            sub = x[again]
            turned = [np.ascontiguousarray(np.rot90(sub, k, axes=(1, 2))) for k in range(1, self.views)]
            more = self.net.probabilities(np.concatenate(turned)).reshape(self.views - 1, len(again), -1)
            probs[again] = (probs[again] + more.sum(axis=0)) / self.views
        return probs

    def predict(self, x: F32) -> tuple[NDArray[np.int32], F32]:
        """Per die: the class (0 = not a die, 1-6 = face) and its probability."""
        if len(x) == 0:
            return np.zeros(0, np.int32), np.zeros(0, np.float32)
        p = self.probabilities(x)
        best = p.argmax(axis=1).astype(np.int32)
        return best, p[np.arange(len(best)), best]
