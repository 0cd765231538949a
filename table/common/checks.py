"""Small value checks shared by every config file reader, and the "did you mean" hint.

A check takes a parsed TOML value and returns ``None`` when it is fine, or the end of
a sentence saying what is wrong ("must be from 1 to 5, not 9"); the reader puts the
file and key path in front, so every config problem reads the same way.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import stat
import tomllib
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from table.common.names import name_problem, shown_length

Check = Callable[[Any], str | None]


def whole(lo: int, hi: int) -> Check:
    """A whole number from ``lo`` to ``hi`` (booleans are not numbers here)."""
    def check(v: Any) -> str | None:
        if not isinstance(v, int) or isinstance(v, bool):
            return f"must be a whole number from {lo} to {hi}"
        return None if lo <= v <= hi else f"must be from {lo} to {hi}, not {v}"
    return check


def number(lo: float, hi: float) -> Check:
    """Any finite number from ``lo`` to ``hi`` (``nan`` and ``inf`` never pass)."""
    def check(v: Any) -> str | None:
        if not isinstance(v, int | float) or isinstance(v, bool):
            return f"must be a number from {lo:g} to {hi:g}"
        if isinstance(v, float) and not math.isfinite(v):
            return f"must be a finite number from {lo:g} to {hi:g}, not {v}"
        return None if lo <= v <= hi else f"must be from {lo:g} to {hi:g}, not {v}"
    return check


INT64 = (-(2**63), 2**63 - 1)


def whole64(v: Any) -> str | None:
    """A whole number that fits in 64 bits (SQLite's integers, seeds)."""
    if not isinstance(v, int) or isinstance(v, bool):
        return "must be a whole number"
    if not INT64[0] <= v <= INT64[1]:
        return f"must fit in 64 bits (from {INT64[0]} to {INT64[1]}), not {v}"
    return None


def option_number(option: str, lo: float, hi: float, *, low_open: bool = False) -> Callable[[str], float]:
    """An argparse ``type`` for a finite number from ``lo`` to ``hi``; a bad value is a
    one-line usage error naming the option."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
        msg = number(lo, hi)(value)
        if msg is None and low_open and value <= lo:
            msg = f"must be more than {lo:g}"
        if msg is not None:
            raise argparse.ArgumentTypeError(msg)
        return value
    parse.__name__ = option  # argparse names the type in some messages
    return parse


def boolean(v: Any) -> str | None:
    return None if isinstance(v, bool) else "must be true or false"


def string(v: Any) -> str | None:
    return None if isinstance(v, str) else "must be a string"


def non_empty(v: Any) -> str | None:
    return None if isinstance(v, str) and v else "must be a non-empty string"


NAME_LIMIT = 24
"""The most characters a name shown on the table may have (a station's, a player's)."""


def _unprintable(text: str) -> str | None:
    """The first character of ``text`` that has no place in a name or a path: a control
    character (NUL, a tab, a new line, an escape...) or a line or paragraph separator."""
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            return ch
    return None


def shown_name(v: Any) -> str | None:
    """A name the table shows: a string that :func:`table.common.names.name_problem`
    takes, of at most :data:`NAME_LIMIT` characters."""
    if not isinstance(v, str):
        return f"must be a name (a string), not {v!r}"
    if not v.strip():
        return "must not be empty" if not v else "must not be only spaces"
    odd = _unprintable(v)
    if odd is not None:
        return f"must not hold control characters ({odd!r} in {v[:NAME_LIMIT]!r})"
    if len(v) > 4 * NAME_LIMIT or shown_length(v) > NAME_LIMIT:
        return f"must be at most {NAME_LIMIT} characters, not {shown_length(v):,}"
    problem = name_problem(v, NAME_LIMIT)  # the rest of the one rule for names (table.common.names)
    return None if problem is None else f"{problem} ({v[:NAME_LIMIT]!r})"


def plain_text(v: Any) -> str | None:
    """A string with no control characters (a path, a spec): NUL would end it early."""
    if not isinstance(v, str):
        return "must be a string"
    odd = _unprintable(v)
    return None if odd is None else f"must not hold control characters ({odd!r})"


CAMERA_INDEX_LIMIT = 255
"""The highest ``usb:N`` a camera spec may name (Linux numbers video devices up to 255)."""


def camera_problem(spec: str) -> str | None:
    """Why ``spec`` is not a camera spec the table can open, or None: ``pi``, ``usb``,
    ``usb:N`` (N a whole number from 0 to :data:`CAMERA_INDEX_LIMIT`) or a path (a folder
    or a picture; whether it exists is seen when it is opened). Empty means no camera."""
    odd = _unprintable(spec)
    if odd is not None:
        return f"must not hold control characters ({odd!r})"
    lowered = spec.strip().lower()
    if lowered in ("pi", "usb") and spec != lowered:
        return f"must be written {lowered!r}, not {spec!r}"
    if lowered.startswith("usb:"):
        index = spec.split(":", 1)[1]
        if not (index.isascii() and index.isdigit()) or len(index) > 3 or int(index) > CAMERA_INDEX_LIMIT:
            shown = index if len(index) <= 12 else index[:12] + "..."
            return (f"'usb:N' needs N from 0 to {CAMERA_INDEX_LIMIT} (the camera's number, 0 the first), "
                    f"not {shown!r}")
        if spec != "usb:" + index:
            return f"must be written 'usb:{index}', not {spec!r}"
    return None


def one_of(*options: str) -> Check:
    def check(v: Any) -> str | None:
        return None if v in options else f"must be one of {', '.join(options)}, not {v!r}"
    return check


def did_you_mean(word: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest option, or an empty string."""
    import difflib

    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def check_section(source: str, name: str, value: Any, schema: Mapping[str, Check],
                  problems: list[str]) -> dict[str, Any]:
    """The keys of table ``[name]`` that pass their checks; every other key (unknown,
    or with a bad value) adds one line to ``problems``."""
    if not isinstance(value, dict):
        problems.append(f"{source}: {name}: must be a table ([{name}])")
        return {}
    clean: dict[str, Any] = {}
    for key, v in value.items():
        if key not in schema:
            problems.append(f"{source}: {name}.{key}: unknown key{did_you_mean(key, list(schema))}")
            continue
        msg = schema[key](v)
        if msg:
            problems.append(f"{source}: {name}.{key}: {msg}")
        else:
            clean[key] = v
    return clean


_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}\Z")


