"""The Ubongo die: its six symbols, the puzzle-board row each one selects, and pips.

The engine only ever sees a :class:`Die` (plain data, part of the setup options as
``{"symbols": [...], "pips": {...}}``). Reading the owner's file
``config/ubongo/die.toml`` is the shell's job: :func:`load_die` does it and reports
a bad file in one sentence.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.common.checks import load_toml, read_text_input
from table.common.errors import TableError
from table.games.base import SetupError

SIDES = 6
WANTED_PIPS = {str(n) for n in range(1, SIDES + 1)}
ROWS = 6  # rows on a puzzle board, one per die symbol

PICTURES: tuple[str, ...] = ("sun", "moon", "cross", "ring", "wave", "bolt")
"""Pictures the display can draw by itself; a die may also name an image file."""


@dataclass(frozen=True)
class DieSymbol:
    """One face: what players call it, how the display draws it, which row it plays."""

    name: str
    picture: str
    row: int  # 1-based row of the puzzle board, counted from the top


@dataclass(frozen=True)
class Die:
    """The six symbols, and for ordinary pip dice which symbol each pip count stands for."""

    symbols: tuple[DieSymbol, ...]
    pips: tuple[int, ...]  # pips[n - 1] = index into ``symbols`` for a face showing n pips

    def symbol_for_face(self, face: object) -> int | None:
        """The symbol index a tray reading means: pips 1-6 or a symbol's name; None if neither."""
        if isinstance(face, bool):
            return None
        if isinstance(face, int):
            return self.pips[face - 1] if 1 <= face <= SIDES else None
        if isinstance(face, str):
            wanted = face.strip().casefold()
            for i, symbol in enumerate(self.symbols):
                if symbol.name.casefold() == wanted:
                    return i
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "symbols": [{"name": s.name, "picture": s.picture, "row": s.row} for s in self.symbols],
            "pips": {str(n + 1): self.symbols[i].name for n, i in enumerate(self.pips)},
        }


DEFAULT_DIE = Die(
    symbols=tuple(DieSymbol(name.capitalize(), name, row) for row, name in enumerate(PICTURES, start=1)),
    pips=tuple(range(SIDES)),
)


def die_from_options(raw: object) -> Die:
    """Build the die from the setup option ``die`` (None: the default die).

    ``raw`` is ``{"symbols": [{"name", "picture", "row"} x 6], "pips": {"1": name, ...}}``;
    ``pips`` may be left out (pip n is symbol n). Raises :class:`SetupError` with one sentence.
    """
    if raw is None:
        return DEFAULT_DIE
    if not isinstance(raw, Mapping):
        raise SetupError("the Ubongo die option must be a table with 'symbols' and 'pips'")
    symbols_raw = raw.get("symbols")
    if not isinstance(symbols_raw, list | tuple) or len(symbols_raw) != SIDES:
        raise SetupError(f"the Ubongo die needs exactly {SIDES} symbols")
    symbols: list[DieSymbol] = []
    for n, item in enumerate(symbols_raw, start=1):
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str) or not item["name"].strip():
            raise SetupError(f"die symbol {n} needs a name")
        picture = item.get("picture", item["name"])
        row = item.get("row", n)
        row_ok = isinstance(row, int) and not isinstance(row, bool) and 1 <= row <= ROWS
        if not isinstance(picture, str) or not row_ok:
            raise SetupError(f"die symbol {n} needs a picture name and a row from 1 to 6")
        symbols.append(DieSymbol(item["name"].strip(), picture, row))
    names = [s.name.casefold() for s in symbols]
    if len(set(names)) != SIDES:
        raise SetupError("the six die symbols need six different names")
    if len({s.row for s in symbols}) != SIDES:
        raise SetupError("each die symbol must select a different row of the puzzle board")
    pips_raw = raw.get("pips")
    if pips_raw is None:
        pips = tuple(range(SIDES))
    else:
        if not isinstance(pips_raw, Mapping) or {str(k) for k in pips_raw} != WANTED_PIPS:
            raise SetupError("die pips needs one entry for each of 1 to 6")
        found: list[int] = []
        for n in range(1, SIDES + 1):
            value = pips_raw.get(str(n), pips_raw.get(n))
            if not isinstance(value, str) or value.strip().casefold() not in names:
                raise SetupError(f"die pips {n} must name one of the six symbols")
            found.append(names.index(value.strip().casefold()))
        if len(set(found)) != SIDES:
            raise SetupError("die pips must map 1 to 6 onto six different symbols")
        pips = tuple(found)
    return Die(tuple(symbols), pips)


def load_die(path: str | Path) -> dict[str, Any]:
    """Read a die file (see ``config/ubongo/die.toml``) into the setup option ``die``.

    Raises :class:`TableError` naming the file and what is wrong.
    """
    p = Path(path)
    try:
        data = load_toml(read_text_input(p, "Ubongo die file"))
    except TableError:
        raise
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"cannot read the Ubongo die file {p} ({exc})") from None
    option = {"symbols": data.get("symbol"), "pips": data.get("pips")}
    try:
        die_from_options(option)
    except SetupError as exc:
        raise TableError(f"{p}: {exc}") from None
    return option
