"""Kiosk figures: start-up, CPU while idle, resuming a long game.

    .venv/bin/python bench/bench_kiosk.py [--runs N] [--cpu-seconds S] [--only PART ...]

Every figure is printed beside a baseline measured in the same run, and the ratio:

1. ``start``: new processes, timed from ``Popen`` (interleaved with their baselines,
   medians of ``--runs``):
   * ``table run --headless`` to ``READY=1`` at ``NOTIFY_SOCKET`` (as systemd starts the
     kiosk: window, journal, stations, the lobby's first frame drawn), against a process
     that only imports pygame; goal 2.5x;
   * the headless scripted daemon (``python -m table.kiosk.headless``) to ``READY=1``, an
     empty journal and one whose unfinished game has 1,000 actions to replay;
   * ``table --help`` and ``table --version`` to their exit, against a process that
     imports argparse and prints a parser's help; goal 2x. The run also says whether
     either imported pygame or numpy.
   The package is byte-compiled first, as pip does when it installs the wheel.
2. ``resume``: in process, open a journal and replay its unfinished game of 1,000 actions
   (Ubongo Shimo, many pauses and undos); baseline: the same with 10 actions.
3. ``cpu``: share of one core over ``--cpu-seconds`` (120), read from ``/proc/PID/stat``
   (user + system time of the whole process, every thread), of four processes run side
   by side so that they share the machine's load:
   * ``table run --headless`` in attract mode (the demo; it starts after the table has
     stood 5 s in the lobby and built its layers ahead, as a kiosk's would have), goal 2%;
   * ``table run --headless`` in the lobby, nobody touching it, goal 0.5%;
   * baseline for the demo: a pygame process that fills and blits a full screen (the
     cheapest full redraw) 20 times a second (the demo moves at 15, and repaints only
     what moved: kept at 20 so that the figures stay comparable from run to run);
   * baseline for the lobby: a process that wakes 20 times a second and does nothing
     else (the LED hourglass's idle glow's most frames a second; it wakes the lobby
     only at a brightness step, about twelve times a second).

Without ``--only`` it runs all three (about 4 minutes). The kiosk's memory over an hour
of attract mode is ``bench/bench_soak.py --kiosk``'s.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from _common import machine, per_core  # noqa: E402

from table.games.base import GameSetup  # noqa: E402
from table.play.autoplay import next_random_action  # noqa: E402
from table.play.journal import Journal  # noqa: E402
from table.play.resume import resumable_game  # noqa: E402
from table.play.scenario_writer import random_script, scenario_toml  # noqa: E402
from table.play.session import Session  # noqa: E402

PY = sys.executable
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")

IMPORT_PYGAME = [PY, "-c", "import pygame"]
ARGPARSE_HELP = [PY, "-c", "import argparse; argparse.ArgumentParser(prog='table', description='x').print_help()"]

BASE_ANIMATION = """
import os, time
os.environ["SDL_VIDEODRIVER"] = "dummy"
import pygame
pygame.display.init()
window = pygame.display.set_mode((1920, 1080))
picture = pygame.Surface((1920, 1080)).convert()
period = 1 / 20
due = time.monotonic()
while True:
    window.fill((0, 0, 0))
    window.blit(picture, (0, 0))
    pygame.display.update()
    due += period
    time.sleep(max(0.0, due - time.monotonic()))
"""

BASE_WAKES = """
import time
due = time.monotonic()
while True:
    due += 1 / 20
    time.sleep(max(0.0, due - time.monotonic()))
"""


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "DISPLAY", "WAYLAND_DISPLAY")}
    env.update(PYTHONPATH=str(REPO), SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    return env


def time_to_ready(cmd: list[str], env: dict[str, str], timeout: float = 60.0) -> float:
    """Seconds from starting ``cmd`` to its ``READY=1`` (the child is then stopped)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(timeout)
        start = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=REPO, env={**env, "NOTIFY_SOCKET": path},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while True:
                if "READY=1" in sock.recv(4096).decode().split("\n"):
                    return time.perf_counter() - start
        finally:
            child.terminate()
            child.wait(timeout=30)
            sock.close()


