"""``table card-settings``: take the venue's settings from the SD card's FAT partition.

What ``table-card-settings.service`` runs at every boot of the table's SD card, before
the table starts (:mod:`table.kiosk.card_settings` says what it does). The check of the
staged copy is ``table check-config`` in a process of its own: a file that makes the
check fail in any way cannot take this service down with it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from table.commands import COMMANDS
from table.kiosk.card_settings import CARD_FOLDER, LIVE, RELAY_FILE, STATE, take_card_settings

CHECK_TIMEOUT_S = 600
"""How long the check of a staged folder may take (it reads every game's data: seconds
on a Raspberry Pi 4; a check that hangs is a problem of the settings, said as one)."""


def check_folder(folder: Path) -> list[str]:
    """``table check-config FOLDER``'s problems, one sentence each (none: it passed)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        done = subprocess.run([sys.executable, "-m", "table", "check-config", str(folder)], env=env,
                              capture_output=True, text=True, errors="replace", timeout=CHECK_TIMEOUT_S,
                              check=False)
    except subprocess.TimeoutExpired:
        return [f"table/: the settings' check did not finish in {CHECK_TIMEOUT_S} s"]
    problems = [] if done.returncode == 0 else check_problems(done.stderr) or [
        f"table/: the settings' check stopped with status {done.returncode} and said nothing"]
    return problems + relay_problems(folder)


def relay_problems(folder: Path) -> list[str]:
    """The venue relay's settings (``relay.toml``), which ``check-config`` leaves to the
    relay: checked here as the relay reads them, so a broken one is not taken either."""
    from table.venue.settings import SettingsError, load_section

    path = folder / RELAY_FILE
    if not os.path.lexists(path):
        return []
    try:
        load_section(path, "relay")
    except SettingsError as exc:
        return [str(exc)]
    return []


def check_problems(stderr: str) -> list[str]:
    """The problems in ``table check-config``'s error output: ``table: the config has a
    problem: X``, or ``... has N problems:`` and one indented line each; any other
    sentence as it is (a traceback: its last line)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if not lines:
        return []
    first = lines[0].removeprefix("table: ")
    single = "the config has a problem: "
    if first.startswith(single):
        return [first[len(single):]]
    if first.startswith("the config has ") and first.endswith(" problems:"):
        return [line.strip() for line in lines[1:] if line.startswith("  ")]
    if lines[0].startswith("table: "):
        return [first]
    return [f"table/: the settings' check failed: {lines[-1].strip()}"]


def cmd_card_settings(args: argparse.Namespace) -> int:
    outcome = take_card_settings(Path(args.card), Path(args.live), Path(args.state), check_folder)
    for line in outcome.lines:
        print(line, flush=True)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("card-settings", help=COMMANDS["card-settings"].help)
    p.add_argument("--card", default=str(CARD_FOLDER), metavar="DIR",
                   help=f"the settings folder on the card (default {CARD_FOLDER})")
    p.add_argument("--live", default=str(LIVE), metavar="DIR",
                   help=f"the settings the table reads, a link to a generation in DIR.d (default {LIVE})")
    p.add_argument("--state", default=str(STATE), metavar="DIR",
                   help=f"where the last folder's hash and the problem record are kept (default {STATE})")
    p.set_defaults(func=cmd_card_settings)
