"""The nesting scan (table.common.checks): checked before tomllib or json sees a text.

Properties: a text nested within the bound parses exactly as tomllib/json parse it; a
deeper one is refused with :class:`BoundsError` before it is parsed; and no text at
all, however it nests, raises anything but a decoding error (never a RecursionError).
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tier import examples

from table.common.checks import (
    MAX_NESTING,
    BoundsError,
    json_nesting_problem,
    load_json,
    load_toml,
    toml_nesting_problem,
)


def depth(value: Any) -> int:
    """How deep ``value`` nests: a table or array is one more than its deepest member."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


# Text that tempts a scanner: brackets, quotes, backslashes, comment marks, dots.
TRICKY = st.text(alphabet="ab []{}\"'\\#.=,\n\t", max_size=8)
SCALARS = st.integers(-5, 5) | st.booleans() | TRICKY
KEYS = st.sampled_from(["a", "b", "k-1", "x_y"]) | TRICKY
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(KEYS, inner, max_size=3), max_leaves=12)
DOCS = st.dictionaries(KEYS, VALUES, max_size=4)


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def toml_inline(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON's escapes are TOML's basic-string escapes
    if isinstance(value, list):
        return "[" + ", ".join(toml_inline(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_key(k)} = {toml_inline(v)}" for k, v in value.items()) + "}"


def toml_document(doc: dict[str, Any], data: st.DataObject) -> str:
    """``doc`` as TOML in every form nesting can take: [headers], [[arrays of tables]],
    dotted keys and inline arrays and tables, chosen at random."""
    lines: list[str] = []

    def dotted(key: str, value: Any) -> str:
        if isinstance(value, dict) and len(value) == 1 and data.draw(st.booleans()):
            (k, v), = value.items()
            return f"{toml_key(key)}.{dotted(k, v)}"
        return f"{toml_key(key)} = {toml_inline(value)}"

    def table(path: tuple[str, ...], body: dict[str, Any], header: str) -> None:
        if header:
            name = ".".join(toml_key(p) for p in path)
            lines.append(f"[[{name}]]" if header == "aot" else f"[{name}]")
        later: list[tuple[str, Any, str]] = []
        for key, value in body.items():
            if isinstance(value, dict) and data.draw(st.booleans()):
                later.append((key, value, "table"))
            elif (isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
                  and data.draw(st.booleans())):
                later.append((key, value, "aot"))
            else:
                lines.append(dotted(key, value))
        for key, value, kind in later:
            for part in (value if kind == "aot" else [value]):
                table((*path, key), part, kind)

    table((), doc, "")
    return "\n".join(lines) + "\n"


@settings(max_examples=examples(300), deadline=None)
@given(doc=DOCS, limit=st.integers(1, 8), data=st.data())
def test_toml_within_the_bound_parses_as_tomllib_does(doc: dict[str, Any], limit: int,
                                                      data: st.DataObject) -> None:
    text = toml_document(doc, data)
    assert tomllib.loads(text) == doc  # the writer above writes what it was given
    if depth(doc) <= limit:
        assert toml_nesting_problem(text, limit) is None
        assert load_toml(text, limit) == doc
    else:
        with pytest.raises(BoundsError, match=f"more than {limit} deep"):
            load_toml(text, limit)


@settings(max_examples=examples(300), deadline=None)
@given(value=VALUES, limit=st.integers(0, 8))
def test_json_within_the_bound_parses_as_json_does(value: Any, limit: int) -> None:
    text = json.dumps(value, ensure_ascii=False)
    if depth(value) <= limit:
        assert load_json(text, limit) == value
    else:
        assert json_nesting_problem(text, limit) is not None
        with pytest.raises(BoundsError):
            load_json(text, limit)


PIECES = ["[", "]", "{", "}", "{a = ", "{a.b = ", "a = ", "a.b = ", ", ", "1", '"[["', "'{'", '"""]"""',
          "'''[[[''' ", '"\\""', "# [[\n", "\n", "[[t]]\n", "[t.u]\n", ".", "="]


@settings(max_examples=examples(400), deadline=None)
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=400), limit=st.integers(1, 6))
def test_any_toml_nesting_gives_the_tables_error_or_a_shallow_value(pieces: list[str], limit: int) -> None:
    text = "".join(pieces)
    try:
        value = load_toml(text, limit)
    except tomllib.TOMLDecodeError:  # BoundsError is one: the readers report it with the rest
        return
    assert depth(value) <= limit
    assert value == tomllib.loads(text)


@settings(max_examples=examples(400), deadline=None)
@given(pieces=st.lists(st.sampled_from(["[", "]", "{", "}", '{"a":', ",", "1", '"[{"', '"\\"["', " "]),
                       max_size=400), limit=st.integers(0, 6))
def test_any_json_nesting_gives_a_decoding_error_or_a_shallow_value(pieces: list[str], limit: int) -> None:
    text = "".join(pieces)
    try:
        value = load_json(text, limit)
    except ValueError:
        return
    assert depth(value) <= limit


@settings(max_examples=examples(60), deadline=None)
@given(openers=st.lists(st.sampled_from(["[", "{a = ", "{a.b.c = ", "[{x = "]), min_size=MAX_NESTING,
                        max_size=3000))
def test_deep_toml_is_refused_before_the_parser_recurses(openers: list[str]) -> None:
    closers = "".join("]" if o == "[" else "}" if o.startswith("{") else "}]" for o in reversed(openers))
    with pytest.raises(BoundsError):
        load_toml("x = " + "".join(openers) + "1" + closers)


@pytest.mark.parametrize("text", [
    "x = " + "[" * 20_000 + "]" * 20_000,
    "[" + ".".join(["a"] * 20_000) + "]\n",
    ".".join(["a"] * 20_000) + " = 1\n",
    "".join(f"[[{'.'.join(['a'] * n)}]]\n" for n in range(1, 40)),  # arrays of tables count twice
    'x = """ a "" ""\"\"" \ny = ' + "[" * 20_000 + "]" * 20_000,  # a string ending in quotes hides nothing
])
def test_the_forms_of_deep_toml(text: str) -> None:
    with pytest.raises(BoundsError):
        load_toml(text)


def test_deep_json_and_long_json_are_refused() -> None:
    with pytest.raises(BoundsError, match="more than 64 deep"):
        load_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(BoundsError, match="characters, more than"):
        load_json('"' + "x" * 2_000_000 + '"')
    assert load_json("[" * MAX_NESTING + "]" * MAX_NESTING) is not None


def test_text_with_fewer_marks_than_the_bound_is_not_scanned() -> None:
    """Each level takes a "[", "{" or "." of its own: a text with no more of them than the
    bound allows is within it, and the scanner (its pattern compiled at first use, some
    milliseconds of the table's start) is not needed."""
    from table.common import checks

    checks._toml_token.cache_clear()
    text = "[a.b]\nc.d = [{e = 1}]\n"  # 6 deep (the top table is 1) with 5 marks
    assert toml_nesting_problem(text, 6) is None and load_toml(text, 6) == tomllib.loads(text)
    assert checks._toml_token.cache_info().currsize == 0
    with pytest.raises(BoundsError, match="more than 5 deep"):
        load_toml(text, 5)
    assert checks._toml_token.cache_info().currsize == 1
