"""The Ubongo screen: gem board, figures, die, hourglass, collections, final ranking.

Drawn only from the public view (``engine.view(state, None)``) and ``ctx.now``:

* left, the gem board: six rows, each with its red figure field at the head and
  the front gem next to it; every gem has its colour *and* its own shape (so
  colour-blind players can tell them apart; a legend names both);
* right, the die (its picture, name and the puzzle-board row it selects, big) and
  the hourglass (seconds left, as a number and a bar);
* along the bottom, one panel per station: name in the station colour, what to do
  next, finishing place and allowance, and the gems collected, sorted by colour;
* at the end (on the table's final ranking, :mod:`table.display.final`), each player's
  gems by colour, the colour that broke a tie boxed.

Gems a player has just taken fly from the row to the player's panel for
``FLIGHT`` seconds after the event's time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import pygame

from table.common.i18n import N_, _, ngettext, word
from table.common.memory import PICTURE_FILES
from table.display import draw
from table.display.draw import label, label_rect
from table.display.games import NEXT_ROUND_NOTE, FinalDetail, GameRenderer, RenderContext, screen_palette
from table.display.layers import Part, fill, paint_all
from table.display.pieces import side_by_side
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
    Theme,
)

FLIGHT = 0.9
"""Seconds a taken gem takes to fly to its new owner."""

GEM_COLOURS = screen_palette(__file__, "gems")
"""Each gem colour's paint, by the engine's colour name (``[palette.gems]`` of ``screen.toml``)."""
GEM_SHAPES: dict[str, str] = {
    "red": "triangle",
    "green": "square",
    "brown": "circle",
    "violet": "diamond",
    "yellow": "star",
    "blue": "hexagon",
}
FIELD_RED: Colour = (190, 40, 40)
BOARD_WOOD: Colour = (96, 70, 44)
SLOT: Colour = (60, 44, 28)
OUTLINE: Colour = (12, 12, 16)

DIE_WORDS = (N_("Sun"), N_("Moon"), N_("Cross"), N_("Ring"), N_("Wave"), N_("Bolt"))
"""The shipped die's symbol names (umtata/die.toml), for the catalogues: a name an owner
gives their own die is shown as written."""

GEM_WORDS = {"red": N_("red"), "green": N_("green"), "brown": N_("brown"), "violet": N_("violet"),
             "yellow": N_("yellow"), "blue": N_("blue")}
"""The gem colours as the legend names them (message ids)."""

PHASE_TITLES = {
    "place": N_("Place your figures"),
    "roll": N_("Throw the die"),
    "countdown": N_("Get ready"),
    "sand": N_("The sand is running"),
    "results": N_("Round over"),
    "over": N_("Game over"),
}


# -- shapes -------------------------------------------------------------------------------
def _regular(cx: float, cy: float, r: float, n: int, start: float) -> list[tuple[float, float]]:
    return [
        (cx + r * math.cos(start + 2 * math.pi * k / n), cy + r * math.sin(start + 2 * math.pi * k / n))
        for k in range(n)
    ]


def gem_points(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]] | None:
    """The polygon of a gem shape centred on (cx, cy) with radius r (None: a circle)."""
    if shape == "triangle":
        return _regular(cx, cy + r * 0.15, r * 1.1, 3, -math.pi / 2)
    if shape == "square":
        return _regular(cx, cy, r * 1.15, 4, math.pi / 4)
    if shape == "diamond":
        return [(cx, cy - r * 1.15), (cx + r * 0.85, cy), (cx, cy + r * 1.15), (cx - r * 0.85, cy)]
    if shape == "hexagon":
        return _regular(cx, cy, r * 1.05, 6, 0.0)
    if shape == "star":
        pts = []
        for k in range(10):
            rad = r * (1.2 if k % 2 == 0 else 0.55)
            a = -math.pi / 2 + k * math.pi / 5
            pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
        return pts
    return None


def draw_gem(surface: pygame.Surface, colour_name: str, centre: tuple[float, float], r: float) -> None:
    """One gem: filled shape of its colour, dark outline, a small light glint."""
    colour = GEM_COLOURS.get(colour_name, TEXT_DIM)
    cx, cy = centre
    width = max(2, round(r / 6))
    pts = gem_points(GEM_SHAPES.get(colour_name, "circle"), cx, cy, r)
    if pts is None:
        pygame.draw.circle(surface, colour, (round(cx), round(cy)), round(r))
        pygame.draw.circle(surface, OUTLINE, (round(cx), round(cy)), round(r), width)
    else:
        pygame.draw.polygon(surface, colour, pts)
        pygame.draw.polygon(surface, OUTLINE, pts, width)
    glint = (min(255, colour[0] + 90), min(255, colour[1] + 90), min(255, colour[2] + 90))
    pygame.draw.circle(surface, glint, (round(cx - r * 0.3), round(cy - r * 0.25)), max(1, round(r * 0.18)))


@lru_cache(maxsize=PICTURE_FILES)
def _picture_file(path: str) -> pygame.Surface | None:
    """A die picture given as an image file, loaded once (None when unreadable)."""
    try:
        return pygame.image.load(str(Path(path)))
    except (pygame.error, FileNotFoundError, OSError):
        return None


def draw_die_picture(surface: pygame.Surface, picture: str, rect: pygame.Rect, colour: Colour = TEXT) -> None:
    """The die symbol's picture inside ``rect`` (a built-in drawing or an image file)."""
    cx, cy = rect.center
    r = min(rect.width, rect.height) / 2
    w = max(3, round(r / 7))
    if picture.lower().endswith((".png", ".jpg", ".bmp")):
        image = _picture_file(picture)
        if image is not None:
            surface.blit(pygame.transform.smoothscale(image, rect.size), rect)
            return
        picture = "ring"
    if picture == "sun":
        pygame.draw.circle(surface, colour, (cx, cy), round(r * 0.45))
        for k in range(8):
            a = k * math.pi / 4
            p1 = (cx + r * 0.6 * math.cos(a), cy + r * 0.6 * math.sin(a))
            p2 = (cx + r * 0.95 * math.cos(a), cy + r * 0.95 * math.sin(a))
            pygame.draw.line(surface, colour, p1, p2, w)
    elif picture == "moon":
        pygame.draw.circle(surface, colour, (cx, cy), round(r * 0.85))
        pygame.draw.circle(surface, PANEL, (round(cx + r * 0.4), round(cy - r * 0.2)), round(r * 0.75))
    elif picture == "cross":
        arm = round(r * 0.28)
        pygame.draw.rect(surface, colour, pygame.Rect(cx - arm, cy - round(r * 0.9), 2 * arm, round(r * 1.8)))
        pygame.draw.rect(surface, colour, pygame.Rect(cx - round(r * 0.9), cy - arm, round(r * 1.8), 2 * arm))
    elif picture == "wave":
        for dy in (-0.35, 0.35):
            pts = [
                (cx - r * 0.9 + r * 1.8 * k / 24, cy + r * dy + r * 0.25 * math.sin(k / 24 * 4 * math.pi))
                for k in range(25)
            ]
            pygame.draw.lines(surface, colour, False, pts, w + 2)
    elif picture == "bolt":
        pts = [
            (0.15, -0.95),
            (-0.45, 0.1),
            (-0.02, 0.1),
            (-0.2, 0.95),
            (0.5, -0.2),
            (0.05, -0.2),
            (0.3, -0.95),
        ]
        pygame.draw.polygon(surface, colour, [(cx + x * r, cy + y * r) for x, y in pts])
    else:  # "ring", and the fallback for names the display does not know
        pygame.draw.circle(surface, colour, (cx, cy), round(r * 0.85), max(4, round(r * 0.3)))


