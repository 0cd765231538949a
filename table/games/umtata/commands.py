"""``table deck check`` and ``table deck review``: the Umtata question decks.

``check`` reads the decks in force (the shipped ``umtata/questions*.toml`` merged by name
with a config directory's, ``--config DIR``), or every ``questions*.toml`` of one folder
(``--dir``), and checks each language's deck against the board: unknown country, topic
or language, duplicate question, missing text or explanation, a question naming its
answer (the board's ``[giveaways]``) or its capital (``[capitals]``, except on a
capital card), a question naming a major city, the language or the people of its
answer (``umtata/giveaways.toml``, except on the reviewed cards it lists by card id),
two cards of one answer resting on the same fact,
a country with fewer than five questions, a deck under 400. Files given by name are
checked alone, as an owner's addition to the deck in force of their language: the
same card checks, duplicates and same-fact pairs against that deck, and no counts.
It prints the count per country and per topic and exits 2 listing every problem, or 0.

``review`` prints every card beside its answer's neighbours on the board (land and sea),
the countries a card's fact is most likely to fit as well, for a person to read through.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from table.common.errors import TableError

if TYPE_CHECKING:  # the deck module is imported when a deck command runs
    from table.games.umtata.deck import Question


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("deck", help="check or review the Umtata question decks")
    sub = parser.add_subparsers(dest="deck_command", metavar="ACTION")
    check = sub.add_parser("check", help="validate the decks and print counts per country and topic")
    check.add_argument(
        "files", nargs="*", type=Path,
        help="deck files to check alone, as an addition to the deck in force (default: the decks in force)",
    )
    check.add_argument("--dir", type=Path, default=None, help="check only the deck files of this folder")
    _common(check)
    check.set_defaults(func=run_check)
    review = sub.add_parser("review", help="print every card beside its answer's neighbours, for a manual review")
    review.add_argument("files", nargs="*", type=Path, help="deck files (default: the deck in force)")
    review.add_argument("--country", default=None, metavar="ID", help="only the cards answered by this country")
    _common(review)
    review.set_defaults(func=run_review)
    parser.set_defaults(func=lambda args: _usage(parser))


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", default=None, metavar="LANG",
                        help="only the deck in this language (en, de; default: every language)")
    parser.add_argument("--config", type=Path, default=None, metavar="DIR",
                        help="config directory whose umtata/ files join (or replace) the shipped deck and board")
    parser.add_argument(
        "--board", type=Path, default=None, help="board file (default: umtata/board.toml in force)"
    )


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _setup(args: argparse.Namespace) -> Any:
    """Apply ``--config`` and ``--lang``; the board in force. Bad input: :class:`TableError`."""
    from table.common.datafiles import use_config_dir
    from table.games.umtata.board import BoardError, load_board
    from table.games.umtata.deck import LANGUAGES

    if args.lang is not None and args.lang not in LANGUAGES:
        raise TableError(f"there is no deck language {args.lang!r} (languages: {', '.join(LANGUAGES)})")
    if args.config is not None and not args.config.is_dir():
        raise TableError(f"the config directory {args.config} does not exist")
    use_config_dir(args.config)
    try:
        return load_board(args.board) if args.board else load_board()
    except BoardError as exc:
        raise TableError(str(exc)) from None


def _in_force() -> list[Path]:
    from table.common.datafiles import data_files

    paths = data_files("umtata", "questions*.toml")
    if not paths:
        raise TableError("the install has no Umtata deck (umtata/questions*.toml); reinstall the table")
    return paths


def _given(files: list[Path]) -> list[Path]:
    from table.common.checks import read_input

    for path in files:
        read_input(path, "deck file")  # a missing or odd file: one sentence, not a report
    return files


def run_check(args: argparse.Namespace) -> int:
    from table.games.umtata.deck import (
        LANGUAGES,
        check_deck,
        check_questions,
        deck_files,
        read_questions,
    )

    board = _setup(args)
    if args.files:
        paths = _given(list(args.files))
        names = {p.name for p in paths}
        problems: list[str] = []
        own = [q for p in paths for q in read_questions(p, problems)]
        if args.lang is not None:
            for other in sorted({(q.source.split(" ", 1)[0], q.language) for q in own if q.language != args.lang}):
                problems.append(f"{other[0]}: is written in {other[1]!r}, not in {args.lang!r}")
        own_langs = sorted({q.language for q in own} if args.lang is None else {args.lang})
        # The deck the files join: the deck in force without the files they replace by name.
        context_problems: list[str] = []
        rest = [q for p in _in_force() if p.name not in names for q in read_questions(p, context_problems)]
        good: list[Question] = []
        for lang in own_langs:
            mine = [q for q in own if q.language == lang]
            report = check_questions([q for q in rest if q.language == lang] + mine, board, complete=False)
            problems.extend(p for p in report.problems if p.split(" ", 1)[0] in names or p.split(":", 1)[0] in names)
            good.extend(q for q in report.questions if q in mine)
        return _print(board, good, len(paths), problems, own_langs, alone=True)
    if args.dir is None:
        paths = _in_force()
    else:
        folder = args.dir
        if not folder.is_dir():
            raise TableError(f"the deck folder {folder} does not exist")
        paths = deck_files(folder)
        if not paths:
            raise TableError(f"there is no questions*.toml file in {folder}")
    report = check_deck(paths, board, language=args.lang)
    langs = [args.lang] if args.lang else sorted({q.language for q in report.questions}, key=LANGUAGES.index)
    return _print(board, list(report.questions), len(paths), list(report.problems), langs)


def _print(
    board: Any, questions: list[Any], files: int, problems: list[str], langs: list[str], alone: bool = False
) -> int:
    """The counts per language, country and topic (``alone``: only the countries and topics
    the files answer), then the problems; the exit status."""
    from table.games.umtata.deck import TOPICS

    out = sys.stdout
    out.write(f"{len(questions)} good questions in {files} file(s)\n")
    for lang in langs:
        mine = [q for q in questions if q.language == lang]
        out.write(f"\n[{lang}] {len(mine)} questions\nper country:\n")
        per_country = Counter(q.country for q in mine)
        for region in ("north", "east", "south", "west"):
            row = [f"{c.name} {per_country[c.id]}" for c in board.countries
                   if c.region == region and (per_country[c.id] or not alone)]
            if row:
                out.write(f"  {region:<6} " + ", ".join(row) + "\n")
        per_topic = Counter(q.topic for q in mine)
        out.write("per topic:\n")
        for topic in TOPICS:
            if per_topic[topic] or not alone:
                out.write(f"  {topic:<10} {per_topic[topic]}\n")
    if problems:
        err = sys.stderr
        err.write(f"\ntable: the deck has {len(problems)} problem(s):\n")
        for problem in problems:
            err.write(f"  {problem}\n")
        return 2
    out.write("\nthe deck is good\n")
    return 0


def run_review(args: argparse.Namespace) -> int:
    from table.games.umtata.deck import read_questions

    board = _setup(args)
    if args.country is not None and not board.has(args.country):
        ids = ", ".join(c.id for c in board.countries)
        raise TableError(f"there is no country {args.country!r} on the board (ids: {ids})")
    paths = _given(list(args.files)) if args.files else _in_force()
    problems: list[str] = []
    questions = [q for p in paths for q in read_questions(p, problems)]
    out = sys.stdout
    shown = 0
    for q in questions:
        if (args.lang is not None and q.language != args.lang) or not board.has(q.country):
            continue
        if args.country is not None and q.country != args.country:
            continue
        answer = board.get(q.country)
        near = sorted(board.get(n).name for n in board.neighbours(q.country))
        out.write(f"{q.source} [{q.language}] {q.topic}\n")
        out.write(f"  {q.text}\n")
        out.write(f"  answer: {answer.name}; does it fit a neighbour too? {', '.join(near) or '(none)'}\n")
        out.write(f"  reveal: {q.explain}\n\n")
        shown += 1
    out.write(f"{shown} card(s) to review\n")
    for problem in problems:
        sys.stderr.write(f"table: {problem}\n")
    return 2 if problems else 0
