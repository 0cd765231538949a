"""The Ubongo Shimo screen: round and gems on top, the sand in the middle, a panel per station.

Every station's panel always says what that station is expected to do next (the
view's ``prompt``); the middle says what the whole table is doing (count-down, cards
turned, sand running, round result; the end is the table's final ranking, with each player's cards and gems).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pygame

from table.common.i18n import N_, _, ngettext, word
from table.display import draw
from table.display.games import (
    NEXT_ROUND_NOTE,
    FinalDetail,
    GameRenderer,
    Picture,
    PlayerOption,
    RenderContext,
    words_detail,
)
from table.display.layers import Part, fill, paint_all
from table.display.pieces import paused_part, side_by_side
from table.display.theme import ACCENT, BACKGROUND, BAD, GOOD, PANEL, PANEL_LIGHT, TEXT, TEXT_DIM, Theme

STATUS_COLOURS = {
    "called": ACCENT,
    "solved": GOOD,
    "winner": ACCENT,
    "not solved": BAD,
}

FINAL_REASONS = {
    "most points": N_("Most points (gems plus cards)"),
    "tied on points, more cards": N_("Tied on points: the player with more cards wins"),
    "won the extra round": N_("Tied on points and cards: won the extra round"),
    "ended from the table menu": N_("Game ended early from the table menu"),
}
"""The final screen's fuller words for the engine's reasons (by message id); any other
reason is shown as the message says it."""


def _joined(names: list[str]) -> str:
    """Names as a sentence lists them ("Ada, Bo and Cy"), in the table's language."""
    if len(names) < 2:
        return "".join(names)
    return _("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def _panels(area: pygame.Rect, count: int, theme: Theme) -> list[pygame.Rect]:
    """The players' panels side by side in ``area``, a gap apart and from its edges."""
    gap = theme.px(1.5)
    return side_by_side(area.inflate(-2 * gap, -2 * gap), count, gap)


def _seconds_left(view: dict[str, Any], now: float) -> float | None:
    deadline = view.get("deadline")
    if deadline is None:
        return None
    return max(0.0, float(deadline) - now)


class ShimoRenderer(GameRenderer, facts="screen.toml"):
    """The round, the sand and a panel per player, from the public view (its card, sounds,
    variant names and celebrations: ``screen.toml``)."""

    def final_reason(self, message: Any) -> str:
        """The engine's reasons in fuller words (:data:`FINAL_REASONS`)."""
        said = FINAL_REASONS.get(message["id"]) if isinstance(message, dict) else None
        return _(said) if said else word(message)

    def final_detail(self, view: dict[str, Any], station: int, theme: Theme) -> FinalDetail | None:
        """Cards and gems: what the points are made of, and the cards break a tie."""
        for p in view["players"]:
            if p["station"] == station:
                cards = ngettext("{n} card", "{n} cards", p["cards"]).format(n=p["cards"])
                gems = ngettext("{n} gem", "{n} gems", len(p["gems"])).format(n=len(p["gems"]))
                return words_detail(f"{cards} · {gems}", theme)
        return None
    player_options = (PlayerOption("levels", N_("Your level"), N_("push your knob to change your own level"),
                                   N_("playing · level {value}"), (1, 2, 3, 4)),)

    def pictures(self) -> Iterator[tuple[str, Picture]]:
        """Every phase of a round and of a game, from real states (``shimo-N-phase``)."""
        from table.display.games.ubongo_shimo.pictures import pictures

        return pictures(self)

    def draw(self, surface: pygame.Surface, view: dict[str, Any], ctx: RenderContext) -> None:
        paint_all(surface, self.parts(view, ctx.theme, ctx.paused), ctx.now)

    def parts(self, view: dict[str, Any], theme: Theme, paused: bool = False) -> list[Part]:
        """The screen as parts (see :mod:`table.display.layers`); times are game times."""
        w, h = theme.width, theme.height
        full = pygame.Rect(0, 0, w, h)
        out = [
            Part("shimo:background", full, None, lambda s, t: fill(s, BACKGROUND), base=True),
            Part("shimo:header", pygame.Rect(0, 0, w, theme.px(11)),
                 (view["phase"], view.get("extra_round"), view["round"], view["rounds"], view["variant"],
                  tuple(view.get("gems_left", []))),
                 lambda s, t: self._header(s, view, theme), base=True),
        ]
        middle = pygame.Rect(0, theme.px(13), w, theme.px(52))
        # Parts that change with time go last (above the players' panels, which they do not
        # overlap), so that everything else stays in the composer's base layer.
        live = self._middle_parts(middle, view, theme, paused)
        out += [part for part in live if part.live is None]
        area = pygame.Rect(0, theme.px(66), w, h - theme.px(66))
        players = view["players"]
        may_act = view.get("may_act", [])
        for i, (p, rect) in enumerate(zip(players, _panels(area, len(players), theme), strict=True)):
            key = (rect, p, p["station"] in may_act, self._round_note(view, p))

            def paint_player(s: pygame.Surface, t: float, i: int = i) -> None:
                self._players(s, area, view, theme, only=i)

            out.append(Part(f"shimo:player{p['station']}", rect, key, paint_player, base=True))
        out += [part for part in live if part.live is not None]
        if paused:
            out.append(paused_part("shimo:paused", theme))
        return out

    def _middle_parts(self, area: pygame.Rect, view: dict[str, Any], theme: Theme, paused: bool) -> list[Part]:
        """The middle: the hourglass and the seconds change with time, the rest with the state."""
        phase = view["phase"]
        deadline = view.get("deadline")
        glass = pygame.Rect(0, 0, theme.px(22), theme.px(40))
        glass.midright = (area.right - theme.px(6), area.centery)
        text_centre = (area.left + (glass.left - area.left) / 2, area.centery)
        sand_total = float(view["sand_seconds"])
        names = tuple((p["station"], p["name"]) for p in view["players"])
        # Only what the middle shows in this phase: a press that changes nothing here
        # (a player solving while the sand runs) leaves it alone.
        key: object
        if phase in ("countdown", "solving"):
            key = (phase, deadline, sand_total, view.get("flips") if phase == "solving" else None)
        elif phase == "racing":
            key = (phase, deadline, sand_total, tuple(view["callers"]), names)
        elif phase == "results":
            key = (phase, tuple(view["callers"]), tuple(view["solvers"]), view.get("extra_round"),
                   tuple((p["name"], p["playing"]) for p in view["players"]))
        else:
            key = (phase, deadline, sand_total, view.get("reason"), view["winners"], view["players"],
                   tuple(view["callers"]), tuple(view["solvers"]), view.get("extra_round"), view.get("flips"))
        out: list[Part] = []

        def ctx(t: float) -> RenderContext:
            return RenderContext(theme, t, paused)

        if phase == "countdown" and deadline is not None:
            number_at = text_centre

            def count(t: float) -> tuple[object, pygame.Rect]:
                n = max(1, math.ceil(float(deadline) - t))
                return n, draw.label_rect(theme, str(n), number_at, "huge", ACCENT, "center", bold=True)

            out.append(Part("shimo:count", area, key, lambda s, t: self._middle(s, area, view, ctx(t), "number"),
                            live=count))
            out.append(Part("shimo:middle", area, key, lambda s, t: self._middle(s, area, view, ctx(t), "rest"),
                            base=True))
            return out
        if phase in ("solving", "racing") and deadline is not None:

            def sand(t: float) -> tuple[object, pygame.Rect]:
                # Keyed by the sand's rows, not the time: a frame where no surface moved
                # by a pixel paints nothing.
                secs = max(0.0, float(deadline) - t)
                return (draw.hourglass_sand(glass, secs / sand_total), secs <= 10 and int(secs * 2) % 2 == 0), \
                    glass

            number_at = (text_centre[0], area.top + theme.px(18))

            def seconds(t: float) -> tuple[object, pygame.Rect]:
                secs = max(0.0, float(deadline) - t)
                colour = BAD if secs <= 10 else TEXT
                n = f"{math.ceil(secs)}"
                return (n, colour), draw.label_rect(theme, n, number_at, "huge", colour, "center", bold=True)

            out.append(Part("shimo:middle", area, key, lambda s, t: self._middle(s, area, view, ctx(t), "rest"),
                            base=True))
            out.append(Part("shimo:glass", glass, key,
                            lambda s, t: self._middle(s, area, view, ctx(t), "glass"), live=sand))
            out.append(Part("shimo:seconds", area, key,
                            lambda s, t: self._middle(s, area, view, ctx(t), "number"), live=seconds))
            return out
        out.append(Part("shimo:middle", area, key, lambda s, t: self._middle(s, area, view, ctx(t)), base=True))
        return out

    # -- parts ------------------------------------------------------------------------
    def _header(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme) -> None:
        w = surface.get_width()
        pad = theme.px(2)
        pygame.draw.rect(surface, PANEL, pygame.Rect(0, 0, w, theme.px(11)))
        header = pygame.Rect(0, 0, w, theme.px(11))
        if view.get("extra_round"):
            title = _("Ubongo Shimo · extra round")
        else:
            title = _("Ubongo Shimo · round {round} of {rounds}").format(round=min(view["round"], view["rounds"]),
                                                                        rounds=view["rounds"])
        shown = draw.label(surface, theme, title, (pad, theme.px(5.5)), "large", TEXT, "midleft", bold=True,
                           max_width=w // 2, box=header)
        variant = {"standard": "", "running-sand": _("sand runs from the start"),
                   "advanced": _("advanced: levels 4 and 3"),
                   "advanced-running-sand": _("advanced, sand from the start")}.get(view["variant"], view["variant"])
        # The gems still in the middle, lowest first: the next one is what this round wins.
        gems = view.get("gems_left", [])
        r = theme.px(2.2)
        x: float = w - pad - r
        for value in reversed(gems):
            draw.gem(surface, (x, theme.px(5.5)), r, value)
            x -= r * 2.8
        if variant:
            # All the room between the title and the gems (shrunk only when even that is short).
            draw.label(surface, theme, variant, (x - r, theme.px(5.5)), "small", TEXT_DIM, "midright",
                       max_width=int(x - r) - shown.right - 2 * pad, box=header)

    def _middle(self, surface: pygame.Surface, area: pygame.Rect, view: dict[str, Any], ctx: RenderContext,
                which: str = "all") -> None:
        """The middle of the screen; ``which``: "all", or only the time-dependent "glass" or
        "number", or the "rest"."""
        theme = ctx.theme
        number = which in ("all", "number")
        rest = which in ("all", "rest")
        phase = view["phase"]
        left = view.get("deadline")
        now = ctx.now
        glass = pygame.Rect(0, 0, theme.px(22), theme.px(40))
        glass.midright = (area.right - theme.px(6), area.centery)
        text_centre = (area.left + (glass.left - area.left) / 2, area.centery)
        secs = _seconds_left(view, now)
        if phase == "countdown" and left is not None:
            n = max(1, math.ceil(float(left) - now))
            if number:
                draw.label(surface, theme, str(n), text_centre, "huge", ACCENT, "center", bold=True)
            if rest:
                draw.label(surface, theme, _("Get ready to turn your card"),
                           (text_centre[0], area.bottom - theme.px(4)), "large", TEXT, "center",
                           max_width=glass.left - area.left - theme.px(4), box=area)
            return
        sand_total = float(view["sand_seconds"])
        if phase in ("solving", "racing") and secs is not None:
            blink = secs <= 10 and int(secs * 2) % 2 == 0
            if which in ("all", "glass"):
                draw.hourglass(surface, glass, secs / sand_total, ACCENT, blink=blink)
            colour = BAD if secs <= 10 else TEXT
            if number:
                draw.label(surface, theme, f"{math.ceil(secs)}", (text_centre[0], area.top + theme.px(18)), "huge",
                           colour, "center", bold=True)
        elif phase in ("solving", "racing") and rest:
            draw.hourglass(surface, glass, 1.0, ACCENT)
        if not rest:
            return
        if phase == "solving":
            msg = _("Turn your cards! Press your button when solved")
            if secs is not None and view.get("flips"):
                flips = view["flips"]
                msg += " · " + ngettext("sand turned {n} time", "sand turned {n} times", flips).format(n=flips)
            y = area.bottom - theme.px(8) if secs is not None else area.centery
            draw.label(surface, theme, msg, (text_centre[0], y), "large", TEXT, "center",
                       max_width=glass.left - area.left - theme.px(4))
        elif phase == "racing":
            callers = view["callers"]
            names = {p["station"]: p["name"] for p in view["players"]}
            if len(callers) == 1:
                msg = _("Ubongo! {name} was first").format(name=names[callers[0]])
                colour = theme.station_colour(callers[0])  # the first caller's own colour
            else:
                msg = _("Called together: {names} · no gem this round").format(
                    names=_joined([names[c] for c in callers]))
                colour = ACCENT
            draw.label(surface, theme, msg, (text_centre[0], area.bottom - theme.px(8)), "large", colour, "center",
                       bold=True, max_width=glass.left - area.left - theme.px(4))
        elif phase == "results":
            self._results(surface, area, view, theme)

    def _results(self, surface: pygame.Surface, area: pygame.Rect, view: dict[str, Any], theme: Theme) -> None:
        names = {p["station"]: p["name"] for p in view["players"]}
        callers = view["callers"]
        cx = area.centerx
        if view.get("extra_round"):
            tied = [p["name"] for p in view["players"] if p["playing"]]
            head = _("Tied: {names} play an extra round").format(names=_joined(tied))
        elif len(callers) == 1:
            head = _("{name} wins the round").format(name=names[callers[0]])
        elif callers:
            head = _("Called together: the gem and lost cards go back to the box")
        else:
            head = _("Round skipped")
        draw.label(surface, theme, head, (cx, area.top + theme.px(10)), "title", ACCENT, "center", bold=True,
                   max_width=area.width - theme.px(8))
        solved = [names[s] for s in view["solvers"]]
        line = _("Solved: {names}").format(names=", ".join(solved)) if solved else _("Nobody solved in time")
        draw.label(surface, theme, line, (cx, area.top + theme.px(24)), "large", TEXT, "center",
                   max_width=area.width - theme.px(8))
        draw.label(surface, theme, " · ".join((_("Take new cards"), _(NEXT_ROUND_NOTE))),
                   (cx, area.bottom - theme.px(6)), "body", TEXT_DIM, "center", max_width=area.width - theme.px(8))

    @staticmethod
    def _round_note(view: dict[str, Any], p: dict[str, Any]) -> str:
        """What the last round did to this station's cards (shown with the results)."""
        if view["phase"] != "results" or not view["callers"]:
            return ""
        names = {q["station"]: q["name"] for q in view["players"]}
        callers = view["callers"]
        s = p["station"]
        if not p["playing"]:
            return ""
        if s in callers and len(callers) == 1:
            # The caller takes the cards of those who did not solve: say how many.
            taken = sum(1 for q in view["players"]
                        if q["playing"] and q["station"] not in callers and q["station"] not in view["solvers"])
            if not taken:
                return _("First: gem")
            return ngettext("First: gem + {n} card", "First: gem + {n} cards", taken).format(n=taken)
        if s in view["solvers"]:
            return _("Solved: card kept")
        if len(callers) == 1:
            return _("Card goes to {name}").format(name=names[callers[0]])
        return _("Card to the box")

    def _players(self, surface: pygame.Surface, area: pygame.Rect, view: dict[str, Any], theme: Theme,
                 only: int | None = None) -> None:
        players = view["players"]
        for i, (p, rect) in enumerate(zip(players, _panels(area, len(players), theme), strict=True)):
            if only is not None and i != only:
                continue
            colour = theme.station_colour(p["station"])
            fill = PANEL_LIGHT if p["station"] in view.get("may_act", []) else PANEL
            draw.panel(surface, rect, fill, theme.px(1.5), colour, theme.px(0.6))
            pad = theme.px(2)
            level_text = _("Level {level}").format(level=p["round_level"])
            level_w = theme.font("body").size(level_text)[0]
            # The big number stands alone, so the word after it follows its count too.
            cards = " · ".join((ngettext("point", "points", p["points"]),
                                ngettext("{n} card", "{n} cards", p["cards"]).format(n=p["cards"])))
            # With the results, what the round did to the card says more than the prompt
            # (the middle of the screen already says how to go on).
            prompt = self._round_note(view, p) or (_(p["prompt"]) if p["prompt"] else _(p["status"]).capitalize())
            name_w = rect.width - 3 * pad - level_w
            cards_w = rect.width - 2 * pad - theme.px(11)
            # The panel's lines at one scale: a long note shrinks the name and the number with it.
            fit = draw.one_size(theme, rect, [(p["name"], "large", True, name_w),
                                              (level_text, "body", False, rect.width // 2),
                                              (cards, "body", False, cards_w),
                                              (prompt, "body", True, rect.width - 2 * pad)])
            draw.label(surface, theme, p["name"], (rect.left + pad, rect.top + pad), "large", colour, bold=True,
                       max_width=name_w, box=rect, fit=fit)
            draw.label(surface, theme, level_text, (rect.right - pad, rect.top + pad + theme.px(1)), "body",
                       TEXT_DIM, "topright", max_width=rect.width // 2, box=rect, fit=fit)
            draw.label(surface, theme, f"{p['points']}", (rect.left + pad, rect.top + theme.px(9)), "title", TEXT,
                       bold=True, box=rect, fit=fit)
            draw.label(surface, theme, cards, (rect.left + pad + theme.px(11),
                       rect.top + theme.px(12.5)), "body", TEXT, "midleft", max_width=cards_w, box=rect, fit=fit)
            gx = rect.left + pad + theme.px(1.6)
            for value in p["gems"]:
                draw.gem(surface, (gx, rect.top + theme.px(20)), theme.px(1.5), value)
                gx += theme.px(4)
            status_colour = STATUS_COLOURS.get(p["status"], TEXT)
            draw.label(surface, theme, prompt, (rect.centerx, rect.bottom - pad), "body", status_colour, "midbottom",
                       bold=True, max_width=rect.width - 2 * pad, box=rect, fit=fit)

RENDERER = ShimoRenderer()
