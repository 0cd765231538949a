"""The Buzzer race screen: the round on top, one word in the middle, a panel per station.

Readable from across a room: while the round waits the middle says "Wait..." on the
dark background; at the signal the whole screen turns green with "Press!" in letters a
fifth of its height. Each station's panel shows its points as filled pips towards the
points to win and what it is doing now (waiting, out after a false start, scored).
Every word comes from the view's message ids through this game's catalogue.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pygame

from table.common.i18n import N_, _, language, ngettext
from table.display import draw
from table.display.games import GameRenderer
from table.display.layers import Part, fill
from table.display.theme import (
    ACCENT,
    BACKGROUND,
    BAD,
    GOOD,
    INK_DARK,
    PANEL,
    PANEL_LIGHT,
    TEXT,
    TEXT_DIM,
    Colour,
    Theme,
)

SIGNAL_GREEN: Colour = (40, 170, 90)
"""The whole screen at the signal: seen out of the corner of an eye."""

N_("Buzzer race")  # the game's name, as the table's own screens word it

MAX_PIPS = 10
"""Up to this many points to win are drawn as pips; more are written as a number."""


def _headline(view: Mapping[str, Any]) -> str:
    head = view.get("headline") or {}
    params = head.get("params") or {}
    return _(str(head.get("id", ""))).format(**params)


class BuzzerRenderer(GameRenderer, facts="screen.toml"):
    """The screen of the game ``buzzer_race`` (its card, sounds, variant names and
    celebration: ``screen.toml`` beside this module)."""

    def parts(self, view: dict[str, Any], theme: Theme, paused: bool = False) -> list[Part]:
        """The screen as parts; nothing on it moves with time, so every part is base."""
        w, h = theme.width, theme.height
        full = pygame.Rect(0, 0, w, h)
        phase = view["phase"]
        signal = phase == "signal"
        header = pygame.Rect(0, 0, w, theme.px(11))
        middle = pygame.Rect(0, theme.px(12), w, theme.px(52))
        out = [
            Part("buzzer:background", full, signal,
                 lambda s, t: fill(s, SIGNAL_GREEN if signal else BACKGROUND), base=True),
            Part("buzzer:header", header, (phase, view["round"], view["points_to_win"], view["variant"]),
                 lambda s, t: self._header(s, header, view, theme), base=True),
            Part("buzzer:middle", middle, (phase, view["headline"], view.get("reaction_ms"), view.get("reason"),
                                           tuple(view["scorers"])),
                 lambda s, t: self._middle(s, middle, view, theme), base=True),
        ]
        players = view["players"]
        n = max(1, len(players))
        area = pygame.Rect(0, theme.px(66), w, h - theme.px(66))
        gap = theme.px(1.5)
        width = (area.width - gap * (n + 1)) // n
        for i, p in enumerate(players):
            rect = pygame.Rect(area.left + gap + i * (width + gap), area.top + gap, width, area.height - 2 * gap)
            key = (p, view["points_to_win"], phase, p["station"] in view["winners"])
            out.append(Part(f"buzzer:player{p['station']}", rect, key, self._panel_painter(rect, p, view, theme),
                            base=True))
        if paused:
            out.append(Part("buzzer:paused", full, None, lambda s, t: self._paused(s, theme), base=True))
        return out

    def _panel_painter(self, rect: pygame.Rect, p: dict[str, Any], view: dict[str, Any],
                       theme: Theme) -> Callable[[pygame.Surface, float], None]:
        return lambda surface, t: self._panel(surface, rect, p, view, theme)

    # -- parts ------------------------------------------------------------------------
    def _header(self, surface: pygame.Surface, header: pygame.Rect, view: dict[str, Any], theme: Theme) -> None:
        pygame.draw.rect(surface, PANEL, header)
        pad = theme.px(2)
        if view["phase"] == "over":
            title = _("Buzzer race · game over")
            right = _("Press any button for the menu")
            right_colour = ACCENT
        else:
            title = _("Buzzer race · round {round}").format(round=view["round"])
            right = ngettext("first to {points} point", "first to {points} points",
                             int(view["points_to_win"])).format(points=view["points_to_win"])
            if view["variant"] == "strict":
                right += " · " + _("false starts cost a point")
            right_colour = TEXT_DIM
        shown = draw.label(surface, theme, title, (pad, header.centery), "large", TEXT, "midleft", bold=True,
                           max_width=header.width // 2, box=header)
        draw.label(surface, theme, right, (header.right - pad, header.centery), "body", right_colour, "midright",
                   max_width=header.right - shown.right - 3 * pad, box=header)

    def _middle(self, surface: pygame.Surface, area: pygame.Rect, view: dict[str, Any], theme: Theme) -> None:
        phase = view["phase"]
        text = _headline(view)
        room = area.width - theme.px(8)
        if phase == "wait":
            draw.label(surface, theme, text, area.center, "huge", TEXT_DIM, "center", bold=True, max_width=room,
                       box=area)
            return
        if phase == "signal":
            draw.label(surface, theme, text, area.center, "huge", INK_DARK, "center", bold=True, max_width=room,
                       box=area)
            return
        scorers = view["scorers"]
        single = len(scorers) == 1 if phase == "results" else len(view["winners"]) == 1
        who = scorers[0] if phase == "results" and single else (view["winners"][0] if single and view["winners"]
                                                               else None)
        colour = theme.station_colour(who) if who is not None else ACCENT
        draw.label(surface, theme, text, (area.centerx, area.top + theme.px(12)), "title", colour, "center",
                   bold=True, max_width=room, box=area)
        if phase == "results":
            reaction = view.get("reaction_ms")
            if reaction is not None:
                seconds = f"{reaction / 1000:.3f}"
                if language() == "de":
                    seconds = seconds.replace(".", ",")  # a German decimal comma
                line = _("after {seconds} s").format(seconds=seconds)
            elif view.get("ending") == "all_out":
                line = _("Nobody scores this round")
            else:
                line = _("No point this round")
            draw.label(surface, theme, line, (area.centerx, area.top + theme.px(24)), "large", TEXT, "center",
                       max_width=room, box=area)
        else:
            reason = str(view.get("reason") or "")
            said = _(reason) if reason else ""
            draw.label(surface, theme, said[:1].upper() + said[1:], (area.centerx, area.top + theme.px(24)), "large",
                       TEXT, "center", max_width=room, box=area)

    def _panel(self, surface: pygame.Surface, rect: pygame.Rect, p: dict[str, Any], view: dict[str, Any],
               theme: Theme) -> None:
        colour = theme.station_colour(p["station"])
        lit = p["scored"] or p["station"] in view["winners"]
        draw.panel(surface, rect, PANEL_LIGHT if lit else PANEL, theme.px(1.5), colour,
                   theme.px(1.0) if lit else theme.px(0.5))
        pad = theme.px(2)
        draw.label(surface, theme, p["name"], (rect.left + pad, rect.top + pad), "large", colour, bold=True,
                   max_width=rect.width - 2 * pad, box=rect)
        draw.label(surface, theme, str(p["points"]), (rect.left + pad, rect.top + theme.px(9)), "title", TEXT,
                   bold=True, box=rect)
        goal = int(view["points_to_win"])
        if goal <= MAX_PIPS:
            # Pips towards the points to win: how close everyone is, readable at a glance.
            left = rect.left + pad + theme.px(12)
            room = rect.right - pad - left
            step = min(theme.px(6), room // goal)
            radius = max(2, int(step * 0.38))
            for k in range(goal):
                centre = (left + k * step + step // 2, rect.top + theme.px(13.5))
                if k < p["points"]:
                    pygame.draw.circle(surface, colour, centre, radius)
                else:
                    pygame.draw.circle(surface, TEXT_DIM, centre, radius, max(1, radius // 4))
        else:
            draw.label(surface, theme, _("of {points}").format(points=goal),
                       (rect.left + pad + theme.px(12), rect.top + theme.px(13.5)), "body", TEXT_DIM, "midleft",
                       max_width=rect.width - 2 * pad - theme.px(12), box=rect)
        status = str(p["status"])
        status_colour = BAD if p["out"] else GOOD if p["scored"] else ACCENT if lit else TEXT
        draw.label(surface, theme, _(status) if status else "", (rect.centerx, rect.bottom - pad), "body",
                   status_colour, "midbottom", bold=True, max_width=rect.width - 2 * pad, box=rect)

    def _paused(self, surface: pygame.Surface, theme: Theme) -> None:
        w, h = surface.get_size()
        draw.veil(surface, surface.get_rect(), 150)
        draw.label(surface, theme, _("Paused"), (w / 2, h / 2), "title", ACCENT, "center", bold=True,
                   max_width=w - theme.px(4))


RENDERER = BuzzerRenderer()
