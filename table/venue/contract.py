"""The venue contract: MQTT topics and versioned JSON payloads (docs/venue.md).

Everything a table publishes lives under ``venue/v1/<table>/``:

* ``status`` (retained, QoS 1): is the table online, its current game, round,
  players and scores, when it last saw an input, and the health of its camera, LEDs
  and stations. The relay's last will is an ``online: false`` status on this topic.
* ``games/<game>/events`` (QoS 1): one message per journaled action of a game, with
  the round and scores after it and the engine's events it caused.
* ``results/<game>`` (retained, QoS 1): a finished game's players, scores and winners.

Every payload carries ``v`` (the contract's version), ``type``, ``table`` and, for
game messages, the journal's game id, start time and sequence number, so a
consumer can drop a second delivery of the same message: ``(table, game, started,
seq)`` names an event and ``(table, game, started)`` a result.

:func:`validate` checks a payload against ``schema.json`` (shipped in this package);
:func:`decode` reads one received message within explicit bounds (size, nesting,
integers, finite numbers, strings, times against the receiver's clock), the
``x-bounds`` of the schema, and never raises anything but :class:`ContractError`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any, NoReturn

from table.venue import schema_check

VERSION = 1
ROOT = f"venue/v{VERSION}"
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
# The receiver's bounds (the schema's ``x-bounds``; docs/venue.md, Bounds). A table's
# biggest message is a few kilobytes and five levels deep.
MAX_PAYLOAD = 64 * 1024
MAX_DEPTH = 16
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
AHEAD_S = 600.0  # a table's clock may run this far ahead of the venue's
BEHIND_S = 30 * 86400.0  # older messages are not of this event (offline statuses excepted)
MAX_GAME_S = 2 * 86400.0
SEQ_STEP = 1000  # a relay publishes at most 200 messages a pass; statuses follow every change
# "venue" is the venue program's MQTT user: no table may carry its name.
RESERVED = frozenset({"venue"})


class ContractError(ValueError):
    """A payload or topic that does not follow the venue contract."""


def check_table_id(table: str) -> str:
    """Return ``table`` if it can be a topic level and an MQTT user name, else raise."""
    if not TABLE_ID.match(table):
        raise ContractError(
            f"the table id {table!r} must be 1 to 32 letters, digits, '-' or '_' (it names MQTT topics and users)"
        )
    if table.lower() in RESERVED:
        raise ContractError(f"the table id {table!r} is the venue program's MQTT user; give the table another id")
    return table


def status_topic(table: str) -> str:
    return f"{ROOT}/{table}/status"


def event_topic(table: str, game: int) -> str:
    return f"{ROOT}/{table}/games/{game}/events"


def result_topic(table: str, game: int) -> str:
    return f"{ROOT}/{table}/results/{game}"


def table_of(topic: str) -> str | None:
    """The table id a topic belongs to (None if it is not a venue topic)."""
    parts = topic.split("/")
    if len(parts) < 3 or f"{parts[0]}/{parts[1]}" != ROOT:
        return None
    return parts[2] if TABLE_ID.match(parts[2]) and parts[2].lower() not in RESERVED else None


@cache
def schema() -> dict[str, Any]:
    """The JSON schema of every payload (``table/venue/schema.json``)."""
    text = resources.files("table.venue").joinpath("schema.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def _checker(kind: str | None = None) -> schema_check.Check:
    """The whole schema's check, or (``kind``) the one of that message type alone, compiled once."""
    return schema_check.compile_schema(schema(), kind)


def validate(payload: object) -> None:
    """Raise :class:`ContractError` (one sentence) when ``payload`` breaks the schema.

    The check is compiled once from ``schema.json`` (:mod:`table.venue.schema_check`):
    a generic validator cost about nine tenths of the handling of a message.
    """
    kind = payload.get("type") if isinstance(payload, dict) else None
    # Checked against its own type's definition, the problem names the field, not the whole message.
    problem = (_checker(kind) if kind in ("status", "event", "result") else _checker())(payload)
    if problem is not None:
        raise ContractError(f"{schema_check.where(problem[0])}: {problem[1]}"[:300])


