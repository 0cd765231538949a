"""``table deck check``: validate the Umtata question deck and show what it covers.

Reads the deck in force (the shipped ``umtata/questions*.toml`` merged by name with a
config directory's, ``--config DIR``), every ``questions*.toml`` of one folder
(``--dir``), or the files given, checks them against the board (unknown country,
unknown topic, duplicate question, missing text or explanation, a country with fewer
than five questions, a deck under 400), prints the count per country and per topic,
and exits 2 listing every problem, or 0 when the deck is good.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from table.errors import TableError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("deck", help="check the Umtata question deck")
    sub = parser.add_subparsers(dest="deck_command", metavar="ACTION")
    check = sub.add_parser("check", help="validate the deck and print counts per country and topic")
    check.add_argument(
        "files", nargs="*", type=Path, help="deck files (default: every questions*.toml in --dir)"
    )
    check.add_argument("--dir", type=Path, default=None, help="check only the deck files of this folder")
    check.add_argument("--config", type=Path, default=None, metavar="DIR",
                       help="config directory whose umtata/ files join (or replace) the shipped deck and board")
    check.add_argument(
        "--board", type=Path, default=None, help="board file (default: umtata/board.toml in force)"
    )
    check.set_defaults(func=run_check)
    parser.set_defaults(func=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def run_check(args: argparse.Namespace) -> int:
    from table.datafiles import data_files, use_config_dir
    from table.games.umtata.board import BoardError, load_board
    from table.games.umtata.deck import TOPICS, check_deck, deck_files

    if args.config is not None and not args.config.is_dir():
        raise TableError(f"the config directory {args.config} does not exist")
    use_config_dir(args.config)
    try:
        board = load_board(args.board) if args.board else load_board()
    except BoardError as exc:
        raise TableError(str(exc)) from None
    if args.files:
        from table.checks import read_input

        paths = list(args.files)
        for path in paths:
            read_input(path, "deck file")  # a missing or odd file: one sentence, not a report
    elif args.dir is None:
        paths = data_files("umtata", "questions*.toml")
        if not paths:
            raise TableError("the install has no Umtata deck (umtata/questions*.toml); reinstall the table")
    else:
        folder = args.dir
        if not folder.is_dir():
            raise TableError(f"the deck folder {folder} does not exist")
        paths = deck_files(folder)
        if not paths:
            raise TableError(f"there is no questions*.toml file in {folder}")
    report = check_deck(paths, board)
    out = sys.stdout
    out.write(f"{len(report.questions)} good questions in {len(paths)} file(s)\n\nper country:\n")
    per_country = Counter(q.country for q in report.questions)
    for region in ("north", "east", "south", "west"):
        row = [f"{c.name} {per_country[c.id]}" for c in board.countries if c.region == region]
        out.write(f"  {region:<6} " + ", ".join(row) + "\n")
    per_topic = Counter(q.topic for q in report.questions)
    out.write("\nper topic:\n")
    for topic in TOPICS:
        out.write(f"  {topic:<10} {per_topic[topic]}\n")
    if report.problems:
        err = sys.stderr
        err.write(f"\ntable: the deck has {len(report.problems)} problem(s):\n")
        for problem in report.problems:
            err.write(f"  {problem}\n")
        return 2
    out.write("\nthe deck is good\n")
    return 0
