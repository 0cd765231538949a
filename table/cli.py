"""The ``table`` command.

Sub-commands live in ``table/commands/``: every module there defines
``register(subparsers)`` that adds its parser and sets ``func`` (called with the
parsed arguments, returning the exit status), and :data:`table.commands.COMMANDS`
names each command's module and one-line help. Only the module of the command given is
imported, and it imports what it uses when it runs: ``table --help`` and
``table --version`` load neither pygame nor numpy, nor any game. A game adds its own
commands through its contract (``Game.commands``, see :mod:`table.games.contract`);
the games are looked up only for a command that is not the table's own.

Every problem the user can fix is raised as :class:`table.common.errors.TableError` (or
``ValueError``/``OSError`` from reading their files) and printed as one sentence
with exit status 2; argparse's own usage errors exit 2 too.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import os
import select
import sys
from collections.abc import Sequence

from table import __version__
from table.commands import COMMANDS
from table.common.errors import TableError

log = logging.getLogger("table")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, without the usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"table: {message} (see 'table --help')\n")
        raise SystemExit(2)


def command_word(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (the first word that is no option), or None.

    The table's own options (``-v``, ``--version``, ``--help``) take no values, so the
    first other word is the command."""
    for i, arg in enumerate(argv):
        if arg == "--":
            return argv[i + 1] if i + 1 < len(argv) else None
        if not arg.startswith("-") or arg == "-":
            return arg
    return None


def build_parser(command: str | None = None, *, with_games: bool = False) -> argparse.ArgumentParser:
    """The parser for ``table``: every command listed, the parser of ``command`` (its
    module imported) in full. A command that is not the table's own, or
    ``with_games``, looks up the registered games' commands too."""
    parser = _Parser(prog="table", description="The game table daemon and its tools.",
                     epilog="Each game may add commands of its own (they are found when named).")
    parser.add_argument("--version", action="version", version=f"table {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    chosen = COMMANDS[command].module if command in COMMANDS else None
    for name, entry in COMMANDS.items():
        if entry.module == chosen:
            if name == command:
                importlib.import_module(f"table.commands.{chosen}").register(sub)
            continue
        # Listed for the help and the list of choices; never imported.
        sub.add_parser(name, help=entry.help, add_help=False)
    if with_games or (command is not None and command not in COMMANDS):
        from table.games.contract import games, load_object

        for game in games().values():
            if game.commands is not None:
                load_object(game.commands)(sub)
    return parser


def setup_logging(verbosity: int) -> None:
    """Log to stderr in a form journald reads well (no timestamps under systemd)."""
    level = logging.WARNING - 10 * verbosity
    under_systemd = "JOURNAL_STREAM" in os.environ or "INVOCATION_ID" in os.environ
    fmt = "%(levelname)s %(name)s: %(message)s" if under_systemd else "%(asctime)s %(levelname)s %(name)s: %(message)s"
    logging.basicConfig(level=max(logging.DEBUG, level), format=fmt, stream=sys.stderr)


def _stdout_reader_gone() -> bool:
    """True when standard output is a pipe whose reading end was closed (``table ... | head``).

    Tells that case from a broken pipe elsewhere (a socket), which is still reported."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status, 141 (as if killed by SIGPIPE) when the reader
    of standard output stopped reading, which is no mistake and says nothing."""
    try:
        return _run(argv)
    except BrokenPipeError as exc:
        if not _stdout_reader_gone():
            sys.stderr.write(f"table: {exc}\n")
            return 2
        # Python flushes stdout once more at exit: send what is left to /dev/null so that
        # this flush cannot fail again (the Python documentation's recipe for SIGPIPE).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def _run(argv: Sequence[str] | None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    # While the command's modules are imported the collector runs again and again and
    # finds next to nothing to free (some milliseconds of the kiosk's start).
    gc.disable()
    try:
        parser = build_parser(command_word(words))
        args = parser.parse_args(words)
    finally:
        gc.enable()
    setup_logging(args.verbose)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        status = int(func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the flush at exit
        return status
    except BrokenPipeError:
        raise
    except TableError as exc:
        sys.stderr.write(f"table: {exc}\n")
        return exc.exit_status
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"table: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
