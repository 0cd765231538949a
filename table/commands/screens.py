"""``table screens [DIR]``: render the table's own screens to PNG files.

Without DIR the pictures go to a new folder ``table-screens`` under the current
directory (never into the installed package or a checkout's docs). ``--lang de`` renders
the German set.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from table.i18n import LANGUAGES


def cmd_screens(args: argparse.Namespace) -> int:
    from table.display.snapshots import render_all
    from table.i18n import set_language

    set_language(args.lang)
    sizes = ((1920, 1080), (1280, 720)) if args.both_sizes else ((1920, 1080),)
    for path in render_all(Path(args.directory), sizes):
        print(path)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("screens", help="render the menu and game screens to PNG files")
    p.add_argument("directory", nargs="?", default="table-screens",
                   help="where to write (default: ./table-screens)")
    p.add_argument("--both-sizes", action="store_true", help="also render at 1280x720")
    p.add_argument("--lang", choices=LANGUAGES, default=LANGUAGES[0],
                   help="the language of the screens (default: %(default)s)")
    p.set_defaults(func=cmd_screens)
