"""The one rule for names (table.common.names), and the edges that use it."""

from __future__ import annotations

import pytest

from table.common.checks import shown_name as station_name_problem
from table.common.config import _player_names
from table.common.names import LIMIT, name_problem, shown_length, shown_name, unnamed

FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"
GOOD = ["Ada", "José", "Zoë", "محمد", "李小龙", "O'Neil-Smith", "Ada 2", FAMILY, "\U0001F44D\U0001F3FD",
        "\u2764\ufe0f", "Ada \u2764\ufe0f", "\U0001F3F3\ufe0f\u200d\U0001F308", "e\u0301"]
BAD = {
    "": "empty",
    "   ": "shows nothing",
    "\u200b": "invisible",
    "\u200b\u200b\u200c": "invisible",
    "\u3164": "shows nothing",
    "\u0301\u0301": "shows nothing",
    "Ev\u202eil": "direction control",
    "\u2067Ada": "direction control",
    "Ada\u200f": "direction control",
    "\u061cAda": "direction control",
    "A\x07B": "control character",
    "A\nB": "control character",
    "A\u2028B": "line separator",
    "A\ue000": "private-use",
    "Ad\u200da": "invisible",  # a joiner between letters joins no emoji
    "\u200d\U0001F469": "invisible",
    "A\ufeff": "invisible",
    "X" * (LIMIT + 1): "longer",
}


@pytest.mark.parametrize("name", GOOD)
def test_names_people_type_are_taken(name: str) -> None:
    assert name_problem(name) is None
    assert shown_name(name, 2) == name


@pytest.mark.parametrize(("name", "why"), sorted(BAD.items()))
def test_names_that_hide_reverse_or_break_text_are_refused(name: str, why: str) -> None:
    problem = name_problem(name)
    assert problem is not None and why in problem, problem
    assert shown_name(name, 2) == unnamed(2) == "Station 3"


def test_length_counts_what_a_reader_sees() -> None:
    assert shown_length(FAMILY) == 1 and shown_length("e\u0301") == 1 and shown_length("Ada") == 3
    assert name_problem(FAMILY * LIMIT) is not None  # bounded in code points too
    assert name_problem("Ada", limit=2) is not None
    assert name_problem(None) is not None and shown_name(None, 0) == "Station 1"


def test_the_config_checks_use_the_rule() -> None:
    assert _player_names(["Ada", FAMILY]) is None  # was refused as "holds a control character"
    assert "direction control" in str(_player_names(["Ev\u202eil"]))
    assert "shows nothing" in str(_player_names(["\u3164"]))
    assert station_name_problem(FAMILY) is None
    assert "invisible" in str(station_name_problem("\u200b"))


def test_the_lobby_shows_an_unnamed_player_by_the_rule() -> None:
    from table.display.screens import default_name

    assert default_name(1) == unnamed(1)
