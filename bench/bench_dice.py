"""Time and accuracy of the dice reader on labelled photos, against a plain baseline.

    python bench/bench_dice.py --photos DIR [--first N] [--engines numpy,onnxruntime,opencv] [--rounds 3] [--general]

DIR is a folder of photos with a ``labels.csv`` (``filename,face,xmin,ymin,xmax,ymax``),
such as the 200 tray-d6 photos (640x640, up to 25 dice). Every photo is read by every
reader in turn, the order turning from photo to photo, for ``--rounds`` rounds, and each
photo's fastest round is kept (other work on a shared machine only slows a frame down,
and interleaving gives every reader the same share of it). The readers: a plain
threshold-and-count-pips baseline (Otsu threshold of the colour distance from the
tray's median colour, one die per blob of plausible size, pips = the holes in the
blob) and the reader once per engine running its face networks (numpy, ONNX Runtime,
OpenCV's DNN: the same weights, the same answers). For each it prints the median, 95th
percentile and slowest frame, and the median and 95th percentile of the crowded frames
(20 or more dice), in ms; then each one's dice read right and extra dice (boxes paired
at IoU >= 0.5, and at any overlap); the die finder's own time on the crowded frames;
then the ratios: each library engine to numpy (the
library-versus-numpy comparison) and to the baseline. Memory: the reader's Python heap
peak on the busiest frame (``tracemalloc``) and the process's peak resident size.
``--general`` adds three readers, timed the same way: ``general``, the general
networks (``faces-general.npz``) with the second look as configured (only the boxes
whose first reading is unsure); ``general-1v``, the same with the second look in one
view; ``general-all``, the second look as it first was (every box read twice, at 0.8 of
its size, no ``drop_below``); and ``auto``, the reader with
``general_model`` set, which picks the networks from each frame (it says how many frames
it gave to the general networks). The general networks saw these photos in training,
so their accuracy here is not a held-out figure.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _common import machine, per_core  # noqa: E402

from table.dice.detect import find_dice  # noqa: E402
from table.dice.reader import DiceReader  # noqa: E402
from table.dice.score import OVERLAP, Score, load_labels  # noqa: E402
from table.dice.settings import load_settings  # noqa: E402

Reported = list[tuple[tuple[int, int, int, int], int, float]]


def baseline_read(frame: np.ndarray) -> Reported:
    """Threshold and count pips: the simplest reader one would write first."""
    tray = np.median(frame.reshape(-1, 3), axis=0)
    dist = np.linalg.norm(frame.astype(np.float32) - tray, axis=2)
    dist8 = np.clip(dist, 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(dist8, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    n, lab, st, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8))
    out: Reported = []
    for k in range(1, n):
        x, y, w, h, a = (int(v) for v in st[k])
        if not 300 <= a <= 6000 or not 0.6 < w / h < 1.6:
            continue
        blob = (lab[y : y + h, x : x + w] == k).astype(np.uint8)
        holes = 1 - blob
        m, _, hst, _ = cv2.connectedComponentsWithStats(holes)
        pips = 0
        for j in range(1, m):
            hx, hy, hw, hh, ha = hst[j]
            if hx > 0 and hy > 0 and hx + hw < w and hy + hh < h and ha >= 4:
                pips += 1
        if 1 <= pips <= 6:
            out.append(((x, y, x + w, y + h), pips, 1.0))
    return out


def summary(name: str, times: list[float], labels: list[list[tuple]]) -> str:  # type: ignore[type-arg]
    q = statistics.quantiles(times, n=20)
    crowded = [t for t, lab in zip(times, labels, strict=True) if len(lab) >= 20]
    cq = statistics.quantiles(crowded, n=20)[18] if len(crowded) >= 2 else float("nan")
    return (
        f"{name:11s} median {statistics.median(times):6.1f} ms  p95 {q[18]:6.1f} ms  max {max(times):6.1f} ms  "
        f"20+ dice ({len(crowded)} frames) median {statistics.median(crowded) if crowded else float('nan'):6.1f} ms"
        f"  p95 {cq:6.1f} ms"
    )


def scored(name: str, readings: list[Reported], labels: list[list[tuple]]) -> Score:  # type: ignore[type-arg]
    score = Score()
    loose = Score()
    for reported, lab in zip(readings, labels, strict=True):
        score.add(lab, reported)
        loose.add(lab, reported, min_iou=OVERLAP)
    print(
        f"{name:11s} IoU >= 0.5: right {score.right}/{score.labelled} = {score.accuracy:.1%}, "
        f"extra {score.extra}/{score.reported} = {score.extra_rate:.1%};  "
        f"any overlap: right {loose.right}/{loose.labelled} = {loose.accuracy:.1%}, "
        f"extra {loose.extra}/{loose.reported} = {loose.extra_rate:.1%}",
        flush=True,
    )
    return loose


def _timed(fn: object, frame: np.ndarray) -> float:
    t = time.perf_counter()
    fn(frame)  # type: ignore[operator]
    return (time.perf_counter() - t) * 1000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--photos", required=True, type=Path, help="folder of photos with a labels.csv")
    ap.add_argument("--first", type=int, default=0, help="only the first N photos (0: all)")
    ap.add_argument("--engines", default="numpy,onnxruntime,opencv", help="engines to compare, numpy first")
    ap.add_argument("--general", action="store_true",
                    help="also time the general setting (faces-general.npz with shrink_boxes, engine auto)")
    ap.add_argument("--rounds", type=int, default=3, help="times every photo is read by each (fastest kept)")
    ap.add_argument("--readings", type=Path, default=None,
                    help="a JSON file of the first engine's readings of every photo (face, box, exact confidence): "
                         "written when missing, else compared with this run's, photo by photo")
    a = ap.parse_args()
    if not (a.photos / "labels.csv").is_file():
        print(f"bench_dice: no labels.csv in {a.photos}", file=sys.stderr)
        return 2
    items = list(load_labels(a.photos).items())
    if a.first:
        items = items[: a.first]
    print(f"machine: {machine()}\n{per_core()}", flush=True)
    frames = [cv2.imread(str(a.photos / name)) for name, _ in items]
    labels = [lab for _, lab in items]
    print(
        f"{len(frames)} photos of {frames[0].shape[1]}x{frames[0].shape[0]}, "
        f"{sum(len(v) for v in labels)} labelled dice, up to {max(len(v) for v in labels)} in a frame; "
        f"cv2 threads {cv2.getNumThreads()}; load average before {' '.join(f'{v:.1f}' for v in os.getloadavg())}",
        flush=True,
    )
    readers: dict[str, object] = {"baseline": baseline_read}
    for engine in a.engines.split(","):
        reader = DiceReader(replace(load_settings(), engine=engine))
        reader.read(frames[0])  # load the model outside the timing
        readers[engine] = lambda frame, reader=reader: [(r.box, r.face, r.confidence) for r in reader.read(frame)]
    auto: DiceReader | None = None
    if a.general:  # the general networks, and the reader choosing them by itself (docs/dice.md)
        base = load_settings()
        nets = base.model_path.with_name("faces-general.npz")
        forced = replace(base, model_path=nets, shrink_boxes=True, drop_below=base.general_drop_below)
        every = replace(forced, second_look_below=1.0, second_look_reject_below=1.0, second_look_size=0.8,
                        second_look_views=8, drop_below=0.0)
        one_view = replace(forced, second_look_views=1)
        auto = DiceReader(replace(base, general_model=nets))
        for name, reader in (("general", DiceReader(forced)), ("general-1v", DiceReader(one_view)),
                             ("general-all", DiceReader(every)), ("auto", auto)):
            reader.read(frames[0])
            readers[name] = lambda frame, reader=reader: [(r.box, r.face, r.confidence) for r in reader.read(frame)]
    busiest = max(range(len(frames)), key=lambda i: len(labels[i]))
    tracemalloc.start()
    readers[a.engines.split(",")[0]](frames[busiest])  # type: ignore[operator]
    _, heap = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # Every frame is read by every reader in turn, the order turning from frame to frame,
    # and the fastest of the rounds is kept: on a shared machine other work only ever
    # slows a frame down, and interleaving gives every reader the same share of it.
    names = list(readers)
    best = {n: [float("inf")] * len(frames) for n in names}
    readings: dict[str, list[Reported]] = {n: [] for n in names}
    for rnd in range(a.rounds):
        for i, frame in enumerate(frames):
            for k in range(len(names)):
                name = names[(i + k + rnd) % len(names)]
                t = time.perf_counter()
                out = readers[name](frame)  # type: ignore[operator]
                best[name][i] = min(best[name][i], (time.perf_counter() - t) * 1000)
                if rnd == 0:
                    readings[name].append(out)
    print(f"fastest of {a.rounds} rounds per frame; load average after "
          f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    if auto is not None:
        general_frames = 0
        for frame in frames:
            auto.read(frame)
            general_frames += auto.last_general
        print(f"auto gave {general_frames} of {len(frames)} frames to the general networks")
    for name in names:
        print(summary(name, best[name], labels))
    loose = {name: scored(name, readings[name], labels) for name in names}
    print(
        f"reader Python heap peak on the busiest frame ({len(labels[busiest])} dice) {heap / 2**20:.1f} MiB; "
        f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )
    first = names[1]
    # The die finder alone on the crowded frames (fastest of the rounds): what share of a
    # crowded frame is finding the dice, and what is reading them.
    crowded = [i for i, lab in enumerate(labels) if len(lab) >= 20]
    if len(crowded) >= 2:
        finder = [min(_timed(find_dice, frames[i]) for _ in range(a.rounds)) for i in crowded]
        print(
            f"die finder alone on the {len(crowded)} frames of 20+ dice: median {statistics.median(finder):.1f} ms, "
            f"p95 {statistics.quantiles(finder, n=20)[18]:.1f} ms (the whole reader's median there: "
            + ", ".join(f"{n} {statistics.median([best[n][i] for i in crowded]):.1f} ms" for n in names[1:])
            + ")"
        )

    if len(crowded) >= 2:
        def crowd_p95(name: str) -> float:
            return statistics.quantiles([best[name][i] for i in crowded], n=20)[18]

        for name in names[1:]:
            print(f"crowded frames ({len(crowded)} photos of {min(len(labels[i]) for i in crowded)}-"
                  f"{max(len(labels[i]) for i in crowded)} dice), p95: {name} {crowd_p95(name):.1f} ms, baseline "
                  f"{crowd_p95('baseline'):.1f} ms: {crowd_p95(name) / crowd_p95('baseline'):.2f}x (goal <= 1.25x)")
    if a.readings is not None:
        mine = {name: [[face, list(box), float(conf).hex()] for box, face, conf in out]
                for (name, _), out in zip(items, readings[first], strict=True)}
        if a.readings.exists():
            before = json.loads(a.readings.read_text())
            differ = sorted(n for n in set(before) | set(mine) if before.get(n) != mine.get(n))
            print(f"{first} readings against {a.readings}: {len(mine) - len(differ)} of {len(mine)} photos read "
                  f"exactly alike (faces, boxes, confidences to the last bit)"
                  + (f"; differing: {', '.join(differ[:5])}" if differ else ""))
        else:
            a.readings.write_text(json.dumps(mine, indent=0))
            print(f"{first} readings of {len(mine)} photos written to {a.readings}")

    def crowd(name: str) -> float:
        return statistics.median([u for u, lab in zip(best[name], labels, strict=True) if len(lab) >= 20] or [0.0])

    if a.general:
        def p95(name: str) -> float:
            crowded = [u for u, lab in zip(best[name], labels, strict=True) if len(lab) >= 20]
            return statistics.quantiles(crowded, n=20)[18] if len(crowded) >= 2 else float("nan")

        print(
            f"second look on unsure boxes only / on every box (general / general-all): 20+ dice p95 "
            f"{p95('general'):.1f} / {p95('general-all'):.1f} ms = {p95('general') / p95('general-all'):.2f}x, "
            f"median {statistics.median(best['general']) / statistics.median(best['general-all']):.2f}x; "
            f"in one view (general-1v): 20+ dice p95 {p95('general-1v'):.1f} ms = "
            f"{p95('general-1v') / p95('general-all'):.2f}x; "
            f"auto / {first}: 20+ dice p95 {p95('auto'):.1f} / {p95(first):.1f} ms"
        )
    for name in names[1:]:
        if name in (first, "general", "general-1v", "general-all", "auto"):
            continue
        same = loose[name].right == loose[first].right and loose[name].extra == loose[first].extra
        print(
            f"ratio {name}/{first}: median {statistics.median(best[name]) / statistics.median(best[first]):.2f}x, "
            f"20+ dice median {crowd(name) / max(crowd(first), 1e-9):.2f}x, "
            f"{'same dice read as' if same else 'NOT the same dice read as'} {first};  "
            f"{name}/baseline: median {statistics.median(best[name]) / statistics.median(best['baseline']):.2f}x, "
            f"20+ dice median {crowd(name) / max(crowd('baseline'), 1e-9):.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
