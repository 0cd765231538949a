"""``table check-config [DIR] [--kiosk]``: report every problem in a config directory at once.

On a Raspberry Pi, and everywhere with ``--kiosk``, it also checks what the configured
backends need from the machine (:mod:`table.hardware.requirements`): the Python modules
they import, and with ``--kiosk`` whether they can work under the kiosk's unprivileged
service. ``table install`` sets the kiosk up; ``--kiosk`` is how to check a config for it:
on a Pi that includes whether the service's user and groups can open every device the
config needs, the pins the firmware's boot config claims, and the display's libraries
(:mod:`table.hardware.devices`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from table.commands import COMMANDS, named_path
from table.common.config import ConfigError, load_config
from table.common.datafiles import use_config_dir
from table.games import games
from table.hardware.config import HardwareConfig, HardwareConfigError, load_hardware_or_sim
from table.hardware.requirements import is_raspberry_pi, kiosk_problems, module_problems


def data_problems(directory: Path | None) -> list[str]:
    """Every problem in every registered game's data files under ``directory`` (the
    engine's and the screen's; ``None``: the directory in force)."""
    from table.display.games import renderers

    problems: list[str] = []
    for game in games().values():
        problems += game.data_problems(directory)
    for renderer in renderers().values():
        problems += renderer.data_problems(directory)
    return problems


def blind_knob_warnings(hardware: HardwareConfig, playing: int) -> list[str]:
    """One sentence per game whose players set a secret with the knob (``Game.secret_knob``)
    while some playing station turns a relative encoder and has no private display: its
    player would lock what he cannot see (an absolute switch's printed dial shows it)."""
    if hardware.backend == "sim":
        return []  # the simulator's stations show their private displays
    blind = [i for i, s in enumerate(hardware.stations[:playing]) if s.knob == "encoder" and s.display is None]
    if not blind:
        return []
    names = ", ".join(f"S{i + 1}" for i in blind)
    return [f"{hardware.source}: {names}: {game.engine.title} is played blind there: an encoder shows no one "
            "what he is about to lock; give those stations a display (display = { bus = \"i2c\", "
            "mux_channel = N }) or a 16-position switch with its dial (knob = \"absolute\")"
            for game in games().values() if game.secret_knob]


def cmd_check_config(args: argparse.Namespace) -> int:
    problems: list[str] = []
    config = hardware = None
    named_path(args.directory, "the config directory to check")
    use_config_dir(args.directory)
    try:
        config = load_config(args.directory, games=games())
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
            problems += kiosk_problems(
                hardware, on_pi=is_raspberry_pi(),
                camera=config.tray.camera if config is not None else "",
                sound=config.sound.enabled if config is not None else False)
    if config is not None:
        from table.play.gamedata import option_problems

        problems += option_problems(config, args.directory)
    problems += data_problems(Path(args.directory) if args.directory is not None else None)
    from table.common.datafiles import data_file
    from table.dice.settings import settings_problems as dice_problems

    problems += dice_problems(data_file("dice/reader.toml", args.directory))[1]
    if problems:
        raise ConfigError(problems)
    assert config is not None and hardware is not None
    print(f"{config.source}: OK ({config.stations} stations, {config.display.width}x{config.display.height})")
    print(f"{hardware.source}: OK ({hardware.backend} stations, {hardware.leds.backend} LEDs)")
    for warning in blind_knob_warnings(hardware, config.stations):
        print(f"warning: {warning}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("check-config", help=COMMANDS["check-config"].help)
    p.add_argument("directory", nargs="?", default=None,
                   help="config directory (default: the shipped defaults); files it lacks come from the defaults")
    p.add_argument("--kiosk", action="store_true",
                   help="also refuse what cannot work under the kiosk's service (table user, no root), "
                        "and check the Python modules the backends need")
    p.set_defaults(func=cmd_check_config)
