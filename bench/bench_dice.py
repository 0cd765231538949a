"""Time and accuracy of the dice reader on the tray-d6 photos, against a plain baseline.

    /work/venv/bin/python bench/bench_dice.py [--photos N]

For every photo (640x640) it times the reader's ``read`` (median, 95th percentile, the
slowest frame, and the median of the crowded frames of 20 or more dice, in ms) and
scores it (dice read right / reported dice matching no labelled die, with boxes paired
at IoU >= 0.5 and, as the issue words it, at any overlap),
and does the same in the same run for a plain threshold-and-count-pips baseline: Otsu
threshold of the colour distance from the tray's median colour, one die per blob of
plausible size, pips = the holes in the blob. Peak memory is the process's maximum
resident set size after each part (``resource.getrusage``), and the Python heap peak
of the reader alone (``tracemalloc``).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "dice" / "tray-d6"

from table.dice.reader import DiceReader  # noqa: E402
from table.dice.score import OVERLAP, Score, load_labels  # noqa: E402

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


def run(name: str, read, frames, labels) -> tuple[list[float], Score]:  # type: ignore[no-untyped-def]
    times: list[float] = []
    score = Score()
    loose = Score()
    for frame, lab in zip(frames, labels, strict=True):
        t = time.perf_counter()
        reported = read(frame)
        times.append((time.perf_counter() - t) * 1000)
        score.add(lab, reported)
        loose.add(lab, reported, min_iou=OVERLAP)
    q = statistics.quantiles(times, n=20)
    crowded = [t for t, lab in zip(times, labels, strict=True) if len(lab) >= 20]
    print(
        f"{name:9s} median {statistics.median(times):6.1f} ms  p95 {q[18]:6.1f} ms  max {max(times):6.1f} ms  "
        f"20+ dice median {statistics.median(crowded) if crowded else float('nan'):6.1f} ms  "
        f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB\n"
        f"{'':9s} IoU >= 0.5: right {score.right}/{score.labelled} = {score.accuracy:.1%}, "
        f"extra {score.extra}/{score.reported} = {score.extra_rate:.1%};  "
        f"any overlap: right {loose.accuracy:.1%}, extra {loose.extra_rate:.1%}",
        flush=True,
    )
    return times, score


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--photos", type=int, default=0, help="only the first N photos (0: all 200)")
    a = ap.parse_args()
    if not (DATA / "labels.csv").is_file():
        print(f"bench_dice: the tray-d6 photos are not at {DATA}", file=sys.stderr)
        return 2
    items = list(load_labels(DATA).items())
    if a.photos:
        items = items[: a.photos]
    frames = [cv2.imread(str(DATA / name)) for name, _ in items]
    labels = [lab for _, lab in items]
    print(
        f"{len(frames)} photos of {frames[0].shape[1]}x{frames[0].shape[0]}, "
        f"{sum(len(v) for v in labels)} labelled dice; cv2 threads {cv2.getNumThreads()}"
    )
    base_t, base = run("baseline", baseline_read, frames, labels)
    reader = DiceReader()
    reader.read(frames[0])  # load the model outside the timing

    def read(frame: np.ndarray) -> Reported:
        return [(r.box, r.face, r.confidence) for r in reader.read(frame)]

    busiest = max(range(len(frames)), key=lambda i: len(labels[i]))
    tracemalloc.start()
    reader.read(frames[busiest])
    _, heap = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    t, score = run("reader", read, frames, labels)
    print(f"reader Python heap peak on the busiest frame ({len(labels[busiest])} dice) {heap / 2**20:.1f} MiB")
    print(
        f"ratio reader/baseline: median time {statistics.median(t) / statistics.median(base_t):.1f}x, "
        f"dice read right {score.accuracy / max(base.accuracy, 1e-9):.1f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
