"""Screenshots of every Ubongo phase, drawn headless from real game states.

Run ``SDL_VIDEODRIVER=dummy python tests/games/ubongo/make_ubongo_screens.py [DIR]`` from
the worktree root to refresh ``docs/screens/ubongo/``; the tests call :func:`make`
with a temporary directory.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from ubongo_driver import Table

from table.display.games import RenderContext
from table.display.games.ubongo.screen import RENDERER
from table.display.theme import Theme

NAMES = ("Ada", "Ben", "Cleo", "Dev")


def _place() -> tuple[Table, float]:
    table = Table(4, names=NAMES)
    table.turn(0.1, 0, 2)
    table.push(0.2, 0)
    table.turn(0.3, 1, 4)
    table.push(0.4, 1)
    table.turn(0.5, 2, 1)
    table.turn(0.6, 3, 5)
    return table, 0.7


def _started(**options: object) -> Table:
    table = Table(4, names=NAMES, options=dict(options))
    table.place((2, 4, 1, 5))
    return table


def _roll() -> tuple[Table, float]:
    table = _started(dice_reader=True)
    table.turn(1.0, 0, 3)
    return table, 1.2


def _countdown() -> tuple[Table, float]:
    table = _started()
    return table, table.state.now + 1.2


def _sand() -> tuple[Table, float]:
    table = _started()
    t = table.sand_start()
    table.press(t + 14.0, 1)
    table.press(t + 19.5, 3)
    table.press(t + 22.0, 0)
    table.turn(t + 23.0, 1, -2)
    table.turn(t + 23.5, 0, 1)
    table.push(t + 24.0, 3)
    return table, t + 24.35  # Dev's gems are in flight


def _second_hourglass() -> tuple[Table, float]:
    table = _started()
    t = table.sand_start()
    table.ticks_until(t + 60)
    return table, t + 95


def _results() -> tuple[Table, float]:
    table = _started()
    t = table.sand_start()
    table.press(t + 10, 2)
    table.press(t + 12, 0)
    table.press(t + 40, 1)
    table.turn(t + 11, 2, -1)
    table.push(t + 13, 2)
    table.turn(t + 14, 0, 2)
    table.push(t + 15, 0)
    table.ticks_until(t + 60)
    return table, t + 62


def _results_everyone_took() -> tuple[Table, float]:
    """A round that ended before the sand: every finisher has taken their gems."""
    table = _started()
    t = table.sand_start()
    for k, s in enumerate((2, 0, 3, 1)):
        table.press(t + 8 + 2 * k, s)
    for k, s in enumerate((2, 0, 3, 1)):
        table.push(t + 17 + k, s)
    return table, table.state.now + 2


def _over() -> tuple[Table, float]:
    table = _started()
    for rnd in range(9):
        t = table.sand_start()
        order = [(rnd + k) % 4 for k in range(4)]
        for k, s in enumerate(order):
            table.press(t + 5 + k, s)
        for k, s in enumerate(order):
            if (rnd + s) % 3:
                table.turn(t + 10 + k, s, (-1) ** s)
            table.push(t + 15 + k, s)
        if table.state.phase == "results":
            table.press(t + 70, 0)
    return table, table.state.now + 5


SHOTS: dict[str, Callable[[], tuple[Table, float]]] = {
    "1-place": _place,
    "2-roll-dice-reader": _roll,
    "3-countdown": _countdown,
    "4-sand-moving": _sand,
    "5-second-hourglass": _second_hourglass,
    "6-results": _results,
    "6-results-everyone-took": _results_everyone_took,
    "7-over-ranking": _over,
}


def make(out: Path, sizes: tuple[tuple[int, int], ...] = ((1920, 1080), (1280, 720))) -> list[Path]:
    """Draw every phase at every size into ``out``; returns the files written."""
    pygame.init()
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, build in SHOTS.items():
        table, now = build()
        view = table.view()
        for w, h in sizes:
            surface = pygame.Surface((w, h))
            RENDERER.draw(surface, view, RenderContext(Theme(w, h), now))
            path = out / f"{name}-{w}x{h}.png"
            pygame.image.save(surface, str(path))
            written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screens/ubongo")
    for p in make(target):
        print(p)
