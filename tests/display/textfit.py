"""Every screen of every game, in every language, as pictures whose text is measured.

Used by ``tests/display/test_text_fit.py`` and, as a script, to write the German screenshots of
the games whose moments live with their tests::

    SDL_VIDEODRIVER=dummy PYTHONPATH=tests .venv/bin/python -m display.textfit de docs/screens/de

(the shell and the games' own pictures come from ``tools/screens/render_docs.py --lang de docs/screens/de``.)
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from table.display.final import final_parts
from table.display.games import renderers
from table.display.layers import Part
from table.display.screens import player_theme
from table.display.theme import TextDrawn, Theme, record_text
from table.games import registry
from table.loop.snapshots import phase_walk, shell_moments
from table.play.session import Session

Paint = Callable[[pygame.Surface], None]

SIZES = ((1920, 1080), (1280, 720))


def _parts_painter(game: str, view: dict[str, Any], now: float, paused: bool = False) -> Paint:
    """Paint a game's screen part by part, each clipped to its own rect as the table's
    composer clips a repaint: text outside its part would be cut on the table."""

    def paint(surface: pygame.Surface) -> None:
        theme = Theme(*surface.get_size())
        paint_clipped(surface, renderers()[game].parts(view, theme, paused), now)

    return paint


def _final_painter(session: Session) -> Paint:
    """Paint the final ranking of the finished ``session`` part by part, clipped."""

    def paint(surface: pygame.Surface) -> None:
        theme = player_theme(Theme(*surface.get_size()), session)
        paint_clipped(surface, final_parts(session, theme, surface.get_size()), 0.0)

    return paint


def paint_clipped(surface: pygame.Surface, parts: Iterable[Part], now: float) -> None:
    """Paint each part clipped to the rect it declares, as the composer does: text that
    leaves its part's rect is cut here, where the test can see it."""
    for part in parts:
        _, rect = part.at(now)
        surface.set_clip(rect)
        part.paint(surface, now)
    surface.set_clip(None)


def game_screens() -> Iterator[tuple[str, Paint]]:
    """(name, painter) for every registered game: each phase of each variant from random
    legal play (what ``table screens`` draws), then the moments the game's own tests
    keep by hand, when they keep some: ``moments()`` of the module ``games.<game>.screens``
    (under ``tests/``), yielding ``(name, public view, game time, paused)``."""
    for game, engine in registry().items():
        for variant in engine.variants:
            for k, (phase, session, now) in enumerate(phase_walk(game, variant, seed=3)):
                name = f"{game}/{variant}-{k + 1:02d}-{phase}"
                if session.is_over():  # the last moment: the walk leaves the session as it is
                    yield name, _final_painter(session)
                else:
                    yield name, _parts_painter(game, dict(session.view(None)), now, session.paused)
        try:
            kept = importlib.import_module(f"games.{game}.screens")
        except ModuleNotFoundError as exc:
            if exc.name not in (f"games.{game}", f"games.{game}.screens"):
                raise  # the module is there but broken
            continue
        for name, view, now, paused in kept.moments():
            yield f"{game}/{name}", _parts_painter(game, view, now, paused)


def _table_painter(snap: Paint) -> Paint:
    """Run a snapshot of the whole table loop unrecorded (its frames repaint changed
    regions only), then paint its last picture again part by part, each clipped to its
    own rect, while recording."""

    def paint(surface: pygame.Surface) -> None:
        from table.display import theme as theme_module
        from table.loop import app

        seen: list[tuple[app.Table, float]] = []
        original = app.Table.draw

        def spy(self: app.Table, now: float, force: bool = False) -> bool:
            seen.append((self, now))
            return original(self, now, force)

        recorders = list(theme_module._recorders)
        theme_module._recorders.clear()
        app.Table.draw = spy  # type: ignore[method-assign]
        try:
            snap(surface)
        finally:
            app.Table.draw = original  # type: ignore[method-assign]
            theme_module._recorders.extend(recorders)
        table, now = seen[-1]
        for screen in table._visible():
            paint_clipped(surface, screen.parts(surface.get_size(), now), now)

    return paint


def shell_screens() -> Iterator[tuple[str, Paint]]:
    """The lobby, menus, attract mode, every game's pictures of its own (``table
    screens``) and every game's final ranking, named ``shell/NAME`` and ``GAME/NAME``."""
    for name, snap in shell_moments():
        yield f"shell/{name}", _table_painter(snap)
    for game, renderer in renderers().items():
        for name, picture in renderer.pictures():
            yield f"{game}/{name}", picture
    yield from final_screens()


