"""The die-face classifier as the reader uses it.

Contract: :class:`FaceModel` ``.predict(inputs)`` takes a batch from
:func:`table.dice.features.face_inputs` (crops of ``.side`` pixels) and returns, per
die, the class (0 = not a die, 1-6 = the top face) and a confidence in 0..1 (the
networks' mean probability for that class; for a die it is unsure of, averaged over the
die's eight turned and mirrored views). A model file may hold several networks trained
from different seeds (an ensemble); their probabilities are averaged.
The network (:mod:`table.dice.cnn`) is trained by ``tools/dice/train_faces.py`` and
stored in ``config/dice/faces.npz``, its ONNX graph beside it in ``faces.onnx``
(:mod:`table.dice.engines`); nothing is downloaded at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from table.dice.cnn import ConvNet, load_members
from table.dice.engines import make_runner, model_graph

F32 = NDArray[np.float32]
# A die the network is not sure of at first sight (probability below SURE) is read again
# in the die's other seven symmetries (turned by 90, 180 and 270 degrees, and each of the
# four mirrored: a face's pips read the same in a mirror) and the answers are averaged:
# the average is steadier than any one view. Most dice are sure at first sight, so this
# costs little (measured in docs/dice.md).
VIEWS = 8
SURE = 0.95


def _view(x: F32, k: int) -> F32:
    """View ``k`` (0-7) of a batch (N, side, side, C): k % 4 quarter turns, mirrored if k >= 4."""
    turned = np.rot90(x, k % 4, axes=(1, 2))
    return np.ascontiguousarray(turned[:, :, ::-1] if k >= 4 else turned)


class FaceModel:
    """One or more trained :class:`ConvNet` (averaged); unsure dice are read in ``views`` views."""

    def __init__(
        self,
        nets: ConvNet | Sequence[ConvNet],
        views: int = VIEWS,
        sure: float = SURE,
        engine: str = "numpy",
        graph: Path | None = None,
    ) -> None:
        self.nets = [nets] if isinstance(nets, ConvNet) else list(nets)
        if not self.nets or len({n.side for n in self.nets}) != 1:
            raise ValueError("a face model needs one or more networks of the same input size")
        if not 1 <= views <= 8:
            raise ValueError(f"views must be 1-8, not {views}")
        self.views = views
        self.sure = sure
        # Which library runs the networks (table.dice.engines); "auto" = ONNX Runtime when
        # installed, else numpy. The name actually used is kept for reports. ``graph``:
        # the model file's own ONNX graph, where the library engines look first.
        self.graph = graph
        self.engine, self._run = make_runner(self.nets, engine, graph)

    @property
    def side(self) -> int:
        """Side in pixels of the crops the network was trained on."""
        return self.nets[0].side

    @classmethod
    def load(cls, path: Path, engine: str = "auto") -> FaceModel:
        """The networks in ``path`` (a ``.npz``), run by ``engine`` from the graph beside it."""
        return cls(load_members(path), engine=engine, graph=model_graph(path))

    def _average(self, x: F32) -> F32:
        return self._run(x)

    def probabilities(self, x: F32, views: int | None = None) -> F32:
        """Class probabilities (N, 7); dice below ``sure`` averaged over ``views`` views
        (the model's own number unless given: 1 reads every crop once)."""
        views = self.views if views is None else views
        x = np.asarray(x, np.float32)
        probs = self._average(x)
        again = np.flatnonzero(probs.max(axis=1) < self.sure) if views > 1 else np.zeros(0, np.int64)
        if len(again):
            sub = x[again]
            more = self._average(np.concatenate([_view(sub, k) for k in range(1, views)]))
            probs[again] = (probs[again] + more.reshape(views - 1, len(again), -1).sum(axis=0)) / views
        return probs

    def predict(self, x: F32, views: int | None = None) -> tuple[NDArray[np.int32], F32]:
        """Per die: the class (0 = not a die, 1-6 = face) and its probability."""
        if len(x) == 0:
            return np.zeros(0, np.int32), np.zeros(0, np.float32)
        p = self.probabilities(x, views)
        best = p.argmax(axis=1).astype(np.int32)
        return best, p[np.arange(len(best)), best]
