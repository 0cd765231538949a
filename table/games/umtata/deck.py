"""The Umtata question deck: loading and checking ``config/umtata/questions*.toml``.

A deck file holds ``[[question]]`` tables with ``country`` (a board id), ``text`` (the
question as read out, "Umtata" standing for the country), ``topic`` (one of
:data:`TOPICS`) and ``explain`` (one line shown at the reveal). A file may set a
top-level ``topic`` that its questions inherit, and a top-level ``language`` (one of
:data:`LANGUAGES`; a file without it is English). Every ``questions*.toml`` in the deck
folder whose language is the table's is part of the deck, so owners add their own file
beside the shipped ones (the shipped German deck is ``questions-*.de.toml``).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from table.common.datafiles import data_files
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
LANGUAGES: tuple[str, ...] = ("en", "de")
"""The languages a deck file may be written in (its top-level ``language``)."""
DEFAULT_LANGUAGE = "en"
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
    language: str = DEFAULT_LANGUAGE

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
    """Questions of one file, each carrying the file's language; anything wrong with the
    file is appended to ``problems`` (a file in an unknown language gives no questions)."""
    from table.common.checks import load_toml, read_text_input
    from table.common.errors import TableError

    try:
        data = load_toml(read_text_input(path, "deck file"))  # regular files only, read-only
    except TableError as exc:
        problems.append(str(exc))
        return []
    except tomllib.TOMLDecodeError as exc:
        problems.append(f"{path}: not valid TOML ({exc})")
        return []
    language = data.get("language", DEFAULT_LANGUAGE)
    if language not in LANGUAGES:
        problems.append(f"{path.name}: unknown language {language!r} (languages: {', '.join(LANGUAGES)})")
        return []
    suffix = path.name.removesuffix(".toml").rpartition(".")[2] if path.name.count(".") > 1 else ""
    if suffix in LANGUAGES and suffix != language:
        # questions-x.de.toml without language = "de" would silently join the English deck.
        problems.append(f"{path.name}: the name says {suffix!r} but the file says language = {language!r}")
        return []
    if not data.get("question"):
        # Most likely a misspelt key ("questions") or an unfinished file: say so, not "0 cards".
        problems.append(f"{path.name}: holds no questions (the cards go in 'question = [...]')")
        return []
    return parse_questions(data, path.name, problems, language)


def parse_questions(
    data: Mapping[str, Any], where: str, problems: list[str], language: str = DEFAULT_LANGUAGE
) -> list[Question]:
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
                language=language,
            )
        )
    return out


# English and German words too common to tell two facts apart ("Umtata" is in every card).
_STOPWORD_TEXT = """
about above after again against along also although among another because been before
being below between both came cannot capital cities city comes could country countries
during each every first from further have having here into itself known large largest later
many more most much named near never number other others over same since some still such
than that their them then there these they this those through today under until upon very
were what when where which while whose will with within without would year years world
umtata aber alle allem allen aller alles als auch beim bevor bis damit dann dass dem den
denen der des dessen die dies diese diesem diesen dieser dieses doch dort durch eine einem
einen einer eines einst erst erste ersten erster etwa für gibt haben hatte heute hier ihre
ihrem ihren ihrer ihres immer jahr jahre jahren kein land landes länder ländern mehr meisten
nach nicht noch nur oder ohne seit sein seine seinem seinen seiner sich sind stadt städte
über unter viele vom von vor war waren weil welt wenn werden wird wurde wurden zum zur zwei
zwischen größte größten hauptstadt heißt
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
SIMILAR_SCORE = 0.3
"""Two cards of one answer sharing key words worth this share of the smaller card's are
reported as resting on the same fact (with at least two key words in common)."""


