"""The Ugah Ugah! screen: the circle of path chips with the hunters on the left, the dice
and the current choice on the right, a row per player below.

The circle is drawn clockwise with the gap at the top: place 0 is the first chip
clockwise of the gap (where Mammoth Masher starts walking), place 30 the last (where
Bone Breaker starts). Face-down chips show "?"; taken places stay as faint rings.
Dice are pictograms on light faces (:mod:`.dice`) with their names under them. Inside
the circle, below the spoils cards, a few lines sum up the last finished turn (built
here as messages from the view's ``last_turn`` facts). Everything comes from
``engine.view(state, None)``, which already hides face-down values and pile contents;
its words (the players' next steps, a tray problem) are messages, worded here with
:func:`table.common.i18n.word`.
"""

from __future__ import annotations

import math
from typing import Any

import pygame

from table.common.i18n import N_, N_plural, _, ngettext, word
from table.display import draw
from table.display.games import FinalDetail, GameRenderer, RenderContext, words_detail
from table.display.games.ugah_ugah import dice
from table.display.layers import Part, fill, paint_all
from table.display.pieces import paused_part, stacked
from table.display.theme import (
    ACCENT,
    BACKGROUND,
    BAD,
    GOOD,
    PANEL,
    PANEL_LIGHT,
    TEXT,
    TEXT_DIM,
    Colour,
    OneSize,
    Theme,
)
from table.games.base import Message, counted

CHIP_FACE: Colour = (214, 186, 140)
CHIP_EDGE: Colour = (120, 92, 56)
CHIP_DOWN: Colour = (92, 70, 48)
CHIP_MARK: Colour = (236, 214, 170)
"""The "?" on a face-down chip: light enough for 4.5:1 on its brown."""
CATERPILLAR: Colour = (120, 190, 60)
MASHER_COLOUR: Colour = (236, 84, 72)
BREAKER_COLOUR: Colour = (168, 124, 255)

DIE_NAMES = {"bone": N_("Bone"), "dinosaur": N_("Dinosaur"), "mammoth": N_("Mammoth"), "bird": N_("Bird"),
             "masher": N_("Masher"), "breaker": N_("Breaker")}
"""The name under a die: short enough for a die's width in the side column."""
SYMBOL_NAMES = {"bone": N_("bone"), "dinosaur": N_("dinosaur"), "mammoth": N_("mammoth"), "bird": N_("bird"),
                "masher": N_("Mammoth Masher"), "breaker": N_("Bone Breaker")}
TAB_NAMES = {"bone": N_("bone"), "dinosaur": N_("dinosaur"), "mammoth": N_("mammoth"), "bird": N_("bird"),
             "masher": N_("Masher"), "breaker": N_("Breaker")}
CARD_NAMES = {"dinosaur": N_("Dinosaur"), "mammoth": N_("Mammoth"), "bird": N_("Bird")}
"""Message ids: every name here is shown through :func:`table.common.i18n._`."""

SPOILS_RAISED = 5.0
"""How far (units) the spoils cards sit above the circle's centre."""

PLACES = 31
SLOTS = 34
"""Angular slots around the circle: 31 chips and a gap three chips wide at the top."""


def place_angle(place: float) -> float:
    """Screen angle (radians, 0 = right, clockwise positive since y points down) of a place."""
    slot = place + (SLOTS - PLACES + 1) / 2
    return -math.pi / 2 + 2 * math.pi * slot / SLOTS


def on_circle(centre: tuple[float, float], radius: float, place: float) -> tuple[float, float]:
    a = place_angle(place)
    return centre[0] + radius * math.cos(a), centre[1] + radius * math.sin(a)


DICE_COUNTED = {
    "bone": N_plural("{n} bone", "{n} bones"), "dinosaur": N_plural("{n} dinosaur", "{n} dinosaurs"),
    "mammoth": N_plural("{n} mammoth", "{n} mammoths"), "bird": N_plural("{n} bird", "{n} birds"),
    "masher": N_plural("{n} Masher", "{n} Mashers"), "breaker": N_plural("{n} Breaker", "{n} Breakers"),
}
"""How many dice of a symbol, for the turn summary (symbols in the knob's order)."""


def _chip_words(chip: dict[str, Any]) -> Message:
    if chip.get("caterpillar"):
        return Message(N_("caterpillar 1"))
    return Message(N_("worth {points}"), {"points": chip["points"]})


def _wrap(theme: Theme, text: str, size: str, bold: bool, width: int) -> list[str]:
    """``text`` broken at spaces into lines at most ``width`` wide (a longer word stays whole)."""
    font = theme.font(size, bold)
    lines: list[str] = []
    for word_ in text.split(" "):
        if lines and font.size(lines[-1] + " " + word_)[0] <= width:
            lines[-1] += " " + word_
        else:
            lines.append(word_)
    return lines


