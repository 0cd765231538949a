"""The Umtata board as data: 48 countries, their regions, colours and borders.

The board is read from ``umtata/board.toml`` of the config directory or the shipped
defaults (:mod:`table.common.datafiles`; see that file for why the colours are what they are).
Its land borders come from the map asset ``umtata/europe.json`` (``land``: the pairs of
board countries whose Natural Earth polygons touch, derived by ``tools/umtata/build_map.py``)
unless the board file lists its own ``[borders] land``; the sea neighbours are listed in
the board file. Loading is pure apart from reading those files, and the result is cached
per file, so engines and screens may call :func:`load_board` freely.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from table.common.datafiles import data_file

BOARD_FILE = "umtata/board.toml"
"""The board's name among the data files (:func:`table.common.datafiles.data_file`)."""
MAP_FILE = "umtata/europe.json"
"""The map asset, which carries the land borders derived from the real polygons."""

REGIONS: tuple[str, ...] = ("north", "east", "south", "west")
COLOURS: tuple[str, ...] = ("orange", "yellow", "green", "purple")
SECTORS = len(REGIONS) * len(COLOURS)
"""A knob position names a region and a colour: ``sector = region * 4 + colour``."""


class BoardError(ValueError):
    """The board file is missing, malformed or breaks a rule of the board."""


@dataclass(frozen=True)
class Country:
    """One game country. ``id`` is the key the decks use (two lowercase letters)."""

    id: str
    name: str
    rulebook: str
    label: str
    region: str
    colour: str

    @property
    def sector(self) -> int:
        """The knob sector (region and colour) this country belongs to."""
        return sector_of(self.region, self.colour)


@dataclass(frozen=True)
class Words:
    """The board's words in one language: country names and map labels by id (English:
    from each country's ``name`` and ``label``), region and colour names by key, and the
    grey neighbours off the board by their English name in the map asset."""

    countries: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    regions: Mapping[str, str] = field(default_factory=dict)
    colours: Mapping[str, str] = field(default_factory=dict)
    neighbours: Mapping[str, str] = field(default_factory=dict)
    grammar: Mapping[str, Grammar] = field(default_factory=dict)
    """How a name stands in a sentence, by country id, for the names that need more than
    the bare name (an article: "die Schweiz", "the Netherlands"); the rest stand bare."""


CASES: tuple[str, ...] = ("nominative", "dative")
"""The case forms the table's sentences use ("Umtata war die Schweiz", "in der Schweiz")."""

GENDERS: tuple[str, ...] = ("masculine", "feminine", "neuter", "plural")
"""A name's gender, or ``plural`` for a name that is a plural ("die Niederlande")."""


@dataclass(frozen=True)
class Grammar:
    """One country name as sentences need it: its gender (or plural) and the words it
    stands as in each case of :data:`CASES`, article included ("der Schweiz")."""

    gender: str
    forms: Mapping[str, str]