def _key_words(text: str) -> frozenset[str]:
    """The words a card's fact rests on: numbers (years, heights) and the first six letters
    of every longer word that is not a stop word (so "independence" meets "independent")."""
    out: set[str] = set()
    for m in re.finditer(r"\d[\d,.]*\d|\d|[^\W\d_]+", text):
        word = m.group(0)
        if word[0].isdigit():
            digits = re.sub(r"[,.]", "", word)
            if len(digits) >= 2:
                out.add("#" + digits)
            continue
        low = word.lower()
        if len(low) >= 4 and low not in _STOPWORDS and not low.startswith("umtata"):  # "Umtatas"
            out.add(low[:6])
    return frozenset(out)


def similar_pairs(questions: Sequence[Question]) -> list[tuple[Question, Question, tuple[str, ...]]]:
    """Pairs of cards with the same answer that rest on the same fact: they share at least
    two key words (:func:`_key_words`) that weigh at least :data:`SIMILAR_SCORE` of the
    lighter card's. A word weighs more the rarer it is in the deck (inverse document
    frequency), numbers half as much again, so "Mostar" and "2008" count and "river" hardly."""
    keys = [_key_words(q.text) for q in questions]
    df = Counter(k for ks in keys for k in ks)
    n = max(len(questions), 2)

    def weight(k: str) -> float:
        return math.log((n + 1) / df[k]) * (1.5 if k.startswith("#") else 1.0) + 0.1

    by_country: dict[tuple[str, str], list[int]] = {}
    for i, q in enumerate(questions):
        by_country.setdefault((q.language, q.country), []).append(i)
    out = []
    for members in by_country.values():
        for a_pos, a in enumerate(members):
            for b in members[a_pos + 1:]:
                shared = keys[a] & keys[b]
                if len(shared) < 2:
                    continue
                lighter = min(sum(map(weight, keys[a])), sum(map(weight, keys[b])))
                if sum(map(weight, shared)) >= SIMILAR_SCORE * lighter:
                    out.append((questions[a], questions[b], tuple(sorted(shared))))
    return out


def giveaway_pattern(words: Iterable[str]) -> re.Pattern[str] | None:
    """A case-insensitive pattern matching any of ``words`` as whole words (``word*``: any
    word beginning so); ``None`` for no words."""
    parts = []
    for w in sorted(words, key=len, reverse=True):  # the longest first: "Turkish delight", not "Turkish"
        if w.endswith("*"):
            parts.append(re.escape(w[:-1]) + r"\w*")
        else:
            parts.append(re.escape(w))
    if not parts:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


CAPITAL_TOPIC = "capital"
"""The topic whose cards are about the capital itself, so they may name it."""


def giveaway(q: Question, board: Board) -> str | None:
    """The word in ``q``'s text that names its answer (name, adjective, language or a
    product named after it, from the board's ``[giveaways]``), or ``None``."""
    if not board.has(q.country):
        return None
    words = list(board.giveaways.get(q.language, {}).get(q.country, ()))
    words += [board.get(q.country).name, board.name(q.country, q.language)]
    pattern = giveaway_pattern(words)
    found = pattern.search(q.text) if pattern else None
    return found.group(0) if found else None


def capital_named(q: Question, board: Board) -> str | None:
    """The word in ``q``'s text that names its answer's capital or a word made from it
    ("Vaduz", "Prager", "Wiener", from the board's ``[capitals]``), or ``None``. A card of
    the capital topic is about the capital and may name it."""
    if q.topic == CAPITAL_TOPIC or not board.has(q.country):
        return None
    pattern = giveaway_pattern(board.capitals.get(q.language, {}).get(q.country, ()))
    found = pattern.search(q.text) if pattern else None
    return found.group(0) if found else None


GIVEAWAY_FILE = "umtata/giveaways.toml"
"""The words that point at one country (its cities, languages and people) per language,
and the reviewed cards that may name one (:func:`load_pointers`)."""
POINTER_KINDS: tuple[str, ...] = ("cities", "languages", "people")
"""The lists of :data:`GIVEAWAY_FILE`; a city is matched with its case ("Split", "Nice"
name a city, "split" does not), a language or people in any case."""


