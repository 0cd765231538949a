"""``table play SCENARIO`` and ``table replay JOURNAL``: headless games and their reports."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from table.commands import COMMANDS
from table.common.errors import TableError
from table.play.journal import open_existing
from table.play.scenario import check_expectations, load_scenario, run_scenario
from table.play.session import ActionError, Session


def _game_number(text: str) -> int:
    """``--game N``: a game number as the journal numbers them (1 and up, 64-bit)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a game number, not {text!r}") from None
    if not 1 <= value <= 2**63 - 1:
        raise argparse.ArgumentTypeError(f"must be a game number from 1 up, not {value}")
    return value


def _print_report(report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(report, sort_keys=True) + "\n")
        return
    state = "finished" if report["over"] else "not finished"
    print(f"{report['game']} ({report['variant']}), seed {report['seed']}: {state} after round {report['rounds']}")
    for station, score in report["scores"].items():
        mark = "  winner" if int(station) in report["winners"] else ""
        print(f"  station {int(station) + 1}: {score}{mark}")
    if report.get("reason"):
        print(f"  {report['reason']}")


def cmd_play(args: argparse.Namespace) -> int:
    if args.journal is not None and not args.journal.strip():
        raise TableError("--journal needs a file name, not an empty one")
    scenario = load_scenario(args.scenario)
    journal = None
    if args.journal is not None:
        from table.play.journal_open import check_journal_writable, open_daemon_journal, refuse_unwritable

        # The same checks as the daemon's: a regular file (or none yet) in a folder that exists, never another
        # program's file, and one writer at a time. Unlike the daemon, which plays on from memory, a
        # journal that cannot be written is refused before the game: journaling it is what was asked.
        check_journal_writable(args.journal)
        journal = open_daemon_journal(args.journal, wait_s=5)
        refuse_unwritable(journal)
    try:
        session = run_scenario(scenario, journal)
    finally:
        if journal is not None:
            journal.close()
    report = session.report()
    _print_report(report, args.json)
    problems = check_expectations(scenario, report)
    if problems:
        sys.stderr.write(f"table: {args.scenario} did not end as expected: {'; '.join(problems)}\n")
        return 1
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    # Read-only (a mode=ro URI), regular files only: replay never writes to its input.
    with open_existing(args.journal) as journal:
        record = journal.load(args.game) if args.game is not None else journal.latest()
        if record is None:
            sys.stderr.write(f"table: {args.journal} holds no game yet\n")
            return 2
        try:
            session = Session.replay(record.engine, record.setup, record.seed, record.actions)
        except ActionError as exc:
            # Replaying past it would ignore it and report another game than the one played.
            raise TableError(f"{args.journal}: game {record.id} ({record.engine}), {exc}; "
                             "no table journals such a row, so the game is not replayed") from None
    _print_report(session.report(), args.json)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    play = sub.add_parser("play", help=COMMANDS["play"].help)
    play.add_argument("scenario", help="scenario file (TOML, see docs/scenarios.md)")
    play.add_argument("--json", action="store_true", help="print one JSON object")
    play.add_argument("--journal", metavar="FILE", help="also journal the game into FILE")
    play.set_defaults(func=cmd_play)
    replay = sub.add_parser("replay", help=COMMANDS["replay"].help)
    replay.add_argument("journal", help="journal file (SQLite)")
    replay.add_argument("--game", type=_game_number, help="game number in the journal (default: the latest)")
    replay.add_argument("--json", action="store_true", help="print one JSON object")
    replay.set_defaults(func=cmd_replay)
