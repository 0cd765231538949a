"""Write the dice face networks' ONNX graphs from their stored weights.

    pip install -e .[dev]                      # the onnx package: a development tool only
    python tools/dice/export_onnx.py           # config/dice/*.npz -> config/dice/*.onnx
    python tools/dice/export_onnx.py --check   # exit 1 when a shipped graph is missing or stale
    python tools/dice/export_onnx.py A.npz [B.npz ...]   # those models, each beside its file

The table runs the networks in ONNX Runtime from these files and never imports ``onnx``
(table.dice.engines). A model file's networks (an ensemble) become one graph: input ``x``
(N, side, side, channels) float32 in the reader's layout, output ``probs`` (N, 7), their
mean. The weights are named and laid out by :func:`table.dice.engines.graph_weights`, and
the graph's metadata carries :func:`~table.dice.engines.layout` and the digests of the
weights (:func:`~table.dice.engines.weights_digest`) and of all but the last layers
(:func:`~table.dice.engines.body_digest`): the table runs a graph of the very weights it
loaded as it is, and one of the same body with the loaded last layers in its own last
layers' place (a venue's taught networks).

The output is deterministic (the same weights give the same bytes: no time stamps, no
producer version, a fixed opset and IR version), so the shipped files are checked by
writing them again (tests/dice/test_export_onnx.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from onnx import TensorProto, checker, helper, numpy_helper

from table.dice.cnn import CLASSES, ConvNet, load_members
from table.dice.engines import (
    BODY_KEY,
    GRAPH_INPUT,
    GRAPH_OUTPUT,
    LAYOUT_KEY,
    WEIGHTS_KEY,
    body_digest,
    graph_weights,
    layout,
    weights_digest,
)

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "config" / "dice"
OPSET = 13
IR_VERSION = 8  # readable by older runtimes too (ONNX Runtime 1.16 on Debian-era Pis)


def to_onnx(nets: Sequence[ConvNet]) -> bytes:
    """The networks as one ONNX model (see module doc), checked by ``onnx.checker``."""
    weights = graph_weights(nets)
    nodes = [helper.make_node("Transpose", [GRAPH_INPUT], ["nchw"], perm=[0, 3, 1, 2])]
    outputs: list[str] = []
    for j, net in enumerate(nets):
        h, k = "nchw", 0
        for i, token in enumerate(net.arch):
            out = f"m{j}_l{i}"
            if token == "p":
                nodes.append(helper.make_node("MaxPool", [h], [out], kernel_shape=[2, 2], strides=[2, 2]))
            else:
                conv = [h, f"m{j}_w{k}", f"m{j}_b{k}"]
                nodes.append(helper.make_node("Conv", conv, [out + "_c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
                nodes.append(helper.make_node("Relu", [out + "_c"], [out]))
                k += 1
            h = out
        nodes += [
            helper.make_node("GlobalAveragePool", [h], [f"m{j}_g"]),
            helper.make_node("Flatten", [f"m{j}_g"], [f"m{j}_f"], axis=1),
            helper.make_node("Gemm", [f"m{j}_f", f"m{j}_w{k}", f"m{j}_b{k}"], [f"m{j}_z"]),
            helper.make_node("Softmax", [f"m{j}_z"], [f"m{j}_p"], axis=1),
        ]
        outputs.append(f"m{j}_p")
    nodes += [helper.make_node("Sum", outputs, ["total"]), helper.make_node("Mul", ["total", "share"], [GRAPH_OUTPUT])]
    side = nets[0].side
    channels = nets[0].p["w0"].shape[2]
    graph = helper.make_graph(
        nodes,
        "dice_faces",
        [helper.make_tensor_value_info(GRAPH_INPUT, TensorProto.FLOAT, ["n", side, side, channels])],
        [helper.make_tensor_value_info(GRAPH_OUTPUT, TensorProto.FLOAT, ["n", CLASSES])],
        [numpy_helper.from_array(values, name) for name, values in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    props = {LAYOUT_KEY: layout(nets), BODY_KEY: body_digest(nets), WEIGHTS_KEY: weights_digest(nets)}
    helper.set_model_props(model, props)
    checker.check_model(model)
    return bytes(model.SerializeToString())


def graph_file(model: Path) -> Path:
    """Where a model file's graph goes: beside it, ``.onnx`` for ``.npz``."""
    return model.with_suffix(".onnx")


def export(model: Path) -> Path:
    """Write ``model``'s graph beside it (replaced whole: a reader never sees half a file)."""
    target = graph_file(model)
    tmp = target.with_name(target.name + ".new")
    tmp.write_bytes(to_onnx(load_members(model)))
    tmp.replace(target)
    return target


def stale(model: Path) -> bool:
    """Whether ``model``'s graph is missing or differs from what :func:`to_onnx` writes now."""
    target = graph_file(model)
    return not target.is_file() or target.read_bytes() != to_onnx(load_members(model))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="model files (default: config/dice/*.npz)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a graph is stale")
    args = parser.parse_args(argv)
    models = args.models or sorted(SHIPPED.glob("*.npz"))
    for model in models:
        if not model.is_file():
            print(f"table: {model} is not a file", file=sys.stderr)
            return 2
    try:
        if args.check:
            old = [m for m in models if stale(m)]
            for m in old:
                print(f"{graph_file(m)} is missing or stale; run python tools/dice/export_onnx.py")
            return 1 if old else 0
        for model in models:
            target = export(model)
            print(f"wrote {target} ({target.stat().st_size} bytes, {len(load_members(model))} networks)")
    except ValueError as exc:  # load_members: not a face model (one sentence)
        print(f"table: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