def final_screens() -> Iterator[tuple[str, Paint]]:
    """Every game's final ranking (random legal play to its end, fixed seed), and one
    ended from the table menu part-way, named ``GAME/final`` and ``GAME/final-ended-early``."""
    from table.display.final import final_parts
    from table.display.screens import player_theme
    from table.games.base import Action
    from table.loop.snapshots import phase_walk
    from table.play.session import END, Session

    for game, engine in registry().items():
        finished = None
        early = None
        for k, (_phase, session, _now) in enumerate(phase_walk(game, engine.variants[0], seed=3)):
            if session.is_over():
                finished = session
            elif k == 2 and early is None:
                early = Session.replay(game, session.setup, session.seed, session.history)
                early.apply(Action(END, session.last_t))
        for name, done in (("final", finished), ("final-ended-early", early)):
            if done is None:
                continue

            def paint(surface: pygame.Surface, session: Any = done) -> None:
                size = surface.get_size()
                theme = player_theme(Theme(*size), session)
                paint_clipped(surface, final_parts(session, theme, size), 0.0)

            yield f"{game}/{name}", paint


@dataclass(frozen=True)
class Misfit:
    screen: str
    size: tuple[int, int]
    text: str
    why: str

    def __str__(self) -> str:
        return f"{self.screen} {self.size[0]}x{self.size[1]}: {self.text!r} {self.why}"


def misfits(name: str, paint: Paint, size: tuple[int, int], min_scale: float = 0.0) -> list[Misfit]:
    """Every line that ``paint`` draws outside its box, outside the surface, cut by the
    clip it was drawn under, or shrunk below ``min_scale`` of its size to fit."""
    drawn: list[TextDrawn] = []
    surface = pygame.Surface(size)
    with record_text(drawn.append):
        paint(surface)
    out = []
    for d in drawn:
        if d.ink.width == 0 or not d.message.strip():
            continue
        if d.surface.size != size:
            continue  # laid out on a scratch surface to measure it (Umtata's column), not shown
        if not d.surface.contains(d.ink):
            out.append(Misfit(name, size, d.message, f"runs off the screen ({d.ink})"))
        elif d.box is not None and not d.box.contains(d.ink):
            out.append(Misfit(name, size, d.message, f"runs out of its box ({d.ink} not in {d.box})"))
        elif not d.clip.contains(d.ink):
            out.append(Misfit(name, size, d.message, f"is cut ({d.ink} drawn under clip {d.clip})"))
        elif d.scale < min_scale:
            out.append(Misfit(name, size, d.message, f"is shrunk to {d.scale:.0%} to fit"))
    return out


def size_misfits(name: str, paint: Paint, size: tuple[int, int]) -> list[Misfit]:
    """Panels whose lines of one type size were drawn at different sizes: the lines that
    share a panel (:func:`table.display.theme.one_size`), or else a box, and a size must
    end the same height (to a pixel) - a long word shrinks its whole panel, not itself
    alone."""
    drawn: list[TextDrawn] = []
    surface = pygame.Surface(size)
    with record_text(drawn.append):
        paint(surface)
    groups: dict[tuple[object, str], list[TextDrawn]] = {}
    for d in drawn:
        if d.ink.width == 0 or not d.message.strip() or d.surface.size != size or d.image is None:
            continue
        where = ("panel", d.panel) if d.panel is not None else ("box", tuple(d.box) if d.box is not None else None)
        if where[1] is None:
            continue
        groups.setdefault((where, d.size), []).append(d)
    out = []
    for (where, type_size), lines in groups.items():
        heights = {d.image.get_height() for d in lines if d.image is not None}
        if max(heights) - min(heights) > 1:
            sizes = ", ".join(f"{d.message!r} {d.scale:.0%}" for d in sorted(lines, key=lambda d: d.scale))
            out.append(Misfit(name, size, sizes, f"share a {where[0]} in {type_size} type at different sizes"))
    return out


def main(argv: list[str]) -> int:
    from table.common.i18n import set_language

    lang, out = argv[0], Path(argv[1])
    set_language(lang)
    pygame.display.init()
    pygame.font.init()
    for name, paint in game_screens():
        for size in SIZES:
            surface = pygame.Surface(size)
            paint(surface)
            path = out / f"{name}-{size[0]}x{size[1]}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            pygame.image.save(surface, str(path))
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
