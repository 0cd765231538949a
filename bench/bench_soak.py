"""Soaks: ``table venue`` with simulated tables, or the kiosk left in attract mode, for an hour.

``--venue``: Mosquitto on 127.0.0.1 with the shipped users and ACL, ``table venue`` as
its own process, ``--tables`` simulated tables (bench/bench_venue.py's: random legal
games into their own journals at ``--rate`` inputs a second, a game ended from the
table menu after 60 to 200 inputs, about four minutes), each with its own relay, a
reader following the page's ``/events`` stream and a prober fetching ``/api/state``
every 0.1 s and ``/`` every second, as a wall screen would.

``--kiosk``: ``table run --headless`` with the shipped config and a fresh journal, which
nobody touches: after ``attract_after_s`` (two minutes shipped) it runs its attract
mode for the rest of the soak.

Every ``--every`` seconds (60) the process under test is sampled from /proc: resident
memory (RSS), open file descriptors (``/proc/PID/fd``), threads and CPU time; each sample
is printed as it is taken (and appended to ``--out`` as JSON lines, if given). At the
end, over the samples after the first ``--warmup`` minutes (10): memory's slope (least
squares, MiB an hour) and spread (max - min), and the descriptors and threads gained
from the end of the warm-up to the end. The baseline is the same process at the end of
its warm-up: the ratio of the last RSS to it is printed beside the slope.

Run: python bench/bench_soak.py --venue [--minutes 60] [--tables 50] [--rate 0.5] [--out FILE]
     python bench/bench_soak.py --kiosk [--minutes 60] [--out FILE]
Everything stops by itself after ``--minutes``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine
from bench_venue import PageReader, Prober, TableSim, cpu_seconds, load, proc_sample, raise_fd_limit, start_relays

from table.venue.broker import LocalBroker, free_port, wait_port


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of (seconds, value) points, per hour."""
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    var = sum((t - mx) ** 2 for t, _ in points)
    return 0.0 if var == 0 else sum((t - mx) * (v - my) for t, v in points) / var * 3600


