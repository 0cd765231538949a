"""Where the face networks run: plain numpy, ONNX Runtime, or OpenCV's DNN module.

Contract: :func:`make_runner` takes the networks of a face model (:class:`ConvNet`) and an
engine name and returns a function mapping a batch ``(N, side, side, CHANNELS)``
float32 to the networks' averaged class probabilities ``(N, 7)``. All three engines
compute the same thing (to about 1e-6); they differ in speed only.

- ``numpy``: :mod:`table.dice.cnn`, matrix products of each pixel's neighbourhood,
  the networks side by side in threads.
- ``onnxruntime``: the networks written as one ONNX graph (:func:`to_onnx`, the
  ``onnx`` package's helpers; the ensemble average is a node of the graph) and run by
  ONNX Runtime's CPU provider. Measured fastest here (``bench/bench_dice.py``), so it
  is the default whenever ``onnx`` and ``onnxruntime`` import.
- ``opencv``: the same ONNX graph run by ``cv2.dnn``.

``auto`` picks ``onnxruntime`` and falls back to ``numpy`` when its packages are missing
or do not work on this machine, so a table without them still reads dice. Whether they
work is tried once per process in a child process (:func:`library_works`): a native
library that crashes on some CPU (ONNX Runtime under the qemu-user emulation of the
target check ends in a segmentation fault) must not take the table down with it. The graph is built in memory from the
weights at load time (about 20 ms): a taught model needs no export step and nothing is
written beside it.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from table.dice.cnn import CLASSES, ConvNet

if TYPE_CHECKING:  # onnx is optional: imported at run time only when its engine is used
    from onnx import TensorProto

F32 = NDArray[np.float32]
Runner = Callable[[F32], F32]
ENGINES = ("auto", "numpy", "onnxruntime", "opencv")


def to_onnx(nets: Sequence[ConvNet]) -> bytes:
    """The networks as one ONNX model (input ``x`` NHWC, output ``probs``: their mean)."""
    from onnx import TensorProto, checker, helper, numpy_helper

    nodes = [helper.make_node("Transpose", ["x"], ["nchw"], perm=[0, 3, 1, 2])]
    weights: list[TensorProto] = []
    outputs: list[str] = []
    for j, net in enumerate(nets):
        h, k = "nchw", 0
        for i, layer in enumerate(net.arch):
            out = f"m{j}_l{i}"
            if layer == "p":
                nodes.append(helper.make_node("MaxPool", [h], [out], kernel_shape=[2, 2], strides=[2, 2]))
            else:
                # Stored as (3, 3, in, out) for the neighbourhood products; ONNX wants (out, in, 3, 3).
                w = np.ascontiguousarray(net.p[f"w{k}"].transpose(3, 2, 0, 1))
                weights += [numpy_helper.from_array(w, f"m{j}_w{k}"), _array(net.p[f"b{k}"], f"m{j}_b{k}")]
                nodes.append(
                    helper.make_node(
                        "Conv", [h, f"m{j}_w{k}", f"m{j}_b{k}"], [out + "_c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]
                    )
                )
                nodes.append(helper.make_node("Relu", [out + "_c"], [out]))
                k += 1
            h = out
        weights += [_array(net.p[f"w{k}"], f"m{j}_w{k}"), _array(net.p[f"b{k}"], f"m{j}_b{k}")]
        nodes += [
            helper.make_node("GlobalAveragePool", [h], [f"m{j}_g"]),
            helper.make_node("Flatten", [f"m{j}_g"], [f"m{j}_f"], axis=1),
            helper.make_node("Gemm", [f"m{j}_f", f"m{j}_w{k}", f"m{j}_b{k}"], [f"m{j}_z"]),
            helper.make_node("Softmax", [f"m{j}_z"], [f"m{j}_p"], axis=1),
        ]
        outputs.append(f"m{j}_p")
    weights.append(numpy_helper.from_array(np.array([1.0 / len(nets)], np.float32), "share"))
    nodes += [helper.make_node("Sum", outputs, ["total"]), helper.make_node("Mul", ["total", "share"], ["probs"])]
    side = nets[0].side
    channels = nets[0].p["w0"].shape[2]
    graph = helper.make_graph(
        nodes,
        "dice_faces",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", side, side, channels])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["n", CLASSES])],
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # readable by older runtimes too (ONNX Runtime 1.16 on Debian-era Pis)
    checker.check_model(model)
    return bytes(model.SerializeToString())


def _array(values: F32, name: str) -> TensorProto:
    from onnx import numpy_helper

    return numpy_helper.from_array(np.ascontiguousarray(values, np.float32), name)


def _threads() -> int:
    return min(4, os.cpu_count() or 1)


@functools.cache
def _workers() -> ThreadPoolExecutor:
    """One shared pool for the ensemble's members, made on first use."""
    return ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1), thread_name_prefix="dice-net")


