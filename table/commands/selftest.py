"""``table selftest``: check that the kiosk's service may open every configured device,
then walk an installer through every station, the LEDs, the camera and the display,
then print a pass/fail table (exit 0 when nothing failed, 1 else). The arguments in,
:func:`table.kiosk.selftest.run_selftest` does the walk (the steps:
:mod:`table.hardware.selftest`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from table.commands import COMMANDS, named_path
from table.common.errors import TableError
from table.common.i18n import LANGUAGES, set_language
from table.hardware.config import load_hardware
from table.hardware.selftest import PARTS, Step, format_results
from table.kiosk.selftest import run_selftest

if TYPE_CHECKING:
    from table.common.config import TableConfig


def _table_config(args: argparse.Namespace) -> TableConfig | None:
    """The table.toml beside the hardware config (or the shipped one); None when unreadable."""
    from table.common.config import ConfigError, load_config

    where = Path(args.config) if args.config else None
    if where is not None and where.is_file():
        where = where.parent
    try:
        return load_config(where)
    except (ConfigError, OSError):
        return None


def _language(args: argparse.Namespace, config: TableConfig | None) -> str:
    """``--lang``, else the table.toml's language, else English: the prompts speak the
    table's language."""
    if args.lang:
        return str(args.lang)
    return config.language if config is not None else LANGUAGES[0]


def cmd_selftest(args: argparse.Namespace) -> int:
    named_path(args.config, what="config directory or hardware.toml")
    cfg = load_hardware(args.config)
    config = _table_config(args)
    set_language(_language(args, config))
    skip = {p.strip() for p in (args.skip or "").split(",") if p.strip()}
    unknown = skip - set(PARTS) - {"relay"}
    if unknown:
        raise TableError(f"--skip knows {', '.join(PARTS)}, relay, not {', '.join(sorted(unknown))}")

    def say(step: Step | None, text: str) -> None:
        print(f"-> {text}", flush=True)

    results = run_selftest(cfg, [p for p in PARTS if p not in skip], say=say, timeout=args.timeout,
                           out_dir=Path(args.out), camera=args.camera,
                           relay_state=None if "relay" in skip else Path(args.relay_state),
                           tray_camera=config.tray.camera if config is not None else "",
                           sound=config.sound.enabled if config is not None else False)
    print()
    print(format_results(results))
    return 1 if any(r.status == "fail" for r in results) else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("selftest", help=COMMANDS["selftest"].help)
    p.add_argument("--config", metavar="PATH",
                   help="config directory or hardware.toml (default: the shipped hardware.toml)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each step (default 30)")
    p.add_argument("--skip", metavar="PARTS", help=f"comma-separated parts to leave out: {', '.join(PARTS)}")
    p.add_argument("--out", default=".", metavar="DIR", help="folder for the camera's picture (default: .)")
    p.add_argument("--camera", default="auto", metavar="SPEC",
                   help="auto (Pi camera, then USB), pi, usb[:N], or a picture file")
    p.add_argument("--relay-state", default="/var/lib/table-relay", metavar="DIR",
                   help="the venue relay's state folder, to report whether it reaches the broker")
    p.add_argument("--lang", choices=LANGUAGES,
                   help="the language of the prompts (default: table.toml's language)")
    p.set_defaults(func=cmd_selftest)
