"""What ``table run`` imports before it tells systemd READY=1: no game's rules (each
registered ``LazyEngine``'s module) unless the journal holds an unfinished game, whose
rules it then needs to resume it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from table.games import games
from table.games.base import GameSetup
from table.games.contract import LazyEngine
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
