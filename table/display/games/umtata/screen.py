"""The Umtata screens: question, who has locked and the Tataaa order, the Tataaa
answers, the reveal with the explanation and the round's points, the score track to
the target, and the winner(s).

Reads only the public view (``engine.view(state, None)``), which never holds a guess
and holds the answer only from the reveal on. Layout in theme units (1% of height): the
map of Europe takes the whole height on the left (it is the board: every country must be
findable from any seat); the column on the right holds the question or the reveal, the
answering player's choice, and the players.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygame

from table.common.i18n import N_, _, language
from table.common.memory import SMALL_MEMOS
from table.common.names import unnamed
from table.display import draw
from table.display.games import NEXT_ROUND_NOTE, GameRenderer, Output, RenderContext
from table.display.layers import Part, fill, paint_all
from table.display.pieces import PAUSED_LARGE, paused_part, stacked
from table.display.theme import (
    ACCENT,
    BACKGROUND,
    BAD,
    GOOD,
    PANEL,
    PANEL_LIGHT,
    TEXT,
    TEXT_DIM,
    Theme,
    text,
)

if TYPE_CHECKING:
    from table.games.umtata.board import Board

PHASE_HINT = {
    "guess": N_("Turn your knob to a region and colour and push to lock it, or press your button: Tataaa!"),
    "answer": N_("Tataaa players answer in press order: knob to region and colour, push; then the country, push."),
    "reveal": NEXT_ROUND_NOTE,
    "over": "",
}


REACHED = "reached {target} points"
"""The engine's reason for the end (journaled as it is, so only the screen rewords it)."""
REVEAL_LINES = 4
"""The most lines the reveal gives the explanation and the repeated question each (every
card of the shipped decks takes fewer at every size the tests draw, so none is cut)."""
PLAYER_ROW_MIN = 9.5
"""The least height (theme units) a player's row needs for its name and status: the
reveal's text leaves the rows of five players at least this much."""


TOPIC_NAMES: dict[str, str] = {
    "capital": N_("capital"), "currency": N_("currency"), "flag": N_("flag"), "geography": N_("geography"),
    "language": N_("language"), "history": N_("history"), "sport": N_("sport"), "food": N_("food"),
    "people": N_("people"), "culture": N_("culture"), "records": N_("records"),
}
"""The deck's topics as the header names them (message ids; an unknown topic shows as it is)."""


def load_board() -> Board:
    """The board in force (its module imported at the first use: the lobby shows none)."""
    from table.games.umtata.board import load_board as load

    return load()


def _country(country_id: str) -> str:
    """The country's bare name, as lists and answer choices show it ("Schweiz")."""
    return load_board().name(country_id, language())


def _country_in_sentence(country_id: str) -> str:
    """The country as a ``{country}`` field of a sentence needs it: the nominative with its
    article where the name takes one ("Umtata war die Schweiz", "the Netherlands"; the
    board's ``[language.CODE.grammar]``)."""
    return load_board().in_sentence(country_id, language(), "nominative")


def _sector(region: str, colour: str) -> str:
    """A region and colour in the players' words ("Süd, lila")."""
    board = load_board()
    return _("{region}, {colour}").format(region=board.region_name(region, language()),
                                          colour=board.colour_name(colour, language()))


def fit_lines(theme: Theme, message: str, width: int, size: str, max_lines: int,
              bold: bool = False) -> tuple[str, list[str]]:
    """The size ``message`` takes in a block of ``width`` (``size`` or the first smaller one
    where it wraps to at most ``max_lines``; "small" at the least) and all its lines there."""
    sizes = ["title", "large", "body", "small"]
    for s in sizes[sizes.index(size):]:
        lines = draw.wrap(theme.font(s, bold), message, width)
        if len(lines) <= max_lines:
            break
    return s, lines


