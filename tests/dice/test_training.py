"""The face network's trainer (tools/dice/train_faces.py) learns, and what it writes is what the reader loads.

A toy set stands in for the photos (the real run takes under an hour): crops whose class is
told by where a dark blob lies, so the network has to use space, not just brightness.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from table.dice.cnn import ConvNet
from table.dice.features import face_inputs
from table.dice.model import FaceModel

REPO = Path(__file__).resolve().parents[2]


def _trainer() -> ModuleType:
    pytest.importorskip("jax", reason="JAX is a dev dependency (pip install -e .[dev])")
    spec = importlib.util.spec_from_file_location("train_faces", REPO / "tools" / "dice" / "train_faces.py")
    assert spec is not None and spec.loader is not None
    sys.path.insert(0, str(REPO / "tools" / "dice"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _toy(n: int, side: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    crops = np.full((n, side, side, 3), 200, np.uint8)
    crops += rng.integers(0, 20, crops.shape, dtype=np.uint8)
    y = rng.integers(1, 3, n).astype(np.int32)  # face 1: blob in the middle; face 2: two blobs on a diagonal
    c, q = side // 2, side // 4
    for i in range(n):
        if y[i] == 1:
            crops[i, c - 3 : c + 3, c - 3 : c + 3] = 30
        else:
            crops[i, q - 3 : q + 3, q - 3 : q + 3] = 30
            crops[i, -q - 3 : -q + 3, -q - 3 : -q + 3] = 30
    return crops, y


def test_trainer_learns_and_its_file_loads_in_the_reader(tmp_path: Path) -> None:
    trainer = _trainer()
    rng = np.random.default_rng(0)
    side = 16
    crops, y = _toy(256, side, rng)
    net = trainer.train(crops, y, "8,p,8,p", epochs=6, seed=1, lr=5e-3)
    path = tmp_path / "faces.npz"
    net.save(path, held_out_right=0.5)
    model = FaceModel(ConvNet.load(path))
    assert model.side == side
    test, truth = _toy(64, side, np.random.default_rng(1))
    classes, conf = model.predict(face_inputs(test))
    assert np.mean(classes == truth) >= 0.9
    assert np.all((conf > 0) & (conf <= 1))
