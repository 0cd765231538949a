"""``table selftest``: walk an installer through every station, the LEDs, the camera
and the display, then print a pass/fail table (exit 0 when nothing failed, 1 else).
The arguments in, :func:`table.kiosk.selftest.run_selftest` does the walk (the steps:
:mod:`table.hardware.selftest`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from table.common.errors import TableError
from table.common.i18n import LANGUAGES, set_language
from table.hardware.config import load_hardware
from table.hardware.selftest import PARTS, Step, format_results
from table.kiosk.selftest import run_selftest


def _language(args: argparse.Namespace) -> str:
    """``--lang``, else the language of the table.toml beside the hardware config (or the
    shipped one), else English: the prompts speak the table's language."""
    if args.lang:
        return str(args.lang)
    from table.common.config import ConfigError, load_config

    where = Path(args.config) if args.config else None
    if where is not None and where.is_file():
        where = where.parent
    try:
        return load_config(where).language
    except (ConfigError, OSError):
        return LANGUAGES[0]


def cmd_selftest(args: argparse.Namespace) -> int:
    cfg = load_hardware(args.config)
    set_language(_language(args))
    skip = {p.strip() for p in (args.skip or "").split(",") if p.strip()}
    unknown = skip - set(PARTS) - {"relay"}
    if unknown:
        raise TableError(f"--skip knows {', '.join(PARTS)}, relay, not {', '.join(sorted(unknown))}")

    def say(step: Step | None, text: str) -> None:
        print(f"-> {text}", flush=True)

    results = run_selftest(cfg, [p for p in PARTS if p not in skip], say=say, timeout=args.timeout,
                           out_dir=Path(args.out), camera=args.camera,
                           relay_state=None if "relay" in skip else Path(args.relay_state))
    print()
    print(format_results(results))
    return 1 if any(r.status == "fail" for r in results) else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("selftest", help="walk through every station, the LEDs, the camera and the display")
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
