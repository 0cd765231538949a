"""Sub-commands of ``table``; each module defines ``register(subparsers)``.

:data:`COMMANDS` lists every command with the module that registers it and its one-line
help: the command line reads it to list the commands and imports only the module of
the command given (``table --help`` imports none). A module takes its commands' help
from here, so the list and the parsers never differ.
"""

from __future__ import annotations

from typing import NamedTuple

from table.common.errors import TableError


class Command(NamedTuple):
    module: str
    """The module in this package whose ``register`` adds the command's parser."""
    help: str


COMMANDS: dict[str, Command] = {
    "card-settings": Command("card_settings", "take the venue's settings from the SD card (its service, at boot)"),
    "check-config": Command("check_config", "check a config directory and list every problem"),
    "dice": Command("dice", "the dice tray camera: read, calibrate, watch"),
    "firmware": Command("firmware", "show (or copy) the I/O bridge firmware for mpremote"),
    "install": Command("install", "make this machine boot into the table (user, venv, config, systemd unit)"),
    "uninstall": Command("install", "undo 'table install' (keeps the journal and config unless --purge)"),
    "new-game": Command("new_game", "write a new game's distribution to start from (rules, screen, words, tests)"),
    "play": Command("play", "play a scripted game headless in virtual time"),
    "replay": Command("play", "replay a journaled game and report it"),
    "relay": Command("relay", "publish the journal to the venue's MQTT broker (read-only)"),
    "run": Command("run", "run the table (GPIO if present, else the simulator)"),
    "sim": Command("run", "run the table with simulated hardware in a window"),
    "screens": Command("screens", "render every screen of every game to PNG files"),
    "selftest": Command("selftest", "walk through every station, the LEDs, the camera and the display"),
    "venue": Command("venue", "the venue's wall view and leaderboard for every table (read-only)"),
    "wiring": Command("wiring", "print the header pin map and refuse wiring that cannot work"),
}


def named_path(value: str | None, option: str = "--config", what: str = "folder") -> str | None:
    """A path option's value, None when it was not given; an empty one (``--config ''``,
    which would mean the current folder, or nothing) is refused: ``OPTION names no WHAT``."""
    if value is not None and not value.strip():
        raise TableError(f"{option} names no {what}")
    return value
