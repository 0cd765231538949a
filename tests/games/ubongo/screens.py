"""Ubongo's moments as the text-fit and language tests take every game's kept moments
(``moments()``): the phases ``make_ubongo_screens.py`` draws for the docs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from games.ubongo.make_ubongo_screens import SHOTS


def moments() -> Iterator[tuple[str, dict[str, Any], float, bool]]:
    """``(name, public view, game time, paused)`` for each kept phase."""
    for name, build in SHOTS.items():
        table, now = build()
        yield name, table.view(), now, False
