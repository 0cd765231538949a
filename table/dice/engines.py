"""Where the face networks run: plain numpy, ONNX Runtime, or OpenCV's DNN module.

Contract: :func:`make_runner` takes the networks of a face model (:class:`ConvNet`) and an
engine name and returns a function mapping a batch ``(N, side, side, CHANNELS)``
float32 to the networks' averaged class probabilities ``(N, 7)``. All three engines
compute the same thing (to about 1e-6); they differ in speed only.

- ``numpy``: :mod:`table.dice.cnn`, matrix products of each pixel's neighbourhood,
  the networks side by side in threads.
- ``onnxruntime``: the networks as one ONNX graph (the ensemble average is a node of the
  graph) run by ONNX Runtime's CPU provider. Measured fastest here
  (``bench/bench_dice.py``), so it is the default whenever ``onnxruntime`` imports.
- ``opencv``: the same ONNX graph run by ``cv2.dnn``.

The graphs ship beside the weights (``config/dice/faces.onnx`` for ``faces.npz``),
written by ``tools/dice/export_onnx.py`` with the ``onnx`` package, a development tool:
the table never imports it. Which graph runs a model's networks (:func:`find_graph`):
the model's own ``.onnx`` when its metadata carries the digest of these very weights
(:func:`weights_digest`), loaded as it is; else a graph whose networks differ from these
in their last layers only (the same :func:`body_digest`), those layers' weights put in
place of the graph's as ONNX Runtime builds the session
(``SessionOptions.add_initializer``). That is how a venue's taught networks (``table
dice teach``: the shipped convolutions, refitted last layers, a ``taught.npz`` with no
graph of its own) run in ONNX Runtime with nothing exported on the table. Only the last
layers are replaced because that is all a teach changes, and because ONNX Runtime's graph
optimizations rewrite the convolutions' weights from the graph's own (replaced ones
would be ignored). OpenCV runs only a graph holding the weights themselves.

``auto`` picks ``onnxruntime`` and falls back to ``numpy`` when its package is missing,
does not work on this machine, or no graph fits the networks, so a table without it
still reads dice. Whether it works is tried once per process in a child process
(:func:`library_works`): a native library that crashes on some CPU (ONNX Runtime under
the qemu-user emulation of the target check ends in a segmentation fault) must not take
the table down with it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from table.dice.cnn import CLASSES, ConvNet

F32 = NDArray[np.float32]
Runner = Callable[[F32], F32]
ENGINES = ("auto", "numpy", "onnxruntime", "opencv")
GRAPH_INPUT = "x"
GRAPH_OUTPUT = "probs"
LAYOUT_KEY = "dice.layout"
BODY_KEY = "dice.body"
WEIGHTS_KEY = "dice.weights"
SHIPPED_GRAPHS = "dice/*.onnx"
"""The graphs shipped with the table's data (``config/dice``), tried for networks whose
model has no graph of its own."""


def graph_weights(nets: Sequence[ConvNet]) -> dict[str, F32]:
    """Every weight of the networks' graph by its name there, in the graph's order and layout.

    ``m{j}_w{k}`` and ``m{j}_b{k}`` are member ``j``'s layer ``k``; convolution kernels are
    stored ``(3, 3, in, out)`` for the neighbourhood products and the graph wants
    ``(out, in, 3, 3)``; ``share`` is 1 / members, the ensemble average's factor. The
    export tool writes the graph from these, and the runtime puts them in a graph's place.
    """
    out: dict[str, F32] = {}
    for j, net in enumerate(nets):
        convs = sum(1 for t in net.arch if t != "p")
        for k in range(convs + 1):
            w = net.p[f"w{k}"].transpose(3, 2, 0, 1) if k < convs else net.p[f"w{k}"]
            out[f"m{j}_w{k}"] = np.ascontiguousarray(w, np.float32)
            out[f"m{j}_b{k}"] = np.ascontiguousarray(net.p[f"b{k}"], np.float32)
    out["share"] = np.array([1.0 / len(nets)], np.float32)
    return out


def layout(nets: Sequence[ConvNet]) -> str:
    """The graph's shape without its weights: input side and channels, each member's
    layers (written into a graph's metadata, for people and error messages)."""
    channels = nets[0].p["w0"].shape[2]
    members = "|".join(",".join(net.arch) for net in nets)
    return f"[dice faces {nets[0].side}x{nets[0].side}x{channels}: {members}]"


def head_names(nets: Sequence[ConvNet]) -> list[str]:
    """The names of each member's last layer's weights and bias in the graph."""
    heads = []
    for j, net in enumerate(nets):
        k = sum(1 for t in net.arch if t != "p")
        heads += [f"m{j}_w{k}", f"m{j}_b{k}"]
    return heads


def _digest(nets: Sequence[ConvNet], names: Sequence[str]) -> str:
    weights = graph_weights(nets)
    h = hashlib.sha256(layout(nets).encode())
    for name in names:
        h.update(f"{name}{weights[name].shape}".encode())
        h.update(weights[name].tobytes())
    return h.hexdigest()


def weights_digest(nets: Sequence[ConvNet]) -> str:
    """SHA-256 of the layout and every weight's name, shape and bytes (see :func:`layout`)."""
    return _digest(nets, list(graph_weights(nets)))


def body_digest(nets: Sequence[ConvNet]) -> str:
    """:func:`weights_digest` of everything but the last layers (what a teach keeps)."""
    heads = set(head_names(nets))
    return _digest(nets, [name for name in graph_weights(nets) if name not in heads])


def model_graph(model: Path) -> Path:
    """Where a model file's own graph is: beside it, ``.onnx`` for ``.npz``."""
    return model.with_suffix(".onnx")


def shipped_graphs() -> list[Path]:
    """The graphs shipped with the table's data, by name."""
    from table.common.datafiles import defaults_dir

    return sorted(defaults_dir().glob(SHIPPED_GRAPHS))


def find_graph(nets: Sequence[ConvNet], own: Path | None = None) -> tuple[bytes, bool]:
    """(a graph for ``nets``, whether it holds their very weights, rather than their
    body only: then their last layers go in its last layers' place); see the module doc.

    Tried in turn: ``own`` (the model's own graph, when there is one), the other graphs
    in its folder (a taught model's folder may hold the graph of the model it was taught
    from), the shipped graphs. The digests are looked for in a graph's metadata, where
    ONNX keeps them as plain text; the ONNX Runtime session built from the graph checks
    the body's digest again through its own reading of the metadata. ValueError (one
    sentence) when no graph fits.
    """
    digest, body = weights_digest(nets).encode(), body_digest(nets).encode()
    candidates: list[Path] = []
    if own is not None:
        candidates += [own] if own.is_file() else []
        candidates += sorted(own.parent.glob("*.onnx")) if own.parent.is_dir() else []
    candidates += shipped_graphs()
    candidates = list(dict.fromkeys(candidates))  # each once, in order
    same_body = None
    for path in candidates:
        data = path.read_bytes()
        if digest in data:
            return data, True
        if same_body is None and body in data:
            same_body = data
    if same_body is not None:
        return same_body, False
    where = f"{own} " if own is not None else ""
    raise ValueError(
        f"no ONNX graph {where}fits the dice face networks {layout(nets)}; "
        "write it with python tools/dice/export_onnx.py MODEL.npz"
    )


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


def _numpy(nets: Sequence[ConvNet], graph: Path | None) -> Runner:
    return lambda x: average_numpy(nets, x)


def _onnxruntime(nets: Sequence[ConvNet], graph: Path | None) -> Runner:
    import onnxruntime as ort

    data, own_weights = find_graph(nets, graph)
    opts = ort.SessionOptions()
    # One thread a run: a batch is cut into one part a core instead (side_by_side), which
    # keeps the cores busier than ONNX Runtime's own threads on these small batches (a
    # crowded frame's first run: 7.5 ms with two threads, 6.4 ms in two parts on two
    # cores) and leaves it no worker threads to spin or wake between frames.
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3  # no warnings on stderr at start-up
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # A graph of the same body runs these networks with their last layers in its last
    # layers' place; the session reads them from these arrays, kept as long as it is.
    weights = graph_weights(nets)
    heads = [] if own_weights else head_names(nets)
    held = [(name, ort.OrtValue.ortvalue_from_numpy(weights[name])) for name in heads]
    for name, value in held:
        opts.add_initializer(name, value)
    session = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
    if session.get_modelmeta().custom_metadata_map.get(BODY_KEY) != body_digest(nets):
        raise ValueError(f"the ONNX graph chosen for the dice face networks {layout(nets)} holds others")
    if held and not _computes_as_numpy(session, nets):
        # A runtime that kept the graph's own last layers would read with the shipped
        # networks while saying it read with the taught ones; numpy reads right.
        raise ValueError("ONNX Runtime did not take the taught last layers in place of the graph's")

    return _Session(session, held)


def _computes_as_numpy(session: Any, nets: Sequence[ConvNet]) -> bool:
    """Whether ``session`` gives what the numpy forward pass gives on two fixed inputs."""
    side, channels = nets[0].side, nets[0].p["w0"].shape[2]
    x = np.random.default_rng(0).normal(0, 1, (2, side, side, channels)).astype(np.float32)
    got = np.asarray(session.run([GRAPH_OUTPUT], {GRAPH_INPUT: x})[0], np.float32)
    return bool(np.allclose(got, average_numpy(nets, x), atol=1e-4))


class _Session:
    """An ONNX Runtime session as a :data:`Runner`, with the arrays it reads its weights
    from (when they are not the graph's own: the session does not copy them)."""

    def __init__(self, session: Any, held: list[tuple[str, Any]]) -> None:
        self._session = session
        self._held = held

    def _one(self, x: F32) -> F32:
        out = self._session.run([GRAPH_OUTPUT], {GRAPH_INPUT: np.ascontiguousarray(x, np.float32)})[0]
        return np.asarray(out, np.float32)

    def __call__(self, x: F32) -> F32:
        if len(x) == 0:
            return np.zeros((0, CLASSES), np.float32)
        return side_by_side(self._one, x)


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


def _opencv(nets: Sequence[ConvNet], graph: Path | None) -> Runner:
    import cv2

    data, own_weights = find_graph(nets, graph)
    if not own_weights:
        raise ValueError(
            f"the opencv engine runs only a graph of these very weights ({layout(nets)}); "
            "write it with python tools/dice/export_onnx.py MODEL.npz"
        )
    net = cv2.dnn.readNetFromONNX(np.frombuffer(data, np.uint8))

    def run(x: F32) -> F32:
        if len(x) == 0:
            return np.zeros((0, CLASSES), np.float32)
        net.setInput(np.ascontiguousarray(x, np.float32))
        return np.asarray(net.forward(), np.float32).reshape(len(x), CLASSES)

    return run


# Runs the shipped tray networks as the reader will: everything the reader does with the
# library, in a process of its own.
_PROBE = """
import numpy as np
from table.common.datafiles import defaults_dir
from table.dice.cnn import load_members
from table.dice.engines import make_runner, model_graph
model = defaults_dir() / "dice" / "faces.npz"
nets = load_members(model)
x = np.ones((1, nets[0].side, nets[0].side, nets[0].p["w0"].shape[2]), np.float32)
print(make_runner(nets, ENGINE, model_graph(model))[1](x).shape)
"""


@functools.cache
def library_works(engine: str) -> bool:
    """Whether ``engine``'s library imports and runs the shipped networks, tried in a child process."""
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


def make_runner(nets: Sequence[ConvNet], engine: str = "auto", graph: Path | None = None) -> tuple[str, Runner]:
    """(engine actually used, runner). ``auto``: ONNX Runtime, else numpy (see module doc).

    ``graph`` is the model's own ONNX graph (:func:`model_graph`), when it has one; the
    shipped graphs are tried after it. A named engine whose package is missing raises
    ImportError, one with no graph for the networks ValueError; ``auto`` raises neither.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown dice engine {engine!r}; use one of {', '.join(ENGINES)}")
    if engine == "auto":
        if library_works("onnxruntime"):
            try:
                return "onnxruntime", _onnxruntime(nets, graph)
            except (ImportError, ValueError):
                pass
        return "numpy", _numpy(nets, graph)
    build = {"numpy": _numpy, "onnxruntime": _onnxruntime, "opencv": _opencv}[engine]
    return engine, build(nets, graph)
