"""The face network's file, its numpy forward pass, the views of unsure dice and ensembles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from table.common.errors import TableError
from table.dice.cnn import CLASSES, ConvNet, save_members
from table.dice.features import CHANNELS, face_inputs
from table.dice.model import FaceModel
from table.dice.reader import DiceReader
from table.dice.settings import ReaderSettings


def _net(side: int = 8) -> ConvNet:
    rng = np.random.default_rng(3)
    p = {
        "w0": rng.normal(0, 0.5, (3, 3, CHANNELS, 5)).astype(np.float32),
        "b0": np.zeros(5, np.float32),
        "w1": rng.normal(0, 0.5, (5, CLASSES)).astype(np.float32),
        "b1": np.zeros(CLASSES, np.float32),
    }
    return ConvNet(["5", "p"], p, side)


def test_forward_pass_is_a_3x3_convolution_then_pooling() -> None:
    net = _net()
    x = np.random.default_rng(4).normal(size=(2, 8, 8, CHANNELS)).astype(np.float32)
    # Direct convolution, written out, to check the neighbourhood-matrix version against.
    w, b = net.p["w0"], net.p["b0"]
    pad = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv = np.zeros((2, 8, 8, 5), np.float32)
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nhwc,cf->nhwf", pad[:, i : i + 8, j : j + 8], w[i, j])
    h = np.maximum(conv + b, 0).reshape(2, 4, 2, 4, 2, 5).max(axis=(2, 4))
    expected = h.mean(axis=(1, 2)) @ net.p["w1"] + net.p["b1"]
    assert np.allclose(net.logits(x), expected, atol=1e-4)
    assert np.allclose(net.probabilities(x).sum(axis=1), 1)


def test_unsure_dice_are_averaged_over_turned_and_mirrored_views() -> None:
    net = _net()
    x = np.random.default_rng(5).normal(size=(6, 8, 8, CHANNELS)).astype(np.float32)
    turned = [np.rot90(x, k, axes=(1, 2)) for k in range(4)]
    views = [net.probabilities(np.ascontiguousarray(v)) for v in turned + [v[:, :, ::-1] for v in turned]]
    every = FaceModel(net, sure=1.01)  # nobody is sure: all eight views for every die
    assert np.allclose(every.probabilities(x), np.mean(views, axis=0), atol=1e-6)
    quarter = FaceModel(net, views=4, sure=1.01)
    assert np.allclose(quarter.probabilities(x), np.mean(views[:4], axis=0), atol=1e-6)
    nobody = FaceModel(net, sure=0.0)  # everybody is sure: one view
    assert np.allclose(nobody.probabilities(x), views[0], atol=1e-6)
    with pytest.raises(ValueError, match="views"):
        FaceModel(net, views=9)


def test_a_file_of_several_networks_is_read_as_their_average(tmp_path: Path) -> None:
    one, other = _net(), _net()
    other.p["w1"] = other.p["w1"][:, ::-1].copy()  # a different second member
    save_members(tmp_path / "two.npz", [one, other], held_out_right=0.9)
    model = FaceModel.load(tmp_path / "two.npz")
    assert len(model.nets) == 2
    x = np.random.default_rng(6).normal(size=(4, 8, 8, CHANNELS)).astype(np.float32)
    expected = (one.probabilities(x) + other.probabilities(x)) / 2
    assert np.allclose(FaceModel([one, other], sure=0.0).probabilities(x), expected, atol=1e-6)
    assert np.allclose(model.probabilities(x), FaceModel([one, other]).probabilities(x), atol=1e-6)
    assert ConvNet.load(tmp_path / "two.npz").arch == one.arch  # the first member alone
    with pytest.raises(ValueError, match="same input size"):
        FaceModel([one, _net(side=16)])


def test_shipped_network_loads_with_its_layer_list() -> None:
    model = FaceModel.load(ReaderSettings().model_path)
    assert model.side >= 24
    crops = np.full((3, model.side, model.side, 3), 128, np.uint8)
    classes, conf = model.predict(face_inputs(crops))
    assert classes.shape == (3,) and np.all((conf >= 0) & (conf <= 1))


def test_missing_or_foreign_model_file_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"train_faces\.py"):
        ConvNet.load(tmp_path / "none.npz")
    np.savez(tmp_path / "other.npz", something=np.zeros(3))
    with pytest.raises(ValueError, match="not a dice face model"):
        ConvNet.load(tmp_path / "other.npz")
    reader = DiceReader(ReaderSettings(model_path=tmp_path / "other.npz"))
    frame = np.full((200, 200, 3), 200, np.uint8)
    frame[80:120, 80:120] = 20  # one dark die-sized square, so the network is needed
    with pytest.raises(TableError, match="not a dice face model"):
        reader.read(frame)


@pytest.mark.parametrize("engine", ["onnxruntime", "opencv"])
def test_library_engines_compute_what_numpy_computes(engine: str) -> None:
    """ONNX Runtime and OpenCV's DNN run the same ensemble as the numpy forward pass."""
    from table.dice.engines import make_runner

    nets = DiceReader().model.nets  # the shipped two-network model
    x = face_inputs(np.random.default_rng(6).uniform(0, 255, (5, nets[0].side, nets[0].side, 3)))
    numpy_name, by_numpy = make_runner(nets, "numpy")
    name, by_library = make_runner(nets, engine)
    assert (numpy_name, name) == ("numpy", engine)
    assert np.allclose(by_library(x), by_numpy(x), atol=1e-5)
    assert by_library(x[:0]).shape == (0, CLASSES)
    with pytest.raises(ValueError, match="unknown dice engine"):
        make_runner(nets, "tflite")


