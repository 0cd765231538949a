"""What moves over a screen never covers words a player reads: Ubongo's gems in flight
stay clear of every player's panel text on their way from any row to any panel, and a
celebration (its banner, its glowing edges, its fireworks) never paints over the game's
own text, in every game, at both display sizes."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import numpy as np
import pygame
import pytest

from display.textfit import SIZES
from table.display.games.ubongo.screen import FLIGHT, RENDERER
from table.display.layers import Part
from table.display.screens import GameScreen
from table.display.theme import TextDrawn, Theme, record_text, recording
from table.loop.snapshots import CELEBRATED, run_frames, walk_until

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "games" / "ubongo"))
from make_ubongo_screens import _sand

GAMES = ("ubongo_shimo", "ubongo", "umtata", "ugah_ugah")
STEPS = 40
"""Moments sampled along one flight."""


@pytest.fixture(autouse=True)
def _display() -> None:
    pygame.display.init()
    pygame.font.init()


def _texts(parts: list[Part], size: tuple[int, int], now: float) -> list[TextDrawn]:
    """The lines ``parts`` draw at ``now``, each part clipped to its rect as the table draws it."""
    surface = pygame.Surface(size)
    drawn: list[TextDrawn] = []
    with record_text(drawn.append):
        for part in parts:
            _, rect = part.at(now)
            surface.set_clip(rect)
            part.paint(surface, now)
        surface.set_clip(None)
    return [d for d in drawn if d.message.strip() and d.ink.width and d.surface.size == size]


def _flights(view: dict[str, Any], start: float) -> list[dict[str, Any]]:
    """One two-gem flight from every row to every player, taken at ``start``."""
    out = []
    for row in range(6):
        for player in view["players"]:
            out.append({"t": start, "kind": "gems_taken", "station": player["station"],
                        "detail": {"row": row, "from_row": row, "gems": ["yellow", "blue"], "place": 1, "left": 10}})
    return out


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_flying_gems_never_cover_a_players_labels(size: tuple[int, int]) -> None:
    table, now = _sand()
    base = table.view()
    theme = Theme(*size)
    problems = []
    for flight in _flights(base, now):
        view = dict(base, events=[flight])
        parts = RENDERER.parts(view, theme)
        panels = {p.name: p.rect for p in parts if p.name.startswith("ubongo:panel")}
        assert len(panels) == len(view["players"])
        flying = next(p for p in parts if p.name == "ubongo:flying")
        labels = [d for d in _texts([p for p in parts if p is not flying], size, now)
                  if any(panel.contains(d.ink) for panel in panels.values())]
        assert {d.message for d in labels} >= {"best"}
        for k in range(STEPS):
            t = now + FLIGHT * (k + 0.5) / STEPS
            spots, _ = flying.live(t)  # type: ignore[misc]
            assert spots, "the gems are in the air"
            for x, y, r in spots:
                gem = pygame.Rect(round(x - r), round(y - r), round(2 * r), round(2 * r))
                for d in labels:
                    if gem.colliderect(d.ink):
                        problems.append(f"row {flight['detail']['row'] + 1} to station {flight['station'] + 1} "
                                        f"at {k / STEPS:.0%} of the flight: gem {tuple(gem)} covers "
                                        f"{d.message!r} {tuple(d.ink)}")
    assert not problems, f"{len(problems)} overlaps:\n" + "\n".join(problems[:40])


def _game_screen(table: object) -> GameScreen:
    return next(s for s in table.screens if isinstance(s, GameScreen))  # type: ignore[attr-defined]


GLYPH = 128
"""A letter's pixels: at least this opaque in its line's picture."""


def _paint(surface: pygame.Surface, parts: list[Part], now: float) -> None:
    for part in parts:
        _, rect = part.at(now)
        surface.set_clip(rect)
        part.paint(surface, now)
    surface.set_clip(None)


def _hidden_letters(own: list[Part], over: list[Part], size: tuple[int, int], now: float) -> list[tuple[str, int]]:
    """(line, pixels) for every line of ``own`` some of whose letters ``over`` paints over
    at ``now`` (painting between the letters is fine: a spark behind the words)."""
    surface = pygame.Surface(size)
    drawn: list[TextDrawn] = []
    with recording() as visible, record_text(drawn.append):
        _paint(surface, own, now)
    shown = {(tuple(v.rect), v.message) for v in visible}  # not hidden under a panel drawn later
    before = pygame.surfarray.array3d(surface)
    _paint(surface, over, now)
    changed = np.any(pygame.surfarray.array3d(surface) != before, axis=2)
    screen = pygame.Rect((0, 0), size)
    out = []
    for d in drawn:
        if d.image is None or d.surface.size != size or not d.message.strip():
            continue
        rect = d.image.get_rect(topleft=d.topleft)
        area = rect.clip(d.clip).clip(screen)
        if not area.width or not area.height or (tuple(rect), d.message) not in shown:
            continue
        letters = pygame.surfarray.pixels_alpha(d.image)[area.x - rect.x:area.right - rect.x,
                                                         area.y - rect.y:area.bottom - rect.y] >= GLYPH
        hit = int((changed[area.left:area.right, area.top:area.bottom] & letters).sum())
        if hit:
            out.append((d.message, hit))
    # Lines drawn into a cached picture rather than one by one (the Umtata map's country
    # names and region tags, each on its own tag or in open sea): any paint inside them.
    lines = {(tuple(d.image.get_rect(topleft=d.topleft)), d.message) for d in drawn if d.image is not None}
    for v in visible:
        if (tuple(v.rect), v.message) in lines:
            continue
        area = v.rect.inflate(-2, -2).clip(screen)
        hit = int(changed[area.left:area.right, area.top:area.bottom].sum()) if area.width and area.height else 0
        if hit:
            out.append((v.message, hit))
    return out


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_celebrations_never_paint_over_the_games_text(game: str, size: tuple[int, int]) -> None:
    checked = 0
    problems: list[str] = []
    for kind in CELEBRATED:
        def showing(table: object, kind: str = kind) -> bool:
            return any(m.kind == kind for m in _game_screen(table).moments)

        found = walk_until(game, pygame.Surface(size), showing)
        if found is None or not showing(found[0]):
            continue
        table, clock, inputs = found
        moment = next(m for m in _game_screen(table).moments if m.kind == kind)
        while clock.now < moment.start + moment.duration:
            parts = _game_screen(table).parts(size, clock.now)
            if not any(p.name.startswith("moment") for p in parts):
                break
            over = [p for p in parts if p.name.startswith(("moment", "tension"))]
            own = [p for p in parts if not p.name.startswith(("moment", "tension"))]
            for message, hit in _hidden_letters(own, over, size, clock.now):
                problems.append(f"{game} {kind} at {clock.now - moment.start:.2f} s: {hit} px over {message!r}")
            checked += 1
            run_frames(table, clock, inputs, [], 1 / 6, fps=6)
    assert checked > 3
    assert not problems, f"{len(problems)} overlaps:\n" + "\n".join(sorted(set(problems))[:60])
