"""The Umtata question deck: loading and checking ``config/umtata/questions*.toml``.

A deck file holds ``[[question]]`` tables with ``country`` (a board id), ``text`` (the
question as read out, "Umtata" standing for the country), ``topic`` (one of
:data:`TOPICS`) and ``explain`` (one line shown at the reveal). A file may set a
top-level ``topic`` that its questions inherit. Every ``questions*.toml`` in the deck
folder is part of the deck, so owners add their own file beside the shipped ones.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from table.datafiles import data_files
from table.games.umtata.board import Board, load_board

TOPICS: tuple[str, ...] = (
    "capital",
    "currency",
    "flag",
    "geography",
    "language",
    "history",
    "sport",
    "food",
    "people",
    "culture",
    "records",
)
MIN_PER_COUNTRY = 5
MIN_DECK = 400


@dataclass(frozen=True)
class Question:
    """One card: its answer country id, the question, the topic and the reveal line."""

    country: str
    text: str
    topic: str
    explain: str
    source: str = ""

    def to_json(self) -> dict[str, str]:
        return {"country": self.country, "text": self.text, "topic": self.topic, "explain": self.explain}


@dataclass(frozen=True)
class DeckReport:
    """What checking a deck found: the usable questions and every problem (one line each)."""

    questions: tuple[Question, ...]
    problems: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.problems


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def deck_files(folder: Path) -> list[Path]:
    """The deck files in ``folder``, in name order."""
    return sorted(folder.glob("questions*.toml"))


def read_questions(path: Path, problems: list[str]) -> list[Question]:
    """Questions of one file; anything wrong with the file is appended to ``problems``."""
    from table.checks import read_text_input
    from table.errors import TableError

    try:
        data = tomllib.loads(read_text_input(path, "deck file"))  # regular files only, read-only
    except TableError as exc:
        problems.append(str(exc))
        return []
    except tomllib.TOMLDecodeError as exc:
        problems.append(f"{path}: not valid TOML ({exc})")
        return []
    return parse_questions(data, path.name, problems)


def parse_questions(data: Mapping[str, Any], where: str, problems: list[str]) -> list[Question]:
    """Questions from parsed TOML (or the same shape as JSON); problems are appended."""
    default_topic = data.get("topic", "")
    raw_list = data.get("question", [])
    if not isinstance(raw_list, list):
        problems.append(f"{where}: 'question' must be an array of tables ([[question]])")
        return []
    out = []
    for i, raw in enumerate(raw_list, start=1):
        at = f"{where} question {i}"
        if not isinstance(raw, Mapping):
            problems.append(f"{at}: not a table")
            continue
        values = {
            k: raw.get(k, default_topic if k == "topic" else "")
            for k in ("country", "text", "topic", "explain")
        }
        bad = False
        for key in ("country", "text", "topic", "explain"):
            if not isinstance(values[key], str) or not values[key].strip():
                problems.append(f"{at}: missing {'explanation' if key == 'explain' else key}")
                bad = True
        if bad:
            continue
        dashed = [k for k in ("text", "explain") if values[k].lstrip().startswith("-")]
        if dashed:
            # Spoken questions go to a speech program: text starting with "-" could pass as an option.
            problems.append(f"{at}: the {'explanation' if dashed[0] == 'explain' else 'text'} starts with '-'; "
                            "begin it with a word")
            continue
        out.append(
            Question(
                country=values["country"].strip(),
                text=" ".join(values["text"].split()),
                topic=values["topic"].strip(),
                explain=" ".join(values["explain"].split()),
                source=at,
            )
        )
    return out


def check_questions(questions: Iterable[Question], board: Board, complete: bool = True) -> DeckReport:
    """Check questions against ``board``: unknown countries and topics, duplicates, and
    (when ``complete``) the deck's size and the minimum number of questions per country."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    good: list[Question] = []
    for q in questions:
        ok = True
        if not board.has(q.country):
            problems.append(f"{q.source}: unknown country '{q.country}'")
            ok = False
        if q.topic not in TOPICS:
            problems.append(f"{q.source}: unknown topic '{q.topic}' (topics: {', '.join(TOPICS)})")
            ok = False
        key = _norm(q.text)
        if key in seen:
            problems.append(f"{q.source}: duplicate question (same as {seen[key]})")
            ok = False
        else:
            seen[key] = q.source
        if "umtata" not in key:
            problems.append(f"{q.source}: the question must name the hidden country 'Umtata'")
            ok = False
        if ok:
            good.append(q)
    if complete:
        counts = Counter(q.country for q in good)
        for c in board.countries:
            if counts[c.id] < MIN_PER_COUNTRY:
                problems.append(
                    f"{c.name} ({c.id}) answers only {counts[c.id]} questions"
                    f" (at least {MIN_PER_COUNTRY} needed)"
                )
        if len(good) < MIN_DECK:
            problems.append(f"the deck has {len(good)} good questions (at least {MIN_DECK} needed)")
    return DeckReport(tuple(good), tuple(problems))


def check_deck(paths: Sequence[Path], board: Board | None = None, complete: bool = True) -> DeckReport:
    """Read and check the given deck files as one deck."""
    board = board or load_board()
    problems: list[str] = []
    questions: list[Question] = []
    for path in paths:
        questions.extend(read_questions(path, problems))
    report = check_questions(questions, board, complete)
    return DeckReport(report.questions, tuple(problems) + report.problems)


def default_deck() -> tuple[Question, ...]:
    """The deck in force: the shipped deck files merged by name with the config
    directory's ``umtata/questions*.toml`` (an owner's file of the same name replaces the
    shipped one, other files add to it); the good questions."""
    return _checked_deck(tuple(data_files("umtata", "questions*.toml")))


@cache
def _checked_deck(paths: tuple[Path, ...]) -> tuple[Question, ...]:
    return check_deck(paths, complete=False).questions


def deck_from_option(raw: Any) -> tuple[Question, ...]:
    """A deck given in the setup options (a list of question objects); bad ones dropped."""
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return ()
    problems: list[str] = []
    parsed = parse_questions({"question": list(raw)}, "setup deck", problems)
    return check_questions(parsed, load_board(), complete=False).questions