def _block(
    surface: pygame.Surface,
    theme: Theme,
    message: str,
    rect: pygame.Rect,
    size: str,
    colour: tuple[int, int, int],
    max_lines: int = 3,
    bold: bool = False,
) -> int:
    """Wrapped text in ``rect`` (shrinking the size if it would not fit); returns the bottom.
    Text that does not fit ``max_lines`` even at the smallest size ends in "…"."""
    s, lines = fit_lines(theme, message, rect.w, size, max_lines, bold)
    font = theme.font(s, bold)
    y = rect.y
    shown = lines[:max_lines]
    if len(lines) > max_lines and shown:
        shown[-1] = shown[-1] + " …"  # never cut a sentence silently
    for line in shown:
        # The theme's text cache: a question's lines are drawn every frame of the round.
        text(surface, theme, line, (rect.x, y), s, colour, bold=bold, max_width=rect.w,
             box=pygame.Rect(rect.x, rect.y, rect.w, max(rect.h, font.get_linesize() * max_lines)))
        y += font.get_linesize()
    return y


def _fill_around(surface: pygame.Surface, inner: pygame.Rect) -> None:
    """The background everywhere but ``inner`` (the map paints every pixel there)."""
    w, h = surface.get_size()
    for rect in (pygame.Rect(0, 0, w, inner.top), pygame.Rect(0, inner.bottom, w, h - inner.bottom),
                 pygame.Rect(0, inner.top, inner.left, inner.h), pygame.Rect(inner.right, inner.top, w - inner.right,
                                                                               inner.h)):
        if rect.w > 0 and rect.h > 0:
            fill(surface, BACKGROUND, rect)


@lru_cache(maxsize=1)
def _scratch() -> pygame.Surface:
    """A 1x1 surface to lay text out on: drawing there costs the layout, not the pixels."""
    return pygame.Surface((1, 1))


def _station_name(view: dict[str, Any], station: int) -> str:
    for p in view["players"]:
        if p["station"] == station:
            return str(p["name"])
    return unnamed(station)


