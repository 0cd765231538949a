"""The Umtata screens: question, who has locked and the Tataaa order, the Tataaa
answers, the reveal with the explanation and the round's points, the score track to
the target, and the winner(s).

Reads only the public view (``engine.view(state, None)``), which never holds a guess
and holds the answer only from the reveal on. Layout in theme units (1% of height):
question band on top, the map below on the left, the players on the right.
"""

from __future__ import annotations

from typing import Any

import pygame

from table.display import draw
from table.display.games import RenderContext
from table.display.layers import Part, paint_all
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
from table.display.umtata_map import TILE_COLOURS, draw_map
from table.games.umtata.board import load_board

PHASE_HINT = {
    "guess": "Turn your knob to a region + colour and push to lock it - or press your button: Tataaa!",
    "answer": "Tataaa players answer in press order: knob to region + colour, push; then the country, push.",
    "reveal": "Push any knob or button for the next round.",
    "over": "",
}


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
    """Wrapped text in ``rect`` (shrinking the size if it would not fit); returns the bottom."""
    sizes = ["title", "large", "body", "small"]
    start = sizes.index(size)
    for s in sizes[start:]:
        font = theme.font(s, bold)
        lines = draw.wrap(font, message, rect.w)
        if len(lines) <= max_lines or s == "small":
            break
    y = rect.y
    for line in lines[:max_lines]:
        text(surface, theme, line, (rect.x, y), s, colour, bold=bold)  # cached, unlike font.render
        y += font.get_linesize()
    return y


def _station_name(view: dict[str, Any], station: int) -> str:
    for p in view["players"]:
        if p["station"] == station:
            return str(p["name"])
    return f"Player {station + 1}"


