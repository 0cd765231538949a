"""The board data: the rulebook's 48 countries, regions, the colouring rules."""

from __future__ import annotations

from collections import Counter

from table.games.umtata.board import COLOURS, REGIONS, load_board

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
    assert len(pairs) == len(board.land) + len(board.sea)  # no pair listed twice
    for c in board.countries:  # every country touches at least one other
        assert board.neighbours(c.id), c.id


def test_every_sector_holds_a_few_countries() -> None:
    board = load_board()
    for sector in range(16):
        assert 1 <= len(board.in_sector(sector)) <= 4
