"""Journal figures: one append (WAL, synchronous=FULL, committed) against a plain write+fsync.

Run: python bench/bench_journal.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, median, pct

from table.games.base import Action, GameSetup
from table.play.journal import Journal
from table.play.session import Session


def main(n: int = 500) -> None:
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal(Path(tmp) / "j.db")
        game = journal.start_game(GameSetup("ubongo_shimo", stations=(0, 1)), 1)
        times = []
        for i in range(n):
            action = Action("press", float(i), i % 2)
            t = time.perf_counter()
            journal.append(game, i, action)
            times.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        record = journal.load(game)
        Session.replay(record.engine, record.setup, record.seed, record.actions)
        replay_ms = (time.perf_counter() - t) * 1000
        journal.close()
        base = []
        fd = os.open(Path(tmp) / "plain.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        line = (json.dumps({"kind": "press", "t": 1.0, "station": 0}) + "\n").encode()
        for _ in range(n):
            t = time.perf_counter()
            os.write(fd, line)
            os.fsync(fd)
            base.append((time.perf_counter() - t) * 1000)
        os.close(fd)
    m, b = median(times), median(base)
    print(f"journal append (committed, fsynced): median {m:.3f} ms, p99 {pct(times, 99):.3f} ms; "
          f"baseline write+fsync {b:.3f} ms; ratio {m / b:.1f}x")
    print(f"load + replay of {n} journaled actions: {replay_ms:.1f} ms")


if __name__ == "__main__":
    main()
