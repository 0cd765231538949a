"""The ``table`` command.

Sub-commands live in ``table/commands/``: every module there defines
``register(subparsers)`` that adds its parser and sets ``func`` (called with the
parsed arguments, returning the exit status). Discovery keeps this file stable when
a feature adds a command. A game adds its own commands through its contract
(``Game.commands``, see :mod:`table.games.contract`).

Every problem the user can fix is raised as :class:`table.common.errors.TableError` (or
``ValueError``/``OSError`` from reading their files) and printed as one sentence
with exit status 2; argparse's own usage errors exit 2 too.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import select
import sys
from collections.abc import Sequence

from table import __version__, commands
from table.common.errors import TableError
from table.games.contract import games, load_object

log = logging.getLogger("table")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, without the usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"table: {message} (see 'table --help')\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="table", description="The game table daemon and its tools.")
    parser.add_argument("--version", action="version", version=f"table {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"table.commands.{info.name}")
        module.register(sub)
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
    parser = build_parser()
    args = parser.parse_args(argv)
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
