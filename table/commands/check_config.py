"""``table check-config [DIR] [--kiosk]``: report every problem in a config directory at once.

On a Raspberry Pi, and everywhere with ``--kiosk``, it also checks what the configured
backends need from the machine (:mod:`table.hardware.requirements`): the Python modules
they import, and with ``--kiosk`` whether they can work under the kiosk's unprivileged
service. ``table install`` sets the kiosk up; ``--kiosk`` is how to check a config for it.
"""

from __future__ import annotations

import argparse

from table.common.config import ConfigError, load_config
from table.common.datafiles import use_config_dir
from table.hardware.config import HardwareConfigError, load_hardware_or_sim
from table.hardware.requirements import is_raspberry_pi, kiosk_problems, module_problems


def cmd_check_config(args: argparse.Namespace) -> int:
    problems: list[str] = []
    config = hardware = None
    use_config_dir(args.directory)
    try:
        config = load_config(args.directory)
    except ConfigError as exc:
        problems += exc.problems
    try:
        hardware = load_hardware_or_sim(args.directory)
    except HardwareConfigError as exc:
        problems += exc.problems
    if config is not None and hardware is not None and hardware.backend == "gpio" \
            and len(hardware.stations) < config.stations:
        problems.append(f"{hardware.source}: station: {config.stations} stations play (table.toml) but only "
                        f"{len(hardware.stations)} are wired")
    if hardware is not None and (args.kiosk or is_raspberry_pi()):
        problems += module_problems(hardware)
        if args.kiosk:
            problems += kiosk_problems(hardware, on_pi=is_raspberry_pi())
    if config is not None:
        from table.play.gamedata import option_problems

        problems += option_problems(config, args.directory)
    from table.common.datafiles import data_file
    from table.display.games.umtata.speech import settings_problems

    problems += settings_problems(data_file("umtata/speech.toml", args.directory))[1]
    from table.dice.settings import settings_problems as dice_problems

    problems += dice_problems(data_file("dice/reader.toml", args.directory))[1]
    if problems:
        raise ConfigError(problems)
    assert config is not None and hardware is not None
    print(f"{config.source}: OK ({config.stations} stations, {config.display.width}x{config.display.height})")
    print(f"{hardware.source}: OK ({hardware.backend} stations, {hardware.leds.backend} LEDs)")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("check-config", help="check a config directory and list every problem")
    p.add_argument("directory", nargs="?", default=None,
                   help="config directory (default: the shipped defaults); files it lacks come from the defaults")
    p.add_argument("--kiosk", action="store_true",
                   help="also refuse what cannot work under the kiosk's service (table user, no root), "
                        "and check the Python modules the backends need")
    p.set_defaults(func=cmd_check_config)