def time_plain(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def journal_with(path: Path, n_actions: int, seed: int = 1) -> None:
    """A journal whose unfinished Ubongo Shimo game has exactly ``n_actions`` actions
    (random legal play with many pauses and undos, as a long evening would leave)."""
    setup = GameSetup(game="ubongo_shimo", stations=(0, 1, 2, 3))
    for attempt in range(50):
        rng = __import__("random").Random(f"{seed}:{attempt}")
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
                journal._db.execute("INSERT INTO actions (game, seq, action) VALUES (?, ?, ?)",
                                    (game, seq, json.dumps(action.to_json(), separators=(",", ":"))))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def start(runs: int, work: Path) -> None:
    env = environment()
    # As pip does when it installs the wheel (this checkout may run with PYTHONDONTWRITEBYTECODE);
    # the test suite's game too, which the development install registers beside the four.
    for package in (REPO / "table", REPO / "tests" / "games" / "buzzer_race"):
        if package.is_dir():
            compileall.compile_dir(str(package), quiet=1)
    script = work / "game.toml"
    script.write_text(scenario_toml(random_script("ubongo_shimo", seed=1)))
    long_journal = work / "long.db"
    journal_with(long_journal, 1000)
    run_journal = work / "run.db"
    cases: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        cases.setdefault(name, []).append(value)

    for _ in range(runs):
        add("pygame", time_plain(IMPORT_PYGAME, env))
        add("run", time_to_ready([PY, "-m", "table", "run", "--headless", "--journal", str(run_journal),
                                  "--allow-root"], env))
        add("argparse", time_plain(ARGPARSE_HELP, env))
        add("help", time_plain([PY, "-m", "table", "--help"], env))
        add("version", time_plain([PY, "-m", "table", "--version"], env))
        for name, source in (("headless", None), ("headless-long", long_journal)):
            journal = work / f"{name}.db"
            for suffix in ("", "-wal", "-shm"):
                Path(str(journal) + suffix).unlink(missing_ok=True)
            if source is not None:
                journal.write_bytes(source.read_bytes())
            add(name, time_to_ready([PY, "-m", "table.kiosk.headless", str(script), "--journal", str(journal),
                                     "--speed", "1", "--allow-root"], env))
    med = {name: statistics.median(values) for name, values in cases.items()}
    print(f"\n## Start-up (new processes, medians of {runs}, interleaved)")
    print(f"baseline: a process that imports pygame: {ms(med['pygame'])}; one that imports argparse and prints "
          f"a help: {ms(med['argparse'])}")
    print(f"table run --headless to READY=1: {ms(med['run'])}, {med['run'] / med['pygame']:.2f}x the pygame "
          f"process (goal <= 2.5x)")
    print(f"headless daemon to READY=1, empty journal: {ms(med['headless'])}, "
          f"{med['headless'] / med['pygame']:.2f}x the pygame process")
    print(f"headless daemon to READY=1, resuming 1,000 actions: {ms(med['headless-long'])}, "
          f"{med['headless-long'] / med['pygame']:.2f}x the pygame process")
    for name in ("help", "version"):
        print(f"table --{name}: {ms(med[name])}, {med[name] / med['argparse']:.2f}x the argparse process "
              f"(goal <= 2x)")
    probe = ("import sys, runpy; sys.argv = ['table', '{arg}']\n"
             "try:\n    runpy.run_module('table', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in ('pygame', 'numpy', 'cv2') if m in sys.modules), file=sys.stderr)")
    for arg in ("--help", "--version"):
        done = subprocess.run([PY, "-c", probe.format(arg=arg)], cwd=REPO, env=env, capture_output=True, text=True,
                              check=True)
        print(f"table {arg} imported of pygame, numpy, cv2: {done.stderr.strip().splitlines()[-1]}")


def resume(runs: int, work: Path) -> None:
    long_journal, short_journal = work / "resume-long.db", work / "resume-short.db"
    journal_with(long_journal, 1000)
    journal_with(short_journal, 10)

    def resume_time(path: Path) -> float:
        begin = time.perf_counter()
        with Journal(path) as journal:
            found = resumable_game(journal)
        assert found is not None
        return time.perf_counter() - begin

    long_t = statistics.median(resume_time(long_journal) for _ in range(runs))
    short_t = statistics.median(resume_time(short_journal) for _ in range(runs))
    print(f"\n## Resume in process\nopen the journal and replay an unfinished game of 1,000 actions: "
          f"{long_t * 1000:.1f} ms (baseline, 10 actions: {short_t * 1000:.1f} ms; {long_t / short_t:.1f}x)")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def config_dir(work: Path, name: str, attract_after_s: float) -> Path:
    folder = work / name
    folder.mkdir(exist_ok=True)
    (folder / "table.toml").write_text(f"[timing]\nattract_after_s = {attract_after_s}\n")
    return folder


def table_process(work: Path, name: str, attract_after_s: float, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([PY, "-m", "table", "run", "--headless", "--allow-root",
                             "--config", str(config_dir(work, name, attract_after_s)),
                             "--journal", str(work / f"{name}.db")],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cpu(seconds: float, work: Path) -> None:
    env = environment()
    procs = {
        "attract": table_process(work, "attract", 5.0, env),
        "lobby": table_process(work, "lobby", 86400.0, env),
        "animation": subprocess.Popen([PY, "-c", BASE_ANIMATION], env=env),
        "wakes": subprocess.Popen([PY, "-c", BASE_WAKES], env=env),
    }
    try:
        time.sleep(20)  # start-up, the layers built ahead, the demo begun
        begin = {name: cpu_seconds(p.pid) for name, p in procs.items()}
        t0 = time.monotonic()
        time.sleep(seconds)
        wall = time.monotonic() - t0
        share = {name: (cpu_seconds(p.pid) - begin[name]) / wall for name, p in procs.items()}
    finally:
        for p in procs.values():
            p.kill()  # SDL takes SIGTERM as a window's close, which the baselines never look for
            p.wait(timeout=30)
    print(f"\n## CPU over {wall:.0f} s (/proc/PID/stat, the four processes side by side)")
    print(f"baselines: a 20 fps full-screen fill + blit: {share['animation'] * 100:.2f}% of a core; "
          f"a process waking 20 times a second: {share['wakes'] * 100:.3f}%")
    print(f"table run --headless, attract mode: {share['attract'] * 100:.2f}% of a core, "
          f"{share['attract'] / share['animation']:.2f}x the 20 fps fill + blit (goal < 2%)")
    print(f"table run --headless, still lobby: {share['lobby'] * 100:.2f}% of a core, "
          f"{share['lobby'] / max(share['wakes'], 1e-9):.2f}x the 20 wakes a second (goal < 0.5%)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--cpu-seconds", type=float, default=120.0)
    parser.add_argument("--only", nargs="+", choices=("start", "resume", "cpu"),
                        default=["start", "resume", "cpu"])
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the start")
    print(per_core())
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        if "start" in args.only:
            start(args.runs, work)
        if "resume" in args.only:
            resume(args.runs, work)
        if "cpu" in args.only:
            cpu(args.cpu_seconds, work)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
