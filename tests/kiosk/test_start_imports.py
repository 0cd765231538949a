"""What ``table run`` does before it tells systemd READY=1: it imports no game's rules
(each registered ``LazyEngine``'s module) unless the journal holds an unfinished game,
whose rules it then needs to resume it, and it keeps the cyclic collector off."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from table.cli import main
from table.games import games
from table.games.base import GameSetup
from table.games.contract import LazyEngine
from table.kiosk.systemd import Notifier
from table.play.journal import Journal

PROBE = """
import json, os, runpy, sys
import table.kiosk.systemd as systemd

def ready(self, status="ready"):
    from table.games import games
    from table.games.contract import LazyEngine
    rules = {name: game.engine.reference.partition(":")[0] for name, game in games().items()
             if isinstance(game.engine, LazyEngine)}
    print(json.dumps({"rules": rules, "loaded": sorted(n for n, m in rules.items() if m in sys.modules)}),
          file=sys.stderr, flush=True)
    os._exit(0)

systemd.Notifier.ready = ready
sys.argv = ["table", "run", "--headless", "--allow-root", "--journal", sys.argv[1]]
runpy.run_module("table", run_name="__main__")
"""


def rules_loaded_at_ready(journal: Path) -> tuple[dict[str, str], list[str], str]:
    """The lazy games' rule modules by game, the games whose rules were imported at
    READY=1, and what the table wrote on stderr."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "NOTIFY_SOCKET": "@table-test"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(journal)], capture_output=True, text=True, cwd="/",
                          env=env, check=False, timeout=60)
    lines = [line for line in done.stderr.splitlines() if line.startswith("{")]
    assert lines, done.stderr
    found = json.loads(lines[-1])
    return found["rules"], found["loaded"], done.stderr


def test_the_start_imports_no_games_rules(tmp_path: Path) -> None:
    rules, loaded, _ = rules_loaded_at_ready(tmp_path / "journal.db")
    assert rules  # the shipped games register lazily: the check has something to check
    assert loaded == []


def test_an_unfinished_game_has_its_rules_imported_to_resume_it(tmp_path: Path) -> None:
    name, game = next((n, g) for n, g in games().items() if isinstance(g.engine, LazyEngine))
    engine = game.engine
    with Journal(tmp_path / "journal.db") as journal:
        journal.start_game(GameSetup(name, engine.variants[0], tuple(range(engine.min_stations))), 1)
    _, loaded, err = rules_loaded_at_ready(tmp_path / "journal.db")
    assert loaded == [name] and "resumed the unfinished game" in err


def test_the_collector_is_off_for_the_start_and_on_from_ready(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The cyclic collector is off while ``table run`` starts (it would find next to
    nothing to free), and on from READY=1 on, and after a run that fails before it."""
    seen: list[tuple[str, bool]] = []
    ready, watchdog = Notifier.ready, Notifier.watchdog

    def ready_seen(self: Notifier, status: str = "ready") -> bool:
        seen.append(("ready", gc.isenabled()))
        return ready(self, status)

    def watchdog_seen(self: Notifier, now: float | None = None) -> bool:
        seen.append(("watchdog", gc.isenabled()))
        return watchdog(self, now)

    monkeypatch.setattr(Notifier, "ready", ready_seen)
    monkeypatch.setattr(Notifier, "watchdog", watchdog_seen)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    assert main(["run", "--headless", "--allow-root", "--seconds", "0.2", "--journal", str(tmp_path / "j.db")]) == 0
    assert seen[0] == ("ready", False) and seen[1] == ("watchdog", True) and gc.isenabled()
    assert main(["run", "--headless", "--journal", ""]) == 2  # refused before anything starts
    assert gc.isenabled()
    capsys.readouterr()
