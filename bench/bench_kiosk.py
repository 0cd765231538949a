"""Kiosk figures: start-up to READY=1, and resuming a game from a 1,000-action journal.

    .venv/bin/python bench/bench_kiosk.py [--runs N]

1. Start-up: the headless daemon (``python -m table.kiosk.headless``) is started as a
   child process with ``NOTIFY_SOCKET`` pointing at a datagram socket of this script,
   as systemd does; the time from ``Popen`` to the arrival of ``READY=1`` is measured,
   with an empty journal and with a journal whose unfinished game has 1,000 actions.
   Baseline in the same run: ``python -c pass`` (interpreter start-up alone).
   If ``table run --headless`` sends READY=1 (once the loop is wired to the notifier),
   its start-up is measured the same way.
2. Resume in process: open the journal, read the unfinished game and ``Session.replay``
   its 1,000 actions. Baseline: the same with an unfinished game of 10 actions.

Prints medians over ``--runs`` and the ratios.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from table.games.base import GameSetup  # noqa: E402
from table.play.autoplay import next_random_action  # noqa: E402
from table.play.journal import Journal  # noqa: E402
from table.play.resume import resumable_game  # noqa: E402
from table.play.scenario_writer import random_script, scenario_toml  # noqa: E402
from table.play.session import Session  # noqa: E402


def journal_with(path: Path, n_actions: int, seed: int = 1) -> None:
    """A journal whose unfinished Ubongo Shimo game has exactly ``n_actions`` actions
    (random legal play with many pauses and undos, as a long evening would leave)."""
    setup = GameSetup(game="ubongo_shimo", stations=(0, 1, 2, 3))
    for attempt in range(50):
        rng = random.Random(f"{seed}:{attempt}")
        session = Session.start("ubongo_shimo", setup, seed)
        actions = []
        while len(actions) < n_actions and not session.is_over():
            action = next_random_action(session, rng, mean_gap=4.0, meta_rate=0.8)
            if action is None:
                break
            session.apply(action, actions.append)
        if len(actions) == n_actions and not session.is_over():
            break
    else:
        raise SystemExit("could not make a long enough unfinished game")
    with Journal(path) as journal:
        game = journal.start_game(setup, seed)
        with journal._db:  # one transaction: building the file is not what is measured
            for seq, action in enumerate(actions):
                journal._db.execute(
                    "INSERT INTO actions (game, seq, action) VALUES (?, ?, ?)",
                    (game, seq, __import__("json").dumps(action.to_json(), separators=(",", ":"))),
                )


def time_to_ready(cmd: list[str], env: dict[str, str], timeout: float = 60.0) -> float | None:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(timeout)
        start = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=REPO, env={**env, "NOTIFY_SOCKET": path},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ready: float | None = None
        try:
            while ready is None:
                msg = sock.recv(4096).decode()
                if "READY=1" in msg.split("\n"):
                    ready = time.perf_counter() - start
        except TimeoutError:
            ready = None
        finally:
            child.terminate()
            child.wait(timeout=30)
            sock.close()
        return ready


def time_plain(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def resume_time(path: Path) -> float:
    start = time.perf_counter()
    with Journal(path) as journal:
        found = resumable_game(journal)
    assert found is not None
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
    env.update(PYTHONPATH=str(REPO), SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{platform.system()} {platform.release()}")
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        script = work / "game.toml"
        script.write_text(scenario_toml(random_script("ubongo_shimo", seed=1)))
        long_journal = work / "long.db"
        short_journal = work / "short.db"
        journal_with(long_journal, 1000)
        journal_with(short_journal, 10)

        # 2. Resume in process.
        long_t = [resume_time(long_journal) for _ in range(args.runs)]
        short_t = [resume_time(short_journal) for _ in range(args.runs)]
        lm, sm = statistics.median(long_t), statistics.median(short_t)
        print(f"resume, 1,000-action journal: {lm * 1000:.1f} ms median of {args.runs} "
              f"(baseline 10 actions: {sm * 1000:.1f} ms; ratio {lm / sm:.1f}x)")

        # 1. Start-up to READY=1.
        python = [sys.executable, "-c", "pass"]
        base = statistics.median(time_plain(python, env) for _ in range(args.runs))
        print(f"baseline: python -c pass: {base * 1000:.0f} ms")
        cases = {
            "headless daemon, empty journal": (work / "fresh.db", None),
            "headless daemon, 1,000-action journal": (work / "resume.db", long_journal),
        }
        for name, (journal, source) in cases.items():
            times = []
            for _ in range(args.runs):
                # A fresh copy each run: a run that got to play would change the journal.
                for suffix in ("", "-wal", "-shm"):
                    Path(str(journal) + suffix).unlink(missing_ok=True)
                if source is not None:
                    journal.write_bytes(source.read_bytes())
                # Same setup and seed as the script: the daemon replays the 1,000 actions before READY=1.
                t = time_to_ready([sys.executable, "-m", "table.kiosk.headless", str(script), "--journal", str(journal),
                                   "--speed", "1", "--allow-root"], env)
                assert t is not None, f"{name}: no READY=1"
                times.append(t)
            m = statistics.median(times)
            print(f"start to READY=1, {name}: {m * 1000:.0f} ms median (ratio to python start-up {m / base:.1f}x)")
        run_t = time_to_ready([sys.executable, "-m", "table", "run", "--headless", "--journal",
                               str(work / "run.db"), "--seconds", "20", "--allow-root"], env, timeout=20)
        if run_t is None:
            print("start to READY=1, table run --headless: not measured (table run does not notify systemd yet)")
        else:
            print(f"start to READY=1, table run --headless: {run_t * 1000:.0f} ms (1 run; "
                  f"ratio {run_t / base:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
