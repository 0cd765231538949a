"""Time the dice reader's start: importing it and loading the shipped face model.

    python tools/dice/load_time.py [--rounds 5] [--before DIR]

Each round starts fresh Python processes (nothing cached in memory from the last) that
import ``table.dice.model`` and load ``config/dice/faces.npz`` with the engine
``onnxruntime`` (no probe) and ``auto`` (with its probe in a child process), then run one
small batch. With ``--before DIR`` (a folder holding an older ``table`` package, for
instance ``git archive REV table | tar -x -C DIR``) the same runs are made with that
package first on the path, in turn with the current one, and the medians are given as
ratios to it. Prints the machine line of bench/_common.py.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
from _common import machine  # noqa: E402

CHILD = """
import time
t0 = time.perf_counter()
import json, sys
import numpy as np
from table.common.datafiles import defaults_dir
from table.dice.model import FaceModel
t1 = time.perf_counter()
model = FaceModel.load(defaults_dir() / "dice" / "faces.npz", sys.argv[1])
t2 = time.perf_counter()
model.probabilities(np.zeros((4, model.side, model.side, model.nets[0].p["w0"].shape[2]), np.float32))
t3 = time.perf_counter()
print(json.dumps({"engine": model.engine, "import": t1 - t0, "load": t2 - t1, "first": t3 - t2,
                  "onnx": "onnx" in sys.modules}))
"""


def run(engine: str, before: Path | None) -> dict[str, object]:
    env = dict(os.environ)
    if before is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(before), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", CHILD, engine], capture_output=True, text=True, check=True,
                          cwd="/", env=env, timeout=600)
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="fresh processes per engine and package")
    ap.add_argument("--before", type=Path, help="a folder holding an older table package, to compare with")
    a = ap.parse_args(argv)
    if a.rounds < 1:
        print("table: --rounds must be at least 1", file=sys.stderr)
        return 2
    print(machine())
    print(f"load average before {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    sides = {"now": None} if a.before is None else {"now": None, "before": a.before}
    times: dict[tuple[str, str], list[dict[str, object]]] = {}
    for _ in range(a.rounds):
        for engine in ("onnxruntime", "auto"):
            for side, path in sides.items():
                times.setdefault((side, engine), []).append(run(engine, path))
    print(f"load average after {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    for engine in ("onnxruntime", "auto"):
        for side in sides:
            rows = times[(side, engine)]
            load = statistics.median(float(r["load"]) for r in rows)  # type: ignore[arg-type]
            start = statistics.median(float(r["import"]) + float(r["load"]) for r in rows)  # type: ignore[arg-type]
            line = (f"{side:6s} {engine:11s} ran {rows[0]['engine']}, onnx imported: {rows[0]['onnx']}; "
                    f"median load {load * 1000:.0f} ms, import + load {start * 1000:.0f} ms")
            if side == "now" and "before" in sides:
                old = times[("before", engine)]
                old_load = statistics.median(float(r["load"]) for r in old)  # type: ignore[arg-type]
                old_start = statistics.median(float(r["import"]) + float(r["load"]) for r in old)  # type: ignore[arg-type]
                line += f" ({load / old_load:.2f}x, {start / old_start:.2f}x the before's)"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
