"""Render every Umtata phase to docs/screens/umtata/ (also used by the screen test).

Run: SDL_VIDEODRIVER=dummy PYTHONPATH=tests .venv/bin/python -m games.umtata.screens
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from games.umtata.conftest import WELTMEISTER, WORLD_CUP, answer, guess, sector, tataaa
from table.common.i18n import language
from table.display.games import RenderContext
from table.display.games.umtata.map import draw_map
from table.display.theme import Theme
from table.games.base import Action, GameSetup
from table.games.umtata.engine import ENGINE
from table.games.umtata.state import UmtataState

OUT = Path(__file__).resolve().parents[3] / "docs" / "screens" / "umtata"
NAMES = ("Steven", "Andreas", "Frank", "Maria")


def phases() -> dict[str, UmtataState]:
    """One state per screen worth showing, from the rulebook's World Cup round (its card
    in the table's language)."""
    card = WELTMEISTER if language() == "de" else WORLD_CUP
    setup = GameSetup(
        "umtata", stations=(0, 1, 2, 3), names=NAMES, options={"deck": [card], "whole_deck": True}
    )
    s = ENGINE.new_game(setup, 7)
    s = replace(s, scores=(5, 9, 7, 3), round=6, reader=0)
    out: dict[str, UmtataState] = {"guess_start": s}
    s = tataaa(s, 1, 1.0)
    s = guess(s, 0, "es", 2.0)
    s = tataaa(s, 3, 2.5)
    out["guess_locked"] = s
    s = guess(s, 2, "gr", 3.0)
    out["answer_sector"] = s
    s = ENGINE.apply(s, Action("turn", 4.0, 1, {"sector": sector("it"), "sectors": 16}))
    s = ENGINE.apply(s, Action("push", 4.5, 1))
    s = ENGINE.apply(s, Action("turn", 5.0, 1, {"delta": 1}))
    out["answer_country"] = s
    s = ENGINE.apply(s, Action("push", 5.5, 1))
    out["reveal"] = s
    # A second game: first Tataaa player wrong, the second still to answer.
    w = replace(ENGINE.new_game(setup, 7), scores=(14, 14, 15, 12))
    w = tataaa(w, 3, 1.0)
    w = tataaa(w, 2, 1.2)
    w = guess(w, 0, "ba", 2.0)
    w = guess(w, 1, "it", 2.0)
    w = answer(w, 3, "gr")
    out["answer_after_wrong"] = w
    w = answer(w, 2, "xk")
    out["over_shared"] = w
    # The longest question of the shipped deck, to check the wrapping.

    from table.games.umtata.engine import deck_of

    # The deck in force in the table's language (the German one once the loader knows languages).
    deck = deck_of(GameSetup("umtata", stations=(0, 1), options={"language": language()}))
    longest = max(deck, key=lambda q: len(q.text))
    long_setup = replace(setup, options={"deck": [longest.to_json()], "whole_deck": True})
    out["guess_long_question"] = tataaa(ENGINE.new_game(long_setup, 7), 2, 1.0)
    # The reveal of the card whose question and explanation together are longest: both
    # shown whole, with the players' rows below.
    wordy = max(deck, key=lambda q: len(q.text) + len(q.explain))
    r = ENGINE.new_game(replace(setup, options={"deck": [wordy.to_json()], "whole_deck": True}), 7)
    for station, country in enumerate(("es", "it", "gr", "pl")):
        r = guess(r, station, country, 1.0 + station)
    out["reveal_long_question"] = r
    return out


def moments() -> Iterator[tuple[str, dict[str, Any], float, bool]]:
    """Every phase as the text-fit and language tests draw every game's kept moments:
    ``(name, public view, game time, paused)``."""
    states = phases()
    for name, state in states.items():
        yield name, ENGINE.view(state, None), 0.0, False
    yield "paused", ENGINE.view(states["guess_start"], None), 0.0, True


def render(state: UmtataState, size: tuple[int, int], paused: bool = False) -> pygame.Surface:
    from table.display.games.umtata.screen import RENDERER

    surface = pygame.Surface(size)
    RENDERER.draw(surface, ENGINE.view(state, None), RenderContext(Theme(*size), now=0.0, paused=paused))
    return surface


def main() -> list[Path]:
    pygame.init()
    OUT.mkdir(parents=True, exist_ok=True)
    written = []
    for w, h in ((1280, 720), (1920, 1080)):
        map_only = pygame.Surface((w, h))
        map_only.fill((16, 20, 32))
        draw_map(map_only, pygame.Rect(0, 0, w, h), Theme(w, h))
        path = OUT / f"map_{w}x{h}.png"
        pygame.image.save(map_only, str(path))
        written.append(path)
    for name, state in phases().items():
        for size in ((1280, 720), (1920, 1080)):
            path = OUT / f"{name}_{size[0]}x{size[1]}.png"
            pygame.image.save(render(state, size), str(path))
            written.append(path)
    return written


if __name__ == "__main__":
    for p in main():
        print(p)
