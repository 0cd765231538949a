"""The board data: the rulebook's 48 countries, regions, the colouring rules."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import pytest

from table.common.datafiles import data_file
from table.display.games.umtata.map import load_map
from table.games.umtata.board import (
    BOARD_FILE,
    COLOURS,
    REGIONS,
    BoardError,
    _read_board,
    derived_land,
    load_board,
)

RULEBOOK = {
    "north": "Denmark, England, Faroe Islands, Finland, Greenland, Iceland, North. Ireland, Norway, "
    "Rep. of Ireland, Scotland, Sweden, Wales",
    "south": "Albania, Bosnia and Herzegovina, Greece, Italy, Kosovo, Croatia, Malta, Macedonia, "
    "Montenegro, Serbia, Slovenia, Turkey",
    "west": "Belgium, Germany, France, Liechtenstein, Luxembourg, Monaco, The Netherlands, Austria, "
    "Portugal, Switzerland, Spain, Czech Republic",
    "east": "Bulgaria, Estonia, Latvia, Lithuania, Moldova, Poland, Romania, Russia, Slovakia, "
    "Ukraine, Hungary, Belarus",
}


def test_the_48_countries_of_the_rulebook_in_their_regions() -> None:
    board = load_board()
    assert len(board.countries) == 48
    assert len({c.id for c in board.countries}) == 48
    for region, names in RULEBOOK.items():
        assert {c.rulebook for c in board.countries if c.region == region} == set(names.split(", "))


# Every land border between two of the 48, written by hand from an atlas (not from the map
# data) as the reference for the borders the map tool derives from Natural Earth's
# polygons. Russia reaches Poland and Lithuania through Kaliningrad; borders with
# countries off the board (Andorra, San Marino, the Vatican, Gibraltar) do not count.
REAL_LAND_BORDERS = """
al-gr al-me al-mk al-xk
at-ch at-cz at-de at-hu at-it at-li at-si at-sk
ba-hr ba-me ba-rs
be-de be-fr be-lu be-nl
bg-gr bg-mk bg-ro bg-rs bg-tr
by-lt by-lv by-pl by-ru by-ua
ch-de ch-fr ch-it ch-li
cz-de cz-pl cz-sk
de-dk de-fr de-lu de-nl de-pl
ee-lv ee-ru
en-sc en-wa
es-fr es-pt
fi-no fi-ru fi-se
fr-it fr-lu fr-mc
gr-mk gr-tr
hr-hu hr-me hr-rs hr-si
hu-ro hu-rs hu-si hu-sk hu-ua
ie-ni
it-si
lt-lv lt-pl lt-ru
lv-ru
md-ro md-ua
me-rs me-xk
mk-rs mk-xk
no-ru no-se
pl-ru pl-sk pl-ua
ro-rs ro-ua
rs-xk
ru-ua
sk-ua
"""


def _pairs(pairs: object) -> set[frozenset[str]]:
    return {frozenset(p) for p in pairs}  # type: ignore[attr-defined]


def test_land_borders_are_derived_from_the_map_and_are_the_real_ones() -> None:
    expected = {frozenset(p.split("-")) for p in REAL_LAND_BORDERS.split()}
    assert len(expected) == 86
    derived = _pairs(load_map().land)
    assert derived - expected == set(), "borders the map has but the world has not"
    assert expected - derived == set(), "real borders the map misses"
    # The shipped board lists no land borders of its own: it uses the derived ones.
    with open(data_file(BOARD_FILE), "rb") as fh:
        assert "land" not in tomllib.load(fh)["borders"]
    assert _pairs(load_board().land) == expected


def test_neighbours_never_share_a_colour() -> None:
    board = load_board()
    for a, b in board.land + board.sea:
        assert board.get(a).colour != board.get(b).colour, (a, b)


def test_known_colours_of_the_real_board() -> None:
    board = load_board()
    assert board.get("fr").colour == "yellow"
    assert board.get("it").colour == "purple"
    assert board.get("es").colour == "purple"
    assert board.get("gr").colour != "purple"


def test_colours_are_spread_within_each_region() -> None:
    board = load_board()
    for region in REGIONS:
        counts = Counter(c.colour for c in board.countries if c.region == region)
        assert set(counts) == set(COLOURS)
        assert max(counts.values()) - min(counts.values()) <= 1, (region, counts)


def test_expected_borders_are_listed() -> None:
    board = load_board()
    pairs = {frozenset(p) for p in board.land + board.sea}
    for a, b in [
        ("fr", "de"),
        ("ru", "fi"),
        ("ie", "ni"),
        ("en", "sc"),
        ("en", "wa"),
        ("li", "ch"),
        ("mc", "fr"),
        ("lu", "be"),
        ("sc", "ni"),
        ("wa", "ie"),
        ("is", "gl"),
        ("fo", "is"),
        ("mt", "it"),
        ("dk", "se"),
    ]:
        assert frozenset((a, b)) in pairs, (a, b)
    assert len(pairs) == len(board.land) + len(board.sea)  # no pair listed twice, nor as land and sea
    for c in board.countries:  # every country touches at least one other
        assert board.neighbours(c.id), c.id


def test_every_sector_holds_a_few_countries() -> None:
    board = load_board()
    for sector in range(16):
        assert 1 <= len(board.in_sector(sector)) <= 4


def test_a_board_file_may_list_its_own_land_borders(tmp_path: Path) -> None:
    text = data_file(BOARD_FILE).read_text(encoding="utf-8")
    own = tmp_path / "board.toml"
    own.write_text(text.replace("[borders]\n", '[borders]\nland = ["fr-de", "es-pt"]\n'), encoding="utf-8")
    board = load_board(own)
    assert _pairs(board.land) == {frozenset(("fr", "de")), frozenset(("es", "pt"))}


def test_a_broken_map_asset_is_one_sentence(tmp_path: Path) -> None:
    broken = tmp_path / "europe.json"
    broken.write_text('{"frame": [1, 1]}', encoding="utf-8")
    with pytest.raises(BoardError, match="holds no land borders"):
        derived_land(broken)
    with pytest.raises(BoardError, match="cannot read the Umtata map"):
        derived_land(tmp_path / "missing.json")


def test_a_map_without_a_board_country_is_one_sentence(tmp_path: Path) -> None:
    partial = tmp_path / "europe.json"
    partial.write_text('{"land": ["fr-de"], "countries": {"fr": {}, "de": {}}}', encoding="utf-8")
    with pytest.raises(BoardError, match="has no shape for"):
        _read_board(data_file(BOARD_FILE), partial)


def test_a_map_asset_nested_too_deep_is_one_sentence(tmp_path: Path) -> None:
    deep = tmp_path / "europe.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(BoardError, match="nests tables and arrays more than 64 deep"):
        derived_land(deep)
