"""Views carry messages (a message id and its parameters), never sentences: the screens
word them in the table's language, the report in English. Every message an engine puts
in a view during random play is in the catalogues and words with every field filled."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from table.common import i18n
from table.common.i18n import format_message, word
from table.games import registry
from table.games.base import GameSetup, Message, Outcome, counted
from table.play.autoplay import next_random_action
from table.play.session import Session


def test_a_message_words_its_nested_and_counted_parts() -> None:
    tray = counted(("the tray shows {shown} die", "the tray shows {shown} dice"), 1, shown=1)
    play = counted(("{n} is in play", "{n} are in play"), 3, n=3)
    message = Message("{tray}, {in_play}", {"tray": tray, "in_play": play})
    assert message.english() == "the tray shows 1 die, 3 are in play"
    assert message.to_json()["params"]["tray"] == {
        "id": "the tray shows {shown} die", "params": {"shown": 1}, "plural": "the tray shows {shown} dice",
        "count": 1}
    i18n.set_language("de")
    assert word(message.to_json()) == "in der Schale liegt 1 Würfel, 3 sind im Spiel"
    # A message whose fields are not all given is shown unfilled, never raised.
    assert word({"id": "Watch {name}", "params": {}}) == "Schau {name} zu"
    assert word(None) == word("") == word({"id": ""}) == ""


def test_an_outcome_keeps_its_reason_in_english_for_the_report() -> None:
    outcome = Outcome({0: 3}, (0,), Message("reached {target} points", {"target": 16}))
    assert outcome.to_json()["reason"] == "reached 16 points"
    assert Outcome({0: 3}, (0,)).to_json()["reason"] == ""


def _messages(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if isinstance(value.get("id"), str) and "params" in value:
            yield value
            return
        for v in value.values():
            yield from _messages(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _messages(v)


@pytest.mark.parametrize("name", sorted(registry()))
def test_every_message_of_a_view_is_in_the_catalogue_and_fills_its_fields(name: str) -> None:
    engine = registry()[name]
    seen: dict[str, dict[str, Any]] = {}
    for seed in range(3):
        setup = GameSetup(game=name, variant=engine.variants[seed % len(engine.variants)],
                          stations=tuple(range(engine.max_stations)))
        session = Session.start(name, setup, seed)
        rng = random.Random(seed)
        for _ in range(3000):
            for station in (None, *setup.stations):
                for m in _messages(session.engine.view(session.state, station)):
                    seen.setdefault(m["id"], m)
            if session.is_over():
                break
            action = next_random_action(session, rng)
            if action is None:
                break
            session.apply(action)
    for code in i18n.LANGUAGES:
        i18n.set_language(code)
        for ident, m in sorted(seen.items()):
            text = word(m)
            assert "{" not in text, f"{name}, {code}: {ident!r} -> {text!r}"
            if code == "de":
                assert text != format_message(m) or not any(c.isalpha() for c in text), (
                    f"{name}: {ident!r} has no German words")
