"""``table firmware``: where the I/O bridge's firmware is, and how to put it on the Pico.

The three MicroPython files (``bridge_logic.py``, ``config.py``, ``main.py``) ship with
the table. Without options the command prints their folder and the ``mpremote`` line
that copies them and restarts the Pico; ``--copy DIR`` copies them into ``DIR`` so the
wiring in ``config.py`` can be edited first (an existing ``config.py`` there is kept).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

from table.commands import COMMANDS
from table.common.errors import TableError
from table.hardware.bridge_protocol import PROTOCOL_VERSION

FILES = ("bridge_logic.py", "config.py", "main.py")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("firmware", help=COMMANDS["firmware"].help)
    parser.add_argument("--copy", type=Path, default=None, metavar="DIR",
                        help="copy the firmware files into DIR (an existing config.py there is kept)")
    parser.add_argument("--port", default="/dev/ttyACM0", help="the Pico's serial port in the printed command")
    parser.set_defaults(func=run)


def firmware_dir() -> Path:
    from table.common.datafiles import package_path

    folder = package_path("firmware")
    missing = [name for name in FILES if not (folder / name).is_file()]
    if missing:
        raise TableError(f"the table's firmware files are missing ({', '.join(missing)} in {folder}); "
                         "reinstall the table")
    return folder


def run(args: argparse.Namespace) -> int:
    folder = firmware_dir()
    if args.copy is not None:
        target: Path = args.copy
        try:
            target.mkdir(parents=True, exist_ok=True)
            for name in FILES:
                if name == "config.py" and (target / name).exists():
                    print(f"kept your {target / name}")
                    continue
                shutil.copyfile(folder / name, target / name)
        except OSError as exc:
            raise TableError(f"cannot copy the firmware to {target}: {exc.strerror or exc}") from None
        folder = target
    files = " ".join(str(folder / name) for name in FILES)
    print(f"I/O bridge firmware (protocol {PROTOCOL_VERSION}): {folder}")
    print("Stop the table (it holds the serial port), then copy and restart the Pico:")
    print(f"  mpremote connect {args.port} cp {files} : + reset")
    return 0