@dataclass(frozen=True)
class Board:
    """All countries in file order, plus the border pairs (land and sea), and the words
    players see per language (``[language.CODE]`` of the board file)."""

    countries: tuple[Country, ...]
    land: tuple[tuple[str, str], ...]
    sea: tuple[tuple[str, str], ...]
    words: Mapping[str, Words] = field(default_factory=dict, compare=False, hash=False)
    giveaways: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict, compare=False)
    """Per language, per country id: words that give the country away (its names, adjective,
    language, products named after it); a deck card must not contain them (``table deck
    check``). An entry ending in ``*`` matches any word it begins."""
    capitals: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict, compare=False)
    """Per language, per country id: the capital and the words made from it ("Prag",
    "Prager*"), matched like :attr:`giveaways`; only a card about the capital may name it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {c.id: c for c in self.countries})

    def get(self, country_id: str) -> Country:
        """The country with ``country_id``; ``KeyError`` if there is none."""
        by_id: dict[str, Country] = self._by_id  # type: ignore[attr-defined]
        return by_id[country_id]

    def has(self, country_id: str) -> bool:
        by_id: dict[str, Country] = self._by_id  # type: ignore[attr-defined]
        return country_id in by_id

    def in_sector(self, sector: int) -> tuple[Country, ...]:
        """The countries of one region+colour sector, in alphabetical order of name."""
        return tuple(sorted((c for c in self.countries if c.sector == sector), key=lambda c: c.name))

    def name(self, country_id: str, language: str = "en") -> str:
        """The country's name in ``language`` (its English ``name`` where the board has none)."""
        words = self.words.get(language)
        found = words.countries.get(country_id) if words else None
        return found or self.get(country_id).name

    def label(self, country_id: str, language: str = "en") -> str:
        """The country's short map label in ``language`` (else its name in that language;
        English: the ``label`` field)."""
        words = self.words.get(language)
        if words and country_id in words.labels:
            return words.labels[country_id]
        if language != "en" and words and country_id in words.countries:
            return words.countries[country_id]
        return self.get(country_id).label

    def in_sentence(self, country_id: str, language: str = "en", case: str = "nominative") -> str:
        """The country's name as it stands in a sentence of ``language`` in ``case`` (see
        :data:`CASES`): with its article where it takes one ("die Schweiz", "in der
        Schweiz", "the Netherlands"), else its bare :meth:`name` ("Deutschland")."""
        words = self.words.get(language)
        grammar = words.grammar.get(country_id) if words else None
        if grammar is None:
            return self.name(country_id, language)
        return grammar.forms.get(case) or grammar.forms["nominative"]

    def region_name(self, region: str, language: str = "en") -> str:
        """A region key (``north``...) as players read it in ``language``."""
        words = self.words.get(language) or self.words.get("en")
        return words.regions.get(region, region) if words else region

    def colour_name(self, colour: str, language: str = "en") -> str:
        """A colour key (``orange``...) as players read it in ``language``."""
        words = self.words.get(language) or self.words.get("en")
        return words.colours.get(colour, colour) if words else colour

    def neighbour_name(self, name: str, language: str = "en") -> str:
        """A grey neighbour off the board (named in English by the map asset) in ``language``."""
        words = self.words.get(language)
        return words.neighbours.get(name, name) if words else name

    def neighbours(self, country_id: str) -> frozenset[str]:
        out = {b for a, b in self.land + self.sea if a == country_id}
        out |= {a for a, b in self.land + self.sea if b == country_id}
        return frozenset(out)


def sector_of(region: str, colour: str) -> int:
    return REGIONS.index(region) * len(COLOURS) + COLOURS.index(colour)


