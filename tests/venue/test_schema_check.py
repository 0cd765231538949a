"""The venue's compiled schema check against the reference: ``jsonschema`` on ``schema.json``.

``table venue`` checks messages with closures compiled once from the schema
(:mod:`table.venue.schema_check`). Whatever it is given, its verdict must be the one
of a full JSON Schema 2020-12 validator reading the same versioned file.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from table.play.journal import Journal
from table.play.scenario import load_scenario, run_scenario
from table.venue import contract, schema_check
from table.venue.follow import JournalFollower, Position

SCENARIOS = Path(__file__).resolve().parents[2] / "docs" / "scenarios"
KINDS = ("status", "event", "result")
NOW = time.time()


def _reference(kind: str | None) -> Draft202012Validator:
    whole = contract.schema()
    if kind is None:
        return Draft202012Validator(whole)
    return Draft202012Validator({"$schema": whole["$schema"], "$defs": whole["$defs"], "$ref": f"#/$defs/{kind}"})


REFERENCE = {kind: _reference(kind) for kind in (*KINDS, None)}
COMPILED = {kind: schema_check.compile_schema(contract.schema(), kind) for kind in (*KINDS, None)}


def _agree(payload: Any) -> bool:
    """Both verdicts, for each type's definition and the whole schema; True if valid."""
    verdicts = set()
    for kind in (*KINDS, None):
        ours = COMPILED[kind](payload) is None
        theirs = REFERENCE[kind].is_valid(payload)
        assert ours == theirs, (kind, payload, COMPILED[kind](payload))
        verdicts.add(ours)
    return True in verdicts


def _payloads() -> dict[str, dict[str, Any]]:
    game = {"id": 3, "started": NOW - 400, "engine": "ubongo", "title": "Ubongo", "variant": "standard", "round": 4,
            "over": False, "paused": False, "seq": 30, "last_input": NOW - 5,
            "players": [{"station": 0, "name": "Ines", "score": 14}, {"station": 1, "name": "Jonas", "score": 17}]}
    return {
        "status": {"v": 1, "type": "status", "table": "Bar-1", "online": True, "sent": NOW, "reason": "",
                   "game": game, "health": {"camera": "fault", "leds": "ok", "stations": "off", "detail": "x"}},
        "event": {"v": 1, "type": "event", "table": "Bar-1", "game": 3, "started": NOW - 400, "engine": "ubongo",
                  "seq": 31, "t": 12.5, "kind": "press", "station": 1, "round": 4, "scores": {"0": 14, "1": 18},
                  "over": False, "events": [{"t": 12.5, "kind": "solved", "station": 1}]},
        "result": {"v": 1, "type": "result", "table": "Bar-1", "game": 3, "started": NOW - 400, "finished": NOW,
                   "engine": "ubongo", "title": "Ubongo", "variant": "standard", "actions": 40, "rounds": 9,
                   "reason": "nine rounds played", "ended": "early",
                   "players": [{"station": 0, "name": "Ines", "score": 31, "winner": False},
                               {"station": 1, "name": "Jonas", "score": 35, "winner": True}]},
    }


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, inner in items:
        out += _paths(inner, (*prefix, key))
    return out


# Values near every bound and type the schema draws: whole floats, booleans for numbers,
# strings at their lengths and with a newline after a pattern's end, nulls, containers.
edges = st.sampled_from([
    0, 1, -1, 2.0, 1.5, True, False, None, "", "x", "T1\n", "Bar 1", "a" * 32, "a" * 33, "a" * 60, "a" * 61,
    "early", "late", "ok", "fault", "status", "event", "result", 15, 16, -1000000, -1000001, 1000000, 1000001,
    1000000000, 1000000001, 4102444800, 4102444801, 172800, 172801, 9999999, 10000000, 10000, 10001, [], {},
    [1], {"a": 1}, {"0": 1}, {"00": 1}, {"123": 1}, 1e300, -0.0,
])
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
                           | edges, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=4) | st.sampled_from(["station", "name", "score",
                                                                                     "winner", "t", "kind"]),
                                             inner, max_size=3), max_leaves=8)
change = st.tuples(st.sampled_from(["set", "delete", "add"]), st.integers(min_value=0), json_values,
                   st.sampled_from(["extra", "winner", "station", "ended", "game", "reason", "detail", "0", "99"]))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(KINDS), st.lists(change, min_size=0, max_size=4))
def test_the_compiled_check_agrees_with_jsonschema(kind: str, changes: list[tuple[str, int, Any, str]]) -> None:
    payload = copy.deepcopy(_payloads()[kind])
    for op, where, drawn, name in changes:
        # sampled_from hands out the same [] and {} every time: a copy keeps a later change
        # from nesting a value in itself or altering the strategy's own objects.
        value = copy.deepcopy(drawn)
        paths = [p for p in _paths(payload) if p or op == "add"]
        if not paths:
            continue
        path = paths[where % len(paths)]
        target: Any = payload
        for key in path[:-1] if op != "add" else path:
            target = target[key]
        if op == "set":
            target[path[-1]] = value
        elif op == "delete":
            del target[path[-1]]
        elif isinstance(target, dict):
            target[name] = value
        elif isinstance(target, list):
            target.append(value)
    _agree(payload)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_value_gets_the_same_verdict(value: Any) -> None:
    assert not _agree(value) or isinstance(value, dict)


def test_the_untouched_payloads_and_every_journal_message_are_valid(tmp_path: Path) -> None:
    for payload in _payloads().values():
        assert _agree(payload)
    with Journal(tmp_path / "j.db") as journal:
        for name in ("ugah-whole-game.toml", "shimo-full-game.toml"):
            run_scenario(load_scenario(SCENARIOS / name), journal)
    follower = JournalFollower(tmp_path / "j.db", "T1")
    try:
        messages, _ = follower.messages_after(Position(1, 0), 10_000)
        game = follower.live_game()
    finally:
        follower.close()
    assert messages
    for m in messages:
        assert _agree(m.payload)
    assert _agree({"v": 1, "type": "status", "table": "T1", "online": True, "sent": NOW, "game": game})


@pytest.mark.parametrize(("path", "value", "words"), [
    (("game",), 2**64, "game: 18446744073709551616 is greater than the maximum of 1000000000"),
    (("players", 1, "score"), True, "players/1/score: True is not of type 'integer'"),
    (("table",), "T 1", "table: 'T 1' does not match"),
    (("ended",), "late", "ended: 'early' was expected"),
    (("players",), [], "players: [] is too short"),
])
def test_a_problem_names_its_field_in_one_sentence(path: tuple[Any, ...], value: Any, words: str) -> None:
    payload: Any = _payloads()["result"]
    target = payload
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(contract.ContractError) as err:
        contract.validate(payload)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_keyword_the_checker_does_not_know_is_refused_when_compiled() -> None:
    with pytest.raises(schema_check.SchemaUnsupported, match="'uniqueItems'"):
        schema_check.compile_schema({"type": "array", "uniqueItems": True})
    with pytest.raises(schema_check.SchemaUnsupported, match="only '#/\\$defs/NAME'"):
        schema_check.compile_schema({"$ref": "https://example.invalid/other.json"})
    with pytest.raises(schema_check.SchemaUnsupported, match="arrays or objects"):
        schema_check.compile_schema({"const": [1]})
