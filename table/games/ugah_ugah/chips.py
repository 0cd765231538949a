"""Ugah Ugah!'s chips and die faces, and the reading of its chip set file: what the
table needs of the game when it starts (``config_options``, the game's data-file hook),
without the rules of :mod:`table.games.ugah_ugah.engine`, which import this."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.common.checks import load_toml, read_text_input
from table.common.datafiles import data_file
from table.common.errors import TableError
from table.games.base import JSONValue, SetupError

CHIPS_ON_CIRCLE = 31

BONE = "bone"
DINOSAUR = "dinosaur"
MAMMOTH = "mammoth"
BIRD = "bird"
MASHER = "masher"
BREAKER = "breaker"
SYMBOLS: tuple[str, ...] = (BONE, DINOSAUR, MAMMOTH, BIRD, MASHER, BREAKER)
"""The six faces of an Ugah die, in the order the knob offers them."""

# Other spellings a dice reader or a scenario may use for a face.
_ALIASES: Mapping[str, str] = {
    "bones": BONE, "dino": DINOSAUR, "prehistoric_bird": BIRD,
    "mammoth_masher": MASHER, "mammothmasher": MASHER, "bone_breaker": BREAKER, "bonebreaker": BREAKER,
}

DEFAULT_PIPS: Mapping[int, str] = {1: BONE, 2: DINOSAUR, 3: MAMMOTH, 4: BIRD, 5: MASHER, 6: BREAKER}


@dataclass(frozen=True)
class Chip:
    """One path chip: its munch points, and whether it shows the caterpillar."""

    points: int
    caterpillar: bool = False

    def to_json(self) -> dict[str, JSONValue]:
        return {"points": self.points, "caterpillar": self.caterpillar}


def parse_chips(groups: Any, where: str) -> tuple[Chip, ...]:
    """Chips from groups ``[{points, count?, caterpillar?}, ...]``; raises :class:`SetupError`."""
    if not isinstance(groups, Sequence) or isinstance(groups, str):
        raise SetupError(f"{where}: chips must be a list of groups like {{points = 2, count = 7}}")
    chips: list[Chip] = []
    for i, group in enumerate(groups):
        if not isinstance(group, Mapping):
            raise SetupError(f"{where}: chips[{i}] must be a table with points and count")
        points, count = group.get("points"), group.get("count", 1)
        caterpillar = group.get("caterpillar", False)
        if not isinstance(points, int) or isinstance(points, bool):
            raise SetupError(f"{where}: chips[{i}] needs whole-number points")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise SetupError(f"{where}: chips[{i}] needs a count of at least 1")
        if not isinstance(caterpillar, bool):
            raise SetupError(f"{where}: chips[{i}].caterpillar must be true or false")
        if caterpillar and points != 1:
            raise SetupError(f"{where}: chips[{i}] is a caterpillar chip, which counts 1 point, not {points}")
        chips.extend(Chip(points, caterpillar) for _ in range(count))
    if len(chips) != CHIPS_ON_CIRCLE:
        raise SetupError(f"{where}: the chips add up to {len(chips)}, but the circle needs exactly 31")
    return tuple(chips)


def parse_pips(mapping: Any, where: str) -> tuple[tuple[int, str], ...]:
    """The pip map ``{"1": "bone", ...}`` (all six pips, known symbols); raises :class:`SetupError`."""
    if not isinstance(mapping, Mapping):
        raise SetupError(f"{where}: pips must be a table from pip count (1-6) to symbol")
    out: dict[int, str] = {}
    for key, symbol in mapping.items():
        try:
            pips = int(key)
        except (TypeError, ValueError):
            raise SetupError(f"{where}: pips key {key!r} is not a pip count 1-6") from None
        name = normalise_symbol(symbol)
        if not 1 <= pips <= 6 or name is None:
            raise SetupError(f"{where}: pips {key!r} = {symbol!r} must map 1-6 to one of {', '.join(SYMBOLS)}"
                             )
        out[pips] = name
    if sorted(out) != [1, 2, 3, 4, 5, 6]:
        raise SetupError(f"{where}: pips must give a symbol for each of 1 to 6")
    return tuple(sorted(out.items()))


def config_options(config_dir: Path | None) -> dict[str, Any]:
    """Setup options from ``ugah_ugah/ugah_ugah.toml`` of ``config_dir`` (``None``: the one in
    force), else the shipped one (the table's data-file hook).

    Returns ``{"chips": [...groups...], "pips": {"1": symbol, ...}}``, or nothing when the
    file is absent (the built-in set is then used). Raises :class:`TableError` naming the
    file for a file that cannot be read or does not describe 31 chips. The engine never
    reads files itself: the options go into the setup, so a journal replays without them.
    """
    path = data_file("ugah_ugah/ugah_ugah.toml", config_dir)
    if not path.exists():
        return {}
    try:
        data = load_toml(read_text_input(path, "Ugah Ugah chip set"))
    except TableError:
        raise
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"cannot read the Ugah Ugah chip set {path} ({exc})") from None
    dice = data.get("dice", {})
    raw_pips = dice.get("pips", {str(k): v for k, v in DEFAULT_PIPS.items()}) if isinstance(dice, Mapping) else None
    try:
        parse_chips(data.get("chips"), str(path))
        pips = parse_pips(raw_pips, str(path))
    except SetupError as exc:
        raise TableError(str(exc)) from None
    return {"chips": [dict(g) for g in data["chips"]], "pips": {str(k): v for k, v in pips}}


def normalise_symbol(face: Any) -> str | None:
    """A symbol name in our spelling, or None when ``face`` names no symbol."""
    if not isinstance(face, str):
        return None
    key = face.strip().lower().replace(" ", "_").replace("-", "_")
    if key in SYMBOLS:
        return key
    return _ALIASES.get(key)