def plain_name(what: str) -> Callable[[str], str]:
    """An argparse ``type`` for a name used inside a file name (``--dice NAME``):
    letters, digits, ``-`` and ``_``, at most 40, not starting with ``-``; no ``/``,
    no ``..``, so the name cannot reach outside its folder."""
    def parse(text: str) -> str:
        if not _PLAIN.match(text):
            raise argparse.ArgumentTypeError(
                f"{what} must be a plain name (letters, digits, - and _, at most 40), not {text!r}")
        return text
    return parse


TEXT_LIMIT = 1 << 20  # 1 MiB: far more than any config, deck or scenario the table needs


def read_input(path: str | os.PathLike[str], what: str, limit: int = TEXT_LIMIT) -> bytes:
    """The bytes of an input file, read without writing anything and without waiting.

    Only a regular file is read: a folder, a FIFO (which would block), a device such as
    ``/dev/zero`` (which never ends) or a socket is refused in one sentence, as is a file
    over ``limit`` bytes. Raises :class:`table.common.errors.TableError`.
    """
    from table.common.errors import TableError

    name = os.fspath(path)
    if not name:
        raise TableError(f"the {what} needs a file name, not an empty one")
    try:
        # O_NONBLOCK: a FIFO swapped in after a check must not hang the reader.
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise TableError(f"there is no {what} at {name}") from None
    except OSError as exc:
        raise TableError(f"cannot read the {what} {name} ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = {stat.S_IFDIR: "a folder", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device",
                    stat.S_IFIFO: "a named pipe (FIFO)", stat.S_IFSOCK: "a socket"}.get(stat.S_IFMT(st.st_mode),
                                                                                   "not a regular file")
            raise TableError(f"the {what} {name} is {kind}, not a regular file")
        if st.st_size > limit:
            raise TableError(f"the {what} {name} is {st.st_size:,} bytes, more than the {limit:,} a {what} may be")
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError as exc:
                raise TableError(f"cannot read the {what} {name} ({exc.strerror or exc})") from None
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise TableError(f"the {what} {name} is more than the {limit:,} bytes a {what} may be")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text_input(path: str | os.PathLike[str], what: str, limit: int = TEXT_LIMIT) -> str:
    """:func:`read_input` decoded as UTF-8 (a one-sentence error if it is not)."""
    from table.common.errors import TableError

    data = read_input(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TableError(f"the {what} {os.fspath(path)} is not UTF-8 text (byte {exc.start})") from None


# -- nesting: checked before a parser sees the text ------------------------------------------

MAX_NESTING = 64
"""How deep tables and arrays may nest in a file the table reads (a config, a scenario,
a game's data) and in the JSON a journal stores: far deeper than any file of the table
needs (its own nest at most four deep), far shallower than what exhausts the recursion
of ``tomllib``, ``json`` or the code that walks their values."""

JSON_LIMIT = TEXT_LIMIT
"""The most characters one JSON text stored in a journal (a setup, an action) may have."""


class BoundsError(tomllib.TOMLDecodeError):
    """A text beyond the table's bounds (nested too deep, too long), refused before it is parsed.

    A ``ValueError`` like every decoding error, and a ``tomllib.TOMLDecodeError`` so that
    each TOML reader's ``except tomllib.TOMLDecodeError`` reports it in its own words.
    """

    def __init__(self, message: str) -> None:
        ValueError.__init__(self, message)  # not TOMLDecodeError's (msg, doc, pos) form


@cache
def _toml_token() -> re.Pattern[str]:
    """One token of TOML as far as nesting goes: a string (its brackets and dots are
    text), a comment, or a character that opens, closes or separates. A multi-line string
    may end in up to two quotes of its own before the closing three, as TOML allows.
    Compiled on first use (some 4 ms): the table's own files never need it."""
    return re.compile(
        r'(?P<str>"""(?:[^\\]|\\[\s\S])*?"{3,5}'
        r"|'''[\s\S]*?'{3,5}"
        r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?'
        r"|'[^'\n]*'?)"
        r"|(?P<comment>#[^\n]*)"
        r"|(?P<mark>[\[\]{}=,.\n])"
    )


_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"?|[\[\]{}]')


def _too_deep(text: str, at: int, limit: int) -> str:
    line = text.count("\n", 0, at) + 1
    return f"line {line} nests tables and arrays more than {limit} deep, deeper than the table reads"


def _key_part(text: str) -> str:
    """A TOML key part as written, unquoted where that is plain (to tell headers apart)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and "\\" not in text:
        return text[1:-1]
    return text


def toml_nesting_problem(text: str, limit: int = MAX_NESTING) -> str | None:
    """Why ``text`` nests deeper than ``limit`` as TOML, or None; never parses it.

    The depth counted is the one of the parsed document (the top table is 1, each table
    or array inside adds one): table headers (``[a.b.c]``, one more for each array of
    tables on the path), dotted keys (``a.b.c = 1``) and inline arrays and tables
    (``[[[`` and ``{x = {``), whatever mix of them. Text that is not TOML is measured as
    far as it goes; the parser then says what is wrong with it.
    """
    # Every level below the top table takes a "[", "{" or "." of its own (a header's
    # bracket and dots, an array of tables' second bracket, a dotted key's dot, an inline
    # opening), so text with few of them cannot nest too deep: no scan needed.
    if 1 + text.count("[") + text.count("{") + text.count(".") <= limit:
        return None
    # A frame is an open inline array or table: (its kind, the depth of its values).
    frames: list[tuple[str, int]] = []
    table_depth = 1  # the depth of the table the current [header] opened
    arrays_of_tables: set[tuple[str, ...]] = set()
    at_line_start = True  # top level, nothing yet on this line: a [header] may start
    in_key = True  # reading a key: dots separate its parts
    parts = 1  # the parts of the key being read
    header: list[str] | None = None  # the parts of the [header] being read
    header_aot = False
    skip_next_open = False
    pending = ""  # a key part written as a string, for headers
    last = 0
    for m in _toml_token().finditer(text):
        if header is not None:
            bare = text[last:m.start()]
            if bare.strip():
                pending += bare.strip()
        last = m.end()
        if m.lastgroup == "comment":
            continue
        token = m.group()
        if m.lastgroup == "str":
            if header is not None:
                pending += _key_part(token)
            at_line_start = False
            continue
        if skip_next_open and token == "[":
            skip_next_open = False
            continue
        skip_next_open = False
        if header is not None:
            if token == ".":
                header.append(pending)
                pending = ""
                continue
            if token == "]":
                header.append(pending)
                path = tuple(header)
                if header_aot:
                    arrays_of_tables.add(path)
                # Too deep by its length alone: said before the arrays of tables on its
                # path are counted, which takes time square in its length.
                too_long = 1 + len(path) > limit
                table_depth = 1 + len(path) + (0 if too_long else sum(
                    path[:i] in arrays_of_tables for i in range(1, len(path) + 1)))
                if table_depth > limit:
                    return _too_deep(text, m.start(), limit)
                header = None
                in_key = False
                continue
            if token == "\n":
                header = None  # not a header after all: the parser says so
            else:
                continue
        if token == "\n":
            while frames and frames[-1][0] == "=":
                frames.pop()  # a top-level key's value ends with its line
            if not frames:
                at_line_start, in_key, parts = True, True, 1
            continue
        if token == "[" and not frames and at_line_start:
            header, pending, header_aot = [], "", text.startswith("[[", m.start())
            skip_next_open = header_aot
            at_line_start = False
            continue
        at_line_start = False
        if in_key:
            if token == ".":
                parts += 1
                continue
            if token == "=":
                base = frames[-1][1] if frames else table_depth
                if base + parts - 1 > limit:
                    return _too_deep(text, m.start(), limit)
                in_key = False
                frames.append(("=", base + parts - 1))  # this key's value, until , or } or its line ends
                continue
            if token != "}":  # } ends an inline table in place of a key ({} or a trailing comma)
                continue
            in_key = False
        if token in "[{":
            depth = (frames[-1][1] if frames else table_depth) + 1
            if depth > limit:
                return _too_deep(text, m.start(), limit)
            frames.append((token, depth))
            if token == "{":
                in_key, parts = True, 1
            continue
        if token in "]}":
            while frames and frames[-1][0] == "=":
                frames.pop()
            if frames:
                frames.pop()
            continue
        if token == ",":
            while frames and frames[-1][0] == "=":
                frames.pop()
            if frames and frames[-1][0] == "{":
                in_key, parts = True, 1
            continue
    return None


def json_nesting_problem(text: str, limit: int = MAX_NESTING) -> str | None:
    """Why ``text`` nests its arrays and objects deeper than ``limit`` as JSON, or None."""
    depth = 0
    for m in _JSON_TOKEN.finditer(text):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return _too_deep(text, m.start(), limit)
        elif token in "]}":
            depth -= 1
    return None


def load_toml(text: str, limit: int = MAX_NESTING) -> dict[str, Any]:
    """``tomllib.loads(text)`` for text nested at most ``limit`` deep (see
    :func:`toml_nesting_problem`); deeper text raises :class:`BoundsError` (a
    ``TOMLDecodeError``) before it is parsed. Every reader of the table's TOML uses this."""
    problem = toml_nesting_problem(text, limit)
    if problem is not None:
        raise BoundsError(problem)
    return tomllib.loads(text)


def load_json(text: str, limit: int = MAX_NESTING, *, size: int = JSON_LIMIT) -> Any:
    """``json.loads(text)`` for text of at most ``size`` characters nested at most
    ``limit`` deep; anything else raises :class:`BoundsError` (a ``ValueError``, as
    ``json``'s own errors are) before it is parsed."""
    if len(text) > size:
        raise BoundsError(f"{len(text):,} characters, more than the {size:,} the table reads")
    problem = json_nesting_problem(text, limit)
    if problem is not None:
        raise BoundsError(problem)
    return json.loads(text)