def test_the_engine_is_a_setting(tmp_path: Path) -> None:
    from table.dice.settings import load_settings

    (tmp_path / "reader.toml").write_text('[reader]\nengine = "numpy"\n')
    assert load_settings(tmp_path / "reader.toml").engine == "numpy"
    (tmp_path / "reader.toml").write_text('[reader]\nengine = "cuda"\n')
    with pytest.raises(TableError, match=r"reader\.engine"):
        load_settings(tmp_path / "reader.toml")
    assert load_settings(tmp_path / "missing.toml").engine == "auto"


def test_auto_falls_back_to_numpy_when_the_library_does_not_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library that crashes (tried in a child process) leaves the reader on numpy."""
    from table.dice import engines

    assert engines.library_works("onnxruntime")
    assert not engines.library_works("no-such-engine")  # the child process fails
    monkeypatch.setattr(engines, "library_works", lambda engine: False)
    name, _ = engines.make_runner([_net()], "auto")
    assert name == "numpy"


def test_a_batch_run_side_by_side_is_the_batch_run_whole() -> None:
    """The batch is cut into parts run at once on other threads and put back in order;
    ONNX Runtime's answer for a crop is the same, to the bit, in any batch."""
    import threading

    from table.dice import engines

    seen: list[tuple[int, str]] = []

    def run(x: np.ndarray) -> np.ndarray:
        seen.append((len(x), threading.current_thread().name))
        return x[:, :1, 0, 0] * 2

    x = np.arange(9, dtype=np.float32)[:, None, None, None] * np.ones((1, 2, 2, 1), np.float32)
    assert np.array_equal(engines.side_by_side(run, x), x[:, :1, 0, 0] * 2)
    parts = min(engines._threads(), 4)
    assert sorted(n for n, _ in seen) == sorted(len(p) for p in np.array_split(x, parts))
    assert len({name for _, name in seen}) == parts  # the caller and the pool's threads
    seen.clear()
    engines.side_by_side(run, x[:3])
    assert len(seen) == min(parts, 3 // engines.MIN_PART)  # no part under MIN_PART crops

    nets = DiceReader().model.nets
    _, by_library = engines.make_runner(nets, "onnxruntime")
    crops = face_inputs(np.random.default_rng(7).uniform(0, 255, (9, nets[0].side, nets[0].side, 3)).astype(np.float32))
    one_by_one = np.concatenate([by_library(crops[i : i + 1]) for i in range(len(crops))])
    assert np.array_equal(by_library(crops), one_by_one)