def turn_summary(view: dict[str, Any], names: dict[int, str], dice_line: bool = True) -> list[Message]:
    """What the last finished turn did, from the view's ``last_turn`` facts, as messages:
    the dice set aside (unless ``dice_line`` is false: the screen draws them as dice),
    the spoils card, the hunters' steps, where the chips went. Empty before the first
    turn is over. Chip values appear only where the view has them."""
    last = view.get("last_turn")
    if not last:
        return []
    who = names.get(last["station"], "?")
    if last["skipped"]:
        return [Message(N_("{who}'s turn was skipped"), {"who": who})]
    out: list[Message] = []
    if dice_line:
        # a count and its symbol stay on one line when the summary wraps (a no-break space)
        pieces = ", ".join(word(counted(DICE_COUNTED[symbol], n, n=n).to_json()).replace(" ", "\u00a0")
                           for symbol, n in last["dice"].items())
        out.append(Message(N_("{who} set aside {dice}"), {"who": who, "dice": pieces}))
    spoils = last.get("spoils")
    if spoils:
        card = Message(CARD_NAMES.get(spoils["card"], spoils["card"]))
        other = names.get(spoils["from"], "?") if spoils["from"] is not None else None
        if spoils["result"] == "kept":
            out.append(Message(N_("{who} already holds the {card} card"), {"who": who, "card": card}))
        elif spoils["result"] == "left":
            out.append(Message(N_("{who} left the {card} card with {other}"),
                               {"who": who, "card": card, "other": other}))
        elif other is not None:
            out.append(Message(N_("{who} took the {card} card from {other}"),
                               {"who": who, "card": card, "other": other}))
        else:
            out.append(Message(N_("{who} took the {card} card"), {"who": who, "card": card}))
    steps = last["steps"]
    walked = [f"{_(TAB_NAMES[h])}\u00a0{steps[h]}" for h in ("masher", "breaker") if steps[h]]
    if walked:
        out.append(Message(N_("Hunters walked: {steps}"), {"steps": ", ".join(walked)}))
    else:
        out.append(Message(N_("No hunter walked")))
    chips = last["chips"]
    kept = [c for c in chips if c["to"] == last["station"]]
    given = [c for c in chips if c["to"] != last["station"]]
    if len(kept) == 1 and len(given) == 1 and kept[0]["points"] is None:
        # values hidden (the piles are face down): one line for both chips
        return [*out, Message(N_("{who} kept a chip and gave {other} the other"),
                              {"who": who, "other": names.get(given[0]["to"], "?")})]
    for chip in kept:
        if chip["points"] is None:
            out.append(Message(N_("{who} took a chip"), {"who": who}))
        else:
            out.append(Message(N_("{who} kept the chip {points}"), {"who": who, "points": _chip_words(chip)}))
    for chip in given:
        other = names.get(chip["to"], "?")
        if chip["points"] is None:
            out.append(Message(N_("{who} gave a chip to {other}"), {"who": who, "other": other}))
        else:
            out.append(Message(N_("{who} gave {other} the chip {points}"),
                               {"who": who, "other": other, "points": _chip_words(chip)}))
    return out