def encode(payload: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON, the wire form."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode("utf-8")


# -- reading a received message within bounds --------------------------------------------------
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """True when ``text`` nests brackets deeper than ``limit`` (or its brackets do not pair).

    Runs before :func:`json.loads`, whose recursion a deep nest would exhaust. Strings
    are cut out first; then each pass removes the innermost pairs, so ``limit``
    passes empty any text nested at most ``limit`` deep. Every step is a regular
    expression or a string method: linear, no recursion, whatever the input.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(limit):
        if not brackets:
            return False
        brackets, removed = _INNERMOST.subn("", brackets)
        if not removed:
            return True  # brackets left, none of them an innermost pair: they do not pair
    return bool(brackets)


def _int(digits: str) -> int:
    # 19 digits and a sign hold every int64; longer text is refused before int() sees it.
    if len(digits) > 20:
        raise ContractError(f"an integer of {len(digits)} digits is larger than a venue message may carry")
    value = int(digits)
    if not INT64_MIN <= value <= INT64_MAX:
        raise ContractError(f"the integer {value} does not fit 64 bits")
    return value


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ContractError(f"the number {text[:40]} is too large for a double")
    return value


def _constant(name: str) -> NoReturn:
    raise ContractError(f"{name} is not a number a venue message may carry")


def _check_strings(value: object) -> None:
    """Every string (keys included) must be encodable UTF-8: JSON's \\u escapes can name lone surrogates."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise ContractError("a string holds a lone surrogate (not valid Unicode)") from None
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def parse(raw: bytes) -> Any:
    """The JSON value of ``raw`` within the size, depth, number and string bounds.

    Raises :class:`ContractError` (one sentence) for anything outside them, and
    nothing else.
    """
    if len(raw) > MAX_PAYLOAD:
        raise ContractError(f"{len(raw)} bytes is larger than the {MAX_PAYLOAD} a venue message may be")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ContractError("not JSON (not UTF-8 text)") from None
    if too_deep(text):
        raise ContractError(f"not JSON nested at most {MAX_DEPTH} levels deep (its brackets nest deeper or do "
                            "not pair)")
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except ContractError:
        raise
    except (ValueError, RecursionError) as exc:
        raise ContractError(f"not JSON ({str(exc)[:120]})") from None
    if "\\u" in text:  # only an escape can name a lone surrogate: UTF-8 decoding refuses them
        _check_strings(value)
    return value


def _time_problem(payload: Mapping[str, Any], now: float | None, old: bool) -> str | None:
    """Which time of ``payload`` lies outside the window around ``now`` (None: all inside).

    With ``now`` None only the rules that need no clock apply (a result's play must
    lie within its own start and length); with ``old`` True a payload may be old.
    """
    kind = payload["type"]
    ahead = math.inf if now is None else now + AHEAD_S
    behind = -math.inf if now is None or old else now - BEHIND_S
    times: list[tuple[str, float]] = []
    if kind == "status":
        times.append(("sent", payload["sent"]))
        if payload["online"] and payload["sent"] < behind:
            return f"an online status sent {_ago(now, payload['sent'])} is too old"
        game = payload.get("game")
        if game:
            times.append(("game/started", game["started"]))
            if game.get("last_input") is not None:
                times.append(("game/last_input", game["last_input"]))
    elif kind == "event":
        if payload["started"] < behind:
            return f"a game started {_ago(now, payload['started'])} is too old"
        # Not started + t: table time is a scripted table's own and may run ahead of the clock.
        times.append(("started", payload["started"]))
    else:
        started, finished = payload["started"], payload["finished"]
        if finished < started:
            return "the game finished before it started"
        if finished - started > MAX_GAME_S:
            return f"a game of {(finished - started) / 3600:.0f} hours is longer than {MAX_GAME_S / 3600:.0f}"
        if finished < behind:
            return f"a game finished {_ago(now, finished)} is too old"
        times.append(("finished", finished))
    for name, t in times:
        if t > ahead:
            return f"{name} lies {t - (ahead - AHEAD_S):.0f} s ahead of the venue's clock (at most {AHEAD_S:.0f})"
    return None


def _ago(now: float | None, t: float) -> str:
    return "long ago" if now is None else f"{(now - t) / 86400:.0f} days ago"


def check_bounds(payload: Mapping[str, Any], now: float | None, old: bool = False) -> None:
    """The rules beyond the schema (``x-bounds``) for a payload that follows it.

    ``now`` is the receiver's clock (None skips the window); ``old`` allows payloads
    from before the window (results stored long ago stay in the file, off the page).
    """
    problem = _time_problem(payload, now, old)
    if problem is None and payload["type"] == "result":
        stations = [p["station"] for p in payload["players"]]
        if len(set(stations)) != len(stations):
            problem = "two players sit at the same station"
    if problem is not None:
        raise ContractError(problem)


def decode(raw: bytes, topic: str, now: float | None = None) -> dict[str, Any]:
    """Parse and check one message; raises :class:`ContractError` with a reason, nothing else.

    The payload must lie within the bounds (:func:`parse`), follow the schema and the
    rules beyond it (:func:`check_bounds`, times against ``now``, the receiver's
    clock; None skips the window), and name the table of its topic (the broker's ACL
    lets a table write only its own topics, so this ties a payload to its sender).
    """
    payload = parse(raw)
    if not isinstance(payload, dict):
        raise ContractError("not a JSON object")
    validate(payload)
    if payload["table"] != table_of(topic):
        raise ContractError(f"a message for table {payload['table']!r} arrived on {topic[:120]}")
    check_bounds(payload, now)
    return payload


def stored_problem(payload: dict[str, Any], now: float) -> str | None:
    """Why a payload read back from the venue's file may not be served (None: it may).

    The same bounds as a received message (written out and read again, so a stored
    NaN, infinity or lone surrogate is caught like a received one), except that it
    may be old.
    """
    try:
        text = json.dumps(payload, allow_nan=True, sort_keys=True)
        checked = parse(text.encode("utf-8"))
        validate(checked)
        if str(checked["table"]).lower() in RESERVED:
            return f"{checked['table']!r} is the venue program's user, not a table"
        check_bounds(checked, now, old=True)
    except ContractError as exc:
        return str(exc)
    except (TypeError, ValueError, KeyError) as exc:
        return f"cannot be read ({type(exc).__name__}: {exc})"
    return None
