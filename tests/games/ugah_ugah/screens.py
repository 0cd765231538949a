"""Every phase of Ugah Ugah! on the display, as states and as PNG files.

``PYTHONPATH=tests python -m games.ugah_ugah.screens`` (from the checkout, SDL dummy driver)
writes ``docs/screens/ugah_ugah/*.png``; the tests render the same states at both
display sizes.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from games.ugah_ugah.table_helper import Table
from table.games.base import GameSetup
from table.games.ugah_ugah.engine import ENGINE, THROW, UgahState
from table.play.autoplay import play_randomly
from table.play.session import Session

NAMES = ("Ada", "Ben", "Cleo", "Dev")
OUT = Path(__file__).resolve().parents[3] / "docs" / "screens" / "ugah_ugah"


def _midgame(players: int, variant: str = "standard", seed: int = 4, actions: int = 90) -> Table:
    """A table some turns into a game (chips taken, hunters out), at the start of a throw."""
    setup = GameSetup("ugah_ugah", variant, tuple(range(players)), names=NAMES[:players])
    session = Session(engine=ENGINE, setup=setup, seed=seed)
    play_randomly(session, random.Random(seed), max_actions=actions)
    table = Table(players, variant, seed)
    table.setup = setup
    table.state = session.state
    table.t = session.last_t
    while table.state.phase != THROW or table.state.dice_in_play != 5:
        legal = {a.kind: a for a in ENGINE.legal_actions(table.state)}
        action = legal.get("press") or legal.get("dice") or legal["push"]
        table.act(action.kind, action.station, action.value)
    return table


def states() -> dict[str, UgahState]:
    """One state per phase worth seeing, by file name."""
    shots: dict[str, UgahState] = {}

    table = Table(3)
    table.setup = replace(table.setup, names=NAMES[:3])
    table.state = replace(table.state, setup=table.setup)
    shots["1-start-knob-dice"] = table.state
    table.turn(4)
    table.push()
    table.turn(5)
    table.push()
    table.turn(3)
    shots["2-knob-dice-entry"] = table.state

    t = _midgame(4, seed=4)
    t.state = replace(t.state, rules=replace(t.state.rules, dice_reader=True))
    t.state = replace(t.state, input_mode="tray", manual_faces=())
    t.throw("bird", "mammoth", "mammoth", "bone")
    shots["3-tray-wrong-count"] = t.state
    t.throw("bird", "mammoth", "mammoth", "bone", "masher")
    shots["4-choose-symbols"] = t.state
    t.pick("mammoth")
    t.pick("masher")
    shots["5-choose-marked"] = t.state
    t.press()
    t.state = replace(t.state, input_mode="tray", manual_faces=())
    shots["6-throw-again-tray"] = t.state

    t = _midgame(3, seed=6)
    holder = (t.state.active + 1) % 3
    t.state = replace(t.state, spoils=(None, holder, None))
    t.throw("mammoth", "mammoth", "mammoth", "bone", "bone")
    shots["7-spoils-steal"] = t.state

    t = Table(3)
    t.setup = replace(t.setup, names=NAMES[:3])
    t.state = replace(t.state, setup=t.setup)
    t.place_hunters(masher=10, breaker=14, taken=(3, 5, 8, 20, 25, 29))
    t.throw("masher", "masher", "breaker", "breaker", "bone")
    t.choose("masher", "breaker")
    shots["8-order-matters"] = t.state
    t.pick("breaker")
    shots["9-keep-one-chip"] = t.state
    t.push()
    shots["10-give-the-other"] = t.state

    t = _midgame(4, "uncertain-hunting", seed=9)
    t.throw("masher", "breaker", "bird", "bone", "dinosaur")
    shots["11-uncertain-hunting-choose"] = t.state
    t.choose("masher", "breaker")
    t.throw("bird", "dinosaur")
    t.choose("bird", "dinosaur")
    shots["12-uncertain-hunting-keep"] = t.state

    setup = GameSetup("ugah_ugah", "standard", (0, 1, 2), names=NAMES[:3])
    session = Session(engine=ENGINE, setup=setup, seed=11)
    play_randomly(session, random.Random(11))
    shots["13-final-count"] = session.state
    setup = GameSetup("ugah_ugah", "uncertain-hunting", (0, 1, 2, 3), names=NAMES)
    session = Session(engine=ENGINE, setup=setup, seed=5)
    play_randomly(session, random.Random(5))
    shots["14-final-count-uncertain"] = session.state
    return shots


def moments() -> Iterator[tuple[str, dict[str, Any], float, bool]]:
    """Every kept state as the text-fit and language tests draw every game's kept
    moments: ``(name, public view, game time, paused)``."""
    for name, state in states().items():
        yield name, ENGINE.view(state, None), state.now, False


def render(state: UgahState, size: tuple[int, int]):  # type: ignore[no-untyped-def]
    import pygame

    from table.display.games import RenderContext
    from table.display.games.ugah_ugah.screen import RENDERER
    from table.display.theme import Theme

    surface = pygame.Surface(size)
    RENDERER.draw(surface, ENGINE.view(state, None), RenderContext(Theme(*size), now=state.now))
    return surface


def main() -> int:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    import pygame

    pygame.init()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, state in states().items():
        pygame.image.save(render(state, (1920, 1080)), str(OUT / f"{name}.png"))
        if name in ("4-choose-symbols", "8-order-matters", "13-final-count"):
            pygame.image.save(render(state, (1280, 720)), str(OUT / f"{name}-720p.png"))
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
