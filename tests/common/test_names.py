"""The one rule for names (table.common.names), and the edges that use it."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest

from table.common.checks import shown_name as station_name_problem
from table.common.config import _player_names
from table.common.names import LIMIT, UNNAMED, is_unnamed, name_problem, shown_length, shown_name, unnamed

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




# -- the one name of a player who entered none ------------------------------------------
def test_an_unnamed_player_is_called_by_the_seat_in_each_language() -> None:
    from table.common import i18n

    # German says "Station" too: "Platz 4" would read as a rank on the final ranking.
    assert unnamed(3, "en") == "Station 4" and unnamed(3, "de") == "Station 4"
    assert unnamed(0) == "Station 1"  # the language in force
    try:
        i18n.set_language("de")
        assert unnamed(0) == "Station 1" and shown_name("\u200b", 1) == "Station 2"
    finally:
        i18n.set_language("en")


class _Seat(gettext.NullTranslations):
    """A catalogue that words the placeholder otherwise ("Sitz 2")."""

    def gettext(self, message: str) -> str:
        return "Sitz {number}" if message == UNNAMED else message


def test_the_placeholder_is_the_catalogues_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worded otherwise by a language's catalogue, the placeholder changes at once in the
    lobby's setup, a setup without names, a refused name, and the config check."""
    from table.common import i18n, names
    from table.common.config import _player_names
    from table.games.base import GameSetup

    monkeypatch.setattr(i18n, "translations", lambda code: _Seat() if code == "de" else gettext.NullTranslations())
    names._unnamed_pattern.cache_clear()
    try:
        i18n.set_language("de")
        assert unnamed(1) == "Sitz 2" and unnamed(1, "en") == "Station 2"
        assert shown_name("", 2) == "Sitz 3" and GameSetup("g", stations=(0, 2)).name_of(2) == "Sitz 3"
        assert is_unnamed("sitz 7") and is_unnamed("Station 7")  # either language's form
        assert "'Sitz 3' reads as" in str(_player_names(["Ada", "Sitz 3"]))
    finally:
        i18n.set_language("en")
        names._unnamed_pattern.cache_clear()


@pytest.mark.parametrize(("name", "seat"), [
    ("Station 4", True), ("station 12", True), ("STATION  0", True), ("Station4", True),
    (" Station 3 ", True), ("Station \u0663", True),  # an Arabic-Indic three reads as a number too
    ("Station", False), ("Platz 4", False), ("Ada", False), ("Station 4a", False), ("4", False),
    ("Bahnstation 4", False), ("Station 4 Ada", False), ("Player 1", False),
])
def test_a_name_that_reads_as_a_seat_is_told_apart(name: str, seat: bool) -> None:
    assert is_unnamed(name) is seat


def test_the_config_check_refuses_a_venue_name_that_reads_as_a_seat() -> None:
    """A venue's listed player called "Station 2" could not be told from the unnamed
    player at the second station, on the screens or on the venue's wall."""
    from table.common.config import ConfigError, parse_config

    assert _player_names(["Ada", "Station Ada", "Platz 2"]) is None
    for name in ("Station 2", "station 3", "STATION5"):
        problem = _player_names(["Ada", name])
        assert problem is not None and repr(name) in problem and "'Station 4'" in problem, problem
    with pytest.raises(ConfigError, match="'Station 2' reads as the name of a player who entered none"):
        parse_config({"table": {"names": ["Ada", "Station 2"]}}, "table.toml")


# The ways the old placeholder was written: "Player 2", "Player {number}", f"Player {station + 1}",
# "Player N", the German "Spieler {number}", and a page's "Player " + n.
_OLD_PLACEHOLDER = re.compile(r"\b(?:Player|Spieler) (?:\d|N\b|\{|%|\$\{|[\"'] *\+)")


def _product_files() -> list[Path]:
    """What the table ships and documents: its code, catalogues, pages and data, the
    config, the README and the docs."""
    root = Path(__file__).resolve().parents[2]
    files = [root / "README.md", *sorted((root / "docs").rglob("*.md")), *sorted((root / "config").rglob("*"))]
    files += [p for p in sorted((root / "table").rglob("*"))
              if p.suffix in (".py", ".po", ".html", ".json", ".toml", ".md", ".js")]
    return [p for p in files if p.is_file()]


def test_no_other_placeholder_for_an_unnamed_player_remains() -> None:
    files = _product_files()
    assert len(files) > 100 and any(p.name == "de.po" for p in files)
    found = [f"{p}:{n}: {line.strip()}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             if _OLD_PLACEHOLDER.search(line)]
    assert not found, "an unnamed player is table.common.names.unnamed(station), nothing else:\n" + "\n".join(found)
    assert _OLD_PLACEHOLDER.search('return f"Player {station + 1}"')  # the test sees the old form