def sector_parts(sector: int) -> tuple[str, str]:
    """``(region, colour)`` of a knob sector."""
    sector %= SECTORS
    return REGIONS[sector // len(COLOURS)], COLOURS[sector % len(COLOURS)]


def _pairs(raw: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, list):
        raise BoardError(f'{where} must be a list of "aa-bb" pairs')
    out = []
    for item in raw:
        parts = str(item).split("-")
        if len(parts) != 2:
            raise BoardError(f"{where}: '{item}' is not a pair like \"fr-de\"")
        out.append((parts[0], parts[1]))
    return tuple(out)


def _words(raw: Any, where: str) -> dict[str, Words]:
    """``[language.CODE]`` tables of the board file as :class:`Words` by language."""
    if not isinstance(raw, Mapping):
        raise BoardError(f"{where}: [language] must be a table of languages")
    out: dict[str, Words] = {}
    for code, table in raw.items():
        if not isinstance(table, Mapping):
            raise BoardError(f"{where}: [language.{code}] must be a table")
        parts: dict[str, dict[str, str]] = {}
        for key in ("countries", "labels", "regions", "colours", "neighbours"):
            value = table.get(key, {})
            if not isinstance(value, Mapping) or not all(isinstance(v, str) and v for v in value.values()):
                raise BoardError(f"{where}: language.{code}.{key} must map ids to non-empty names")
            parts[key] = {str(k): str(v) for k, v in value.items()}
        unknown = sorted(set(parts["regions"]) - set(REGIONS)) + sorted(set(parts["colours"]) - set(COLOURS))
        if unknown:
            raise BoardError(f"{where}: language.{code} names unknown regions or colours: {', '.join(unknown)}")
        out[str(code)] = Words(**parts, grammar=_grammar(table.get("grammar", {}), f"{where}: language.{code}.grammar"))
    return out


def _grammar(raw: Any, where: str) -> dict[str, Grammar]:
    """``[language.CODE.grammar]``: id = { gender = "feminine", nominative = "die Schweiz",
    dative = "der Schweiz" } (every case of :data:`CASES` but the nominative is optional)."""
    if not isinstance(raw, Mapping):
        raise BoardError(f"{where} must map country ids to tables")
    out: dict[str, Grammar] = {}
    for cid, entry in raw.items():
        if not isinstance(entry, Mapping):
            raise BoardError(f"{where}.{cid} must be a table (gender and case forms)")
        gender = entry.get("gender")
        if gender not in GENDERS:
            raise BoardError(f"{where}.{cid}: gender must be one of {', '.join(GENDERS)}")
        unknown = sorted(set(entry) - {"gender", *CASES})
        if unknown:
            raise BoardError(f"{where}.{cid}: unknown key {unknown[0]!r} (known: gender, {', '.join(CASES)})")
        forms = {case: entry[case] for case in CASES if case in entry}
        if not isinstance(forms.get("nominative"), str) or not all(isinstance(f, str) and f for f in forms.values()):
            raise BoardError(f"{where}.{cid} needs a nominative and non-empty case forms")
        out[str(cid)] = Grammar(str(gender), forms)
    return out


def _giveaways(raw: Any, where: str, name: str = "giveaways") -> dict[str, dict[str, tuple[str, ...]]]:
    """``[giveaways.LANG]`` (or ``[capitals.LANG]``) tables: country id -> list of words."""
    if not isinstance(raw, Mapping):
        raise BoardError(f"{where}: [{name}] must hold one table per language")
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for language, table in raw.items():
        if not isinstance(table, Mapping):
            raise BoardError(f"{where}: [{name}.{language}] must map country ids to lists of words")
        out[language] = {}
        for cid, words in table.items():
            if not isinstance(words, list) or not all(isinstance(w, str) and w.strip() for w in words):
                raise BoardError(f"{where}: {name}.{language}.{cid} must be a list of words")
            out[language][cid] = tuple(w.strip() for w in words)
    return out


def parse_board(
    data: Mapping[str, Any], where: str = "board.toml", derived_land: Any = None, land_where: str = "the map"
) -> Board:
    """Build a :class:`Board` from parsed TOML; raises :class:`BoardError`.

    ``derived_land`` (a list of ``"aa-bb"`` pairs) is used when the file lists no
    ``[borders] land`` of its own."""
    countries = []
    for i, raw in enumerate(data.get("country", [])):
        try:
            c = Country(
                id=str(raw["id"]),
                name=str(raw["name"]),
                rulebook=str(raw.get("rulebook", raw["name"])),
                label=str(raw.get("label", raw["name"])),
                region=str(raw["region"]),
                colour=str(raw["colour"]),
            )
        except (KeyError, TypeError) as exc:
            raise BoardError(f"{where}: country #{i + 1} lacks {exc}") from None
        if c.region not in REGIONS:
            raise BoardError(f"{where}: {c.name} has unknown region '{c.region}'")
        if c.colour not in COLOURS:
            raise BoardError(f"{where}: {c.name} has unknown colour '{c.colour}'")
        countries.append(c)
    borders = data.get("borders", {})
    if "land" in borders:
        land = _pairs(borders["land"], f"{where} [borders] land")
    else:
        land = _pairs(derived_land if derived_land is not None else [], f"{land_where}: land")
    board = Board(
        tuple(countries),
        land,
        _pairs(borders.get("sea", []), f"{where} [borders] sea"),
        words=_words(data.get("language", {}), where),
        giveaways=_giveaways(data.get("giveaways", {}), where),
        capitals=_giveaways(data.get("capitals", {}), where, "capitals"),
    )
    for a, b in board.land + board.sea:
        for cid in (a, b):
            if not board.has(cid):
                raise BoardError(f"{where}: border {a}-{b} names unknown country '{cid}'")
    for code, words in board.words.items():
        for cid in sorted((set(words.countries) | set(words.labels) | set(words.grammar))
                          - {c.id for c in board.countries}):
            raise BoardError(f"{where}: language.{code} names unknown country '{cid}'")
    for name, tables in (("giveaways", board.giveaways), ("capitals", board.capitals)):
        for language, table in tables.items():
            for cid in table:
                if not board.has(cid):
                    raise BoardError(f"{where}: {name}.{language} names unknown country '{cid}'")
    return board


def load_board(path: Path | None = None) -> Board:
    """The board from ``path`` (default: ``umtata/board.toml`` of the config directory in
    force, else the shipped one)."""
    return _read_board(path or data_file(BOARD_FILE), data_file(MAP_FILE))


MAP_LIMIT = 4 << 20
"""The most bytes the map asset may have (the shipped one has about 140 KB)."""


@cache
def _map_data(map_path: Path) -> Any:
    """The map asset's JSON: a regular file, bounded in size and nesting, else one
    :class:`BoardError` sentence (never a hang on a FIFO or a RecursionError)."""
    from table.common.checks import load_json, read_text_input
    from table.common.errors import TableError

    try:
        text = read_text_input(map_path, "Umtata map", MAP_LIMIT)  # regular files only: a FIFO never hangs
    except TableError as exc:
        raise BoardError(f"cannot read the Umtata map {map_path}: {exc}" if map_path.exists() else
                         f"cannot read the Umtata map {map_path}: there is no such file") from None
    try:
        return load_json(text, size=MAP_LIMIT)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # beyond the bounds
        raise BoardError(f"the Umtata map {map_path}: {exc}") from None


def map_countries(map_path: Path) -> frozenset[str]:
    """The board ids the map asset has a shape for."""
    try:
        return frozenset(_map_data(map_path)["countries"])
    except (OSError, ValueError, KeyError, TypeError):
        return frozenset()


def derived_land(map_path: Path) -> list[Any]:
    """The land borders derived from the real polygons, as stored in the map asset."""
    try:
        land = _map_data(map_path)["land"]
    except OSError as exc:
        raise BoardError(f"cannot read the Umtata map {map_path}: {exc.strerror}") from None
    except BoardError:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        raise BoardError(f"the Umtata map {map_path} holds no land borders ({exc!r})") from None
    if not isinstance(land, list):
        raise BoardError(f"the Umtata map {map_path}: land must be a list of pairs")
    return land


@cache
def _read_board(path: Path, map_path: Path) -> Board:
    from table.common.checks import load_toml, read_text_input
    from table.common.errors import TableError

    try:
        data = load_toml(read_text_input(path, "Umtata board"))
    except TableError as exc:
        raise BoardError(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise BoardError(f"{path} is not valid TOML: {exc}") from None
    if "land" in data.get("borders", {}):
        return parse_board(data, str(path))
    board = parse_board(data, str(path), derived_land(map_path), str(map_path))
    missing = [c.id for c in board.countries if c.id not in map_countries(map_path)]
    if missing:
        raise BoardError(f"the Umtata map {map_path} has no shape for {', '.join(missing)}; "
                         "rebuild it with tools/umtata/build_map.py")
    return board