class Soak:
    """Samples one process every ``every`` seconds until ``seconds`` have passed."""

    def __init__(self, pid: int, seconds: float, every: float, out: TextIO | None,
                 extra: Any = None) -> None:
        self.pid, self.seconds, self.every, self.out, self.extra = pid, seconds, every, out, extra
        self.samples: list[dict[str, Any]] = []

    def take(self, t0: float) -> dict[str, Any]:
        rss, fds, threads = proc_sample(self.pid)
        sample: dict[str, Any] = {"t_s": round(time.monotonic() - t0, 1), "rss_kib": rss, "fds": fds,
                                  "threads": threads, "cpu_s": round(cpu_seconds(self.pid), 2),
                                  "load1": round(os.getloadavg()[0], 2)}
        if self.extra is not None:
            sample |= self.extra()
        return sample

    def run(self, alive: Any) -> None:
        t0 = time.monotonic()
        while True:
            sample = self.take(t0)
            self.samples.append(sample)
            print(json.dumps(sample), flush=True)
            if self.out is not None:
                self.out.write(json.dumps(sample) + "\n")
                self.out.flush()
            left = self.seconds - (time.monotonic() - t0)
            if left <= 0 or not alive():
                return
            time.sleep(min(self.every, left))

    def report(self, warmup_s: float, what: str) -> None:
        after = [s for s in self.samples if s["t_s"] >= warmup_s - 1]
        if len(after) < 2:
            print(f"too few samples after the {warmup_s / 60:.0f}-minute warm-up: soak longer (--minutes)")
            return
        first, last = after[0], after[-1]
        rss = [s["rss_kib"] / 1024 for s in after]
        slope = slope_per_hour([(s["t_s"], s["rss_kib"] / 1024) for s in after])
        span_h = (last["t_s"] - first["t_s"]) / 3600
        cpu = (last["cpu_s"] - first["cpu_s"]) / (last["t_s"] - first["t_s"]) * 100
        print(f"{what}, {len(self.samples)} samples every {self.every:.0f} s over "
              f"{self.samples[-1]['t_s'] / 60:.1f} min; after the first {warmup_s / 60:.0f} min "
              f"({len(after)} samples, {span_h * 60:.0f} min):")
        print(f"  RSS: {first['rss_kib'] / 1024:.1f} MiB at the end of the warm-up (the baseline), "
              f"{last['rss_kib'] / 1024:.1f} MiB at the end (ratio x{last['rss_kib'] / first['rss_kib']:.3f}); "
              f"min {min(rss):.1f}, max {max(rss):.1f}: spread {max(rss) - min(rss):.1f} MiB; "
              f"slope {slope:+.2f} MiB/hour")
        print(f"  file descriptors: {first['fds']} -> {last['fds']} (gained {last['fds'] - first['fds']}; "
              f"max {max(s['fds'] for s in after)})")
        print(f"  threads: {first['threads']} -> {last['threads']} (gained {last['threads'] - first['threads']}; "
              f"max {max(s['threads'] for s in after)})")
        print(f"  CPU: {cpu:.1f}% of one core; load average (1 min) {min(s['load1'] for s in after):.1f} "
              f"to {max(s['load1'] for s in after):.1f}")


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as systemd stops it; SIGKILL after 15 s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def soak_venue(args: argparse.Namespace, out: TextIO | None) -> None:
    raise_fd_limit()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        tables = [f"T{i:02d}" for i in range(1, args.tables + 1)]
        broker = LocalBroker(tmp / "broker", {t: t for t in tables} | {"venue": "venue"}, autosave_s=10)
        broker.start()
        (tmp / "venue.pw").write_text("venue")
        http_port = free_port()
        url = f"http://127.0.0.1:{http_port}"
        log = (tmp / "venue.log").open("wb")
        venue = subprocess.Popen(
            [sys.executable, "-m", "table", "venue", "--db", str(tmp / "venue.db"), "--port", str(broker.port),
             "--username", "venue", "--password-file", str(tmp / "venue.pw"), "--http-host", "127.0.0.1",
             "--http-port", str(http_port)], stderr=log, cwd="/")
        stop, relay_stop = threading.Event(), threading.Event()
        finished: dict[tuple[str, int], float] = {}
        try:
            wait_port(http_port)
            start_relays(tables, tmp, broker.port, relay_stop)
            reader = PageReader(url)
            reader.start()
            prober = Prober(url, stop)
            prober.start()
            sims = [TableSim(t, tmp / f"{t}.db", args.rate, i, stop, finished, inputs=(60, 200))
                    for i, t in enumerate(tables)]
            for sim in sims:
                sim.start()

            def counts() -> dict[str, Any]:
                try:
                    state = json.loads(urllib.request.urlopen(url + "/api/state", timeout=10).read())
                except OSError as exc:
                    return {"state": f"unreachable ({exc})"}
                c = state["counts"]
                return {"received": c.get("received", 0), "results": state["results"],
                        "invalid": c.get("invalid", 0), "connected": state["connected"],
                        "state_kib": round(len(json.dumps(state)) / 1024, 1)}

            soak = Soak(venue.pid, args.minutes * 60, args.every, out, counts)
            soak.run(lambda: venue.poll() is None)
            stop.set()
            inputs = sum(s.actions for s in sims)
            soak.report(args.warmup * 60, f"table venue with {args.tables} simulated tables")
            print(f"  traffic: {inputs} inputs journaled, {len(finished)} games finished, "
                  f"{soak.samples[-1].get('received', '?')} messages taken by the venue, "
                  f"{len(reader.seen)} results seen in the page's stream; page fetches "
                  f"{sum(len(v) for v in prober.samples.values())}, failed {sum(prober.failures.values())}")
            print(f"at the end: {load()}")
        finally:
            stop.set()
            relay_stop.set()
            time.sleep(1.0)
            stop_process(venue)
            log.close()
            broker.stop()


def soak_kiosk(args: argparse.Namespace, out: TextIO | None) -> None:
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        argv = [sys.executable, "-m", "table", "run", "--headless", "--journal", str(tmp / "journal.db")]
        if os.geteuid() == 0:
            argv.append("--allow-root")
        log = (tmp / "kiosk.log").open("wb")
        kiosk = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log, env=env, cwd="/")
        try:
            time.sleep(3.0)
            if kiosk.poll() is not None:
                raise SystemExit(f"the kiosk stopped at once: {(tmp / 'kiosk.log').read_text()[-2000:]}")
            soak = Soak(kiosk.pid, args.minutes * 60, args.every, out)
            soak.run(lambda: kiosk.poll() is None)
            if kiosk.poll() is not None:
                print(f"the kiosk stopped during the soak (status {kiosk.returncode}): "
                      f"{(tmp / 'kiosk.log').read_text()[-2000:]}")
            soak.report(args.warmup * 60, "table run --headless, left alone (attract mode after attract_after_s)")
            print(f"at the end: {load()}")
        finally:
            stop_process(kiosk)
            log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--venue", action="store_true", help="soak table venue with simulated tables")
    which.add_argument("--kiosk", action="store_true", help="soak table run --headless left in attract mode")
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=10.0, help="minutes left out of the flatness figures")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between samples")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rate", type=float, default=0.5, help="inputs per second per table")
    parser.add_argument("--out", type=Path, help="also append every sample to this file (JSON lines)")
    args = parser.parse_args()
    print(f"machine: {machine()}; {time.strftime('%Y-%m-%d %H:%M:%S')}, at the start: {load()}", flush=True)
    print(f"command: {' '.join(sys.argv)}", flush=True)
    out = args.out.open("a", encoding="utf-8") if args.out else None
    try:
        (soak_venue if args.venue else soak_kiosk)(args, out)
    finally:
        if out is not None:
            out.close()


if __name__ == "__main__":
    main()