def gem_in_flight(layout: Layout, panel: pygame.Rect, detail: dict[str, Any], place: int,
                  k: float) -> tuple[float, float, float]:
    """Where the ``place``-th gem a player took (``detail`` of its event) is, and its radius,
    a share ``k`` (0..1) into its flight to the taker's ``panel``.

    Across first (eased out), down last (eased in), lifted in an arc: the gem stays above
    the panels all the way and sinks into the top edge of its taker's panel, shrinking to
    nothing as it arrives, so it never passes over a name, a "best" or a prompt (dropping
    into the panel crossed them all)."""
    first = 12 - detail["left"] - len(detail["gems"])
    sx, sy = layout.gem_centre(detail["row"], first + place)
    ex, ey = panel.centerx + (place - 0.5) * layout.slot, panel.top
    ease = 1 - (1 - k) ** 3
    lift = math.sin(k * math.pi) * layout.slot * 2
    y = sy + (ey - sy) * k ** 3 - lift
    r = layout.slot * (0.36 + 0.2 * math.sin(k * math.pi))
    # Never reaching below the panel's top edge.
    r = max(0.0, min(r, ey - y))
    return sx + (ex - sx) * ease, y, r


def draw_figure(
    surface: pygame.Surface,
    theme: Theme,
    station: int,
    centre: tuple[float, float],
    h: float,
    ghost: bool = False,
) -> None:
    """A player's figure (a pawn in the station colour with its number); ``ghost``: outline only."""
    colour = theme.station_colour(station)
    cx, cy = centre
    head = h * 0.2
    body = [
        (cx - h * 0.3, cy + h * 0.45),
        (cx + h * 0.3, cy + h * 0.45),
        (cx + h * 0.12, cy - h * 0.05),
        (cx - h * 0.12, cy - h * 0.05),
    ]
    head_c = (round(cx), round(cy - h * 0.22))
    if ghost:
        pygame.draw.polygon(surface, colour, body, max(3, round(h / 9)))
        pygame.draw.circle(surface, colour, head_c, round(head), max(3, round(h / 9)))
        label(surface, theme, str(station + 1), (cx, cy + h * 0.25), "small", TEXT, "center", bold=True)
        return
    pygame.draw.polygon(surface, colour, body)
    pygame.draw.polygon(surface, OUTLINE, body, max(2, round(h / 20)))
    pygame.draw.circle(surface, colour, head_c, round(head))
    pygame.draw.circle(surface, OUTLINE, head_c, round(head), max(2, round(h / 20)))
    label(surface, theme, str(station + 1), (cx, cy + h * 0.22), "small", OUTLINE, "center", bold=True)


def _with_player_colours(theme: Theme, players: list[dict[str, Any]]) -> Theme:
    """The theme with each station's colour replaced by the one its player chose in the lobby."""
    size = max(len(theme.colours), *(p["station"] + 1 for p in players))
    colours = [theme.colours[k % len(theme.colours)] for k in range(size)]
    for p in players:
        colours[p["station"]] = theme.colours[p.get("colour", p["station"]) % len(theme.colours)]
    return replace(theme, colours=tuple(colours))


def _ordinal(n: int) -> str:
    return {1: _("1st"), 2: _("2nd"), 3: _("3rd")}.get(n, _("{n}th").format(n=n))


