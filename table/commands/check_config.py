"""``table check-config [DIR]``: report every problem in a config directory at once."""

from __future__ import annotations

import argparse

from table.config import DEFAULT_DIR, load_config


def cmd_check_config(args: argparse.Namespace) -> int:
    config = load_config(args.directory)
    print(f"{config.source}: OK ({config.stations} stations, {config.display.width}x{config.display.height})")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("check-config", help="check a config directory and list every problem")
    p.add_argument("directory", nargs="?", default=str(DEFAULT_DIR), help="config directory (default: config/)")
    p.set_defaults(func=cmd_check_config)
