"""The face networks' shipped ONNX graphs (tools/dice/export_onnx.py) and how the table runs them.

The shipped ``config/dice/*.onnx`` are what the tool writes from the shipped ``.npz``
(to the byte); the table runs them, and a venue's taught networks in them, without the
``onnx`` package, computing to the bit what a graph exported from those very weights
computes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from table.dice.cnn import CLASSES, ConvNet, load_members, save_members
from table.dice.engines import body_digest, find_graph, make_runner, model_graph, weights_digest
from table.dice.features import CHANNELS, face_inputs
from table.dice.model import FaceModel

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "config" / "dice"
PHOTO = REPO / "docs" / "images" / "dice"


def _tool() -> ModuleType:
    pytest.importorskip("onnx", reason="the onnx package is a dev dependency (pip install -e .[dev])")
    spec = importlib.util.spec_from_file_location("export_onnx", REPO / "tools" / "dice" / "export_onnx.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _net(side: int = 8, seed: int = 3) -> ConvNet:
    rng = np.random.default_rng(seed)
    p = {
        "w0": rng.normal(0, 0.5, (3, 3, CHANNELS, 5)).astype(np.float32),
        "b0": rng.normal(0, 0.1, 5).astype(np.float32),
        "w1": rng.normal(0, 0.5, (5, CLASSES)).astype(np.float32),
        "b1": np.zeros(CLASSES, np.float32),
    }
    return ConvNet(["5", "p"], p, side)


def _taught(nets: list[ConvNet]) -> list[ConvNet]:
    """``nets`` with other last layers, as ``table dice teach`` makes them."""
    return [n.with_head(n.head[0] * np.float32(1.1) + np.float32(0.01), n.head[1] - np.float32(0.02)) for n in nets]


@pytest.mark.parametrize("name", ["faces", "faces-general"])
def test_the_shipped_graph_is_what_the_tool_writes_from_the_shipped_weights(name: str) -> None:
    tool = _tool()
    model = SHIPPED / f"{name}.npz"
    assert model_graph(model).read_bytes() == tool.to_onnx(load_members(model)), (
        f"config/dice/{name}.onnx is stale: run python tools/dice/export_onnx.py"
    )
    assert tool.main(["--check"]) == 0


def test_the_export_is_the_same_bytes_every_time(tmp_path: Path) -> None:
    tool = _tool()
    save_members(tmp_path / "toy.npz", [_net(), _net(seed=4)])
    first = tool.export(tmp_path / "toy.npz").read_bytes()
    assert tool.stale(tmp_path / "toy.npz") is False
    assert tool.export(tmp_path / "toy.npz").read_bytes() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy.npz", "toy.onnx"]  # no half-written file left
    save_members(tmp_path / "toy.npz", [_net(), _net(seed=5)])  # retrained: the graph is now stale
    assert tool.stale(tmp_path / "toy.npz") is True
    assert tool.main(["--check", str(tmp_path / "toy.npz")]) == 1
    assert tool.main([str(tmp_path / "none.npz")]) == 2


def test_a_model_runs_in_its_own_graph_as_numpy_computes_it(tmp_path: Path) -> None:
    tool = _tool()
    save_members(tmp_path / "toy.npz", [_net(), _net(seed=4)])
    tool.export(tmp_path / "toy.npz")
    x = np.random.default_rng(6).normal(size=(5, 8, 8, CHANNELS)).astype(np.float32)
    expected = FaceModel.load(tmp_path / "toy.npz", "numpy").probabilities(x, views=1)
    for engine in ("onnxruntime", "opencv", "auto"):
        model = FaceModel.load(tmp_path / "toy.npz", engine)
        assert model.engine == ("onnxruntime" if engine == "auto" else engine)
        assert np.allclose(model.probabilities(x, views=1), expected, atol=1e-6)


@pytest.mark.parametrize("name", ["faces", "faces-general"])
def test_taught_networks_run_in_the_shipped_graph_to_the_bit(name: str) -> None:
    """A teach refits the last layers only: the shipped graph of the same convolutions runs
    them with the taught last layers in its own's place, computing exactly what a graph
    exported from the taught weights computes."""
    import onnxruntime as ort

    tool = _tool()
    nets = _taught(load_members(SHIPPED / f"{name}.npz"))
    data, own = find_graph(nets)
    assert not own and body_digest(nets).encode() in data and weights_digest(nets).encode() not in data
    side = nets[0].side
    x = face_inputs(np.random.default_rng(8).uniform(0, 255, (9, side, side, 3)).astype(np.uint8))
    engine, run = make_runner(nets, "onnxruntime")
    assert engine == "onnxruntime"
    exported = ort.InferenceSession(tool.to_onnx(nets), providers=["CPUExecutionProvider"])
    want = np.concatenate([exported.run(["probs"], {"x": x[i : i + 1]})[0] for i in range(len(x))])
    got = run(x)
    assert got.tobytes() == want.tobytes()
    shipped = make_runner(load_members(SHIPPED / f"{name}.npz"), "onnxruntime")[1](x)
    assert not np.allclose(got, shipped)  # the taught last layers were used


def test_a_runtime_that_keeps_the_graphs_last_layers_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were ONNX Runtime to ignore the taught last layers, the reader would say so (or,
    under ``auto``, read with numpy) rather than read with the shipped ones."""
    import onnxruntime as ort

    from table.dice import engines

    monkeypatch.setattr(ort.SessionOptions, "add_initializer", lambda self, name, value: None)
    taught = _taught(load_members(SHIPPED / "faces.npz"))
    with pytest.raises(ValueError, match="did not take the taught last layers"):
        make_runner(taught, "onnxruntime")
    monkeypatch.setattr(engines, "library_works", lambda engine: True)
    assert make_runner(taught, "auto")[0] == "numpy"
    assert make_runner(load_members(SHIPPED / "faces.npz"), "auto")[0] == "onnxruntime"  # its own graph