def average_numpy(nets: Sequence[ConvNet], x: F32) -> F32:
    """The networks' mean probabilities with the numpy forward pass (engine ``numpy``)."""
    if len(nets) == 1:
        return nets[0].probabilities(x)
    # The networks' matrix products release the GIL, so the members run side by side,
    # one core each (45 crops: 30 ms one after the other, 16 ms side by side on two cores).
    parts = list(_workers().map(lambda net: net.probabilities(x), nets))
    total: F32 = np.stack(parts).sum(axis=0, dtype=np.float32)  # (N, classes): summed over the members
    return total / np.float32(len(parts))


def _numpy(nets: Sequence[ConvNet]) -> Runner:
    return lambda x: average_numpy(nets, x)


def _onnxruntime(nets: Sequence[ConvNet]) -> Runner:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    # One thread a run: a batch is cut into one part a core instead (side_by_side), which
    # keeps the cores busier than ONNX Runtime's own threads on these small batches (a
    # crowded frame's first run: 7.5 ms with two threads, 6.4 ms in two parts on two
    # cores) and leaves it no worker threads to spin or wake between frames.
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3  # no warnings on stderr at start-up
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(to_onnx(nets), opts, providers=["CPUExecutionProvider"])

    def one(x: F32) -> F32:
        return np.asarray(session.run(["probs"], {"x": np.ascontiguousarray(x, np.float32)})[0], np.float32)

    def run(x: F32) -> F32:
        if len(x) == 0:
            return np.zeros((0, CLASSES), np.float32)
        return side_by_side(one, x)

    return run


# Crops a part at least: below this a part's fixed cost of a run outweighs the core it gains.
MIN_PART = 2


def side_by_side(run: Runner, x: F32) -> F32:
    """``run(x)``, the batch cut into up to one part a core, the parts run at once (the
    first on the calling thread, the others in the shared pool) and put back in order.

    Only for a ``run`` whose answer for a crop depends on that crop alone, and whose
    library releases the interpreter lock while it computes: ONNX Runtime's per crop
    answers are the same, to the bit, in any batch and with any number of threads.
    """
    parts = min(_threads(), len(x) // MIN_PART)
    if parts <= 1:
        return run(x)
    cuts = np.array_split(x, parts)
    rest = [_workers().submit(run, part) for part in cuts[1:]]
    return np.concatenate([run(cuts[0]), *(f.result() for f in rest)])


def _opencv(nets: Sequence[ConvNet]) -> Runner:
    import cv2

    net = cv2.dnn.readNetFromONNX(np.frombuffer(to_onnx(nets), np.uint8))

    def run(x: F32) -> F32:
        if len(x) == 0:
            return np.zeros((0, CLASSES), np.float32)
        net.setInput(np.ascontiguousarray(x, np.float32))
        return np.asarray(net.forward(), np.float32).reshape(len(x), CLASSES)

    return run


# Builds a one-layer network's graph and runs it: everything the reader will do with the
# libraries, on a toy, in a process of its own.
_PROBE = """
import numpy as np
from table.dice.cnn import ConvNet
from table.dice.engines import make_runner
net = ConvNet(["2"], {"w0": np.ones((3, 3, 4, 2), np.float32), "b0": np.zeros(2, np.float32),
                      "w1": np.ones((2, 7), np.float32), "b1": np.zeros(7, np.float32)}, 4)
print(make_runner([net], ENGINE)[1](np.ones((1, 4, 4, 4), np.float32)).shape)
"""


@functools.cache
def library_works(engine: str) -> bool:
    """Whether ``engine``'s libraries import and run a toy network, tried in a child process."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE.replace("ENGINE", repr(engine))],
            capture_output=True,
            text=True,
            timeout=300,  # generous: the first import under emulation takes minutes
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and "(1, 7)" in done.stdout


def make_runner(nets: Sequence[ConvNet], engine: str = "auto") -> tuple[str, Runner]:
    """(engine actually used, runner). ``auto``: ONNX Runtime, else numpy (see module doc).

    A named engine whose packages are missing raises ImportError; ``auto`` never does.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown dice engine {engine!r}; use one of {', '.join(ENGINES)}")
    if engine == "auto":
        if library_works("onnxruntime"):
            try:
                return "onnxruntime", _onnxruntime(nets)
            except ImportError:
                pass
        return "numpy", _numpy(nets)
    build = {"numpy": _numpy, "onnxruntime": _onnxruntime, "opencv": _opencv}[engine]
    return engine, build(nets)