def _swatch(
    surface: pygame.Surface, theme: Theme, colour: str, pos: tuple[int, int], size: int
) -> pygame.Rect:
    from table.display.games.umtata.map import TILE_COLOURS

    rect = pygame.Rect(pos[0], pos[1], size, size)
    pygame.draw.rect(surface, TILE_COLOURS.get(colour, TEXT_DIM), rect, border_radius=max(2, size // 5))
    pygame.draw.rect(surface, TEXT, rect, 1, border_radius=max(2, size // 5))
    return rect


def _sector_message(options: Sequence[str]) -> str:
    """The line under the sector while a Tataaa player turns through the sectors."""
    names = ", ".join(_country(c) for c in options if c != "back")
    return _("Push to choose among: {countries}").format(countries=names) if names else _("No country here: turn on.")


@lru_cache(maxsize=SMALL_MEMOS)
def _sector_lines(theme: Theme, width: int, lang: str) -> int:
    """How many lines (at most 3) the longest sector's list takes at ``width`` in ``lang``."""
    del lang  # part of the key: the names and the sentence follow the language
    from table.games.umtata.board import SECTORS

    board = load_board()
    return max(len(draw.wrap(theme.font("small"), _sector_message([c.id for c in board.in_sector(k)]), width)[:3])
               for k in range(SECTORS))


def _map_damage(before: object, area: pygame.Rect, map_key: object) -> list[pygame.Rect] | None:
    """Where the map changes from the state keyed ``before`` to ``map_key``: only around
    the countries lit in either while a Tataaa player turns through the sectors (see
    :func:`map_damage`); ``None`` (all of it) otherwise."""
    from table.display.games.umtata.map import map_damage

    if not (isinstance(before, tuple) and len(before) == 3 and before[0] == area and before[2] == language()):
        return None
    old, new = before[1], map_key
    if not (isinstance(old, tuple) and isinstance(new, tuple) and old[:1] == new[:1] == ("answering",)):
        return None
    return map_damage(area, (c for c in old[1] if c != "back"), (c for c in new[1] if c != "back"))


def _marked(view: dict[str, Any]) -> tuple[str, ...]:
    """The countries a Tataaa player chooses among (the sector's), lit on the map."""
    answering = view.get("answering")
    return tuple(o for o in answering["options"] if o != "back") if answering else ()


def _focus(view: dict[str, Any]) -> str | None:
    """The country the answering player's knob is on (not in the sector step, nor on
    "back")."""
    answering = view.get("answering")
    if not answering or answering["step"] != "country" or answering["choice"] is None:
        return None
    choice = answering["options"][answering["choice"]]
    return None if choice == "back" else str(choice)


def map_area(theme: Theme) -> pygame.Rect:
    """Where the map goes on the screen: the whole height on the left, at its proportions."""
    from table.display.games.umtata.map import map_rect_for

    u = theme.px
    rect = map_rect_for(pygame.Rect(u(1), u(1), int(theme.width * 0.64), theme.height - u(2)))
    rect.topleft = (u(1), u(1))
    return rect


class UmtataRenderer(GameRenderer, facts="screen.toml"):
    """Draws every phase of an Umtata game from the public view."""

    def final_reason(self, message: Any) -> str:
        """The outcome's reason; "reached 16 points" says that 16 was the target, since
        the winner may well have 17 or 18 (the journaled reason keeps its words)."""
        if isinstance(message, dict) and message.get("id") == REACHED and isinstance(message.get("params"), dict):
            return _("reached the target of {target} points").format(target=message["params"].get("target"))
        return super().final_reason(message)

    def outputs(self, config_dir: Path | None) -> list[Output]:
        """The question read aloud (``umtata/speech.toml``; see
        :mod:`table.display.games.umtata.speech`)."""
        from table.display.games.umtata.speech import SpeechOutput, speaker_for

        return [SpeechOutput(speaker_for(config_dir))]

    def data_problems(self, config_dir: Path | None) -> list[str]:
        """Every problem in ``umtata/speech.toml``."""
        from table.common.datafiles import data_file
        from table.display.games.umtata.speech import SETTINGS_FILE, settings_problems

        return settings_problems(data_file(SETTINGS_FILE, config_dir))[1]

    def station_lines(self, view: dict[str, Any]) -> list[tuple[str, str]]:
        """What the player at the station is about to lock (his knob's region and
        colour), what he locked, and what to do now: only from ``view["you"]``, his own."""
        you = view.get("you")
        if not isinstance(you, dict):
            return []
        board, lang = load_board(), language()
        me: dict[str, Any] = next((p for p in view.get("players", []) if p.get("station") == you.get("station")), {})
        lines: list[tuple[str, str]] = [(_(me["next"]), "small")] if me.get("next") else []
        answering = view.get("answering")
        if isinstance(answering, dict) and answering.get("station") == you.get("station") \
                and answering.get("choice") is not None:
            options = answering.get("options", [])
            choice = int(answering["choice"])
            picked = options[choice] if 0 <= choice < len(options) else "back"
            lines.append((_("back") if picked == "back" else _country(picked), "big"))
            return lines
        shown = you.get("guess") or you.get("knob")
        if isinstance(shown, dict):
            lines.append((board.region_name(shown["region"], lang), "big"))
            lines.append((board.colour_name(shown["colour"], lang), "big"))
        return lines

    def __init__(self) -> None:
        self._bottoms: list[tuple[object, int]] = []

    def draw(self, surface: pygame.Surface, view: dict[str, Any], ctx: RenderContext) -> None:
        paint_all(surface, self.parts(view, ctx.theme, ctx.paused), ctx.now)

    def prepare(self, theme: Theme) -> Iterator[None]:
        """The map's layers at this theme's size, a step at a time (see
        :func:`table.display.games.umtata.map.prepare`)."""
        from table.display.games.umtata.map import prepare as prepare_map

        yield from prepare_map(map_area(theme))

    def parts(self, view: dict[str, Any], theme: Theme, paused: bool = False) -> list[Part]:
        """The screen as parts (see :mod:`table.display.layers`): the map, and the column
        beside it (question, answer box, players); nothing changes with time, only with the
        state, and a knob turn that changes only the column leaves the map alone."""
        from table.display.games.umtata.map import draw_focus, focus_rect

        W, H = theme.width, theme.height
        full = pygame.Rect(0, 0, W, H)
        u = theme.px
        map_rect = map_area(theme)
        column = pygame.Rect(map_rect.right + u(2), u(1.5), W - map_rect.right - u(3.5), H - u(2.5))
        answering = view.get("answering")
        reveal = view.get("reveal")
        map_key: object = None
        if answering:
            # Not the choice: the focus among a sector's countries is a part of its own.
            map_key = ("answering", tuple(answering["options"]), answering["step"])
        elif reveal:
            map_key = ("reveal", reveal["country"])
        out = [
            Part("umtata:background", full, map_rect, lambda s, t: _fill_around(s, map_rect), base=True),
            Part("umtata:map", map_rect, (map_rect, map_key, language()),
                 lambda s, t: self._map(s, view, theme, map_rect), base=True,
                 damage=lambda before: _map_damage(before, map_rect, map_key)),
        ]
        focus = _focus(view)
        if focus is not None:
            marked = _marked(view)
            out.append(Part("umtata:focus", focus_rect(map_rect, focus, marked), (map_rect, focus, marked, language()),
                            lambda s, t: draw_focus(s, map_rect, focus, marked), base=True))
        out += self._column_parts(view, theme, column)
        if paused:
            out.append(paused_part("umtata:paused", theme, PAUSED_LARGE))
        return out

    def _measured(self, key: object, lay_out: Callable[[], int]) -> int:
        """Where a block of the column ends, laid out once per key (compared with ``==``:
        views hold dicts) and the last four kept (the question and the answer box take
        turns)."""
        for k, bottom in self._bottoms:
            if k == key:
                return bottom
        bottom = lay_out()
        self._bottoms = [(key, bottom), *self._bottoms[:3]]
        return bottom

    def _column_parts(self, view: dict[str, Any], theme: Theme, column: pygame.Rect) -> list[Part]:
        """The column as three parts stacked in it (question, answer box, players), so
        that a knob turn repaints the answer box alone. Where each ends is found by
        laying it out on a 1x1 scratch surface (every line comes from the text cache and
        every blit is clipped away): the heights follow the wrapped text."""
        u = theme.px
        scratch = _scratch()
        outer = column.inflate(2 * u(1), 2 * u(1))
        answering = view.get("answering")
        names = tuple((p["station"], p["name"]) for p in view["players"])
        board = load_board()
        # The language too: German lines wrap to other heights than English ones.
        key = (column, view["phase"], view["round"], view["reader"], view["question"], view.get("reveal"),
               view.get("winners"), bool(answering), names, theme.colours, theme.height, language())
        bottom = self._measured(key, lambda: self._header(scratch, view, theme, column))
        header = pygame.Rect(outer.x, outer.y, outer.w, bottom + u(0.5) - outer.y)
        out = [Part("umtata:question", header, key, lambda s, t: self._header(s, view, theme, column), base=True)]
        if answering:
            box = pygame.Rect(column.x, bottom + u(1), column.w, u(17))
            answer_key = (box, answering, view["tataaa_order"], theme.colours, theme.height, language())
            bottom = self._measured(answer_key, lambda: self._answer_box(scratch, view, theme, box, board))
            area = pygame.Rect(outer.x, header.bottom, outer.w, bottom + u(0.5) - header.bottom)
            out.append(Part("umtata:answer", area, (area, answer_key),
                            lambda s, t: self._answer_box(s, view, theme, box, board), base=True))
        top = bottom + u(1.5)
        players = pygame.Rect(column.x, top, column.w, column.bottom - top)
        area = pygame.Rect(outer.x, out[-1].rect.bottom, outer.w, outer.bottom - out[-1].rect.bottom)
        out.append(Part("umtata:players", area,
                        (area, view["players"], answering and answering["station"], view.get("reveal"),
                         view["target"], theme.colours),
                        lambda s, t: self._players(s, view, theme, players), base=True))
        return out

    # -- the column's top: question, or the reveal, or the winners ---------------------------

    def _header(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, rect: pygame.Rect) -> int:
        """Draw the question (or the reveal, or the winners) at the top of ``rect``; returns
        the bottom of what was drawn."""
        u = theme.px
        phase = view["phase"]
        reader = view["reader"]
        question = view["question"]
        topic = str(question["topic"])
        info = _("Round {round} · read by {reader} · {topic}").format(
            round=view["round"], reader=_station_name(view, reader), topic=_(TOPIC_NAMES.get(topic, topic)))
        pygame.draw.circle(surface, theme.station_colour(reader), (rect.x + u(1), rect.y + u(1.8)), u(1))
        info_colour = TEXT_DIM
        text(surface, theme, info, (rect.x + u(3), rect.y), "small", info_colour, max_width=rect.w - u(3), box=rect)
        y = rect.y + u(5)
        reveal = view.get("reveal")
        if phase == "over" and reveal:  # the table's final ranking names the winners
            answer = _("Umtata was {country}: {explanation}").format(country=_country_in_sentence(reveal["country"]),
                                                                     explanation=reveal["explain"])
            return _block(surface, theme, answer, pygame.Rect(rect.x, y + u(1), rect.w, 0), "body", TEXT, 4)
        if phase == "reveal" and reveal:
            # The rows of every player stay readable below: a long card's reveal shrinks
            # its words rather than cut them or squeeze the rows.
            room = rect.bottom - u(1.5) - len(view["players"]) * (u(PLAYER_ROW_MIN) + u(1)) + u(1)
            compact = self._reveal(_scratch(), view, theme, rect, y, False) > room
            return self._reveal(surface, view, theme, rect, y, compact)
        y = _block(surface, theme, question["text"], pygame.Rect(rect.x, y, rect.w, 0), "large", TEXT, 4, bold=True)
        hint = _(PHASE_HINT[phase]) if PHASE_HINT.get(phase) else ""
        if hint and not view.get("answering"):
            y = _block(surface, theme, hint, pygame.Rect(rect.x, y + u(1.5), rect.w, 0), "small", ACCENT, 3)
        return y

    @staticmethod
    def _reveal(
        surface: pygame.Surface, view: dict[str, Any], theme: Theme, rect: pygame.Rect, y: int, compact: bool
    ) -> int:
        """The reveal from ``y`` down: the answer, its sector, the explanation, the question
        again and the hint; ``compact`` takes the smaller words. Returns the bottom."""
        u = theme.px
        reveal = view["reveal"]
        r = text(surface, theme, _("Umtata is"), (rect.x, y), "body" if compact else "large", TEXT_DIM,
                 max_width=rect.w, box=rect)
        # "Umtata is" and the name read as one sentence: the name with its article.
        y = _block(surface, theme, _country_in_sentence(reveal["country"]),
                   pygame.Rect(rect.x, r.bottom, rect.w, 0), "title", ACCENT, 1, bold=True)
        sw = _swatch(surface, theme, reveal["colour"], (rect.x, y + u(0.5)), u(4.5))
        text(surface, theme, _sector(reveal["region"], reveal["colour"]), (sw.right + u(1.2), sw.centery), "body",
             TEXT, "midleft", bold=True, max_width=rect.right - sw.right - u(1.2), box=rect)
        y = sw.bottom + u(1.5)
        y = _block(surface, theme, reveal["explain"], pygame.Rect(rect.x, y, rect.w, 0),
                   "small" if compact else "body", TEXT, REVEAL_LINES)
        # The question again, whole: a reveal that cuts it ("…") loses the clue it answers.
        y = _block(surface, theme, view["question"]["text"], pygame.Rect(rect.x, y + u(1), rect.w, 0), "small",
                   TEXT_DIM, REVEAL_LINES)
        return _block(surface, theme, _(PHASE_HINT["reveal"]), pygame.Rect(rect.x, y + u(0.5), rect.w, 0),
                      "small", ACCENT, 2)

    # -- the map, with the answering step or the answer marked -----------------------------

    def _map(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, area: pygame.Rect) -> None:
        from table.display.games.umtata.map import draw_map

        answering = view.get("answering")
        reveal = view.get("reveal")
        if answering:
            # The focus (the country the knob is on) is drawn by its own part on top.
            draw_map(surface, area, theme, highlight=_marked(view), dim_others=True)
        elif reveal:
            draw_map(surface, area, theme, highlight=[reveal["country"]], focus=reveal["country"], dim_others=True)
        else:
            draw_map(surface, area, theme)

    def _answer_box(
        self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, rect: pygame.Rect, board: Any
    ) -> int:
        """The Tataaa player's choice: the sector, then the country; returns the box's bottom."""
        u = theme.px
        a = view["answering"]
        colour = theme.station_colour(a["station"])
        rank = view["tataaa_order"].index(a["station"]) + 1
        inner = rect.inflate(-u(3), 0)
        head = _("{name} answers").format(name=a["name"])
        place = _("Tataaa #{rank}").format(rank=rank)
        sector = _sector(a["region"], a["colour"])
        names = [_("back") if o == "back" else _country(o) for o in a["options"]] if a["step"] != "sector" else []
        # The box's words at one scale (a long name shrinks the countries alike); the
        # country chips are laid out at that scale.
        fit = draw.one_size(theme, rect, [(head, "body", True, inner.w - u(22)), (place, "body", False, u(21)),
                                          (sector, "body", True, inner.w - u(5)),
                                          *((n, "body", True, inner.w - u(2)) for n in names)])
        # Lay the content out first, so that the panel behind it is as tall as it needs.
        y = rect.y + u(1) + theme.font("body", True).get_linesize() + u(5)
        chips: list[tuple[pygame.Rect, str, bool]] = []
        lines: list[str] = []
        if a["step"] == "sector":
            lines = draw.wrap(theme.font("small"), _sector_message(a["options"]), inner.w)[:3]
            # As tall as the longest sector's list needs, so that the players below stay
            # put while the knob turns through the sectors.
            tallest = max(len(lines), _sector_lines(theme, inner.w, language()))
            bottom = y + tallest * theme.font("small").get_linesize()
        else:
            x = inner.x
            for i, name in enumerate(names):
                chosen = i == a["choice"]
                w, h = draw.label_rect(theme, name, (0, 0), "body", TEXT, bold=chosen, fit=fit).size
                box = pygame.Rect(x, y, w + u(2), h + u(1))
                if box.right > inner.right and x > inner.x:
                    y += box.h + u(1)
                    box.topleft = (inner.x, y)
                chips.append((box, name, chosen))
                x = box.right + u(1)
            bottom = max(c[0].bottom for c in chips) if chips else y
        panel = pygame.Rect(rect.x, rect.y, rect.w, bottom - rect.y + u(1.2))
        pygame.draw.rect(surface, PANEL, panel, border_radius=u(1))
        pygame.draw.rect(surface, colour, panel, max(2, u(0.5)), border_radius=u(1))
        r = text(surface, theme, head, (inner.x, rect.y + u(1)), "body", colour, bold=True,
                 max_width=inner.w - u(22), box=panel, fit=fit)
        text(surface, theme, place, (inner.right, r.centery), "body", TEXT, "midright", max_width=u(21), box=panel,
             fit=fit)
        sw = _swatch(surface, theme, a["colour"], (inner.x, r.bottom + u(0.8)), u(4))
        text(surface, theme, sector, (sw.right + u(1), sw.centery), "body", TEXT, "midleft", bold=True,
             max_width=inner.right - sw.right - u(1), box=panel, fit=fit)
        ly = rect.y + u(1) + theme.font("body", True).get_linesize() + u(5)
        for line in lines:
            text(surface, theme, line, (inner.x, ly), "small", TEXT_DIM, max_width=inner.w, box=panel)
            ly += theme.font("small").get_linesize()
        for box, name, chosen in chips:
            pygame.draw.rect(surface, ACCENT if chosen else PANEL_LIGHT, box, border_radius=u(0.8))
            ink = BACKGROUND if chosen else TEXT
            text(surface, theme, name, (box.x + u(1), box.y + u(0.5)), "body", ink, bold=chosen, box=panel, fit=fit)
        return panel.bottom

    # -- the players: score track, status, round points ------------------------------------------

    def _players(
        self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, rect: pygame.Rect
    ) -> None:
        u = theme.px
        players = view["players"]
        target = int(view["target"])
        gap = u(1)
        reveal = view.get("reveal") or {}
        guesses = {g["station"]: g for g in reveal.get("guesses", [])}
        tataaa_answers = {a["station"]: a for a in reveal.get("attempts", [])}
        board = load_board()
        boxes = stacked(rect, len(players), gap, u(15))
        row_h = boxes[0].h if boxes else 0
        statuses = [self._status(p, guesses, tataaa_answers, board) for p in players]
        names = [_("{name} (reads the card)").format(name=p["name"]) if p["reader"] else p["name"] for p in players]
        # Every row's words at one scale: the rows read alike, a long status shrinks them all.
        # A name's room is what the scores leave (the widest a score and its points take).
        room = rect.w - u(3.5) - u(1.5) - theme.font("large", True).size("16")[0] - u(1.2) \
            - theme.font("body", True).size("+3")[0] - u(2.5)
        fit = draw.one_size(theme, rect, [*((n, "body", True, room) for n in names),
                                          *((st, "body", False, rect.w - u(4)) for st, _c in statuses)])
        for i, p in enumerate(players):
            box = boxes[i]
            colour = theme.station_colour(p["station"])
            active = view.get("answering") and view["answering"]["station"] == p["station"]
            pygame.draw.rect(surface, PANEL_LIGHT if active else PANEL, box, border_radius=u(1))
            pygame.draw.rect(surface, colour, (box.x, box.y, u(1.2), box.h), border_radius=u(0.5))
            if p["winner"]:
                pygame.draw.rect(surface, ACCENT, box, max(2, u(0.5)), border_radius=u(1))
            score_rect = text(
                surface, theme, str(p["score"]), (box.right - u(1.5), box.y + u(0.2)), "large", TEXT, "topright",
                bold=True, box=box, fit=fit,
            )
            right = score_rect.x
            if p["round_points"] is not None:
                pts = text(
                    surface, theme, f"+{p['round_points']}", (score_rect.x - u(1.2), score_rect.centery), "body",
                    GOOD if p["round_points"] else TEXT_DIM, "midright", bold=True, box=box, fit=fit,
                )
                right = pts.x
            text(surface, theme, names[i], (box.x + u(2.5), box.y + u(0.8)), "body", colour, bold=True,
                 max_width=right - box.x - u(3.5), box=box, fit=fit)
            status, status_colour = statuses[i]
            text(surface, theme, status, (box.x + u(2.5), box.y + u(5.6)), "body", status_colour,
                 max_width=box.w - u(4), box=box, fit=fit)
            if row_h >= u(12):
                # The score track: one step per point up to the target.
                track = pygame.Rect(box.x + u(2.5), box.bottom - u(2.8), box.w - u(4), u(1.6))
                step_w = track.w / target
                for k in range(target):
                    cell = pygame.Rect(int(track.x + k * step_w), track.y, max(1, int(step_w) - 2), track.h)
                    pygame.draw.rect(surface, colour if k < p["score"] else PANEL_LIGHT, cell, border_radius=2)

    @staticmethod
    def _status(
        p: dict[str, Any], guesses: dict[int, Any], answers: dict[int, Any], board: Any
    ) -> tuple[str, tuple[int, int, int]]:
        station = p["station"]
        if station in guesses:
            g = guesses[station]
            return _("guessed {sector}").format(sector=_sector(g["region"], g["colour"])), TEXT
        if station in answers:
            a = answers[station]
            verdict = _("right") if a["right"] else _("wrong")
            return (_("Tataaa: {country} – {verdict}").format(country=_country_in_sentence(a["country"]),
                                                              verdict=verdict),
                    GOOD if a["right"] else BAD)
        if answers and p["status"] == "tataaa":
            return _("Tataaa #{rank} - no turn: already solved").format(rank=p["tataaa_rank"]), TEXT_DIM
        if p["status"] == "tataaa":
            rank = p["tataaa_rank"]
            if p["result"] == "right":
                return _("TATAAA! #{rank} - right!").format(rank=rank), GOOD
            if p["result"] == "wrong":
                return _("TATAAA! #{rank} - wrong").format(rank=rank), BAD
            if p["next"].startswith("pick"):
                return _("TATAAA! #{rank} - answer now!").format(rank=rank), ACCENT
            return _("TATAAA! #{rank} - waits to answer").format(rank=rank), ACCENT
        if p["status"] == "locked":
            return _("guess locked"), GOOD
        return _(p["next"]), TEXT


RENDERER = UmtataRenderer()