@dataclass(frozen=True)
class Pointers:
    """Per kind of :data:`POINTER_KINDS`, per language, per country id: the words that give
    the country away; ``allowed``: per language, per card id (:func:`card_id`), the words
    that card may name because its question is about them."""

    words: Mapping[str, Mapping[str, Mapping[str, tuple[str, ...]]]] = field(default_factory=dict)
    allowed: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)


class PointerError(ValueError):
    """The giveaway file is malformed: one sentence."""


def _word_lists(raw: Any, where: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        raise PointerError(f"{where} must map names to lists of words")
    out = {}
    for key, words in raw.items():
        if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
            raise PointerError(f"{where}.{key} must be a list of words")
        out[str(key)] = tuple(w.strip() for w in words)
    return out


def parse_pointers(data: Mapping[str, Any], board: Board, where: str = "giveaways.toml") -> Pointers:
    """:class:`Pointers` from the parsed giveaway file; :class:`PointerError` names the
    first thing wrong (an unknown kind, language or country, a list that is not words)."""
    words: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {}
    allowed: dict[str, dict[str, tuple[str, ...]]] = {}
    for kind, per_language in data.items():
        if kind not in (*POINTER_KINDS, "allowed"):
            raise PointerError(f"{where}: unknown table [{kind}] (tables: {', '.join(POINTER_KINDS)}, allowed)")
        if not isinstance(per_language, Mapping):
            raise PointerError(f"{where}: [{kind}] must hold one table per language")
        for language, table in per_language.items():
            if language not in LANGUAGES:
                raise PointerError(f"{where}: [{kind}.{language}] is no deck language ({', '.join(LANGUAGES)})")
            lists = _word_lists(table, f"{where}: {kind}.{language}")
            if kind == "allowed":
                allowed[language] = lists
                continue
            for cid in lists:
                if not board.has(cid):
                    raise PointerError(f"{where}: {kind}.{language} names unknown country {cid!r}")
            words.setdefault(kind, {})[language] = lists
    return Pointers(words, allowed)


def load_pointers(board: Board, path: Path | None = None) -> Pointers:
    """The giveaway words in force (``umtata/giveaways.toml`` of the config directory, else
    the shipped one); none when there is no such file. :class:`PointerError` when it is
    unreadable or malformed."""
    from table.common.checks import load_toml, read_text_input
    from table.common.datafiles import data_file
    from table.common.errors import TableError

    path = path or data_file(GIVEAWAY_FILE)
    if not path.exists():
        return Pointers()
    try:
        data = load_toml(read_text_input(path, "giveaway file"))
    except TableError as exc:
        raise PointerError(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise PointerError(f"{path}: not valid TOML ({exc})") from None
    return parse_pointers(data, board, path.name)


def card_id(q: Question) -> str:
    """A card's id: its file's topic part and its place in the file, ``"history#014"`` for
    the 14th card of ``questions-history.toml`` (or ``.de.toml``); the source otherwise."""
    m = re.fullmatch(r"questions-?(.*?)(?:\.[a-z]{2})?\.toml question (\d+)", q.source)
    return f"{m.group(1) or 'questions'}#{int(m.group(2)):03d}" if m else q.source


def pointer_named(q: Question, board: Board, pointers: Pointers) -> tuple[str, str] | None:
    """The first word in ``q``'s text that points at its answer through a major city, a
    language or its people (``(kind, word)``, kind one of :data:`POINTER_KINDS`), unless the
    card is allowed to name it; ``None``."""
    allowed = {w.lower() for w in pointers.allowed.get(q.language, {}).get(card_id(q), ())}
    for kind in POINTER_KINDS:
        # Every word in the pattern, the longest first, so "Cluj-Napoca" is read whole
        # (and allowed whole) rather than as "Cluj".
        pattern = giveaway_pattern(pointers.words.get(kind, {}).get(q.language, {}).get(q.country, ()))
        if pattern is None:
            continue
        if kind == "cities":  # a city with its case: "Split" names a city, "split" does not
            pattern = re.compile(pattern.pattern)
        for found in pattern.finditer(q.text):
            if found.group(0).lower() not in allowed:
                return kind, found.group(0)
    return None


_KIND_WORDS = {"cities": "a major city of its answer", "languages": "its answer's language",
               "people": "its answer's people"}


def check_questions(
    questions: Iterable[Question], board: Board, complete: bool = True, pointers: Pointers | None = None
) -> DeckReport:
    """Check questions against ``board``: unknown countries and topics, duplicates, a card
    naming its answer, two cards resting on the same fact, and (when ``complete``) the
    deck's size and the minimum number of questions per country. The questions are one
    language's deck. ``pointers``: the cities, languages and people that give an answer
    away (default: :func:`load_pointers`)."""
    problems: list[str] = []
    if pointers is None:
        try:
            pointers = load_pointers(board)
        except PointerError as exc:  # reported; the cards are still checked for the rest
            problems.append(str(exc))
            pointers = Pointers()
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
        named = giveaway(q, board)
        if named:
            problems.append(f"{q.source}: the question gives its answer away ({named!r})")
            ok = False
        capital = capital_named(q, board)
        if capital:
            problems.append(f"{q.source}: the question names its answer's capital ({capital!r})")
            ok = False
        pointer = pointer_named(q, board, pointers)
        if pointer:
            problems.append(f"{q.source} ({card_id(q)}): the question names {_KIND_WORDS[pointer[0]]}"
                            f" ({pointer[1]!r})")
            ok = False
        if ok:
            good.append(q)
    for a, b, shared in similar_pairs(good):
        problems.append(f"{b.source}: rests on the same fact as {a.source} ({', '.join(shared)})")
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


def check_deck(
    paths: Sequence[Path], board: Board | None = None, complete: bool = True, language: str | None = None
) -> DeckReport:
    """Read and check the given deck files: the questions of ``language`` as one deck, or
    (``None``) each language found as a deck of its own."""
    board = board or load_board()
    problems: list[str] = []
    questions: list[Question] = []
    for path in paths:
        questions.extend(read_questions(path, problems))
    languages = [language] if language is not None else sorted({q.language for q in questions})
    good: list[Question] = []
    for lang in languages:
        report = check_questions([q for q in questions if q.language == lang], board, complete)
        good.extend(report.questions)
        prefix = f"[{lang}] " if len(languages) > 1 else ""
        problems.extend(prefix + p for p in report.problems)
    return DeckReport(tuple(good), tuple(problems))


def check_language(language: str) -> str:
    """``language`` if a deck may be written in it; otherwise :class:`ValueError` in one sentence."""
    if language not in LANGUAGES:
        raise ValueError(f"there is no Umtata deck in language {language!r} (languages: {', '.join(LANGUAGES)})")
    return language


def default_deck(language: str = DEFAULT_LANGUAGE) -> tuple[Question, ...]:
    """The deck in force in ``language`` ("en" or "de"): the shipped deck files merged by
    name with the config directory's ``umtata/questions*.toml`` (an owner's file of the
    same name replaces the shipped one, other files add to it), keeping the files written
    in ``language``; the good questions. :class:`ValueError` for an unknown language."""
    return _checked_deck(tuple(data_files("umtata", "questions*.toml")), check_language(language))


@cache
def _checked_deck(paths: tuple[Path, ...], language: str) -> tuple[Question, ...]:
    return check_deck(paths, complete=False, language=language).questions


def deck_from_option(raw: Any, language: str = DEFAULT_LANGUAGE) -> tuple[Question, ...]:
    """A deck given in the setup options (a list of question objects, in ``language``);
    bad ones dropped."""
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return ()
    problems: list[str] = []
    parsed = parse_questions({"question": list(raw)}, "setup deck", problems, language)
    return check_questions(parsed, load_board(), complete=False).questions