# -- the screen ----------------------------------------------------------------------------
class Layout:
    """Where everything goes for one surface size (all derived from the theme's unit)."""

    def __init__(self, theme: Theme, stations: int) -> None:
        u = theme.unit
        w, h = theme.width, theme.height
        self.header = pygame.Rect(0, 0, w, round(8 * u))
        board_w = min(round(w * 0.62), round(120 * u))
        self.board = pygame.Rect(round(1.5 * u), round(9 * u), board_w, round(62 * u))
        side_x = self.board.right + round(1.5 * u)
        self.side = pygame.Rect(side_x, self.board.top, w - side_x - round(1.5 * u), self.board.height)
        self.die = pygame.Rect(self.side.x, self.side.y, self.side.width, round(self.side.height * 0.58))
        self.sand = pygame.Rect(
            self.side.x,
            self.die.bottom + round(1 * u),
            self.side.width,
            self.side.bottom - self.die.bottom - round(1 * u),
        )
        top = self.board.bottom + round(1.5 * u)
        self.panels = side_by_side(pygame.Rect(round(1.5 * u), top, w - round(3 * u), h - top - round(1 * u)),
                                   stations, round(1 * u))
        # The gem board's grid: a figure field column, then 12 gem places per row.
        inner = self.board.inflate(-round(2 * u), -round(5 * u))
        inner.top = self.board.top + round(1 * u)
        self.row_h = inner.height / 6
        self.field_w = round(self.row_h * 1.35)
        self.slot = min((inner.width - self.field_w - round(4 * u)) / 12, self.row_h)
        self.field_x = inner.x
        self.gems_x = inner.x + self.field_w + round(1 * u)
        self.grid_top = inner.y
        self.legend_y = self.board.bottom - round(2.2 * u)

    def row_centre_y(self, row: int) -> float:
        return self.grid_top + self.row_h * (row + 0.5)

    def gem_centre(self, row: int, place: int) -> tuple[float, float]:
        return self.gems_x + self.slot * (place + 0.5), self.row_centre_y(row)

    def field_rect(self, row: int) -> pygame.Rect:
        pad = self.row_h * 0.06
        return pygame.Rect(
            round(self.field_x),
            round(self.grid_top + self.row_h * row + pad),
            self.field_w,
            round(self.row_h - 2 * pad),
        )


PANEL_FIELDS = ("station", "name", "status", "prompt", "place", "allowance", "took", "collection",
                "start_player", "colour")
"""The fields of a player's view that their panel shows (:meth:`UbongoRenderer._panel`)."""


@dataclass(frozen=True)
class _PanelText:
    """A player's panel's words (see :meth:`UbongoRenderer._panel_text`)."""

    name: str
    best: int
    best_text: str
    line: str
    line_colour: Colour
    lines: list[str]
    size: str
    step: float
    room: int
    fit: draw.OneSize