def test_networks_no_graph_fits_run_in_numpy_or_say_so(tmp_path: Path) -> None:
    save_members(tmp_path / "toy.npz", [_net()])
    with pytest.raises(ValueError, match=r"export_onnx\.py"):
        FaceModel.load(tmp_path / "toy.npz", "onnxruntime")
    with pytest.raises(ValueError, match=r"export_onnx\.py"):
        FaceModel.load(tmp_path / "toy.npz", "opencv")
    assert FaceModel.load(tmp_path / "toy.npz", "auto").engine == "numpy"
    # OpenCV cannot put taught last layers in a graph's place: it says so.
    with pytest.raises(ValueError, match="very weights"):
        make_runner(_taught(load_members(SHIPPED / "faces.npz")), "opencv")


@pytest.mark.heavy
def test_photos_read_as_with_a_graph_written_at_load_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader as the table makes it reads every shipped photo exactly (confidences to
    the last bit) as it did when it wrote the graph from the weights as it loaded them."""
    import dataclasses

    from table.dice import engines
    from table.dice.reader import DiceReader, load_image
    from table.dice.settings import load_settings

    tool = _tool()
    photos = sorted(PHOTO.glob("*.jpg")) + sorted(PHOTO.glob("*.png"))
    assert len(photos) >= 10

    def read_all() -> list[list[tuple[object, ...]]]:
        reader = DiceReader(dataclasses.replace(load_settings(), engine="onnxruntime"))
        readings = [[(r.face, tuple(r.box), r.confidence) for r in reader.read(load_image(p))] for p in photos]
        assert reader.model.engine == "onnxruntime"
        return readings

    shipped = read_all()
    monkeypatch.setattr(engines, "find_graph", lambda nets, own=None: (tool.to_onnx(nets), True))
    assert read_all() == shipped
    assert sum(len(r) for r in shipped) > 30  # dice were read, not nothing twice


READ = """
import json, sys
from table.dice.reader import DiceReader, load_image
from table.dice.settings import load_settings
reader = DiceReader(load_settings())
faces = [[r.face, r.box, r.confidence] for r in reader.read(load_image(sys.argv[1]))]
print(json.dumps({"engine": reader.model.engine, "faces": faces,
                  "onnx": sorted(m for m in sys.modules if m == "onnx" or m.startswith("onnx."))}))
"""


def test_the_table_reads_dice_in_onnx_runtime_without_the_onnx_package(tmp_path: Path) -> None:
    """With ``onnx`` not importable (and a mark left behind by any attempt), the reader as
    ``table run`` makes it chooses ONNX Runtime (its probe in a child process too) and
    reads a photo exactly as in this process."""
    blocker = tmp_path / "block" / "onnx"
    blocker.mkdir(parents=True)
    mark = tmp_path / "onnx-imported"
    (blocker / "__init__.py").write_text(
        f"open({str(mark)!r}, 'a').close()\nraise ImportError('the table must not import onnx')\n"
    )
    photo = sorted(PHOTO.glob("*.jpg"))[0]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "block"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", READ, str(photo)], capture_output=True, text=True, cwd="/", env=env, check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["engine"] == "onnxruntime" and got["onnx"] == []
    assert not mark.exists(), "something tried to import onnx"
    from table.dice.reader import DiceReader, load_image
    from table.dice.settings import load_settings

    here = DiceReader(load_settings()).read(load_image(photo))
    assert got["faces"] == [[r.face, list(r.box), r.confidence] for r in here]
    assert len(here) > 0
