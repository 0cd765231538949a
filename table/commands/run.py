"""``table run`` (the daemon) and ``table sim`` (the same table with simulated hardware).

``table run`` uses GPIO when the machine has it and the simulator otherwise; with no
display at all it runs the simulator headless in attract mode and says so. This module
reads the arguments and the config and checks them; the table itself runs in
:mod:`table.kiosk.runner`.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from table.commands import COMMANDS, named_path
from table.common.checks import option_number
from table.common.config import load_config
from table.common.datafiles import use_config_dir
from table.common.errors import TableError
from table.hardware.config import load_hardware_or_sim
from table.kiosk.faults import requested_test_fault
from table.kiosk.systemd import refuse_root

if TYPE_CHECKING:
    from table.display.screens import SettingsNotice

log = logging.getLogger("table.run")

DEFAULT_PROBLEM_RECORD = Path("/var/lib/table-card/settings-problem.json")
"""Where ``table card-settings`` (the SD card's service) records settings it did not take."""


def has_display() -> bool:
    """A desktop session, or a console with a DRM device for SDL's KMS/DRM driver."""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return True
    return os.environ.get("SDL_VIDEODRIVER") in ("kmsdrm", "KMSDRM") and Path("/dev/dri").exists()


def has_gpio() -> bool:
    """True on a Raspberry Pi (a GPIO chip and a Pi model in the device tree)."""
    try:
        model = Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False
    return "Raspberry Pi" in model and any(Path("/dev").glob("gpiochip*"))


def cmd_run(args: argparse.Namespace, force_sim: bool = False) -> int:
    """``table run`` and ``table sim``: the table until it is stopped; its exit status.

    The start (imports, window, journal, the lobby's first frame) allocates much and
    frees little, so the cyclic collector, which would run some thirty times in it for
    nothing (about 8 ms), is off until the runner has sent READY=1 (or the run ends)."""
    named_path(args.config)  # before anything starts
    gc.disable()
    try:
        return _run(args, force_sim)
    finally:
        gc.enable()


def _run(args: argparse.Namespace, force_sim: bool) -> int:
    from table.play.journal_open import check_journal_path

    journal_path = _journal_arg(args.journal)
    requested_test_fault()  # a mistyped test switch is refused before anything starts
    from table.common.config import ConfigError
    from table.games import games
    from table.hardware.config import HardwareConfigError
    from table.play.gamedata import option_problems

    config_dir: str | None = args.config
    notice = None
    while True:
        try:
            use_config_dir(config_dir)
            config = load_config(config_dir, games=games())  # [games.NAME] must name a registered game
            # A wrong journal is said first and alone, before any notice about the hardware.
            check_journal_path(journal_path or config.journal_path(),
                               create_folder=journal_path is None and not config.journal)
            problems = option_problems(config, config_dir, trial=False)  # the values: when each game starts
            if problems:
                raise ConfigError(problems)
            hardware = load_hardware_or_sim(config_dir)
            break
        except (ConfigError, HardwareConfigError) as exc:
            if not args.fallback_settings or config_dir is None:
                raise
            # The kiosk comes up anyway, on the shipped settings, and the lobby says why.
            notice = _settings_notice("config", exc.problems)
            print(f"table: {exc}; the table runs on its shipped settings and shows the problem on the screen",
                  file=sys.stderr)
            config_dir = None
    if args.fallback_settings and notice is None:
        notice = _card_notice(Path(args.settings_problem))
    sim = force_sim or args.sim or hardware.backend == "sim" or (hardware.backend == "gpio" and not has_gpio())
    # The kiosk (real hardware, or anything under systemd) never runs as root; the
    # simulator on a developer's machine may, and --allow-root says so explicitly.
    under_systemd = "NOTIFY_SOCKET" in os.environ or "INVOCATION_ID" in os.environ
    if under_systemd and not sim:
        from table.hardware.requirements import kiosk_problems

        # The game still runs (a failing output is switched off), but the log says why.
        for problem in kiosk_problems(hardware, on_pi=True):
            log.warning("%s", problem)
    if (not sim or under_systemd) and not args.allow_root:
        refuse_root()
    headless = args.headless or not has_display()
    if sim and not force_sim and not args.sim and hardware.backend == "gpio":
        print("table: GPIO is not available on this machine, so the table runs with simulated stations "
              "(the simulator: 'table sim')", file=sys.stderr)
    if headless and not args.headless:
        print("table: no display found: running the simulator headless in attract mode "
              "(stop it with Ctrl-C)", file=sys.stderr)
    script = None
    if args.script:
        from table.play.scenario import load_scenario

        script = load_scenario(args.script)
    from table.kiosk.runner import run_table

    return run_table(config, sim=sim, headless=headless, seconds=args.seconds, hardware=hardware,
                     script=script, speed=args.speed,
                     config_dir=Path(config_dir) if config_dir else None, settings_notice=notice,
                     journal_path=journal_path,
                     screenshot=Path(args.screenshot) if args.screenshot else None,
                     attract_now=headless and not args.headless)


def _settings_notice(where: str, problems: list[str]) -> SettingsNotice:
    from table.display.screens import SettingsNotice

    return SettingsNotice(where, tuple(problems))


def _card_notice(record_path: Path) -> SettingsNotice | None:
    """The notice for the SD card's problem record (``table card-settings`` wrote it),
    or None when there is none."""
    from table.kiosk.card_settings import read_problem

    record = read_problem(record_path.parent, record_path.name)
    if record is None or not record["problems"]:
        return None
    problems = [str(p) for p in record["problems"]]
    notice = _settings_notice("card-partly" if record.get("taken") else "card", problems)
    print(f"table: the settings on the SD card were {'partly ' if record.get('taken') else 'not '}taken "
          f"({record_path}): " + "; ".join(problems), file=sys.stderr)
    return notice


def _journal_arg(value: str | None) -> Path | None:
    """``--journal FILE``: None when not given; an empty name is refused, not read as
    "the default"."""
    if value is None:
        return None
    if not value.strip():
        raise TableError("--journal needs a file name, not an empty one")
    return Path(value)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default=None, metavar="DIR",
                   help="config directory; files it lacks come from the shipped defaults")
    p.add_argument("--journal", metavar="FILE", help="journal file (default from the config)")
    p.add_argument("--headless", action="store_true", help="no window (SDL dummy video driver)")
    p.add_argument("--seconds", type=option_number("--seconds", 0.0, 10**7), help="stop after this many seconds")
    p.add_argument("--screenshot", metavar="PNG", help="save the last frame to this file on exit")
    p.add_argument("--allow-root", action="store_true", help="run the kiosk as root anyway (not recommended)")
    p.add_argument("--script", metavar="SCENARIO", help="play this scenario's inputs instead of the stations' "
                   "(resuming it from the journal after a crash)")
    p.add_argument("--speed", type=option_number("--speed", 0.001, 10**6, low_open=False), default=1.0,
                   help="with --script: run the clock this many times faster (0.001 to 1000000)")
    p.add_argument("--fallback-settings", action="store_true",
                   help="the kiosk's way: when --config fails its check, run on the shipped settings, and show "
                        "that (and the SD card's settings problem, --settings-problem) on the screen; without "
                        "it a bad config stops the table with one sentence")
    p.add_argument("--settings-problem", metavar="FILE", default=str(DEFAULT_PROBLEM_RECORD),
                   help=f"with --fallback-settings: the SD card service's record of settings it did not take "
                        f"(default {DEFAULT_PROBLEM_RECORD})")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("run", help=COMMANDS["run"].help)
    _common(run)
    run.add_argument("--sim", action="store_true", help="simulated stations even on a Pi")
    run.set_defaults(func=cmd_run)
    sim = sub.add_parser("sim", help=COMMANDS["sim"].help)
    _common(sim)
    sim.set_defaults(func=lambda a: cmd_run(argparse.Namespace(**vars(a), sim=True), force_sim=True))
