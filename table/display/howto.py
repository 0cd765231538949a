"""The how-to-play card: a game's few lines on what to do with the button and the knob.

Each game's screen gives its card as ``GameRenderer.how_to_play`` (message ids, three to
five short lines). :func:`paint_card` draws it inside any rect (a lobby panel);
:func:`card_parts` fills the screen with it (between the demo games of the attract
loop). The words are large: the card is read from across the room.
"""

from __future__ import annotations

import pygame

from table.common.i18n import _
from table.display import draw
from table.display.games import renderer_of
from table.display.layers import Part, fill, whole
from table.display.theme import ACCENT, BACKGROUND, PANEL, TEXT, Theme
from table.games import registry


def card_lines(game: str) -> list[str]:
    """``game``'s how-to-play lines in the language in force (none without a card)."""
    renderer = renderer_of(game)
    return [_(line) for line in (renderer.how_to_play if renderer is not None else ())]


def card_title(game: str) -> str:
    """The card's heading: "How to play" and the game's name."""
    engine = registry().get(game)
    return _("How to play {game}").format(game=_(engine.title) if engine is not None else game)


def paint_card(surface: pygame.Surface, rect: pygame.Rect, theme: Theme, game: str) -> None:
    """Paint ``game``'s card inside ``rect``: a panel, the heading, one numbered line
    each (wrapped to two lines at most, shrunk only when even that is too long)."""
    draw.panel(surface, rect, PANEL, theme.px(2), ACCENT, theme.px(0.5))
    pad = theme.px(4)
    draw.label(surface, theme, card_title(game), (rect.centerx, rect.top + theme.px(8)), "title", ACCENT,
               "center", bold=True, max_width=rect.width - 2 * pad, box=rect)
    lines = card_lines(game)
    if not lines:
        return
    top = rect.top + theme.px(16)
    font = theme.font("large")
    line_h = theme.px(7)
    x = rect.left + pad + theme.px(8)
    width = rect.right - pad - x
    items = []
    for line in lines:
        wrapped = draw.wrap(font, line, width)
        items.append(wrapped if len(wrapped) <= 2 else [line])  # else one line, shrunk to fit
    used = sum(len(item) for item in items) * line_h
    # The room left shared out between the lines, at most two thirds of a line each.
    gap = max(0.0, min(line_h * 0.67, (rect.bottom - pad - top - used) / max(1, len(items) - 1)))
    y: float = top + max(0.0, (rect.bottom - pad - top - used - gap * (len(items) - 1)) / 2)
    for k, item in enumerate(items):
        draw.label(surface, theme, f"{k + 1}.", (rect.left + pad + theme.px(5), y), "large", ACCENT, "topright",
                   bold=True, box=rect)
        for part in item:
            draw.label(surface, theme, part, (x, y), "large", TEXT, max_width=width, box=rect)
            y += line_h
        y += gap


def card_parts(game: str, theme: Theme, size: tuple[int, int]) -> list[Part]:
    """The whole screen showing ``game``'s card."""
    box = pygame.Rect(theme.px(6), theme.px(14), size[0] - theme.px(12), size[1] - theme.px(20))
    key = (game, card_title(game), tuple(card_lines(game)), size)

    def paint(surface: pygame.Surface, t: float) -> None:
        fill(surface, BACKGROUND)
        paint_card(surface, box, theme, game)

    return [Part("howto:card", whole(size), key, paint, base=True)]
