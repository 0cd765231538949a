"""The final ranking: one screen for the end of every game.

Whatever the game, once it is over (by its own rules or "End the game" from the table
menu) the game screen shows this instead of the game's own picture: who won, the
reason that decided (the outcome's reason, a tie-break included, worded by the game's
screen), every player's rank (a tie shares a rank), name and score (in the renderer's
``score_text``), any column the game adds (:meth:`GameRenderer.final_detail`), and
"Press any button for the menu" in one fixed place at the bottom. A game ended from the
table menu says "Ended early" and "No winner": it names no winner and celebrates
nobody; its players are ranked all the same.

The ranks: the winners first, then everyone by the session's standing (the engine's own
tie-breaks, else the score); players equal on both share a rank.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import pygame

from table.common.i18n import N_, _
from table.display import draw
from table.display.games import FinalDetail, GameRenderer, renderer_of
from table.display.layers import Part, whole
from table.display.theme import ACCENT, BACKGROUND, PANEL, PANEL_LIGHT, TEXT, TEXT_DIM, Theme
from table.games.base import JSONValue
from table.play.session import Session

OVER_NOTE = N_("Press any button for the menu")
"""What the final ranking says about going on (the game screen leaves after a press)."""

PLAIN = GameRenderer()
"""The defaults of the contract, for a game without a screen."""

HOLD_S = 1.5
"""Seconds the final ranking stands before a press leaves it: a press meant for the game
a moment before its end must not skip the ranking. Until then the note is dimmed."""


@dataclass(frozen=True)
class FinalRow:
    """One player on the final ranking."""

    station: int
    rank: int
    name: str
    score: int
    won: bool


def final_rows(session: Session) -> list[FinalRow]:
    """The players of a finished ``session`` best first: the winners, then by standing
    (seat order among equals); players equal on both share the better rank."""
    outcome = session.outcome()
    scores = dict(outcome.scores) if outcome else session.scores()
    winners = set(outcome.winners) if outcome else set()
    keys = {s: (s in winners, session.standing(s, scores)) for s in session.setup.stations}
    order = sorted(session.setup.stations, key=lambda s: (not keys[s][0], tuple(-v for v in keys[s][1])))  # stable
    return [FinalRow(s, 1 + sum(1 for o in order if keys[o] > keys[s]), session.setup.name_of(s),
                     int(scores.get(s, 0)), s in winners) for s in order]


def _headline(rows: list[FinalRow]) -> str:
    winners = [r.name for r in rows if r.won]
    if not winners:
        return _("No winner")
    if len(winners) == 1:
        return _("{name} wins!").format(name=winners[0])
    return _("{names} share the win!").format(names=" & ".join(winners))


def _why(session: Session, renderer: GameRenderer | None) -> str:
    if session.ended_early:
        # No winner: the order is the game's standing (its own tie-breaks) at that moment.
        rnd = int(session.state.round)  # every game state has one (GameState)
        return (_("Ended from the table menu in round {round}: ranked as the game stood then").format(round=rnd)
                if rnd else _("Ended from the table menu: ranked as the game stood then"))
    outcome = session.outcome()
    if outcome is None:
        return ""
    message: JSONValue = outcome.reason.to_json()
    return (renderer or PLAIN).final_reason(message)


def final_parts(session: Session, theme: Theme, size: tuple[int, int], lit_at: float | None = None) -> list[Part]:
    """The final ranking of the finished ``session`` as parts over the whole of ``size``;
    the note at the bottom is dimmed until time ``lit_at``, when presses start to leave
    for the menu (``None``: lit now)."""
    w = size[0]
    renderer = renderer_of(session.engine.name) or PLAIN
    rows = final_rows(session)
    view = session.final_view()  # a game ended early shows what its end would reveal
    details: dict[int, FinalDetail | None] = {
        r.station: renderer.final_detail(view, r.station, theme) for r in rows}
    title = _("{game} · game over").format(game=_(session.engine.title))  # a game may word its name
    early = _("Ended early") if session.ended_early else ""
    head = _headline(rows)
    winners = [r.station for r in rows if r.won]
    head_colour = theme.station_colour(winners[0]) if len(winners) == 1 else ACCENT
    why = _why(session, renderer)
    scores = {r.station: renderer.score_text(r.score) for r in rows}
    detail_keys: tuple[Hashable, ...] = tuple(d.key if d is not None else None for d in details.values())
    key = (title, early, head, why, tuple(rows), tuple(scores.values()), detail_keys, theme.colours, size)
    wide = max((d.units for d in details.values() if d is not None), default=0.0)

    def paint(surface: pygame.Surface, t: float) -> None:
        surface.fill(BACKGROUND)
        header = pygame.Rect(0, 0, w, theme.px(11))
        pygame.draw.rect(surface, PANEL, header)
        # The header's two labels at one scale (the title takes two thirds at most).
        head_fit = draw.one_size(theme, header, [(title, "large", True, w * 2 // 3),
                                                 (early, "large", True, w // 3 - theme.px(6))])
        shown = draw.label(surface, theme, title, (theme.px(2), header.centery), "large", TEXT, "midleft", bold=True,
                           max_width=w * 2 // 3, box=header, fit=head_fit)
        if early:
            draw.label(surface, theme, early, (w - theme.px(2), header.centery), "large", ACCENT, "midright",
                       bold=True, max_width=w - shown.right - theme.px(6), box=header, fit=head_fit)
        draw.label(surface, theme, head, (w / 2, theme.px(20)), "title", head_colour, "center", bold=True,
                   max_width=w - theme.px(8))
        lines = draw.wrap(theme.font("large"), why, w - theme.px(12))[:2]
        for i, line in enumerate(lines):
            draw.label(surface, theme, line, (w / 2, theme.px(29.5 + i * 6.5)), "large", TEXT, "center",
                       max_width=w - theme.px(8))
        top = theme.px(30 + 6.5 * len(lines) + 1)
        bottom = theme.px(87)
        row_h = min(theme.px(11), (bottom - top) // max(1, len(rows)))
        row_w = min(w - theme.px(8), theme.px(max(120.0, 100 + wide)))
        left = (w - row_w) // 2
        # Name, score and the game's own column side by side; without one the score sits right.
        name_right = left + (theme.px(48) if wide else row_w * 55 // 100)
        name_w = name_right - left - theme.px(14)
        score_right = left + row_w - (theme.px(wide + 3) if wide else theme.px(3))
        cell_w = left + row_w - score_right - theme.px(3)
        table = pygame.Rect(left, top, row_w, max(1, len(rows)) * row_h)
        # Every row's words at one scale: a long name or column shrinks the whole table alike.
        fit = draw.one_size(theme, table, [
            *((r.name, "large", True, name_w) for r in rows),
            *((scores[r.station], "large", r.won, score_right - name_right) for r in rows),
            *((d.words, "large", False, cell_w) for d in details.values() if d is not None and d.words is not None),
        ])
        for k, r in enumerate(rows):
            colour = theme.station_colour(r.station)
            row = pygame.Rect(left, top + k * row_h, row_w, row_h - theme.px(1.2))
            draw.panel(surface, row, PANEL_LIGHT if r.won else PANEL, theme.px(1), colour if r.won else None,
                       theme.px(0.5))
            pygame.draw.rect(surface, colour, pygame.Rect(row.left, row.top, theme.px(1.5), row.height))
            draw.label(surface, theme, f"{r.rank}.", (row.left + theme.px(10), row.centery), "large",
                       ACCENT if r.rank == 1 else TEXT, "midright", bold=True, box=row, fit=fit)
            draw.label(surface, theme, r.name, (row.left + theme.px(13), row.centery), "large", colour, "midleft",
                       bold=True, max_width=name_w, box=row, fit=fit)
            draw.label(surface, theme, scores[r.station], (score_right, row.centery), "large", TEXT, "midright",
                       bold=r.won, max_width=score_right - name_right, box=row, fit=fit)
            detail = details[r.station]
            cell = pygame.Rect(score_right + theme.px(2), row.top, row.right - score_right - theme.px(3), row.height)
            if detail is not None and detail.words is not None:
                draw.label(surface, theme, detail.words, (cell.right, cell.centery), "large", TEXT_DIM, "midright",
                           max_width=cell_w, box=cell, fit=fit)
            elif detail is not None:
                detail.paint(surface, cell)

    return [Part("final:ranking", whole(size), key, paint, base=True), note_part(theme, size, lit_at)]


def note_part(theme: Theme, size: tuple[int, int], lit_at: float | None = None) -> Part:
    """"Press any button for the menu", always in the same place: the bottom middle;
    dimmed until time ``lit_at`` (``None``: lit now), when presses start to count."""
    w, h = size
    note = _(OVER_NOTE)
    at = (w / 2, h - theme.px(6))
    rect = draw.label_rect(theme, note, at, "large", ACCENT, "center", bold=True, max_width=w - theme.px(8))

    def lit(t: float) -> bool:
        return lit_at is None or t >= lit_at

    def paint(s: pygame.Surface, t: float) -> None:
        draw.label(s, theme, note, at, "large", ACCENT if lit(t) else TEXT_DIM, "center", bold=True,
                   max_width=w - theme.px(8))

    return Part("final:note", rect, note, paint, live=None if lit_at is None else (lambda t: (lit(t), rect)))