def _swatch(
    surface: pygame.Surface, theme: Theme, colour: str, pos: tuple[int, int], size: int
) -> pygame.Rect:
    rect = pygame.Rect(pos[0], pos[1], size, size)
    pygame.draw.rect(surface, TILE_COLOURS.get(colour, TEXT_DIM), rect, border_radius=max(2, size // 5))
    pygame.draw.rect(surface, TEXT, rect, 1, border_radius=max(2, size // 5))
    return rect


class UmtataRenderer:
    """Draws every phase of an Umtata game from the public view."""

    game = "umtata"

    def draw(self, surface: pygame.Surface, view: dict[str, Any], ctx: RenderContext) -> None:
        paint_all(surface, self.parts(view, ctx.theme, ctx.paused), ctx.now)

    def parts(self, view: dict[str, Any], theme: Theme, paused: bool = False) -> list[Part]:
        """The screen as parts (see :mod:`table.display.layers`): the question band, the map
        and one panel per player; nothing here changes with time, only with the state."""
        W, H = theme.width, theme.height
        full = pygame.Rect(0, 0, W, H)
        u = theme.px
        panel_x = int(W * 0.64)
        top_h = u(25)
        header = pygame.Rect(u(2), u(1), W - u(4), top_h - u(1))
        map_area = pygame.Rect(u(1), top_h + u(1), panel_x - u(2), H - top_h - u(2))
        side = pygame.Rect(panel_x, top_h, W - panel_x - u(1.5), H - top_h - u(1))
        names = tuple((p["station"], p["name"]) for p in view["players"])
        out = [
            Part("umtata:background", full, None, lambda s, t: s.fill(BACKGROUND), base=True),
            # The header's reader dot sits a little left of and above its rect.
            Part("umtata:header", header.inflate(2 * u(1), 2 * u(1)),
                 (view["phase"], view["reader"], view["question"], view.get("reveal"), view["round"],
                  view.get("winners"), names, theme.colours),
                 lambda s, t: self._header(s, view, theme, header), base=True),
            # Highlight frames are drawn on the cells' edges and reach a little past the map.
            Part("umtata:map", map_area.inflate(4 * max(3, u(0.6)), 4 * max(3, u(0.6))),
                 (view.get("answering"), view.get("reveal"), view.get("tataaa_order"), theme.colours),
                 lambda s, t: self._map(s, view, theme, map_area), base=True),
        ]
        reveal = view.get("reveal") or {}
        guesses = {g["station"]: g for g in reveal.get("guesses", [])}
        attempts = {a["station"]: a for a in reveal.get("attempts", [])}
        answering = view.get("answering")
        for i, p in enumerate(view["players"]):
            station = p["station"]
            # Only what this player's panel shows: a knob turn elsewhere leaves it alone.
            key = (p, bool(answering) and answering["station"] == station, guesses.get(station),
                   attempts.get(station), bool(attempts), view["target"], len(view["players"]), theme.colours)
            out.append(Part(f"umtata:player{i}", self._player_box(view, theme, side, i), key,
                            lambda s, t, i=i: self._players(s, view, theme, side, only=i), base=True))
        if paused:
            out.append(Part("umtata:paused", full, None, lambda s, t: self._paused(s, theme), base=True))
        return out

    @staticmethod
    def _paused(surface: pygame.Surface, theme: Theme) -> None:
        W, H = surface.get_size()
        draw.veil(surface, surface.get_rect(), 160)
        text(surface, theme, "Paused", (W / 2, H / 2), "huge", ACCENT, "center", bold=True)

    @staticmethod
    def _player_box(view: dict[str, Any], theme: Theme, rect: pygame.Rect, i: int) -> pygame.Rect:
        u = theme.px
        players = view["players"]
        gap = u(1)
        row_h = min(u(17), (rect.h - gap * (len(players) - 1)) // max(1, len(players)))
        return pygame.Rect(rect.x, rect.y + i * (row_h + gap), rect.w, row_h)

    # -- the top band: question, or the reveal, or the winners --------------------------

    def _header(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, rect: pygame.Rect) -> None:
        u = theme.px
        phase = view["phase"]
        reader = view["reader"]
        question = view["question"]
        info = (
            f"Round {view['round']}  -  read by {_station_name(view, reader)}  -  topic: {question['topic']}"
        )
        pygame.draw.circle(surface, theme.station_colour(reader), (rect.x + u(1), rect.y + u(2)), u(1))
        text(surface, theme, info, (rect.x + u(3), rect.y), "small", TEXT_DIM)
        body = pygame.Rect(rect.x, rect.y + u(4.5), rect.w, rect.h - u(4.5))
        reveal = view.get("reveal")
        if phase in ("reveal", "over") and reveal:
            if phase == "over":
                winners = [_station_name(view, s) for s in view["winners"]]
                title = (
                    f"{winners[0]} wins!" if len(winners) == 1 else f"{' and '.join(winners)} share the win!"
                )
                text(surface, theme, title, (body.x, body.y), "title", ACCENT, bold=True)
                line_y = body.y + theme.font("title").get_linesize()
                answer = f"Umtata was {reveal['name']}: {reveal['explain']}"
                _block(
                    surface,
                    theme,
                    answer,
                    pygame.Rect(body.x, line_y, body.w, body.bottom - line_y),
                    "body",
                    TEXT,
                    2,
                )
                return
            x = body.x
            r = text(surface, theme, "Umtata is ", (x, body.y), "title", TEXT_DIM)
            r = text(surface, theme, reveal["name"], (r.right, body.y), "title", ACCENT, bold=True)
            sw = _swatch(surface, theme, reveal["colour"], (r.right + u(2), r.y + u(1.5)), u(5))
            text(
                surface,
                theme,
                f"{reveal['region']}, {reveal['colour']}",
                (sw.right + u(1), sw.centery),
                "body",
                TEXT,
                "midleft",
            )
            line_y = r.bottom
            bottom = _block(
                surface,
                theme,
                reveal["explain"],
                pygame.Rect(body.x, line_y, body.w, body.bottom - line_y - u(4)),
                "body",
                TEXT,
                2,
            )
            text(
                surface,
                theme,
                f"{question['text']}   -   {PHASE_HINT['reveal']}",
                (body.x, max(bottom, body.bottom - u(4))),
                "small",
                TEXT_DIM,
            )
            return
        bottom = _block(
            surface,
            theme,
            question["text"],
            pygame.Rect(body.x, body.y, body.w, body.h - u(4)),
            "title",
            TEXT,
            2,
            bold=True,
        )
        hint = PHASE_HINT.get(phase, "")
        if hint:
            text(surface, theme, hint, (body.x, max(bottom, body.bottom - u(4))), "small", ACCENT)

    # -- the map, with the answering step or the answer marked -----------------------------

    def _map(self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, area: pygame.Rect) -> None:
        u = theme.px
        answering = view.get("answering")
        reveal = view.get("reveal")
        board = load_board()
        if answering:
            box_h = u(17)
            options = [o for o in answering["options"] if o != "back"]
            focus = None
            if answering["step"] == "country" and answering["choice"] is not None:
                choice = answering["options"][answering["choice"]]
                focus = None if choice == "back" else choice
            used = draw_map(
                surface,
                pygame.Rect(area.x, area.y + box_h, area.w, area.h - box_h),
                theme,
                highlight=options,
                focus=focus,
                dim_others=True,
            )
            self._answer_box(surface, view, theme, pygame.Rect(area.x, area.y, area.w, box_h - u(1)), board)
            del used
        elif reveal:
            draw_map(
                surface, area, theme, highlight=[reveal["country"]], focus=reveal["country"], dim_others=True
            )
        else:
            draw_map(surface, area, theme)

    def _answer_box(
        self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, rect: pygame.Rect, board: Any
    ) -> None:
        u = theme.px
        a = view["answering"]
        pygame.draw.rect(surface, PANEL, rect, border_radius=u(1))
        colour = theme.station_colour(a["station"])
        pygame.draw.rect(surface, colour, rect, max(2, u(0.5)), border_radius=u(1))
        rank = view["tataaa_order"].index(a["station"]) + 1
        r = text(
            surface,
            theme,
            f"{a['name']} answers (Tataaa #{rank}):",
            (rect.x + u(1.5), rect.y + u(1)),
            "body",
            colour,
            bold=True,
        )
        sw = _swatch(surface, theme, a["colour"], (r.right + u(1.5), r.y), u(4.5))
        text(
            surface,
            theme,
            f"{a['region']} {a['colour']}",
            (sw.right + u(1), sw.centery),
            "body",
            TEXT,
            "midleft",
            bold=True,
        )
        y = rect.y + u(8)
        if a["step"] == "sector":
            names = ", ".join(board.get(c).name for c in a["options"] if c != "back")
            line = f"Push to choose among: {names}" if names else "No country here: turn on."
            area = pygame.Rect(rect.x + u(1.5), y, rect.w - u(3), rect.bottom - y)
            _block(surface, theme, line, area, "body", TEXT_DIM, 1)
            return
        x = rect.x + u(1.5)
        for i, option in enumerate(a["options"]):
            name = "back" if option == "back" else board.get(option).name
            chosen = i == a["choice"]
            font = theme.font("body", chosen)
            w, h = font.size(name)
            box = pygame.Rect(x, y, w + u(2), h + u(1))
            if box.right > rect.right - u(1):
                break
            pygame.draw.rect(surface, ACCENT if chosen else PANEL_LIGHT, box, border_radius=u(0.8))
            text(surface, theme, name, (x + u(1), y + u(0.5)), "body", BACKGROUND if chosen else TEXT, bold=chosen)
            x = box.right + u(1)

    # -- the players: score track, status, round points ------------------------------------------

    def _players(
        self, surface: pygame.Surface, view: dict[str, Any], theme: Theme, rect: pygame.Rect,
        only: int | None = None,
    ) -> None:
        u = theme.px
        players = view["players"]
        target = int(view["target"])
        gap = u(1)
        row_h = min(u(17), (rect.h - gap * (len(players) - 1)) // max(1, len(players)))
        reveal = view.get("reveal") or {}
        guesses = {g["station"]: g for g in reveal.get("guesses", [])}
        tataaa_answers = {a["station"]: a for a in reveal.get("attempts", [])}
        board = load_board()
        for i, p in enumerate(players):
            if only is not None and i != only:
                continue
            box = pygame.Rect(rect.x, rect.y + i * (row_h + gap), rect.w, row_h)
            colour = theme.station_colour(p["station"])
            active = view.get("answering") and view["answering"]["station"] == p["station"]
            pygame.draw.rect(surface, PANEL_LIGHT if active else PANEL, box, border_radius=u(1))
            pygame.draw.rect(surface, colour, (box.x, box.y, u(1.2), box.h), border_radius=u(0.5))
            if p["winner"]:
                pygame.draw.rect(surface, ACCENT, box, max(2, u(0.5)), border_radius=u(1))
            name = p["name"] + ("  (reader)" if p["reader"] else "")
            text(surface, theme, name, (box.x + u(2.5), box.y + u(0.8)), "body", colour, bold=True)
            score_rect = text(
                surface,
                theme,
                str(p["score"]),
                (box.right - u(1.5), box.y + u(0.3)),
                "large",
                TEXT,
                "topright",
                bold=True,
            )
            if p["round_points"] is not None:
                text(
                    surface,
                    theme,
                    f"+{p['round_points']}",
                    (score_rect.x - u(1.5), score_rect.centery),
                    "body",
                    GOOD if p["round_points"] else TEXT_DIM,
                    "midright",
                    bold=True,
                )
            status, status_colour = self._status(p, guesses, tataaa_answers, board)
            text(surface, theme, status, (box.x + u(2.5), box.y + u(6)), "small", status_colour)
            # The score track: one step per point up to the target.
            track = pygame.Rect(box.x + u(2.5), box.bottom - u(3.2), box.w - u(4), u(2))
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
            return f"guessed {g['region']} {g['colour']}", TEXT
        if station in answers:
            a = answers[station]
            verdict = "right" if a["right"] else "wrong"
            return f"Tataaa: {board.get(a['country']).name} - {verdict}", GOOD if a["right"] else BAD
        if answers and p["status"] == "tataaa":
            return f"Tataaa #{p['tataaa_rank']} - no turn, an earlier answer was right", TEXT_DIM
        if p["status"] == "tataaa":
            rank = f"TATAAA! #{p['tataaa_rank']}"
            if p["result"] == "right":
                return f"{rank} - right!", GOOD
            if p["result"] == "wrong":
                return f"{rank} - wrong", BAD
            return f"{rank} - " + (
                "answer now!" if p["next"].startswith("pick") else "waits to answer"
            ), ACCENT
        if p["status"] == "locked":
            return "guess locked", GOOD
        return p["next"], TEXT_DIM


RENDERER = UmtataRenderer()