class UgahRenderer(GameRenderer, facts="screen.toml"):
    """The hunt's circle, the dice and a row per player, from the public view (its card,
    sounds, variant names and celebrations: ``screen.toml``)."""

    def final_detail(self, view: dict[str, Any], station: int, theme: Theme) -> FinalDetail | None:
        """What the points are made of: the pile's chips and the spoils cards."""
        for p in view["players"]:
            if p["station"] == station:
                words = _("chips {points}").format(points=p.get("pile_points", 0))
                cards = len(p.get("spoils", ()))
                if cards:
                    words += " + " + ngettext("{n} card × 3", "{n} cards × 3", cards).format(n=cards)
                return words_detail(words, theme, 48.0)  # room for "chips 23 + 2 cards x 3" in German
        return None

    def draw(self, surface: pygame.Surface, view: dict[str, Any], ctx: RenderContext) -> None:
        paint_all(surface, self.parts(view, ctx.theme, ctx.paused), ctx.now)

    def parts(self, view: dict[str, Any], theme: Theme, paused: bool = False) -> list[Part]:
        """The screen as parts (see :mod:`table.display.layers`): the circle, and the column
        beside it; nothing here changes with time, only with the state."""
        w, h = theme.width, theme.height
        full = pygame.Rect(0, 0, w, h)
        names = {p["station"]: p["name"] for p in view["players"]}
        board = pygame.Rect(0, 0, min(theme.px(100), w // 2 + theme.px(10)), h)
        side = pygame.Rect(board.right, 0, w - board.right, h)
        circle_key = (view["circle"], view.get("taken"), view.get("order_preview"), view["hunters"], view["spoils"],
                      view.get("spoils_card"), view.get("last_turn"), view.get("hunters_met"), view["phase"], names,
                      theme.colours)
        # The column in two parts: the turn (a knob turn changes only it) and the players.
        turn = pygame.Rect(side.left, 0, side.width, theme.px(71))
        rows = pygame.Rect(side.left, turn.bottom, side.width, h - turn.bottom)
        over = view["phase"] == "over"  # the end is the table's final ranking
        active = [p for p in view["players"] if p["station"] == view["active"]]
        # Not the pause: the veil covers the column, and entering the pause then lays the
        # veil over the picture as it is instead of repainting the screen under it.
        turn_key = ({k: v for k, v in view.items() if k not in ("players", "paused")}, active, theme.colours)
        rows_key = (view["players"], view.get("may_act"), over, theme.colours)
        out = [
            Part("ugah:background", full, None, lambda s, t: fill(s, BACKGROUND), base=True),
            Part("ugah:circle", board, circle_key, lambda s, t: self._circle(s, board, view, theme, names), base=True),
            Part("ugah:turn", turn, turn_key,
                 lambda s, t: None if over else self._side(s, side, view, theme, names), base=True),
            Part("ugah:players", rows, rows_key, lambda s, t: None if over else self._players(s, rows, view, theme),
                 base=True),
        ]
        if paused:
            out.append(paused_part("ugah:paused", theme))
        return out

    # -- the circle ---------------------------------------------------------------------
    def _circle(self, surface: pygame.Surface, area: pygame.Rect, view: dict[str, Any], theme: Theme,
                names: dict[int, str]) -> None:
        centre = (area.centerx, area.centery + theme.px(1))
        radius = min(area.width, area.height) * 0.43
        chip_r = radius * math.pi / SLOTS * 0.92
        highlight = {t["place"] for t in view.get("taken", [])}
        for prev in view.get("order_preview", []):
            highlight |= set(prev["places"])
        for chip in view["circle"]:
            pos = on_circle(centre, radius, chip["place"])
            if not chip["present"]:
                pygame.draw.circle(surface, PANEL_LIGHT, pos, chip_r, max(1, theme.px(0.3)))
                continue
            if chip["points"] is None:
                pygame.draw.circle(surface, CHIP_DOWN, pos, chip_r)
                pygame.draw.circle(surface, CHIP_EDGE, pos, chip_r, max(1, theme.px(0.4)))
                draw.label(surface, theme, "?", pos, "body", CHIP_MARK, "center", bold=True)
            else:
                fill = CATERPILLAR if chip["caterpillar"] else CHIP_FACE
                pygame.draw.circle(surface, fill, pos, chip_r)
                pygame.draw.circle(surface, CHIP_EDGE, pos, chip_r, max(1, theme.px(0.4)))
                if chip["caterpillar"]:
                    self._caterpillar(surface, pos, chip_r)
                else:
                    draw.label(surface, theme, str(chip["points"]), pos, "large", (40, 28, 16), "center", bold=True)
        for place in highlight:
            pygame.draw.circle(surface, ACCENT, on_circle(centre, radius, place), chip_r + theme.px(0.6),
                               max(2, theme.px(0.5)))
        # The hunters (they start in the gap at the top) and which way each walks.
        self._hunters(surface, view, theme, centre, radius, chip_r)
        # the spoils cards sit a little above the middle, the last turn's summary below them
        self._spoils(surface, view, theme, (centre[0], centre[1] - theme.px(SPOILS_RAISED)), radius, names)
        self._summary(surface, view, theme, centre, radius, names)

    @staticmethod
    def _summary(surface: pygame.Surface, view: dict[str, Any], theme: Theme, centre: tuple[float, float],
                 radius: float, names: dict[int, str]) -> None:
        """The last turn in a few lines, inside the circle below the spoils cards; while the
        hunters have met, the warning that this is the last turn comes first. Each line
        wraps to the width the circle leaves at its height."""
        # inside the ring where the hunters' badges stand (see _hunters)
        inner = radius - radius * math.pi / SLOTS * 0.92 - theme.px(8.6)
        bottom = centre[1] + inner * 0.97

        def room(y: float) -> int:
            dy = min(inner - 1, abs(y - centre[1]))
            return int(2 * math.sqrt(inner * inner - dy * dy))

        y = centre[1] + theme.px(12.5 - SPOILS_RAISED)
        lines: list[tuple[str, str, Colour, bool]] = []
        if view.get("hunters_met") and view["phase"] != "over":
            lines.append((_("The hunters have met: this is the last turn!"), "body", ACCENT, True))
        last = view.get("last_turn")
        said = turn_summary(view, names, dice_line=False)
        font_h = theme.font("body").get_linesize()
        if last and not last["skipped"]:
            for text, size, colour, bold in lines:
                for part in _wrap(theme, text, size, bold, room(y + font_h)):
                    y = draw.label(surface, theme, part, (centre[0], y), size, colour, "midtop", bold=bold,
                                   max_width=room(y + font_h)).bottom + theme.px(0.2)
            lines = []
            y = UgahRenderer._dice_line(surface, theme, last, names, centre[0], y, room(y + font_h))
        elif said:
            lines.append((word(said[0].to_json()), "body", TEXT, False))
            said = []
        lines += [(word(m.to_json()), "body", TEXT, False) for m in said]
        for text, size, colour, bold in lines:
            parts = _wrap(theme, text, size, bold, room(y + font_h))
            if y + len(parts) * font_h > bottom:
                return  # a line is said whole or not at all
            for part in parts:
                drawn = draw.label(surface, theme, part, (centre[0], y), size, colour, "midtop", bold=bold,
                                   max_width=room(y + font_h))
                y = drawn.bottom + theme.px(0.2)

    @staticmethod
    def _dice_line(surface: pygame.Surface, theme: Theme, last: dict[str, Any], names: dict[int, str], x: float,
                   y: float, width: int) -> float:
        """"Ada set aside:" and the dice as small pictograms with their counts, centred on
        ``x``, on one line from ``y`` (shrunk to ``width`` if need be); returns the y below."""
        head = _("{who} set aside:").format(who=names.get(last["station"], "?"))
        font = theme.font("body")
        die = theme.px(4.6)
        gap = theme.px(0.8)
        counts = [(symbol, f"\u00d7{n}") for symbol, n in last["dice"].items()]
        total = font.size(head)[0] + sum(gap * 2 + die + font.size(c)[0] + gap for _s, c in counts)
        if total > width:  # too wide for one line: the head alone, the dice under it
            drawn = draw.label(surface, theme, head, (x, y), "body", TEXT, "midtop", max_width=width)
            y, left = drawn.bottom + theme.px(0.2), x - (total - font.size(head)[0]) / 2
        else:
            drawn = draw.label(surface, theme, head, (x - total / 2, y), "body", TEXT, max_width=width)
            left = drawn.right
        mid = y + font.get_linesize() / 2 if total > width else drawn.centery
        for symbol, count in counts:
            left += gap * 2
            dice.draw_face(surface, pygame.Rect(round(left), round(mid - die / 2), die, die), symbol)
            left += die + gap
            left = draw.label(surface, theme, count, (left, mid), "body", TEXT, "midleft").right
        return max(drawn.bottom, mid + die / 2) + theme.px(0.4)

    @staticmethod
    def _caterpillar(surface: pygame.Surface, pos: tuple[float, float], r: float) -> None:
        seg = r * 0.28
        for i in range(4):
            x = pos[0] - r * 0.55 + i * seg * 1.35
            y = pos[1] + (seg * 0.5 if i % 2 else -seg * 0.2)
            pygame.draw.circle(surface, (60, 110, 30), (x, y), seg)
        pygame.draw.circle(surface, (255, 255, 255), (pos[0] + r * 0.5, pos[1] - seg * 0.5), max(2, seg * 0.35))
        pygame.draw.circle(surface, (0, 0, 0), (pos[0] + r * 0.5, pos[1] - seg * 0.5), max(1, seg * 0.15))

    def _hunters(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, centre: tuple[float, float],
                 radius: float, chip_r: float) -> None:
        inner = radius - chip_r - theme.px(4.5)
        for hunter, colour, size, gap_place in (
            ("masher", MASHER_COLOUR, 2.8, -1.35),
            ("breaker", BREAKER_COLOUR, 3.4, -2.65),
        ):
            info = view["hunters"][hunter]
            if info["in_gap"]:
                self._figure(surface, theme, on_circle(centre, radius, gap_place), colour, theme.px(size), hunter)
                continue
            # the badge stands just inside the circle, with a pointer to the place it stands on
            pos = on_circle(centre, inner, info["place"])
            tip = on_circle(centre, radius - chip_r - theme.px(0.3), info["place"])
            pygame.draw.line(surface, colour, pos, tip, max(3, theme.px(0.7)))
            self._figure(surface, theme, pos, colour, theme.px(size), hunter)
        # direction hints beside the gap
        # while a hunter waits in the gap, an arrow says which way it will walk
        if view["hunters"]["masher"]["in_gap"]:
            left = on_circle(centre, radius - chip_r - theme.px(4), 0.2)
            draw.label(surface, theme, _(TAB_NAMES["masher"]) + " >", left, "small", MASHER_COLOUR, "center", bold=True)
        if view["hunters"]["breaker"]["in_gap"]:
            right = on_circle(centre, radius - chip_r - theme.px(4), -3.2)
            draw.label(surface, theme, "< " + _(TAB_NAMES["breaker"]), right, "small", BREAKER_COLOUR, "center",
                       bold=True)

    @staticmethod
    def _figure(surface: pygame.Surface, theme: Theme, pos: tuple[float, float], colour: Colour, r: int,
                hunter: str) -> None:
        """A hunter: a light badge ringed in its colour with its pictogram (Bone Breaker is the bigger one)."""
        pygame.draw.circle(surface, (255, 255, 255), pos, r + max(2, theme.px(0.35)))
        pygame.draw.circle(surface, colour, pos, r)
        pygame.draw.circle(surface, dice.FACE, pos, r - max(3, theme.px(0.6)))
        side = round(r * 1.25)
        box = pygame.Rect(0, 0, side, side)
        box.center = (round(pos[0]), round(pos[1]))
        dice.draw_symbol(surface, box, hunter)

    def _spoils(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, centre: tuple[float, float],
                radius: float, names: dict[int, str]) -> None:
        card_w, card_h = theme.px(16), theme.px(17)  # wide enough for "Dinosaur" inside the border
        gap = theme.px(1.5)
        total = 3 * card_w + 2 * gap
        x = centre[0] - total / 2
        draw.label(surface, theme, _("Spoils cards (3 points each)"),
                   (centre[0], centre[1] - card_h / 2 - theme.px(2)), "small", TEXT, "midbottom",
                   max_width=total)
        row = pygame.Rect(round(x), round(centre[1] - card_h / 2), round(total), card_h)
        owners = {card: names.get(holder, "?") if holder is not None else _("middle")
                  for card, holder in view["spoils"].items()}
        # The three cards' words at one scale (a long name or owner shrinks all six alike).
        fit = draw.one_size(theme, row, [*((_(CARD_NAMES[c]), "small", True, card_w - theme.px(1.5))
                                           for c in CARD_NAMES),
                                         *((owners.get(c, ""), "small", False, card_w - theme.px(1))
                                           for c in CARD_NAMES)])
        for card in ("dinosaur", "mammoth", "bird"):
            rect = pygame.Rect(round(x), round(centre[1] - card_h / 2), card_w, card_h)
            holder = view["spoils"][card]
            border = theme.station_colour(holder) if holder is not None else TEXT_DIM
            wanted = view.get("spoils_card") == card
            draw.panel(surface, rect, PANEL_LIGHT if wanted else PANEL, theme.px(1), ACCENT if wanted else border,
                       theme.px(0.6))
            self._die(surface, theme, (rect.centerx, rect.top + theme.px(5.5)), theme.px(7), card)
            draw.label(surface, theme, _(CARD_NAMES[card]), (rect.centerx, rect.top + theme.px(10.5)), "small", TEXT,
                       "midtop", bold=True, max_width=card_w - theme.px(1.5), box=rect, fit=fit)
            draw.label(surface, theme, owners[card], (rect.centerx, rect.bottom - theme.px(1)), "small",
                       border if holder is not None else TEXT_DIM, "midbottom", max_width=card_w - theme.px(1),
                       box=rect, fit=fit)
            x += card_w + gap

    # -- dice and choices ----------------------------------------------------------------
    def _die(self, surface: pygame.Surface, theme: Theme, centre: tuple[float, float], size: int, symbol: str | None,
             marked: bool = False, dim: bool = False, cursor: bool = False, name: int = 0,
             name_size: str = "body", fit: OneSize | None = None, row: pygame.Rect | None = None) -> int:
        """A die as a pictogram (see :mod:`.dice`), centred on ``centre``; with ``name`` > 0
        its name goes under it, at most that wide, at the scale ``fit`` of its ``row`` (see
        :meth:`_names_fit`). Returns the y just below what was drawn."""
        rect = pygame.Rect(0, 0, size, size)
        rect.center = (round(centre[0]), round(centre[1]))
        if symbol is None:  # a die still to be thrown
            pygame.draw.rect(surface, TEXT_DIM, rect, max(2, theme.px(0.4)), border_radius=size // 5)
            return rect.bottom
        dice.draw_face(surface, rect, symbol, dim)
        if marked:
            pygame.draw.rect(surface, ACCENT, rect.inflate(theme.px(1.2), theme.px(1.2)), max(3, theme.px(0.6)),
                             border_radius=size // 4)
        bottom = rect.bottom + (theme.px(0.6) if marked else 0)
        if name:
            drawn = draw.label(surface, theme, _(DIE_NAMES[symbol]), (rect.centerx, bottom + theme.px(0.4)),
                               name_size, TEXT, "midtop", bold=name_size != "body", max_width=name, box=row,
                               fit=fit)
            bottom = drawn.bottom
        if cursor:
            pygame.draw.polygon(surface, ACCENT, [(rect.centerx, bottom + theme.px(0.5)),
                                                  (rect.centerx - theme.px(1.5), bottom + theme.px(2.5)),
                                                  (rect.centerx + theme.px(1.5), bottom + theme.px(2.5))])
            bottom += theme.px(2.5)
        return bottom

    @staticmethod
    def _names_fit(theme: Theme, row: pygame.Rect, size: str, width: int) -> OneSize:
        """One scale for the names under a row of dice: the scale at which every die's
        name fits ``width`` (the longest name decides, whether or not it shows now), so
        the names in a row are one size, and the same size turn after turn."""
        return draw.one_size(theme, row, [(_(n), size, size != "body", width) for n in DIE_NAMES.values()])

    @staticmethod
    def _dice_row(theme: Theme, width: int) -> tuple[int, int]:
        """The size of a die in the tray row, and the room each die has (five fit, names under)."""
        return theme.px(9), min(theme.px(15), width // 5)

    def _side(self, surface: pygame.Surface, area: pygame.Rect, view: dict[str, Any], theme: Theme,
              names: dict[int, str]) -> None:
        if view["phase"] == "over":
            return
        pad = theme.px(2)
        x0, width = area.left + pad, area.width - 2 * pad
        active = view["active"]
        colour = theme.station_colour(active)
        draw.label(surface, theme, _("Ugah Ugah! · round {round}").format(round=view["round"]), (x0, pad), "body",
                   TEXT_DIM, max_width=width // 2)
        if view["variant"] == "uncertain-hunting":
            draw.label(surface, theme, _("uncertain hunting"), (area.right - pad, pad), "body", ACCENT, "topright",
                       max_width=width // 2)
        draw.label(surface, theme, _("{name}'s turn").format(name=names[active]), (x0, theme.px(7)), "title", colour,
                   bold=True, max_width=width)
        prompt = next(word(p["prompt"]) for p in view["players"] if p["station"] == active)
        box = pygame.Rect(x0, theme.px(17.5), width, theme.px(8))
        draw.panel(surface, box, PANEL_LIGHT, theme.px(1.2), colour, theme.px(0.5))
        draw.label(surface, theme, prompt, (box.left + pad, box.centery), "large", TEXT, "midleft", bold=True,
                   max_width=box.width - 2 * pad, box=box)
        y = theme.px(28)
        phase = view["phase"]
        if phase == "throw":
            y = self._throw_panel(surface, view, theme, x0, y, width)
        elif phase == "choose":
            y = self._choose_panel(surface, view, theme, x0, y, width)
        else:
            y = self._turn_choice(surface, view, theme, x0, y, width, names)
        self._aside(surface, view, theme, x0, min(max(y, theme.px(51)), theme.px(55.5)), width)

    def _throw_panel(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, x0: int, y: int,
                     width: int) -> int:
        n = view["dice_in_play"]
        size, step = self._dice_row(theme, width)
        manual = view.get("manual")
        if manual:
            draw.label(surface, theme, _("Set each die with the knob, push to confirm")
                       + (_("; button: back") if manual["index"] > 0 or view.get("dice_reader") else ""),
                       (x0, y), "body", TEXT_DIM, max_width=width)
            row = pygame.Rect(x0, y + theme.px(3), width, theme.px(18))
            fit = self._names_fit(theme, row, "body", step - theme.px(0.8))
            for i, face in enumerate(manual["faces"]):
                centre = (x0 + step / 2 + i * step, y + theme.px(9))
                done = i < manual["index"]
                below = self._die(surface, theme, centre, size, face, marked=i == manual["index"],
                                  dim=i > manual["index"], name=step - theme.px(0.8), fit=fit, row=row)
                if done:
                    draw.label(surface, theme, _("ok"), (centre[0], below), "small", GOOD, "midtop", bold=True)
            return y + theme.px(24)
        problem = view.get("tray_problem")
        if problem:
            words = word(problem)
            draw.label(surface, theme, words[0].upper() + words[1:], (x0, y), "body", BAD, bold=True,
                       max_width=width)
        else:
            draw.label(surface, theme, ngettext("The camera waits for {n} die · button: set it with the knob",
                                                "The camera waits for {n} dice · button: set them with the knob", n
                                                ).format(n=n), (x0, y), "body", TEXT_DIM, max_width=width)
        for i in range(n):
            self._die(surface, theme, (x0 + step / 2 + i * step, y + theme.px(9)), size, None)
        return y + theme.px(24)

    def _choose_panel(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, x0: int, y: int,
                      width: int) -> int:
        choice = view["choice"]
        options = choice["options"]
        cursor_option = options[choice["cursor"]]
        marked = set(choice["marked"])
        draw.label(surface, theme, _("In the tray (bones already aside):"), (x0, y), "body", TEXT_DIM, max_width=width)
        size, step = self._dice_row(theme, width)
        row = pygame.Rect(x0, y + theme.px(3), width, theme.px(17.5))
        fit = self._names_fit(theme, row, "body", step - theme.px(0.8))
        for i, face in enumerate(view["tray"]):
            self._die(surface, theme, (x0 + step / 2 + i * step, y + theme.px(9)), size, face,
                      marked=face in marked, dim=face not in marked and face != cursor_option,
                      cursor=face == cursor_option, name=step - theme.px(0.8), fit=fit, row=row)
        y += theme.px(20.5)
        # the knob's options as a strip of tabs, their words at one scale (each symbol as if
        # marked, so that marking one never resizes the others; "take out" is never marked)
        gap = theme.px(0.6)
        tab_w = min(theme.px(20), (width - gap * (len(options) - 1)) // len(options))
        strip = pygame.Rect(x0, y, width, theme.px(6))
        tabs = {o: _("Set aside") if o == "take_out" else _(TAB_NAMES[o]) for o in options}
        tab_fit = draw.one_size(theme, strip, [(t if o == "take_out" else "+" + t, "small", True, tab_w - theme.px(1))
                                               for o, t in tabs.items()])
        for i, option in enumerate(options):
            rect = pygame.Rect(x0 + i * (tab_w + gap), y, tab_w, theme.px(6))
            on = i == choice["cursor"]
            is_marked = option in marked
            fill = ACCENT if on else (PANEL_LIGHT if is_marked else PANEL)
            draw.panel(surface, rect, fill, theme.px(1), GOOD if is_marked else None, theme.px(0.5))
            text = ("+" if is_marked else "") + tabs[option]
            draw.label(surface, theme, text, rect.center, "small", (20, 20, 20) if on else TEXT, "center", bold=True,
                       max_width=rect.width - theme.px(1), box=rect, fit=tab_fit)
        return y + theme.px(7)

    def _turn_choice(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, x0: int, y: int, width: int,
                     names: dict[int, str]) -> int:
        phase = view["phase"]
        choice = view.get("choice") or {"options": [], "cursor": 0}
        steps = view["steps"]
        walked = [f"{_(SYMBOL_NAMES[h])} {steps[h]}" for h in ("masher", "breaker") if steps[h]]
        if walked:
            draw.label(surface, theme, _("Hunters walk: {steps}").format(steps=", ".join(walked)), (x0, y), "body",
                       TEXT_DIM, max_width=width)
        y += theme.px(6)
        labels: list[str] = []
        if phase == "spoils":
            holder = view["spoils"][view["spoils_card"]]
            labels = [_("Take the {card} card from {name}").format(card=_(CARD_NAMES.get(view["spoils_card"], "?")),
                                                                   name=names.get(holder, "?")), _("Leave it")]
        elif phase == "order":
            previews = {p["first"]: p["places"] for p in view["order_preview"]}
            for hunter in choice["options"]:
                places = previews.get(hunter, [])
                values = [self._chip_text(view, p) for p in places]
                labels.append(_("{hunter} first: chips {values}").format(hunter=_(SYMBOL_NAMES[hunter]),
                                                                         values=" + ".join(values)))
        elif phase == "keep":
            taken = {str(t["place"]): t for t in view["taken"]}
            for option in choice["options"]:
                t = taken[option]
                under = [h for h in ("masher", "breaker") if view["hunters"][h]["place"] == t["place"]]
                if under:
                    labels.append(_("Keep the {hunter}'s chip ({points})").format(
                        points=self._points_text(t), hunter=_(SYMBOL_NAMES[under[0]])))
                else:
                    labels.append(_("Keep the chip ({points})").format(points=self._points_text(t)))
        elif phase == "give":
            other = view["taken"][1 - view["kept"]] if view.get("kept") is not None else {}
            labels = [_("Give the chip ({points}) to {name}").format(points=self._points_text(other),
                                                                   name=names.get(int(o), o))
                      for o in choice["options"]]
        row_h = theme.px(5.6)
        # The buttons' words at one scale, measured as the chosen one is drawn (bold).
        column = pygame.Rect(x0, y, width, max(1, len(labels)) * (row_h + theme.px(0.8)))
        fit = draw.one_size(theme, column, [("> " + t, "body", True, width - theme.px(3)) for t in labels])
        for i, text in enumerate(labels):
            rect = pygame.Rect(x0, y + i * (row_h + theme.px(0.8)), width, row_h)
            on = i == choice["cursor"]
            draw.panel(surface, rect, ACCENT if on else PANEL, theme.px(1))
            draw.label(surface, theme, ("> " if on else "  ") + text, (rect.left + theme.px(1.5), rect.centery),
                       "body", (20, 20, 20) if on else TEXT, "midleft", bold=on, max_width=rect.width - theme.px(3),
                       box=rect, fit=fit)
        return y + len(labels) * (row_h + theme.px(0.8))

    @staticmethod
    def _points_text(chip: dict[str, Any]) -> str:
        if chip.get("points") is None:
            return _("face down")
        if chip.get("caterpillar"):
            return _("caterpillar, 1 point")
        return ngettext("{n} point", "{n} points", chip["points"]).format(n=chip["points"])

    @staticmethod
    def _chip_text(view: dict[str, Any], place: int) -> str:
        chip = view["circle"][place]
        return "?" if chip["points"] is None else str(chip["points"])

    def _aside(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, x0: int, y: int,
               width: int) -> None:
        aside = view["aside"]
        head = draw.label(surface, theme, _("Set aside this turn:"), (x0, y), "body", TEXT_DIM, max_width=width)
        size = theme.px(6)
        step = min(theme.px(15), width // 5)
        if not aside:
            draw.label(surface, theme, _("none yet"), (head.right + theme.px(1.5), y), "body", TEXT_DIM,
                       max_width=max(10, x0 + width - head.right - theme.px(1.5)))
        order = ("masher", "breaker", "dinosaur", "mammoth", "bird", "bone")
        row = pygame.Rect(x0, y + theme.px(4), width, theme.px(11.5))
        fit = self._names_fit(theme, row, "small", step - theme.px(0.6))
        for i, face in enumerate(sorted(aside, key=order.index)):
            self._die(surface, theme, (x0 + step / 2 + i * step, y + theme.px(7.5)), size, face, dim=face == "bone",
                      name=step - theme.px(0.6), name_size="small", fit=fit, row=row)

    # -- players and the end ------------------------------------------------------------
    def _players(self, surface: pygame.Surface, area: pygame.Rect, view: dict[str, Any], theme: Theme) -> None:
        """One row per player: name, the face-down pile (its chips drawn and counted, "×3",
        as the turn summary counts dice; only the count is public), spoils cards, what to
        do next. The rows' words are at one scale, so every row reads the same size."""
        players = view["players"]
        gap = theme.px(0.8)
        pad = theme.px(2)
        rows = stacked(area.inflate(-2 * pad, -2 * gap), len(players), gap, theme.px(8.5))
        row_h = rows[0].height if rows else 0
        # Where each row's pieces go: the name, the pile and its count, then the cards and the prompt.
        name_w, count_w = theme.px(17), theme.px(8)
        pile_x = theme.px(22.5)
        cards_x = pile_x + theme.px(16.5)  # past the count (5.5 + 8 units), half a card and a gap
        card = min(theme.px(5), row_h - theme.px(1.5))
        prompts = [_("Your turn") if p["active"] else word(p["prompt"]) for p in players]
        rooms = [max(10, rect.width - cards_x - len(p["spoils"]) * theme.px(5.8) - theme.px(3))
                 for p, rect in zip(players, rows, strict=True)]
        panel = rows[0].unionall(rows[1:]) if rows else area
        fit = draw.one_size(theme, panel, [*((p["name"], "large", True, name_w) for p in players),
                                           *((f"\u00d7{p['chips']}", "body", False, count_w) for p in players),
                                           *((t, "body", p["active"], room)
                                             for p, t, room in zip(players, prompts, rooms, strict=True))])
        for p, rect, prompt, room in zip(players, rows, prompts, rooms, strict=True):
            colour = theme.station_colour(p["station"])
            lit = p["station"] in view.get("may_act", [])
            draw.panel(surface, rect, PANEL_LIGHT if lit else PANEL, theme.px(1), colour if lit else None,
                       theme.px(0.5))
            pygame.draw.rect(surface, colour, pygame.Rect(rect.left, rect.top, theme.px(1.2), rect.height),
                             border_top_left_radius=theme.px(1), border_bottom_left_radius=theme.px(1))
            x = rect.left + theme.px(2.5)
            draw.label(surface, theme, p["name"], (x, rect.centery), "large", colour, "midleft", bold=True,
                       max_width=name_w, box=rect, fit=fit)
            # the pile: face-down chips, only the count is public
            cx = rect.left + pile_x
            r = min(theme.px(2.3), row_h // 3)
            for k in range(max(1, min(p["chips"], 4))):
                centre = (cx + k * theme.px(1.1), rect.centery)
                if p["chips"]:
                    pygame.draw.circle(surface, CHIP_DOWN, centre, r)
                pygame.draw.circle(surface, CHIP_EDGE, centre, r, 1)  # an empty pile: its outline
            draw.label(surface, theme, f"\u00d7{p['chips']}", (cx + theme.px(5.5), rect.centery), "body", TEXT,
                       "midleft", max_width=count_w, box=rect, fit=fit)
            # The cards' centres start half a card past the count's widest end.
            sx = rect.left + cards_x
            for spoils in p["spoils"]:
                self._die(surface, theme, (sx, rect.centery), card, spoils)
                sx += theme.px(5.8)
            # the active player's full prompt is in the big box above
            draw.label(surface, theme, prompt, (rect.right - theme.px(1.5), rect.centery), "body",
                       ACCENT if p["active"] else TEXT, "midright", bold=p["active"], max_width=room, box=rect,
                       fit=fit)

RENDERER = UgahRenderer()
