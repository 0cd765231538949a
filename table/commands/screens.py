"""``table screens [DIR]``: render every screen of the table and of every game to PNG files.

The pictures are the table's own screens (lobby, table menu, paused, attract, leaving
the kiosk), every phase of every variant of every game (random legal play with fixed
seeds), and through the table loop the menu's flows (the menu mid-game, paused, the
final ranking after "end the game"). Each game gets its own sub-folder.

Without DIR they go to a new folder ``table-screens`` under the current directory
(``table-screens-2`` and so on when that one is already there and not empty), never
into the installed package. ``--lang de`` renders the German set. ``--game NAME``
renders one game's screens only: its pictures, every phase of every variant, its
how-to-play card, the menu's flows and its celebrations (the first press, a round's
end, the final, each at the middle of its moment, as a random game shows them).
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from table.commands import COMMANDS
from table.common.errors import TableError
from table.common.i18n import LANGUAGES


def _default_dir() -> Path:
    base = Path.cwd() / "table-screens"
    candidate, n = base, 1
    while candidate.exists() and (not candidate.is_dir() or any(candidate.iterdir())):
        n += 1
        candidate = base.with_name(f"table-screens-{n}")
    return candidate


def cmd_screens(args: argparse.Namespace) -> int:
    from table.common.i18n import set_language
    from table.loop.snapshots import game_screens, render_all

    moments = None
    if args.game is not None:
        from table.games import get_game

        name = get_game(args.game).name  # an unknown game: one sentence naming the known ones
        moments = functools.partial(game_screens, name)
    out = Path(args.directory) if args.directory else _default_dir()
    if out.exists() and not out.is_dir():
        raise TableError(f"{out} is not a folder: name a folder for the pictures")
    set_language(args.lang)
    sizes = ((1920, 1080), (1280, 720)) if args.both_sizes else ((1920, 1080),)
    written = render_all(out, sizes, moments)
    for path in written:
        print(path)
    print(f"table: {len(written)} pictures in {out}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("screens", help=COMMANDS["screens"].help)
    p.add_argument("directory", nargs="?", default=None,
                   help="where to write (default: a new folder ./table-screens)")
    p.add_argument("--both-sizes", action="store_true", help="also render at 1280x720")
    p.add_argument("--game", metavar="NAME", default=None,
                   help="render only this game's screens, its celebrations included (default: every screen)")
    p.add_argument("--lang", choices=LANGUAGES, default=LANGUAGES[0],
                   help="the language of the screens (default: %(default)s)")
    p.set_defaults(func=cmd_screens)