class UbongoRenderer(GameRenderer, facts="screen.toml"):
    """``RENDERER`` for the ``ubongo`` engine; ``draw`` changes only the surface."""

    def score_text(self, n: int) -> str:
        """Gems of one colour: what ranks a player."""
        return ngettext("{n} gem of one colour", "{n} gems of one colour", n).format(n=n)

    def final_detail(self, view: dict[str, Any], station: int, theme: Theme) -> FinalDetail | None:
        """The player's gems by colour, most first; the colour rank that broke a tie boxed."""
        players = {p["station"]: p for p in view["players"]}
        if station not in players:
            return None
        counts: dict[str, int] = players[station]["collection"]
        colours: list[str] = view["colours"]
        order = tuple(sorted(colours, key=lambda c: (-counts[c], colours.index(c))))
        tiebreak = view.get("tiebreak")
        deciding = tiebreak["rank"] if tiebreak and station in tiebreak["stations"] else None
        shown = tuple((c, counts[c]) for c in order)

        def paint(surface: pygame.Surface, cell: pygame.Rect) -> None:
            u = theme.unit
            col_w = min(9.5 * u, cell.width / max(1, len(order)))
            cy = cell.centery
            for k, (c, n) in enumerate(shown):
                x = cell.left + 2.4 * u + k * col_w
                if k == deciding:
                    box = pygame.Rect(round(x - 2.4 * u), round(cy - 3.6 * u), round(col_w - 0.6 * u), round(7.2 * u))
                    pygame.draw.rect(surface, ACCENT, box, max(3, round(0.4 * u)), border_radius=round(0.8 * u))
                if n:
                    draw_gem(surface, c, (x, cy), 1.7 * u)
                    label(surface, theme, str(n), (x + 2.2 * u, cy), "large", TEXT, "midleft", bold=True)
                elif k == deciding:
                    label(surface, theme, "0", (x + 2.2 * u, cy), "large", TEXT_DIM, "midleft", bold=True)

        return FinalDetail(("ubongo:gems", shown, deciding), paint, units=58.0)

    def draw(self, surface: pygame.Surface, view: dict[str, Any], ctx: RenderContext) -> None:
        paint_all(surface, self.parts(view, ctx.theme, ctx.paused), ctx.now)

    def parts(self, view: dict[str, Any], base_theme: Theme, paused: bool = False) -> list[Part]:
        """The screen as parts (see :mod:`table.display.layers`); times are game times."""
        players: list[dict[str, Any]] = view["players"]
        theme = _with_player_colours(base_theme, players)
        layout = Layout(theme, len(players))
        u = theme.unit
        phase = view["phase"]
        colours = theme.colours
        full = pygame.Rect(0, 0, theme.width, theme.height)

        def ctx(t: float) -> RenderContext:
            return RenderContext(theme, t, paused)

        out = [
            Part("ubongo:background", full, None, lambda s, t: fill(s, BACKGROUND), base=True),
            Part("ubongo:header", layout.header,
                 (phase, view["round"], view["rounds"], view["hourglass"], view["pieces"], view["boards_left"],
                  view["boards_total"]),
                 lambda s, t: self._header(s, theme, view, layout), base=True),
            Part("ubongo:wood", layout.board, None, lambda s, t: self._wood(s, theme, layout), base=True),
        ]
        for row, gems in enumerate(view["board"]):
            top = math.floor(layout.grid_top + layout.row_h * row) - 2
            band = pygame.Rect(layout.board.x, top, layout.board.width, math.ceil(layout.row_h) + 5)

            def paint_row(s: pygame.Surface, t: float, row: int = row) -> None:
                self._row(s, theme, view, layout, row)

            out.append(Part(f"ubongo:row{row}", band, (tuple(gems), layout.board.size), paint_row, base=True))
        # Figures, reach marks and panels change with nearly every input: they sit above the
        # base layer (nothing there overlaps them), so a change repaints only them.
        above: list[Part] = []
        movers = tuple((p["station"], tuple(p["reach"]), p["cursor"], len(view["board"][p["cursor"]]))
                       for p in self._movers(view))
        above.append(Part("ubongo:reach", self._reach_rect(theme, view, layout), (movers, colours),
                          lambda s, t: self._reach(s, theme, view, layout)))
        for row, items in sorted(self._figure_rows(view).items()):
            field = layout.field_rect(row)

            def paint_figures(s: pygame.Surface, t: float, row: int = row, items: list[int] = items) -> None:
                self._figure_row(s, theme, layout, row, items)

            above.append(Part(f"ubongo:figures{row}", field.inflate(round(2 * u), round(2 * u)),
                              (tuple(items), colours, field), paint_figures))
        legend = pygame.Rect(layout.board.x, layout.legend_y - round(2.5 * u), layout.board.width, round(5 * u))
        out.append(Part("ubongo:legend", legend, tuple(view["colours"]),
                        lambda s, t: self._legend(s, theme, view, layout), base=True))
        out.append(Part("ubongo:die", layout.die,
                        (phase, view.get("die"), view["die_symbols"], view.get("die_cursor"), view["start_player"],
                         tuple(p["name"] for p in players), colours),
                        lambda s, t: self._die(s, theme, view, layout), base=True))
        live: list[Part] = []
        deadline = view.get("deadline")
        sand_key = (phase, deadline, view["hourglass"], view["sand_seconds"])
        paint_sand = lambda s, t: self._hourglass(s, theme, view, layout, ctx(t))  # noqa: E731
        if phase == "sand" and deadline is not None:
            # The panel stays; the seconds change once a second, the bar a pixel at a time.
            bar = self._sand_bar(theme, layout)
            number_at = (layout.sand.centerx, layout.sand.y + layout.sand.height * 0.4 - 1.7 * theme.unit)

            def seconds(t: float) -> tuple[object, pygame.Rect]:
                left = max(0.0, deadline - t)
                n, colour = f"{math.ceil(left)}", BAD if left <= 10 else ACCENT
                return (n, colour), label_rect(theme, n, number_at, "huge", colour, "center", bold=True)

            def bar_fill(t: float) -> tuple[object, pygame.Rect]:
                left = max(0.0, deadline - t)
                frac = min(1.0, left / max(0.001, view["sand_seconds"]))
                return (left <= 10, round(bar.width * frac)), bar

            out.append(Part("ubongo:sand", layout.sand, sand_key,
                            lambda s, t: self._hourglass(s, theme, view, layout, ctx(t), "panel"), base=True))
            live.append(Part("ubongo:sand-number", layout.sand, sand_key,
                             lambda s, t: self._hourglass(s, theme, view, layout, ctx(t), "number"), live=seconds))
            live.append(Part("ubongo:sand-bar", bar, sand_key,
                             lambda s, t: self._hourglass(s, theme, view, layout, ctx(t), "bar"), live=bar_fill))
        elif phase == "countdown" and deadline is not None:
            sand_rect = layout.sand

            def count(t: float) -> tuple[object, pygame.Rect]:
                return math.ceil(max(0.0, deadline - t)), sand_rect

            live.append(Part("ubongo:sand", layout.sand, sand_key, paint_sand, live=count))
        else:
            out.append(Part("ubongo:sand", layout.sand, sand_key, paint_sand, base=True))
        may_act = view["may_act"]
        for panel, player in zip(layout.panels, players, strict=True):
            moving = player["status"] in ("moving", "taking") and deadline is not None
            # Keyed by what the panel shows: a figure's move changes the player's cursor,
            # drawn on the board, not here.
            shown = tuple(player.get(field) for field in PANEL_FIELDS)
            key = (panel, shown, player["station"] in may_act, phase, tuple(view["colours"]), colours,
                   deadline if moving else None)
            def paint(s: pygame.Surface, t: float, panel: pygame.Rect = panel,
                      player: dict[str, Any] = player) -> None:
                self._panel(s, theme, view, player, panel, ctx(t))

            above.append(Part(f"ubongo:panel{player['station']}", panel, key, paint))
            if moving and deadline is not None:  # (moving implies a deadline: said for the type checker)
                # Only the line of seconds left changes each second: a part of its own,
                # so that the panel under it is not painted again every second.
                def left_s(t: float, panel: pygame.Rect = panel,
                           player: dict[str, Any] = player) -> tuple[object, pygame.Rect]:
                    text, at = self._countdown_line(theme, view, player, panel, t)
                    return text, label_rect(theme, text, at, "small", ACCENT, "topleft", bold=True,
                                            max_width=panel.width - round(3 * theme.unit))

                def paint_left(s: pygame.Surface, t: float, panel: pygame.Rect = panel,
                               player: dict[str, Any] = player) -> None:
                    text, at = self._countdown_line(theme, view, player, panel, t)
                    width = panel.width - round(3 * theme.unit)
                    s.fill(PANEL, label_rect(theme, text, at, "small", ACCENT, "topleft", bold=True, max_width=width))
                    label(s, theme, text, at, "small", ACCENT, "topleft", bold=True, max_width=width, box=panel,
                          fit=self._panel_text(theme, view, player, panel).fit)

                # Opaque (its text on its own fill): a new second repaints the line alone.
                live.append(Part(f"ubongo:left{player['station']}", panel, key, paint_left, live=left_s,
                                 opaque=True))
        out += above + live
        flights = [e for e in view["events"] if e["kind"] == "gems_taken"]
        if flights:
            out.append(Part("ubongo:flying", full, None,
                            lambda s, t: self._flying_gems(s, view, layout, ctx(t)),
                            live=lambda t: self._flight_bounds(view, layout, t)))
        if paused:
            where = layout.board.center
            paused_word = _("Paused").upper()  # the part's key: a language switch repaints it
            out.append(Part("ubongo:paused",
                            label_rect(theme, paused_word, where, "title", ACCENT, "center", bold=True), paused_word,
                            lambda s, t: label(s, theme, paused_word, where, "title", ACCENT, "center", bold=True),
                            base=True))
        return out

    def _flight_bounds(self, view: dict[str, Any], layout: Layout, now: float) -> tuple[object, pygame.Rect]:
        """Where the flying gems are at ``now`` (and that as the key): nothing once they landed."""
        spots: list[tuple[float, float, float]] = []
        stations = [p["station"] for p in view["players"]]
        for event in view["events"]:
            if event["kind"] != "gems_taken":
                continue
            age = now - event["t"]
            if not 0 <= age < FLIGHT:
                continue
            k = age / FLIGHT
            detail = event["detail"]
            panel = layout.panels[stations.index(event["station"])]
            for place in range(len(detail["gems"])):
                spots.append(gem_in_flight(layout, panel, detail, place, k))
        if not spots:
            return None, pygame.Rect(0, 0, 0, 0)
        rects = [pygame.Rect(math.floor(x - 1.4 * r) - 3, math.floor(y - 1.4 * r) - 3, math.ceil(2.8 * r) + 7,
                             math.ceil(2.8 * r) + 7) for x, y, r in spots]
        return tuple(spots), rects[0].unionall(rects[1:])

    def draw_gem_board(self, surface: pygame.Surface, view: dict[str, Any], ctx: RenderContext) -> None:
        """Only the gem board with its figures (what ``bench/bench_ubongo.py`` times)."""
        theme = _with_player_colours(ctx.theme, view["players"])
        self._board(surface, theme, view, Layout(theme, len(view["players"])))

    # -- parts --------------------------------------------------------------------------
    def _header(self, surface: pygame.Surface, theme: Theme, view: dict[str, Any], layout: Layout) -> None:
        pygame.draw.rect(surface, PANEL, layout.header)
        u = theme.unit
        header = layout.header
        third = header.width // 3 - round(2 * u)
        left = ("Ubongo" if view["phase"] == "place" else
                _("Ubongo - round {round} of {rounds}").format(round=view["round"], rounds=view["rounds"]))
        title = _(PHASE_TITLES[view["phase"]]) if view["phase"] in PHASE_TITLES else ""
        if view["phase"] == "sand" and view["hourglass"] == 2:
            title = _("Second hourglass")
        right = _("{pieces}-piece boards, {left} of {total} left").format(
            pieces=view["pieces"], left=view["boards_left"], total=view["boards_total"])
        # The header's three labels at one scale (the round never smaller than the phase).
        fit = draw.one_size(theme, header, [(left, "large", True, third), (title, "large", True, third),
                                            (right, "small", False, third)])
        label(surface, theme, left, (2 * u, header.centery), "large", TEXT, "midleft", bold=True,
              max_width=third, box=header, fit=fit)
        label(surface, theme, title, (header.centerx, header.centery), "large", ACCENT, "center", bold=True,
              max_width=third, box=header, fit=fit)
        label(surface, theme, right, (theme.width - 2 * u, header.centery), "small", TEXT_DIM, "midright",
              max_width=third, box=header, fit=fit)

    def _board(self, surface: pygame.Surface, theme: Theme, view: dict[str, Any], layout: Layout) -> None:
        self._wood(surface, theme, layout)
        for row in range(len(view["board"])):
            self._row(surface, theme, view, layout, row)
        self._figures(surface, theme, view, layout)
        self._legend(surface, theme, view, layout)

    @staticmethod
    def _wood(surface: pygame.Surface, theme: Theme, layout: Layout) -> None:
        pygame.draw.rect(surface, BOARD_WOOD, layout.board, border_radius=round(1.5 * theme.unit))

    @staticmethod
    def _row(surface: pygame.Surface, theme: Theme, view: dict[str, Any], layout: Layout, row: int) -> None:
        """One row of the gem board: its figure field, the 12 places, its gems and their count."""
        u = theme.unit
        r = layout.slot * 0.36
        gems = view["board"][row]
        field = layout.field_rect(row)
        pygame.draw.rect(surface, FIELD_RED, field, border_radius=round(0.8 * u))
        pygame.draw.rect(surface, OUTLINE, field, max(2, round(0.2 * u)), border_radius=round(0.8 * u))
        for place in range(12):
            cx, cy = layout.gem_centre(row, place)
            pygame.draw.circle(surface, SLOT, (round(cx), round(cy)), round(layout.slot * 0.42))
        first = 12 - len(gems)  # taken gems leave the front holes, next to the field, empty
        for place, colour in enumerate(gems):
            draw_gem(surface, colour, layout.gem_centre(row, first + place), r)
        label(
            surface,
            theme,
            f"{len(gems)}",
            (layout.board.right - 0.6 * u, layout.row_centre_y(row)),
            "small",
            TEXT_DIM,
            "midright",
        )

    @staticmethod
    def _legend(surface: pygame.Surface, theme: Theme, view: dict[str, Any], layout: Layout) -> None:
        """The legend: colour name and shape for every gem colour."""
        u = theme.unit
        x: float = layout.field_x
        for colour in view["colours"]:
            draw_gem(surface, colour, (x + 1.3 * u, layout.legend_y), 1.1 * u)
            rect = label(surface, theme, _(GEM_WORDS.get(colour, colour)), (x + 3 * u, layout.legend_y), "small", TEXT,
                         "midleft")
            x = rect.right + 2.2 * u

    @staticmethod
    def _movers(view: dict[str, Any]) -> list[dict[str, Any]]:
        return [p for p in view["players"] if view["phase"] == "sand" and p["status"] in ("moving", "taking")]

    @staticmethod
    def _figure_rows(view: dict[str, Any]) -> dict[int, list[int]]:
        """Row -> figures standing there (station) and ghosts where a knob points (-1 - station)."""
        players: list[dict[str, Any]] = view["players"]
        phase = view["phase"]
        by_row: dict[int, list[int]] = {}
        for p in players:
            if p["figure"] is not None:
                by_row.setdefault(p["figure"], []).append(p["station"])
        # Where a knob points (choosing a start field, or moving): a ghost figure there.
        for p in players:
            pointing = (phase == "place" and p["figure"] is None) or (
                phase == "sand" and p["status"] == "moving" and p["cursor"] != p["figure"]
            )
            if pointing:
                by_row.setdefault(p["cursor"], []).append(-1 - p["station"])
        return by_row

    def _reach(self, surface: pygame.Surface, theme: Theme, view: dict[str, Any], layout: Layout) -> None:
        """Reach of those still moving: a band in the station colour beside the fields, and
        the two gems each would take now ringed in its colour."""
        u = theme.unit
        for k, p in enumerate(self._movers(view)):
            lo, hi = p["reach"]
            colour = theme.station_colour(p["station"])
            x = layout.field_x - 0.3 * u - k * 0.9 * u
            top = layout.grid_top + layout.row_h * lo + 0.3 * u
            bottom = layout.grid_top + layout.row_h * (hi + 1) - 0.3 * u
            pygame.draw.line(surface, colour, (x, top), (x, bottom), max(3, round(0.6 * u)))
            cursor = p["cursor"]
            left = len(view["board"][cursor])
            for place in range(min(2, left)):
                cx, cy = layout.gem_centre(cursor, 12 - left + place)
                pygame.draw.circle(
                    surface,
                    colour,
                    (round(cx), round(cy)),
                    round(layout.slot * 0.48),
                    max(3, round(0.45 * u)),
                )

    def _reach_rect(self, theme: Theme, view: dict[str, Any], layout: Layout) -> pygame.Rect:
        """Everything :meth:`_reach` draws lies inside this rect."""
        u = theme.unit
        rects: list[pygame.Rect] = []
        for k, p in enumerate(self._movers(view)):
            lo, hi = p["reach"]
            x = layout.field_x - 0.3 * u - k * 0.9 * u
            w = max(3, round(0.6 * u))
            top = layout.grid_top + layout.row_h * lo
            rects.append(pygame.Rect(math.floor(x - w), math.floor(top), 2 * w + 2,
                                     math.ceil(layout.row_h * (hi + 1 - lo)) + 2))
            cursor = p["cursor"]
            left = len(view["board"][cursor])
            ring = round(layout.slot * 0.48) + 2
            for place in range(min(2, left)):
                cx, cy = layout.gem_centre(cursor, 12 - left + place)
                rects.append(pygame.Rect(round(cx) - ring, round(cy) - ring, 2 * ring + 1, 2 * ring + 1))
        return rects[0].unionall(rects[1:]) if rects else pygame.Rect(0, 0, 0, 0)

    def _figures(self, surface: pygame.Surface, theme: Theme, view: dict[str, Any], layout: Layout) -> None:
        self._reach(surface, theme, view, layout)
        for row, items in self._figure_rows(view).items():
            self._figure_row(surface, theme, layout, row, items)

    @staticmethod
    def _figure_row(surface: pygame.Surface, theme: Theme, layout: Layout, row: int, items: list[int]) -> None:
        field = layout.field_rect(row)
        n = len(items)
        h = min(field.height * 0.9, field.width / max(1, n) * 1.4)
        for k, item in enumerate(items):
            cx = field.x + field.width * (k + 0.5) / n
            ghost = item < 0
            draw_figure(surface, theme, -1 - item if ghost else item, (cx, field.centery), h, ghost=ghost)

    def _die(self, surface: pygame.Surface, theme: Theme, view: dict[str, Any], layout: Layout) -> None:
        u = theme.unit
        rect = layout.die
        pygame.draw.rect(surface, PANEL, rect, border_radius=round(1.5 * u))
        die = view.get("die")
        symbols: list[dict[str, Any]] = view["die_symbols"]
        if view["phase"] == "place":
            label(surface, theme, _("The die decides"), (rect.centerx, rect.y + 4 * u), "body", TEXT_DIM, "center",
                  max_width=rect.width - round(2 * u), box=rect)
            label(surface, theme, _("the puzzle row"), (rect.centerx, rect.y + 9 * u), "body", TEXT_DIM, "center",
                  max_width=rect.width - round(2 * u), box=rect)
            self._die_strip(surface, theme, symbols, None, rect)
            return
        if die is None:  # waiting for the tray: the start player's knob choice is shown small
            starter = view["start_player"]
            name = next(p["name"] for p in view["players"] if p["station"] == starter)
            label(
                surface,
                theme,
                _("{name}: throw the die").format(name=name),
                (rect.centerx, rect.y + 5 * u),
                "body",
                theme.station_colour(starter),
                "center",
                bold=True,
                max_width=rect.width - round(2 * u),
                box=rect,
            )
            cursor = view.get("die_cursor")
            label(
                surface,
                theme,
                _("or turn the knob and push"),
                (rect.centerx, rect.y + 11 * u),
                "small",
                TEXT_DIM,
                "center",
                max_width=rect.width - round(2 * u),
                box=rect,
            )
            self._die_strip(surface, theme, symbols, cursor, rect)
            return
        size = min(rect.height * 0.55, rect.width * 0.4)
        pic = pygame.Rect(0, 0, round(size), round(size))
        pic.midleft = (rect.x + round(3 * u), rect.y + round(rect.height * 0.42))
        face = pic.inflate(round(2 * u), round(2 * u))
        pygame.draw.rect(surface, PANEL_LIGHT, face, border_radius=round(2 * u))
        draw_die_picture(surface, die["picture"], pic, ACCENT)
        tx = face.right + 2.5 * u
        room = round(rect.right - tx - u)
        label(surface, theme, _(die["name"]), (tx, pic.y + 2 * u), "title", TEXT, "topleft", bold=True,
              max_width=room, box=rect)
        row_rect = label(
            surface,
            theme,
            _("Row {row}").format(row=die["row"]),
            (tx, pic.centery + 1 * u),
            "title",
            ACCENT,
            "topleft",
            bold=True,
            max_width=room,
            box=rect,
        )
        # Right under "Row N" (it belongs to it), clear of the symbols strip below.
        label(surface, theme, _("of the puzzle board"), (tx, row_rect.bottom - 0.2 * u), "small", TEXT, "topleft",
              max_width=room, box=rect)
        self._die_strip(surface, theme, symbols, die["index"], rect)

    def _die_strip(
        self,
        surface: pygame.Surface,
        theme: Theme,
        symbols: list[dict[str, Any]],
        chosen: int | None,
        rect: pygame.Rect,
    ) -> None:
        """All six symbols small along the bottom of the die panel, the chosen one lit."""
        u = theme.unit
        cell = rect.width / len(symbols)
        size = min(cell * 0.6, 6 * u)
        y = rect.bottom - size / 2 - 3.6 * u
        for k, sym in enumerate(symbols):
            cx = rect.x + cell * (k + 0.5)
            box = pygame.Rect(0, 0, round(size), round(size))
            box.center = (round(cx), round(y))
            lit = k == chosen
            if lit:
                pygame.draw.rect(
                    surface,
                    ACCENT,
                    box.inflate(round(1.2 * u), round(1.2 * u)),
                    max(2, round(0.4 * u)),
                    border_radius=round(0.8 * u),
                )
            draw_die_picture(surface, sym["picture"], box, ACCENT if lit else TEXT_DIM)
            label(
                surface,
                theme,
                f"{sym['row']}",
                (cx, box.bottom + 1.8 * u),
                "small",
                TEXT if lit else TEXT_DIM,
                "center",
            )

    @staticmethod
    def _sand_bar(theme: Theme, layout: Layout) -> pygame.Rect:
        u = theme.unit
        rect = layout.sand
        return pygame.Rect(rect.x + round(2 * u), rect.bottom - round(5 * u), rect.width - round(4 * u), round(3 * u))

    def _hourglass(
        self, surface: pygame.Surface, theme: Theme, view: dict[str, Any], layout: Layout, ctx: RenderContext,
        which: str = "all",
    ) -> None:
        """The sand panel; while the sand runs, ``which`` may pick the "panel" (with its
        caption), the "number" of seconds or the "bar" alone (they change at different rates)."""
        u = theme.unit
        rect = layout.sand
        phase = view["phase"]
        deadline = view.get("deadline")
        bar = self._sand_bar(theme, layout)

        def centred(line: str, at: tuple[float, float], size: str, colour: Colour, bold: bool = False) -> None:
            label(surface, theme, line, at, size, colour, "center", bold=bold, max_width=rect.width - round(2 * u),
                  box=rect)

        if which in ("all", "panel"):
            pygame.draw.rect(surface, PANEL, rect, border_radius=round(1.5 * u))
        if phase == "sand" and deadline is not None:
            left = max(0.0, deadline - ctx.now)
            frac = min(1.0, left / max(0.001, view["sand_seconds"]))
            colour = BAD if left <= 10 else ACCENT
            if which in ("all", "number"):
                label(surface, theme, f"{math.ceil(left)}", (rect.centerx, rect.y + rect.height * 0.4 - 1.7 * u),
                      "huge", colour, "center", bold=True)
            if which in ("all", "panel"):
                caption = (_("seconds of sand") if view["hourglass"] == 1
                           else _("nobody finished: the sand runs once more"))
                label(surface, theme, caption, (rect.centerx, bar.y - 2 * u), "small", TEXT_DIM, "center",
                      max_width=rect.width - round(2 * u), box=rect)
            if which in ("all", "bar"):
                pygame.draw.rect(surface, PANEL_LIGHT, bar, border_radius=round(1 * u))
                fill = bar.copy()
                fill.width = round(bar.width * frac)
                pygame.draw.rect(surface, colour, fill, border_radius=round(1 * u))
        elif phase == "countdown" and deadline is not None:
            seconds = math.ceil(max(0.0, deadline - ctx.now))
            centred(_("Sand starts in {seconds}").format(seconds=seconds), rect.center, "large", ACCENT, bold=True)
        elif phase == "results":
            # An early end (everyone took their gems) is not the sand's: say which it was.
            ended = (_("Everyone has taken gems") if view.get("round_end") == "everyone has taken"
                     else _("Sand has run out"))
            centred(ended, (rect.centerx, rect.y + rect.height * 0.35), "large", TEXT, bold=True)
            centred(_(NEXT_ROUND_NOTE), (rect.centerx, rect.y + rect.height * 0.68), "body", ACCENT)
        elif phase == "place":
            centred(_("60 s per round"), rect.center, "large", TEXT_DIM)
        elif phase == "roll":
            centred(_("Sand waits for the die"), rect.center, "body", TEXT_DIM)
        elif phase == "over":
            centred(_("All boards played"), rect.center, "large", TEXT, bold=True)

    @staticmethod
    def _countdown_text(player: dict[str, Any], seconds: int) -> str:
        """A moving player's status line: place, squares to move, ``seconds`` left."""
        return _("{place}: move {n}, {seconds} s left").format(place=_ordinal(player["place"]),
                                                                n=player["allowance"], seconds=seconds)

    def _countdown_line(self, theme: Theme, view: dict[str, Any], player: dict[str, Any], panel: pygame.Rect,
                        now: float) -> tuple[str, tuple[float, float]]:
        """A moving player's status line at game time ``now``, and where its top left goes
        in the panel (where :meth:`_panel` puts its status line)."""
        u = theme.unit
        text = self._countdown_text(player, math.ceil(max(0.0, view["deadline"] - now)))
        return text, (panel.x + 1.5 * u, panel.y + 5.8 * u)

    def _panel_text(self, theme: Theme, view: dict[str, Any], player: dict[str, Any],
                    rect: pygame.Rect) -> _PanelText:
        """What a player's panel says and the one scale its lines are drawn at."""
        u = theme.unit
        x = rect.x + 1.5 * u
        name = (_("{name} (start)").format(name=player["name"]) if player["start_player"] and view["phase"] != "over"
                else player["name"])
        best = max(player["collection"].values())
        room = rect.width - round(3 * u)
        # Finishing place and allowance, or the gems taken this round.
        status = player["status"]
        line = ""
        line_colour = TEXT
        if player["place"] is not None and view["phase"] in ("sand", "results"):
            line = _("{place} done, may move {n}").format(place=_ordinal(player["place"]), n=player["allowance"])
            line_colour = GOOD
        if player.get("took") is not None:
            took = player["took"]
            line = (ngettext("took {n} gem", "took {n} gems", len(took)).format(n=len(took)) if took
                    else _("row was empty"))
            line_colour = GOOD
        elif view["phase"] == "results" and player["place"] is not None:
            line, line_colour = _("too late: no gems"), BAD
        elif view["phase"] == "results":
            line, line_colour = _("did not finish"), TEXT_DIM
        if view["phase"] == "over":
            line = ""
        countdown = ""
        if status in ("moving", "taking") and view.get("deadline") is not None:
            # The seconds left are a part of their own (_countdown_line), drawn at this
            # panel's scale: the scale makes room for a count of two digits.
            line, countdown = "", self._countdown_text(player, 88)
        prompt = word(player["prompt"])
        # What this player does next, in full white (or the accent when it is their move):
        # body type when it fits in two lines, else the smaller type in three.
        size, step = "body", 4.0 * u
        lines = draw.wrap(theme.font(size), prompt, room) if prompt else []
        if len(lines) > 2:
            size, step = "small", 3.4 * u
            lines = draw.wrap(theme.font(size), prompt, room)
            if len(lines) > 3:
                lines = [*lines[:2], " ".join(lines[2:])]  # the last line shrinks rather than being cut
        best_text = _("best")
        name_room = round(rect.right - 1.5 * u - theme.font("body", True).size(f"{best}")[0] - 1 * u
                          - theme.font("small").size(best_text)[0] - x - u)
        # The panel's lines at one scale: a long name shrinks the lines under it alike.
        fit = draw.one_size(theme, rect, [(name, "body", True, name_room), (line, "small", True, room),
                                          (countdown, "small", True, room), (_("no gems yet"), "body", False, room),
                                          *((ln, size, False, room) for ln in lines)])
        return _PanelText(name, best, best_text, line, line_colour, lines, size, step, room, fit)

    def _panel(
        self,
        surface: pygame.Surface,
        theme: Theme,
        view: dict[str, Any],
        player: dict[str, Any],
        rect: pygame.Rect,
        ctx: RenderContext,
    ) -> None:
        u = theme.unit
        station = player["station"]
        colour = theme.station_colour(station)
        may_act = station in view["may_act"]
        pygame.draw.rect(surface, PANEL, rect, border_radius=round(1.2 * u))
        pygame.draw.rect(
            surface,
            colour,
            rect,
            max(3, round(0.5 * u if may_act else 0.25 * u)),
            border_radius=round(1.2 * u),
        )
        x = rect.x + 1.5 * u
        y = rect.y + 0.8 * u
        text = self._panel_text(theme, view, player, rect)
        name, best, best_text, line, line_colour = text.name, text.best, text.best_text, text.line, text.line_colour
        lines, size, step, room, fit = text.lines, text.size, text.step, text.room, text.fit
        score = label(surface, theme, f"{best}", (rect.right - 1.5 * u, y), "body", TEXT, "topright", bold=True,
                      box=rect, fit=fit)
        best_word = label(surface, theme, best_text, (score.x - 1 * u, score.bottom - 0.6 * u), "small", TEXT,
                          "bottomright", box=rect, fit=fit)
        label(surface, theme, name, (x, y), "body", colour, "topleft", bold=True,
              max_width=round(best_word.x - x - u), box=rect, fit=fit)
        y += 5 * u
        if line:
            label(surface, theme, line, (x, y), "small", line_colour, "topleft", bold=True, max_width=room, box=rect,
                  fit=fit)
        y += 3.8 * u
        for ln in lines:
            label(surface, theme, ln, (x, y), size, ACCENT if may_act else TEXT, max_width=room, box=rect, fit=fit)
            y += step
        # The collection, sorted: most of one colour first (the order that decides the game).
        counts: dict[str, int] = player["collection"]
        order = sorted(view["colours"], key=lambda c: (-counts[c], view["colours"].index(c)))
        cell = (rect.width - 2 * u) / 6
        gy = rect.bottom - 3.2 * u
        if not any(counts.values()):
            label(surface, theme, _("no gems yet"), (x, gy), "body", TEXT_DIM, "midleft", max_width=room, box=rect,
                  fit=fit)
        for k, c in enumerate(c for c in order if counts[c]):
            cx = rect.x + 1 * u + cell * (k + 0.5)
            draw_gem(surface, c, (cx - 1.1 * u, gy), 1.4 * u)
            label(surface, theme, f"{counts[c]}", (cx + 0.6 * u, gy), "body", TEXT, "midleft", bold=True, box=rect,
                  fit=fit)

    def _flying_gems(self, surface: pygame.Surface, view: dict[str, Any], layout: Layout, ctx: RenderContext) -> None:
        stations = [p["station"] for p in view["players"]]
        for event in view["events"]:
            if event["kind"] != "gems_taken":
                continue
            age = ctx.now - event["t"]
            if not 0 <= age < FLIGHT:
                continue
            k = age / FLIGHT
            detail = event["detail"]
            panel = layout.panels[stations.index(event["station"])]
            for place, colour in enumerate(detail["gems"]):
                x, y, r = gem_in_flight(layout, panel, detail, place, k)
                if r >= 1:
                    draw_gem(surface, colour, (x, y), r)


RENDERER = UbongoRenderer()
