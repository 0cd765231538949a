"""Never lose a game: SIGKILL the real daemon at random moments and restart it.

For every registered game a script of random legal play (with pauses and undos) is
written to a TOML file. The reference is the same script played uninterrupted.
Then the daemon - ``table run --headless --script``, the same Runner, table loop,
screens, outputs and journal as the kiosk, with the script in place of the stations,
its clock running at a high speed - is killed with SIGKILL at a random moment,
restarted on the same journal, killed again, ... until it finishes by itself. The
journal must then hold exactly the reference's actions (none lost, none twice) and
the report must be identical. 100 kills in all, spread over the games.
"""

from __future__ import annotations

import math
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from journal_peek import journaled

from table.games import registry
from table.play.journal import Journal
from table.play.scenario import load_scenario, run_scenario
from table.play.scenario_writer import random_script, scenario_toml
from table.play.session import Session, canonical

TOTAL_KILLS = 100
WALL_PER_GAME = 0.8  # seconds of wall time one uninterrupted scripted game takes (after start-up)
START_UP = 0.4  # about what the daemon needs to open the display and journal here
START_KILLS = 0.25  # the share of kills aimed at start-up and resuming rather than play



def reference(script: Path, tmp_path: Path) -> tuple[list[object], str]:
    """Actions journaled and report of the uninterrupted run."""
    ref_journal = tmp_path / f"{script.stem}-ref.db"
    with Journal(ref_journal) as journal:
        session = run_scenario(load_scenario(script), journal)
        assert session.is_over()
        record = journal.latest()
        assert record is not None and record.finished
        return list(record.actions), canonical(session.report())


def journal_result(path: Path) -> tuple[list[object], str, bool, int]:
    with Journal(path) as journal:
        ids = journal.game_ids()
        record = journal.latest()
        assert record is not None
        session = Session.replay(record.engine, record.setup, record.seed, record.actions)
        return list(record.actions), canonical(session.report()), record.finished, len(ids)


def spawn(script: Path, journal: Path, speed: float, env: dict[str, str],
          under_systemd: bool = False) -> subprocess.Popen[bytes]:
    # Under systemd the daemon refuses root unless told; CI runs as root.
    extra = ["--allow-root"] if under_systemd else []
    return subprocess.Popen(
        [sys.executable, "-m", "table", "-v", "run", "--headless", "--script", str(script), "--journal",
         str(journal), "--speed", f"{speed:.3f}", *extra],
        cwd="/", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
    return env


def play_with_kills(script: Path, journal: Path, kills: int, rng: random.Random, moments: list[int]) -> int:
    """Run the script on ``journal`` killing it ``kills`` times; returns the kills done.

    ``moments`` receives the number of journaled actions after each kill.
    """
    last_t = load_scenario(script).inputs[-1].t
    speed = max(1.0, last_t / WALL_PER_GAME)
    env = child_env()
    done = 0
    for _ in range(kills * 20 + 20):
        child = spawn(script, journal, speed, env)
        if done < kills:
            if rng.random() < START_KILLS:
                time.sleep(rng.uniform(0.0, START_UP))  # during start-up or resuming
            else:
                # Mid-game: once this run journals an action of its own, so that a slow
                # machine's longer start-up does not turn these into start-up kills.
                before = journaled(journal)
                deadline = time.monotonic() + 60
                while child.poll() is None and journaled(journal) <= before and time.monotonic() < deadline:
                    time.sleep(0.005)
                time.sleep(rng.uniform(0.0, WALL_PER_GAME / 2))
            if child.poll() is None:
                child.send_signal(signal.SIGKILL)
                child.wait(timeout=30)
                moments.append(journaled(journal))
                done += 1
                continue
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err.decode()
        assert b"Traceback" not in err
        return done
    raise AssertionError("the daemon never finished the game")


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing(tmp_path: Path) -> None:
    games = sorted(registry())
    per_game = math.ceil(TOTAL_KILLS / len(games))
    rng = random.Random(8)
    total = 0
    mid_game = 0
    for name in games:
        killed = 0
        run = 0
        while killed < per_game:
            script = tmp_path / f"{name}-{run}.toml"
            engine = registry()[name]
            # Two or three players: long enough to be killed in, short enough to fsync quickly.
            players = min(engine.max_stations, max(engine.min_stations, 2 + run % 2))
            script.write_text(scenario_toml(random_script(name, seed=100 + run, stations=players, meta_rate=0.03)))
            want_actions, want_report = reference(script, tmp_path)
            journal = tmp_path / f"{name}-{run}.db"
            moments: list[int] = []
            killed += play_with_kills(script, journal, per_game - killed, rng, moments)
            got_actions, got_report, finished, games_in_journal = journal_result(journal)
            mid_game += sum(1 for n in moments if 0 < n < len(want_actions))
            assert finished
            assert games_in_journal == 1
            assert got_actions == want_actions, f"{name} run {run}: journaled actions differ"
            assert got_report == want_report
            run += 1
        total += killed
    assert total >= TOTAL_KILLS
    # Most kills must land while a game is under way, not only during start-up.
    assert mid_game >= TOTAL_KILLS // 2, f"only {mid_game} of {total} kills hit a game in progress"


def test_sigterm_is_a_clean_stop_and_systemd_hears_about_it(tmp_path: Path) -> None:
    name = sorted(registry())[0]
    script = tmp_path / "game.toml"
    script.write_text(scenario_toml(random_script(name, seed=5)))
    want_actions, want_report = reference(script, tmp_path)
    notify_path = tmp_path / "notify"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(notify_path))
    listener.settimeout(10.0)
    journal = tmp_path / "game.db"
    env = child_env()
    env["NOTIFY_SOCKET"] = str(notify_path)
    last_t = load_scenario(script).inputs[-1].t
    try:
        child = spawn(script, journal, last_t / 3.0, env, under_systemd=True)
        first = listener.recv(4096).decode()
        assert "READY=1" in first.split("\n")
        time.sleep(0.5)
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=30)
        assert child.returncode == 0, err.decode()
        assert b"stopping cleanly" in err
        messages = []
        while True:
            try:
                messages.append(listener.recv(4096).decode())
            except TimeoutError:
                break
            if "STOPPING=1" in messages[-1]:
                break
        assert any("STOPPING=1" in m.split("\n") for m in messages)
    finally:
        listener.close()
    partial, _, finished, _ = journal_result(journal)
    assert not finished and 0 < len(partial) < len(want_actions)
    assert partial == want_actions[: len(partial)]
    # Resume in virtual time: the rest of the game, exactly once.
    done = subprocess.run([sys.executable, "-m", "table.kiosk.headless", str(script), "--journal", str(journal),
                           "--allow-root"], cwd="/", env=child_env(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert b"resuming game 1" in done.stderr
    got_actions, got_report, finished, _ = journal_result(journal)
    assert finished and got_actions == want_actions and got_report == want_report
