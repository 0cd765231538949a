"""``table install`` / ``table uninstall``: make this machine boot into the table, or undo
it. The arguments in, :class:`table.kiosk.install.Installer` does the work (see there
for every step)."""

from __future__ import annotations

import argparse
from pathlib import Path

from table.common.errors import TableError
from table.kiosk.install import VENV, Installer, default_extras


def _installer(args: argparse.Namespace) -> Installer:
    root = Path(args.root)
    if not root.is_dir():
        raise TableError(f"--root {root} is not a directory")
    wheel = Path(args.wheel) if getattr(args, "wheel", None) else None
    if wheel is not None and not (wheel.is_file() and wheel.suffix == ".whl"):
        raise TableError(f"--wheel {wheel} is not a wheel file (*.whl)")
    return Installer(root=root, dry_run=args.dry_run, wheel=wheel)


def cmd_install(args: argparse.Namespace) -> int:
    extras = default_extras() if args.extras is None else args.extras
    return _installer(args).install(extras)


def cmd_uninstall(args: argparse.Namespace) -> int:
    return _installer(args).uninstall(purge=args.purge)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for name, func, text in (
        ("install", cmd_install, "make this machine boot into the table (user, venv, config, systemd unit)"),
        ("uninstall", cmd_uninstall, "undo 'table install' (keeps the journal and config unless --purge)"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--dry-run", action="store_true", help="print what would be done, change nothing")
        p.add_argument("--root", default="/", metavar="DIR", help="install into DIR instead of / (an image)")
        if name == "install":
            p.add_argument("--extras", default=None,
                           help="pip extras for the venv (default: 'pi' on a Raspberry Pi, else none)")
            p.add_argument("--wheel", default=None, metavar="WHEEL",
                           help=f"build {VENV} from this wheel (not needed when run from {VENV} itself)")
        else:
            p.add_argument("--purge", action="store_true", help="also remove /etc/table and the journal")
        p.set_defaults(func=func)
