"""The screen stack: lobby (menu), game, table menu overlay, attract mode.

Lifecycle of a screen (as in Tuxemon's state machine): the :class:`~table.loop.app.Table`
pushes and pops screens; the top screen receives every logical input through
``handle``; ``update(now)`` advances only the screen's own animation state;
``parts(size, now)`` describes the picture as parts (:mod:`table.display.layers`):
where each piece is, what it depends on, and for the few that move with time (sand,
timers, flying gems, the demo's band) how they change. The table's composer repaints
only the parts that changed, so a static screen costs nothing and a running one only
its timers; ``draw(surface, now)`` paints everything from scratch.

Screens never see pygame key codes or pin numbers: inputs are :class:`Action` objects
(press / turn / push / long_push from a station). What a screen wants the table to
do (start a game, journal a menu choice, leave attract mode) goes through the
``TableControl`` it was given.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

import pygame

from table.common.i18n import LANGUAGE_NAMES, N_, _, language, next_language, ngettext, set_language
from table.common.memory import give_back
from table.common.names import is_unnamed, name_problem, shown_name, unnamed
from table.display import draw
from table.display.games import PlayerOption, renderer_of, renderer_parts
from table.display.layers import Live, Paint, Part, fill, paint_all, whole
from table.display.theme import ACCENT, BACKGROUND, BAD, GOOD, PANEL, PANEL_LIGHT, TEXT, TEXT_DIM, Colour, Theme
from table.games import lobby_games, registry
from table.games.base import TICK, Action, GameSetup, JSONValue, knob_choice
from table.games.contract import COUNTDOWN, table_view
from table.play.session import END, PAUSE, RESUME, UNDO, Session

if TYPE_CHECKING:  # the game's screens, the demo's: loaded with the first of them, not with the lobby
    from table.display import moments

log = logging.getLogger(__name__)

LONG_PUSH = "long_push"


class TableControl(Protocol):
    """What screens may ask of the table loop."""

    def start_game(self, setup: GameSetup) -> None: ...

    def game_input(self, action: Action) -> bool: ...

    def leave_game(self) -> None: ...

    def game_time(self, t: float) -> float:
        """The current game's table time (seconds since it started) for clock time ``t``."""
        ...

    def push_screen(self, screen: Screen) -> None: ...

    def pop_screen(self) -> None: ...

    @property
    def session(self) -> Session | None: ...


class Screen:
    """Base class. Subclasses override ``handle`` and either ``parts`` or ``draw`` (with
    ``frame_key``)."""

    overlay = False  # an overlay is drawn on top of the screen below it
    sweeps = True
    """A large change is shown as a sweep over a few frames (see ``Composer``), so no
    frame costs a whole repaint."""

    def handle(self, action: Action) -> None:
        log.debug("%s ignores %s", type(self).__name__, action)

    def update(self, now: float) -> None:
        return None

    def frame_key(self, now: float) -> Hashable:
        return None

    def parts(self, size: tuple[int, int], now: float) -> list[Part]:
        """The picture as parts (see :mod:`table.display.layers`), for a surface of ``size``
        at table time ``now``. The default is one part over the whole surface, painted by
        ``draw`` whenever ``frame_key`` changes."""
        return [Part(f"{type(self).__name__}@{id(self)}", whole(size), self.frame_key(now), self.draw,
                     base=not self.overlay)]

    def draw(self, surface: pygame.Surface, now: float) -> None:
        """Paint the whole picture from scratch."""
        paint_all(surface, self.parts(surface.get_size(), now), now)


def retimed(parts: list[Part], clock: Callable[[float], float]) -> list[Part]:
    """``parts`` made for another time scale (a game's time) driven by the table's clock."""
    out = []
    for part in parts:
        def paint(s: pygame.Surface, t: float, inner: Paint = part.paint) -> object:
            return inner(s, clock(t))

        def live(t: float, inner: Live | None = part.live) -> tuple[object, pygame.Rect]:
            assert inner is not None  # passed on only for a live part
            return inner(clock(t))

        out.append(Part(part.name, part.rect, part.key, paint, part.base, None if part.live is None else live))
    return out


def _game_title(name: str) -> str:
    """``name``'s title in the language in force (a game's own catalogue may word it)."""
    return _(str(registry()[name].title))


def variant_name(game: str, variant: str) -> str:
    """``game``'s ``variant`` as the lobby shows it (the name its screen gives it, in the
    language in force; a variant its screen does not name shows as it is)."""
    renderer = renderer_of(game)
    names = renderer.variant_names if renderer is not None else {}
    return _(names[variant]) if variant in names else variant


def player_options(game: str) -> tuple[PlayerOption, ...]:
    """The settings each player of ``game`` chooses in the lobby (none without a screen)."""
    renderer = renderer_of(game)
    return renderer.player_options if renderer is not None else ()


LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
INITIALS = 3
"""How many letters a player's initials have."""


@dataclass
class NameEntry:
    """One station's name being entered: first a choice among the venue's names (when
    it has a list; the last choice spells initials instead), then the initials."""

    choices: tuple[str, ...]
    """The venue's names; empty: straight to the initials."""
    at: int = 0
    """The choice under the knob (``len(choices)``: spell initials)."""
    spelling: bool = False
    letters: list[int] = field(default_factory=lambda: [0] * INITIALS)
    letter: int = 0
    """The letter the knob changes, 0 .. INITIALS-1."""

    def __post_init__(self) -> None:
        self.spelling = self.spelling or not self.choices

    def turn(self, action: Action) -> None:
        if self.spelling:
            self.letters[self.letter] = knob_choice(self.letters[self.letter], action, len(LETTERS))
        else:
            self.at = knob_choice(self.at, action, len(self.choices) + 1)

    def push(self) -> str | None:
        """Take the choice or letter under the knob; the name once it is complete."""
        if not self.spelling:
            if self.at < len(self.choices):
                return self.choices[self.at]
            self.spelling = True
            return None
        self.letter += 1
        if self.letter < INITIALS:
            return None
        return self.spelled()

    def spelled(self) -> str:
        return "".join(LETTERS[i] for i in self.letters)

    def key(self) -> Hashable:
        return (self.at, self.spelling, tuple(self.letters), self.letter)


@dataclass
class LobbySettings:
    """What the lobby has chosen so far."""

    game: str
    variant: str
    joined: list[int] = field(default_factory=list)
    choices: dict[str, dict[int, int]] = field(default_factory=dict)
    """Each player option's value by station (see :class:`PlayerOption`), once changed."""
    colours: dict[int, int] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    """The names the players entered, by station."""

    def choice(self, option: PlayerOption, station: int) -> int:
        """``station``'s value of ``option``: the first of its values until changed."""
        return self.choices.get(option.option, {}).get(station, option.values[0])

    def name(self, station: int) -> str:
        """``station``'s player's name: as entered if the one rule for names takes it
        (:mod:`table.common.names`), else the one name of a player who entered none
        (:func:`table.common.names.unnamed`, in the language in force)."""
        return shown_name(self.names.get(station, ""), station)


@dataclass(frozen=True)
class SettingsNotice:
    """Settings the table did not take, told to whoever runs it in the lobby.

    ``where``: ``card`` (the SD card's folder was refused; the table runs on its last
    good settings), ``card-partly`` (some of its files were refused, the rest taken) or
    ``config`` (the config directory failed its check; the table runs on its shipped
    settings). ``problems``: one sentence each (file, line or key, what to change), as
    the config check words them."""

    where: str
    problems: tuple[str, ...]


NOTICE_WORDS: dict[str, tuple[str, str, str]] = {
    "card": (N_("The settings on the SD card were not taken"),
             N_("The table runs on its last good settings."),
             N_("Correct this in the folder \"table\" on the card's first partition (any computer can open "
                "it), then restart the table.")),
    "card-partly": (N_("Some files on the SD card were not taken"),
                    N_("The table runs on the card's other settings."),
                    N_("Take these out of the folder \"table\" on the card's first partition (any computer can "
                       "open it), then restart the table.")),
    "config": (N_("The table's settings have a problem"),
               N_("The table runs on its shipped settings."),
               N_("Correct this in /etc/table, or put corrected settings on the SD card, then restart the table.")),
}
"""A notice's heading, what the table runs on, and how to fix it, by ``where``."""
NOTICE_PROBLEMS = 3
"""The most problems a notice lists (with how many more there are)."""
FOOTER_PROBLEM = 90
"""The most characters of the first problem the lobby's footer keeps once the notice is
put aside (the rest would shrink the line past reading)."""


def notice_lines(notice: SettingsNotice) -> tuple[str, list[str], str, str]:
    """The notice's heading, problem lines, what the table runs on and how to fix it, in
    the table's language now (the problems are the config check's own words)."""
    heading, runs, fix = (_(words) for words in NOTICE_WORDS.get(notice.where, NOTICE_WORDS["config"]))
    problems = list(notice.problems[:NOTICE_PROBLEMS])
    more = len(notice.problems) - len(problems)
    if more:
        problems.append(ngettext("and {count} more problem", "and {count} more problems", more).format(count=more))
    return heading, problems, runs, fix


def _notice_parts(theme: Theme, size: tuple[int, int], notice: SettingsNotice) -> list[Part]:
    """The settings notice over the lobby: big enough to read across the room."""
    w, h = size
    heading, problems, runs, fix = notice_lines(notice)
    box_w = min(w - theme.px(6), theme.px(170))
    inner = box_w - theme.px(10)
    body, strong = theme.font("body"), theme.font("body", bold=True)
    rows: list[tuple[str, str, Colour, bool]] = [(heading, "title", BAD, True)]
    for problem in problems:
        rows += [(line, "body", TEXT, True) for line in draw.wrap(strong, problem, inner)[:3]]
    rows += [(line, "body", ACCENT, False) for line in draw.wrap(body, runs, inner)]
    rows += [(line, "body", TEXT_DIM, False) for line in draw.wrap(body, fix, inner)]
    rows.append((_("Push any knob to play on"), "body", TEXT_DIM, False))
    heights = {"title": theme.px(13), "body": theme.px(6.5)}
    # A gap under the heading and one under the problems.
    gaps = {1, 1 + sum(len(draw.wrap(strong, p, inner)[:3]) for p in problems)}
    box_h = theme.px(6) + sum(heights[r[1]] for r in rows) + len(gaps) * theme.px(2.5)
    box = pygame.Rect(0, 0, box_w, min(h - theme.px(4), box_h))
    box.center = (w // 2, h // 2)

    def paint(surface: pygame.Surface, t: float) -> None:
        draw.panel(surface, box, PANEL, theme.px(2), BAD, theme.px(0.8))
        y = box.top + theme.px(3)
        for i, (line, kind, colour, bold) in enumerate(rows):
            if i in gaps:
                y += theme.px(2.5)
            draw.label(surface, theme, line, (box.left + theme.px(5), y + heights[kind] // 2), kind, colour,
                       "midleft", bold=bold, max_width=inner, box=box)
            y += heights[kind]

    return [Part("lobby:notice-veil", whole(size), None,
                 lambda surface, t: draw.veil(surface, surface.get_rect(), 215), base=True),
            Part("lobby:notice", box, (tuple(rows), box.size), paint, base=True)]


class LobbyScreen(Screen):
    """Choose the game, variant, who plays, each player's own settings, colours and names
    with knobs and buttons.

    Any station's knob moves the shared cursor through the lines; a short push changes
    the line under the cursor (for a player option, such as a level, "your colour" and
    "your name", the pushing station's own setting); a station's button joins or leaves
    the game. The lines are the same whatever game is chosen, so a number of steps of
    the knob always reaches the same line: every game has a line of its own (a push
    chooses it), and a player option of one game shows as not applicable for the others.
    The line under the games, "How to play", shows the chosen game's how-to-play card
    (:class:`HowToPlayScreen`) until a push or a press.

    "Your name" takes the pushing station's knob for itself until its name is complete:
    a choice among the venue's names (``[table] names``), or three letters, each turned
    to and pushed, arcade style.
    """

    GAMES = "games"
    """The place in :data:`LINES` of the games, one line each (``"game:NAME"``)."""
    PLAYER_OPTIONS = "player options"
    """The place in :data:`LINES` of every lobby game's player options, one line each
    (``"option:NAME"``)."""
    HOW_TO_PLAY = "how to play"
    """The line that shows the chosen game's how-to-play card (in the games' column)."""
    LINES = (GAMES, HOW_TO_PLAY, "variant", PLAYER_OPTIONS, "colour", "name", "language", "start")

    def __init__(self, control: TableControl, theme: Theme, stations: int,
                 game_options: dict[str, dict[str, JSONValue]] | None = None,
                 pinned_language: frozenset[str] = frozenset(), names: Sequence[str] = (),
                 station_names: Sequence[str] = ()) -> None:
        """``names``: the venue's players to choose from (``[table] names``);
        ``station_names``: the name each station starts with, in station order
        (``[table] station_names``, checked by the config check; a player may change it)."""
        self.control = control
        self.theme = theme
        self.stations = stations
        self.game_options = game_options or {}
        # Games whose ``[games.NAME] language`` in table.toml keeps them in one language.
        self.pinned_language = pinned_language
        self.venue_names = tuple(names)
        self.games = tuple(lobby_games())
        first = self.games[0]
        self.settings = LobbySettings(first, registry()[first].variants[0],
                                      colours={s: s for s in range(stations)},
                                      names={st: name.strip() for st, name in enumerate(station_names)
                                             if st < stations and name_problem(name) is None})
        self.cursor = 0
        self.message = ""
        self.entries: dict[int, NameEntry] = {}
        """The stations entering their names now."""
        self.starting = False
        """The start line was pushed and the game is being set up (the start line says so)."""
        self.notice: SettingsNotice | None = None
        """Settings the table did not take (set by the runner); shown over the lobby until
        a station pushes or presses, then in its footer."""
        self.notice_open = True
        self._parts: tuple[Hashable, list[Part]] | None = None
        every: dict[str, PlayerOption] = {}
        for game in self.games:
            for option in player_options(game):
                every.setdefault(f"option:{option.option}", option)
        self._every_option = every

    def _options(self) -> dict[str, PlayerOption]:
        """The chosen game's player options by line."""
        return {f"option:{o.option}": o for o in player_options(self.settings.game)}

    def _lines(self) -> list[str]:
        """The lobby's lines, the same for every game."""
        lines: list[str] = []
        for line in self.LINES:
            if line == self.GAMES:
                lines += [f"game:{g}" for g in self.games]
            elif line == self.PLAYER_OPTIONS:
                lines += list(self._every_option)
            else:
                lines.append(line)
        return lines

    def handle(self, action: Action) -> None:
        if action.station is None or not 0 <= action.station < self.stations:
            return
        if self.notice is not None and self.notice_open:
            # Read, then put aside: the table plays on (the footer keeps the problem).
            if action.kind in ("press", "push"):
                self.notice_open = False
            return
        s = self.settings
        lines = self._lines()
        entry = self.entries.get(action.station)
        if entry is not None and action.kind in ("turn", "push"):
            if action.kind == "turn":
                entry.turn(action)
            else:
                name = entry.push()
                if name is not None:
                    s.names[action.station] = name
                    del self.entries[action.station]
            return
        if action.kind == "turn":
            self.cursor = knob_choice(self.cursor, action, len(lines))
        elif action.kind == "press":
            if action.station in s.joined:
                s.joined.remove(action.station)
            else:
                s.joined.append(action.station)
                s.joined.sort()
            self.message = ""
        elif action.kind == "push":
            line = lines[min(self.cursor, len(lines) - 1)]
            if line.startswith("game:"):
                game = line[len("game:"):]
                if game != s.game:
                    s.game = game
                    s.variant = registry()[game].variants[0]
                self.message = ""
            elif line == self.HOW_TO_PLAY:
                self.control.push_screen(HowToPlayScreen(self.control, self.theme, s.game))
            elif line == "variant":
                variants = registry()[s.game].variants
                s.variant = variants[(variants.index(s.variant) + 1) % len(variants)]
            elif line in self._options():
                option = self._options()[line]
                now = s.choice(option, action.station)
                at = option.values.index(now) if now in option.values else -1
                s.choices.setdefault(option.option, {})[action.station] = option.values[(at + 1) % len(option.values)]
            elif line == "colour":
                used = {c for st, c in s.colours.items() if st != action.station}
                c = s.colours.get(action.station, action.station)
                for _turn in range(len(self.theme.colours)):
                    c = (c + 1) % len(self.theme.colours)
                    if c not in used:
                        break
                s.colours[action.station] = c
            elif line == "name":
                self.entries[action.station] = self._entry(action.station)
            elif line == "language":
                # The table's language for every screen, the menus and speech, at once.
                set_language(next_language(language()))
                self.message = ""
            elif line == "start":
                self._start()

    def take_party(self, setup: GameSetup) -> None:
        """Seat again the party that started ``setup`` (a game resumed after a restart, whose
        lobby was lost with the process): its stations joined, its names, its colours, and
        its game, variant and players' options chosen, as this lobby had them when it
        started that game, so the game after it starts with the same party.

        Everything comes from the journaled setup, which the lobby filled: a placeholder
        name (:func:`table.common.names.is_unnamed`) leaves its player unnamed (and named
        in the language in force again); a station this table lacks, a name the one rule
        for names refuses, or a colour that is not one, or is another's, is left out."""
        s = self.settings
        seats = [st for st in setup.stations if 0 <= st < self.stations]
        s.joined = sorted(set(seats))
        s.names = {}
        for st, name in zip(setup.stations, setup.names, strict=False):
            if st in seats and name_problem(name) is None and not is_unnamed(name):
                s.names[st] = name.strip()
        options = setup.options if isinstance(setup.options, Mapping) else {}
        chosen = options.get("colours")
        colours: dict[int, int] = {}
        if isinstance(chosen, list) and len(chosen) == len(setup.stations):
            for st, c in zip(setup.stations, chosen, strict=True):
                if (st in seats and isinstance(c, int) and not isinstance(c, bool)
                        and 0 <= c < len(self.theme.colours) and c not in colours.values()):
                    colours[st] = c
        # Everyone else keeps their own colour if it is free, else takes the first free one.
        for st in range(self.stations):
            if st not in colours:
                free = [c for c in range(len(self.theme.colours)) if c not in colours.values()] or [st]
                colours[st] = st if st in free else free[0]
        s.colours = colours
        if setup.game in self.games and setup.variant in registry()[setup.game].variants:
            s.game, s.variant = setup.game, setup.variant
            s.choices = {}
            for option in player_options(setup.game):
                values = options.get(option.option)
                if isinstance(values, list) and len(values) == len(setup.stations):
                    s.choices[option.option] = {st: v for st, v in zip(setup.stations, values, strict=True)
                                                if st in seats and isinstance(v, int) and v in option.values}
        self.entries.clear()
        self._parts = None

    def _entry(self, station: int) -> NameEntry:
        """A new name entry for ``station``, at its name so far."""
        entry = NameEntry(self.venue_names)
        now = self.settings.names.get(station, "")
        if now in self.venue_names:
            entry.at = self.venue_names.index(now)
        elif len(now) == INITIALS and all(c in LETTERS for c in now):
            entry.letters = [LETTERS.index(c) for c in now]
            entry.at = len(self.venue_names)
        return entry

    def _start(self) -> None:
        s = self.settings
        engine = registry()[s.game]
        if not engine.min_stations <= len(s.joined) <= engine.max_stations:
            self.message = _("{game} needs {low} to {high} players: press your button to join").format(
                game=engine.title, low=engine.min_stations, high=engine.max_stations)
            return
        options: dict[str, JSONValue] = dict(self.game_options.get(s.game, {}))
        for option in player_options(s.game):
            options[option.option] = [s.choice(option, st) for st in s.joined]
        options["colours"] = [s.colours.get(st, st) for st in s.joined]
        known = engine.option_names
        if known is not None and "language" in known and s.game not in self.pinned_language:
            # A game whose data depends on the language (a deck of questions) plays the one chosen now.
            options["language"] = language()
        names = tuple(s.name(st) for st in s.joined)
        self.starting = True
        self.control.start_game(GameSetup(game=s.game, variant=s.variant, stations=tuple(s.joined),
                                          names=names, options=options))

    def frame_key(self, now: float) -> Hashable:
        s = self.settings
        choices = tuple(sorted((o, tuple(sorted(v.items()))) for o, v in s.choices.items()))
        entries = tuple(sorted((st, e.key()) for st, e in self.entries.items()))
        return (s.game, s.variant, tuple(s.joined), choices, tuple(sorted(s.colours.items())),
                tuple(sorted(s.names.items())), entries, self.cursor, self.message, language(), self.starting,
                self.notice, self.notice_open)

    def parts(self, size: tuple[int, int], now: float) -> list[Part]:
        key = (size, self.frame_key(now))
        if self._parts is None or self._parts[0] != key:
            self._parts = (key, self._make_parts(size))
        return self._parts[1]

    def _more_mark(self, x: int, y: int, row_h: int, up: bool) -> Part:
        """A small triangle beside a column's first (``up``) or last shown line, where
        more lines are hidden above or below it; ``x`` is its left edge."""
        theme = self.theme
        rect = pygame.Rect(x, y + row_h // 2 - theme.px(1), theme.px(2), theme.px(2))

        def paint(surface: pygame.Surface, t: float) -> None:
            tip, base = (rect.top, rect.bottom) if up else (rect.bottom, rect.top)
            pygame.draw.polygon(surface, TEXT_DIM, [(rect.centerx, tip), (rect.left, base), (rect.right - 1, base)])

        return Part(f"lobby:more-{'up' if up else 'down'}-{x}", rect, None, paint, base=True)

    def _entry_text(self, entry: NameEntry) -> str:
        """A name entry as its station's panel shows it: the choice, or the letters with
        the one under the knob in brackets."""
        if not entry.spelling:
            return (self.venue_names[entry.at] if entry.at < len(self.venue_names)
                    else _("spell your initials"))
        return " ".join(f"[{LETTERS[c]}]" if i == entry.letter else (LETTERS[c] if i < entry.letter else "_")
                        for i, c in enumerate(entry.letters))

    def _make_parts(self, size: tuple[int, int]) -> list[Part]:
        theme = self.theme
        w, h = size
        s = self.settings
        title_at = (w / 2, theme.px(7))
        title = _("The game table")
        out = [
            Part("lobby:background", whole(size), None, lambda surface, t: fill(surface, BACKGROUND), base=True),
            Part("lobby:title", draw.label_rect(theme, title, title_at, "title", ACCENT, "center",
                                                bold=True), title,
                 lambda surface, t: draw.label(surface, theme, title, title_at, "title", ACCENT,
                                               "center", bold=True), base=True),
        ]
        lines = self._lines()
        options = self._options()
        na = _("not for this game")
        values: dict[str, str] = {
            **{f"game:{g}": "" for g in self.games},
            self.HOW_TO_PLAY: "",
            "variant": variant_name(s.game, s.variant),
            **{line: _(o.hint) if line in options else na for line, o in self._every_option.items()},
            "colour": _("push your knob to change your own colour"),
            "name": _("push your knob to enter your own name"),
            "language": LANGUAGE_NAMES[language()],
            "start": _("Starting…") if self.starting else _("push to start"),
        }
        labels = {**{f"game:{g}": _game_title(g) for g in self.games}, self.HOW_TO_PLAY: _("How to play"),
                  "variant": _("Variant"),
                  **{line: _(o.label) for line, o in self._every_option.items()},
                  "colour": _("Your colour"), "name": _("Your name"), "language": _("Language"),
                  "start": _("Start the game")}
        # The games as a list on the left with "How to play" under them, the other lines
        # on the right: both end above the station panels at 72 units.
        top = theme.px(15)
        row_h = theme.px(8)
        pitch = row_h + theme.px(1)
        box_w = min(w - theme.px(8), theme.px(168))
        left_w = box_w * 9 // 25
        right_w = box_w - left_w - theme.px(2)
        x0 = (w - box_w) // 2
        left = [line for line in lines if line.startswith("game:") or line == self.HOW_TO_PLAY]
        cursor = min(self.cursor, len(lines) - 1)
        # A column with more lines than fit (more games installed, or more players'
        # options) shows as many as fit, the knob's line always among them (the chosen
        # game's when the knob is in the other column), with a mark where lines are hidden.
        fit = max(1, (theme.px(71) - top + theme.px(1)) // pitch)
        columns = ((0, len(left), x0, left_w, -1), (len(left), len(lines), x0 + left_w + theme.px(2), right_w, 1))
        shown: dict[int, pygame.Rect] = {}
        for begin, end, cx, cw, side in columns:
            if begin <= cursor < end:
                anchor = cursor - begin
            else:
                anchor = lines.index(f"game:{s.game}") - begin if side < 0 and f"game:{s.game}" in lines else 0
            start = max(0, min(anchor - fit + 1, end - begin - fit)) if end - begin > fit else 0
            for i in range(begin + start, min(end, begin + start + fit)):
                shown[i] = pygame.Rect(cx, top + (i - begin - start) * pitch, cw, row_h)
            marks = ((start > 0, top, True), (begin + start + fit < end, top + (fit - 1) * pitch, False))
            for hidden, y, up in marks:
                if hidden:
                    out.append(self._more_mark(cx - theme.px(2.5) if side < 0 else cx + cw + theme.px(0.5),
                                               y, row_h, up))
        for i, line in enumerate(lines):
            if i not in shown:
                continue
            rect = shown[i]
            selected = i == cursor
            chosen = line == f"game:{s.game}"
            dim = values[line] == na

            def row(surface: pygame.Surface, t: float, rect: pygame.Rect = rect, selected: bool = selected,
                    line: str = line, chosen: bool = chosen, dim: bool = dim) -> None:
                draw.panel(surface, rect, PANEL_LIGHT if selected or chosen else PANEL, theme.px(1.2),
                           ACCENT if selected else (GOOD if chosen else None), theme.px(0.5))
                game = line.startswith("game:") or line == self.HOW_TO_PLAY
                # The right column's values (hints) take three fifths of its width.
                width = rect.width - theme.px(10) if game else rect.width * 2 // 5 - theme.px(4)
                draw.label(surface, theme, labels[line], (rect.left + theme.px(3), rect.centery), "large",
                           ACCENT if selected else (TEXT_DIM if dim else TEXT), "midleft", bold=True,
                           max_width=width, box=rect)
                if chosen:
                    # The chosen game: a dot on the right (the fonts lack a check mark).
                    pygame.draw.circle(surface, GOOD, (rect.right - theme.px(4), rect.centery), theme.px(1.6))
                elif line == self.HOW_TO_PLAY:
                    # A question mark in a ring: the card of the game with the dot.
                    centre = (rect.right - theme.px(4), rect.centery)
                    pygame.draw.circle(surface, ACCENT if selected else TEXT_DIM, centre, theme.px(2.2),
                                       max(1, theme.px(0.4)))
                    draw.label(surface, theme, "?", centre, "body", ACCENT if selected else TEXT_DIM, "center",
                               bold=True, box=rect)
                if values[line]:
                    draw.label(surface, theme, values[line], (rect.right - theme.px(3), rect.centery),
                               "large" if line in ("variant", "language") or game else "body",
                               GOOD if game else (TEXT if selected else TEXT_DIM), "midright",
                               max_width=theme.px(6) if game else rect.width * 3 // 5 - theme.px(4), box=rect)

            out.append(Part(f"lobby:line{i}", rect, (line, labels[line], values[line], selected, chosen), row,
                            base=True))
        # One panel per station: joined or not, name, level, colour.
        n = self.stations
        gap = theme.px(1.5)
        pw = (w - gap * (n + 1)) // n
        y = theme.px(72)
        for st in range(n):
            rect = pygame.Rect(gap + st * (pw + gap), y, pw, theme.px(18))
            colour = theme.station_colour(s.colours.get(st, st))
            joined = st in s.joined
            name = s.name(st)
            entry = self.entries.get(st)
            if entry is not None:
                detail = _("Your name: {name}").format(name=self._entry_text(entry))
                hint = (_("turn: letter · push: next") if entry.spelling else _("turn: choose · push: take"))
            else:
                detail = ((" · ".join(_(o.detail).format(value=s.choice(o, st)) for o in options.values())
                           or _("playing")) if joined else "")
                hint = _("press button to leave") if joined else _("press button to join")
            # The name the game, the journal and the venue will give the player: the seat
            # alone until a name is entered (never the colour: the panel shows that).
            heading = (unnamed(st) if name == unnamed(st)
                       else _("Station {number} · {name}").format(number=st + 1, name=name))

            def station(surface: pygame.Surface, t: float, rect: pygame.Rect = rect, colour: Colour = colour,
                        joined: bool = joined, st: int = st, detail: str = detail,
                        hint: str = hint, heading: str = heading, editing: bool = entry is not None) -> None:
                draw.panel(surface, rect, PANEL_LIGHT if joined else PANEL, theme.px(1.2), colour,
                           theme.px(0.6) if joined else theme.px(0.2))
                room = pw - theme.px(4)
                # The panel's three lines at one size: a long one shrinks them all alike.
                fit = draw.one_size(theme, rect, [(heading, "body", True, room), (detail, "body", editing, room),
                                                  (hint, "body", False, room)])
                draw.label(surface, theme, heading,
                           (rect.left + theme.px(2), rect.top + theme.px(2)), "body", colour, bold=True,
                           max_width=room, box=rect, fit=fit)
                if detail:
                    draw.label(surface, theme, detail, (rect.left + theme.px(2), rect.top + theme.px(8)),
                               "body", ACCENT if editing else GOOD, bold=editing, max_width=room, box=rect,
                               fit=fit)
                draw.label(surface, theme, hint, (rect.left + theme.px(2), rect.bottom - theme.px(2)), "body",
                           TEXT if joined else ACCENT, "bottomleft", max_width=room, box=rect, fit=fit)

            out.append(Part(f"lobby:station{st}", rect, (colour, joined, heading, detail, hint), station, base=True))
        footer = self.message or _("Turn any knob: choose a line · Push: change it · Button: join or leave")
        footer_colour = ACCENT if self.message else TEXT_DIM
        if self.notice is not None and self.notice.problems and not self.message:
            first = self.notice.problems[0]
            # Long enough to name the file and what is wrong at the footer's size.
            first = first if len(first) <= FOOTER_PROBLEM else first[:FOOTER_PROBLEM - 1].rstrip() + "…"
            footer = _("Settings not taken: {problem}").format(problem=first)
            footer_colour = BAD
        at = (w / 2, h - theme.px(4))
        out.append(Part("lobby:footer",
                        draw.label_rect(theme, footer, at, "body", footer_colour, "center",
                                        max_width=w - theme.px(6)), (footer, footer_colour),
                        lambda surface, t: draw.label(surface, theme, footer, at, "body", footer_colour, "center",
                                                      max_width=w - theme.px(6)), base=True))
        if self.starting:  # over everything, the footer too
            # The starting push answered big, readable across the room, until the game shows.
            box = draw.dialog_box(size, theme, 120, 24)
            starting = _("{game} starts…").format(game=_game_title(s.game))

            def banner(surface: pygame.Surface, t: float, box: pygame.Rect = box, words: str = starting) -> None:
                draw.panel(surface, box, PANEL, theme.px(2), ACCENT, theme.px(0.8))
                draw.label(surface, theme, words, box.center, "title", ACCENT, "center", bold=True,
                           max_width=box.width - theme.px(8), box=box)

            # The lobby darkened under it: its lines no longer take a push.
            out.append(Part("lobby:starting-veil", whole(size), None,
                            lambda surface, t: draw.veil(surface, surface.get_rect(), 200), base=True))
            out.append(Part("lobby:starting", box, starting, banner, base=True))
        elif self.notice is not None and self.notice_open:
            out += _notice_parts(theme, size, self.notice)
        return out


class HowToPlayScreen(Screen):
    """``game``'s how-to-play card over the whole screen (:mod:`table.display.howto`),
    opened from the lobby; a push or a press from any station goes back to the lobby
    (a turn does nothing: the card is read, not browsed)."""

    def __init__(self, control: TableControl, theme: Theme, game: str) -> None:
        self.control = control
        self.theme = theme
        self.game = game

    def handle(self, action: Action) -> None:
        if action.kind in ("push", "press"):
            self.control.pop_screen()

    def parts(self, size: tuple[int, int], now: float) -> list[Part]:
        from table.display import howto  # with the first card, not with the lobby

        theme = self.theme
        note = _("Push or press: back to the menu")
        # In the band above the card, where the attract loop writes its title.
        at = (size[0] / 2, theme.px(7))
        where = draw.label_rect(theme, note, at, "large", TEXT_DIM, "center", max_width=size[0] - theme.px(8))
        return [*howto.card_parts(self.game, theme, size),
                Part("howto:back", where, (note, size),
                     lambda s, t: draw.label(s, theme, note, at, "large", TEXT_DIM, "center",
                                             max_width=size[0] - theme.px(8)))]


def player_theme(theme: Theme, session: Session) -> Theme:
    """``theme`` with each playing station's colour replaced by the one chosen in the lobby
    (the game's ``colours`` option, one colour index per playing station), so that every
    renderer names a player in the colour the lobby gave them."""
    chosen = session.setup.options.get("colours") if isinstance(session.setup.options, dict) else None
    if not isinstance(chosen, list) or len(chosen) != len(session.setup.stations):
        return theme
    size = max(len(theme.colours), *(s + 1 for s in session.setup.stations))
    colours = [theme.colours[k % len(theme.colours)] for k in range(size)]
    for station, c in zip(session.setup.stations, chosen, strict=True):
        if isinstance(c, int):
            colours[station] = theme.colours[c % len(theme.colours)]
    return replace(theme, colours=tuple(colours))


class GameScreen(Screen):
    """A game in progress: station inputs go to the session; the game's renderer draws.

    Once the game is over (by its rules or from the table menu) the screen shows the
    final ranking (:mod:`table.display.final`) instead of the game's picture; the first
    press or push after it has stood :data:`table.display.final.HOLD_S` returns to the lobby. With
    ``celebrations`` on, a first press, a round's winner and the game's end get a short
    moment (:mod:`table.display.moments`) over the picture.
    """

    def __init__(self, control: TableControl, theme: Theme, celebrations: bool = True) -> None:
        self.control = control
        self.theme = theme
        self.celebrations = celebrations
        self.over_since: float | None = None
        self.moments: list[moments.Moment] = []
        self._followed: tuple[int, int, bool] | None = None  # (session id, events seen, over)
        self._memo: tuple[object, object, list[Part]] | None = None

    def handle(self, action: Action) -> None:
        session = self.control.session
        if session is None:
            return
        if action.kind == LONG_PUSH:
            menu = TableMenuScreen(self.control, self.theme, self)
            self.control.push_screen(menu)
            menu.open(action.t)
            return
        if session.is_over():
            # The first press or push once the ranking has stood a moment goes to the menu.
            if action.kind in ("press", "push") and self._ready(action.t):
                self.control.leave_game()
            return
        self.control.game_input(action)

    def update(self, now: float) -> None:
        session = self.control.session
        if session is None:
            return
        if session.is_over() and self.over_since is None:
            self.over_since = now
        self._follow(session, now)

    def _ready(self, now: float) -> bool:
        """Whether the final ranking has stood long enough for a press to leave it."""
        from table.display import final

        return self.over_since is not None and now - self.over_since >= final.HOLD_S

    def notify(self, text: str, now: float) -> None:
        """Say for a few seconds what a table-menu choice did (shown with or without
        celebrations: it is information, not decoration)."""
        from table.display import moments

        self.moments = [m for m in self.moments if m.kind != "notice"] + [moments.notice(text, now)]

    def _follow(self, session: Session, now: float) -> None:
        """Start the moments that the game's new events (and its end) call for."""
        from table.display import moments

        events = session.state.events
        followed = self._followed
        if followed is None or followed[0] != id(session):
            # A game resumed or started: celebrate only what happens from now on.
            followed = (id(session), len(events), session.is_over())
        seen = min(followed[1], len(events))  # undo may have rewound the events
        over = followed[2]
        theme = player_theme(self.theme, session)
        if self.celebrations:
            renderer = renderer_of(session.engine.name)
            for event in events[seen:]:
                if event.station is None:
                    continue
                moment = moments.moment_for(renderer, event, session.setup.name_of(event.station),
                                            theme.station_colour(event.station), now)
                if moment is not None:
                    self.moments = [m for m in self.moments if m.kind == "final"] + [moment]
        if session.is_over() and not over:
            outcome = session.outcome()
            won = outcome.winners if outcome else ()
            winners = [(session.setup.name_of(s), theme.station_colour(s)) for s in won]
            # A game ended early from the menu has no winner, so nothing to celebrate.
            if self.celebrations and not session.ended_early:
                self.moments = [moments.final_moment(winners, now)]
        self._followed = (id(session), len(events), session.is_over())
        self.moments = [m for m in self.moments if now < m.start + m.duration]

    def _render_now(self, now: float) -> float:
        session = self.control.session
        if session is None:
            return now
        # Game time for the renderer (the engine's clock); frozen while paused.
        t = session.paused_since if session.paused_since is not None else self.control.game_time(now)
        return session.game_time(t)

    def parts(self, size: tuple[int, int], now: float) -> list[Part]:
        from table.display import final, moments

        session = self.control.session
        if session is None:
            return [Part("game:empty", whole(size), None, lambda s, t: fill(s, BACKGROUND), base=True)]
        memo = self._memo
        ready = self._ready(now)
        shape = (session.paused, session.ended, size, language(), tuple(self.moments), ready)
        if memo is not None and memo[0] is session.state and memo[1] == shape:
            return memo[2]
        renderer = renderer_of(session.engine.name)
        theme = player_theme(self.theme, session)
        if session.is_over():
            lit_at = None if ready or self.over_since is None else self.over_since + final.HOLD_S
            parts = final.final_parts(session, theme, size, lit_at)
        elif renderer is None:
            message = _("{game}: no screen for this game").format(game=session.engine.title)

            def missing(surface: pygame.Surface, t: float) -> None:
                surface.fill(BACKGROUND)
                draw.label(surface, theme, message, (size[0] / 2, size[1] / 2), "title", TEXT, "center")

            parts = [Part("game:missing", whole(size), message, missing, base=True)]
        else:
            parts = retimed(renderer_parts(renderer, session.view(None), theme, session.paused), self._render_now)
        view = table_view(session.view(None))
        sand = view.get("sand")
        deadline = view.get("deadline")
        if (self.celebrations and not session.is_over() and isinstance(sand, dict) and sand.get("started") is not None
                and isinstance(deadline, (int, float)) and view.get("phase") != COUNTDOWN):
            parts += moments.tension_parts(size, theme, float(deadline), self._render_now)
        for i, moment in enumerate(self.moments):
            parts += moments.parts(moment, size, theme, i, renderer)
        self._memo = (session.state, shape, parts)
        return parts


MENU_ITEMS = (
    ("continue", N_("Continue")),
    ("pause", N_("Pause the game")),
    ("undo", N_("Undo the last action")),
    ("skip", N_("Skip this round")),
    ("end", N_("End the game")),
)
NEEDS_CONFIRMATION = {"undo", "skip", "end"}
UNDONE_WORDS = {"press": N_("{name}'s button press"), "push": N_("{name}'s knob push"),
                "turn": N_("{name}'s knob turn")}
"""What the notice after an undo calls the input taken back, by its kind (any game's)."""


def undone_words(session: Session) -> str:
    """The input an undo takes back, in words ("Ada's button press"): the session's last
    input that changed the game (the ticks after it go with it)."""
    last = next((a for a in reversed(session.history) if a.kind != TICK), None)
    setup = session.setup
    if last is None or last.station is None or last.station not in setup.stations:
        return _("the last move")
    name = setup.name_of(last.station)
    return _(UNDONE_WORDS.get(last.kind, N_("{name}'s last move"))).format(name=name)


class TableMenuScreen(Screen):
    """The long-push table menu. Opening it pauses the game; every choice is journaled.

    Turn to choose, push to take; undo, skip and end ask for a second push to confirm.
    "Pause the game" closes the menu but leaves the game paused until a push.
    """

    overlay = True

    def __init__(self, control: TableControl, theme: Theme, game: GameScreen | None = None) -> None:
        self.control = control
        self.theme = theme
        self.game = game
        self.cursor = 0
        self.confirming: str | None = None
        self.was_paused = bool(control.session and control.session.paused)
        self.opened_at: float | None = None

    def handle(self, action: Action) -> None:
        session = self.control.session
        if session is None:
            self.control.pop_screen()
            return
        if action.kind == "turn":
            self.cursor = knob_choice(self.cursor, action, len(MENU_ITEMS))
            self.confirming = None
            return
        if action.kind not in ("push", "press"):
            return
        key = MENU_ITEMS[self.cursor][0]
        if key in NEEDS_CONFIRMATION and self.confirming != key:
            self.confirming = key
            return
        self.control.pop_screen()
        t = action.t
        if session.is_over():
            # A finished game has nothing to pause, undo or skip: its ranking stays.
            self._say(_("Back to the final ranking") if key == "continue" else _("The game is already over"), t)
            return
        if key == "continue":
            self.control.game_input(Action(RESUME, t))
            self._say(_("The game goes on"), t)
        elif key == "pause":
            self.control.push_screen(PausedScreen(self.control, self.theme, self.game))
        elif key == "undo":
            what = undone_words(session)
            undone = self.control.game_input(Action(UNDO, t))
            self.control.game_input(Action(RESUME, t))
            self._say(_("Taken back: {what}").format(what=what) if undone else _("Nothing to undo yet"), t)
        elif key == "skip":
            self.control.game_input(Action(RESUME, t))
            skipped = self.control.game_input(Action("skip_round", t))
            self._say(_("Round skipped") if skipped else _("Nothing to skip here: the game goes on"), t)
        elif key == "end":
            self.control.game_input(Action(END, t))

    def _say(self, text: str, t: float) -> None:
        if self.game is not None:
            self.game.notify(text, t)

    def open(self, t: float) -> None:
        """Pause the game as the menu opens (the table loop calls this on push)."""
        session = self.control.session
        self.opened_at = t
        if session is not None and not session.paused and not session.is_over():
            self.control.game_input(Action(PAUSE, t))

    def parts(self, size: tuple[int, int], now: float) -> list[Part]:
        theme = self.theme
        box = draw.dialog_box(size, theme, 110, 80)
        out = [
            Part("menu:veil", whole(size), 200, lambda s, t: draw.veil(s, s.get_rect(), 200)),
            Part("menu:box", box, language(), lambda s, t: self._box(s, box)),
        ]
        # One part per line: turning the knob repaints the two lines it moved between.
        for i, (key, _label) in enumerate(MENU_ITEMS):
            row = self._row_rect(box, i)
            state = (i == self.cursor, self.confirming == key, language())

            def paint_line(s: pygame.Surface, t: float, i: int = i, row: pygame.Rect = row) -> None:
                self._line(s, row, i)

            out.append(Part(f"menu:line{i}", row, state, paint_line))
        return out

    def _row_rect(self, box: pygame.Rect, i: int) -> pygame.Rect:
        theme = self.theme
        y = box.top + theme.px(16) + i * theme.px(10)
        return pygame.Rect(box.left + theme.px(4), y, box.width - theme.px(8), theme.px(8.5))

    def _box(self, surface: pygame.Surface, box: pygame.Rect) -> None:
        theme = self.theme
        draw.panel(surface, box, PANEL, theme.px(2), ACCENT, theme.px(0.5))
        draw.label(surface, theme, _("Table menu · game paused"), (box.centerx, box.top + theme.px(7)), "large",
                   ACCENT, "center", bold=True, max_width=box.width - theme.px(6), box=box)
        draw.label(surface, theme, _("Turn: choose · Push: take"), (box.centerx, box.bottom - theme.px(3)), "small",
                   TEXT_DIM, "midbottom", max_width=box.width - theme.px(6), box=box)

    def _line(self, surface: pygame.Surface, row: pygame.Rect, i: int) -> None:
        theme = self.theme
        key, text_ = MENU_ITEMS[i]
        selected = i == self.cursor
        if selected:
            draw.panel(surface, row, PANEL_LIGHT, theme.px(1))
        label = _(text_)
        if self.confirming == key:
            label = _("{choice}? Push again to confirm").format(choice=label)
        draw.label(surface, theme, label, (row.left + theme.px(3), row.centery), "large",
                   ACCENT if selected else TEXT, "midleft", bold=selected, max_width=row.width - theme.px(6), box=row)


class PausedScreen(Screen):
    """The game stays paused until any station pushes its knob or presses its button; a
    long push opens the table menu again.

    A box in the middle says so (it covers the game's own middle, so nothing written
    there shows through under it)."""

    overlay = True

    def __init__(self, control: TableControl, theme: Theme, game: GameScreen | None = None) -> None:
        self.control = control
        self.theme = theme
        self.game = game

    def handle(self, action: Action) -> None:
        if action.kind == LONG_PUSH:
            # The table menu again, the game still paused: any of its choices from here.
            self.control.pop_screen()
            menu = TableMenuScreen(self.control, self.theme, self.game)
            self.control.push_screen(menu)
            menu.open(action.t)
            return
        if action.kind in ("push", "press"):
            self.control.pop_screen()
            self.control.game_input(Action(RESUME, action.t))
            if self.game is not None:
                self.game.notify(_("The game goes on"), action.t)

    def parts(self, size: tuple[int, int], now: float) -> list[Part]:
        theme = self.theme
        box = draw.dialog_box(size, theme, 100, 30)

        def paint(s: pygame.Surface, t: float) -> None:
            draw.panel(s, box, PANEL, theme.px(2), ACCENT, theme.px(0.5))
            draw.label(s, theme, _("Game paused"), (box.centerx, box.top + theme.px(10)), "title", ACCENT, "center",
                       bold=True, max_width=box.width - theme.px(6), box=box)
            draw.label(s, theme, _("Push any knob or press a button to continue"),
                       (box.centerx, box.bottom - theme.px(8)), "large", TEXT, "center",
                       max_width=box.width - theme.px(6), box=box)

        return [Part("paused:veil", whole(size), 200, lambda s, t: draw.veil(s, s.get_rect(), 200)),
                Part("paused:box", box, language(), paint)]


class AttractScreen(Screen):
    """The self-playing demo shown when nobody has touched the table for a while.

    It plays random legal games of each registered engine at three times real speed,
    each game's end shown as its final ranking and each next game's how-to-play card
    (:mod:`table.display.howto`) shown for :attr:`CARD_S` before its demo; nothing is
    journaled. Any input returns to the lobby.
    """

    CARD_S = 8.0
    """Seconds (the clock's, not the demo's) a how-to-play card stands between two demos."""

    SPEED = 3.0
    """How much faster than a real game the demo plays: brisk enough to show a round in
    seconds, while its state changes (each a repaint of part of the screen) stay few: at
    four times the unattended kiosk spent a fifth more on them."""
    sweeps = False
    """Nobody waits on the demo's frames, and its many large changes (a round every few
    seconds at three times speed) would each cost more in bands than at once (measured: 13%
    more CPU over 40 s): an unattended kiosk's share of a core matters more here."""

    def __init__(self, control: TableControl, theme: Theme, started: float, seed: int = 0,
                 games: Sequence[str] | None = None) -> None:
        self.control = control
        self.theme = theme
        self.rng = random.Random(seed)
        self.games = list(games or registry())
        self.index = 0
        self.started = started
        self.demo: Session | None = None
        self.card: tuple[str, float] | None = None
        """The game whose card shows now, and the demo time it came."""
        self.rounds_played = 0
        self._memo: tuple[object, tuple[tuple[int, int], str], list[Part]] | None = None
        self._pending: Action | None = None
        """The demo's next input, drawn ahead: the loop sleeps until its time."""
        self._animated = True
        """Whether the picture shown moves by itself (the sand, flying gems), besides the title."""
        self._new_demo(0.0)

    def _new_demo(self, t: float) -> None:
        give_back()  # what the last demo's pictures made and dropped (a map's first layers, say)
        name = self.games[self.index % len(self.games)]
        self.index += 1
        engine = registry()[name]
        n = max(engine.min_stations, min(engine.max_stations, 4))
        setup = GameSetup(game=name, variant=engine.variants[0], stations=tuple(range(n)),
                          names=tuple(f"Demo {i + 1}" for i in range(n)))
        self.demo = Session.start(name, setup, self.rng.randrange(1 << 30))
        self.demo.last_t = t
        self.last_round = 1
        self._pending = None

    def handle(self, action: Action) -> None:
        self.control.pop_screen()

    FPS = 15
    """Frames a second of the demo's motion while it moves (sand, flying gems): a demo
    behind a "press any button" band needs no more, a quarter of the games' 60 keeps an
    unattended kiosk near idle. The LED hourglass's idle glow waits for a frame that
    comes within 50 ms of its step (at this rate, every one does), so one wake serves
    both (measured on the dearest demo: 1.73% of a core at 20, 1.57% at 15)."""

    def demo_time(self, now: float) -> float:
        return (now - self.started) * self.SPEED

    def shown_time(self, now: float) -> float:
        """The demo time the picture shows at clock time ``now``: it steps ``FPS`` times a
        second, so the frames in between find nothing changed and draw nothing."""
        return self.demo_time(self.picture_step(now) / self.FPS)

    STEP_SLACK = 1e-6
    """Fraction of a picture step by which a clock time may fall short of the step and
    still count as it: a step's own time, k / FPS, can multiply back to just under k
    (3845 / 15 * 15 < 3845), and without it a wake at that time would show step k - 1,
    and a look ahead along the steps would miss what step k shows."""

    def picture_step(self, now: float) -> int:
        """The picture step that clock time ``now`` shows (step k starts at k / FPS): the
        loop draws when this reaches the step of :meth:`next_frame`'s time, not by
        comparing the times, which a clock a hair short of k / FPS would get wrong."""
        return math.floor(now * self.FPS + self.STEP_SLACK)

    def next_frame(self, now: float) -> float:
        """Clock time of the demo's next picture step after ``now`` that can show something
        new: the next step while the picture moves by itself, else the step of the next
        thing to happen (the demo's next input, the title's next shade, a card's end), so
        that the loop sleeps through the steps in between."""
        step = (self.picture_step(now) + 1) / self.FPS
        demo = self.demo
        if self._animated or demo is None:
            return step
        if self.card is not None:
            due = self.card[1] + self.CARD_S * self.SPEED
        elif demo.is_over():
            due = demo.last_t + 8.0
        elif self._pending is not None:
            due = self._pending.t
        else:
            return step
        # The picture shows demo time d at the first step whose demo time reaches it.
        at = max(step, math.ceil((self.started + due / self.SPEED) * self.FPS - self.STEP_SLACK) / self.FPS)
        return min(at, self._next_shade(now, at))

    def _next_shade(self, now: float, until: float) -> float:
        """The first picture step after ``now`` (and before ``until``) whose title shade
        differs from the one shown at ``now``."""
        index = self.picture_step(now)
        shown = self._pulse(self.shown_time(now) / self.SPEED)
        while True:
            index += 1
            step = index / self.FPS
            if step >= until:
                return until
            if self._pulse(self.shown_time(step) / self.SPEED) != shown:
                return step

    def update(self, now: float) -> None:
        from table.play.autoplay import next_random_action

        demo = self.demo
        assert demo is not None
        t = self.demo_time(now)
        if self.card is not None:
            if t - self.card[1] >= self.CARD_S * self.SPEED:
                self.card = None
                self._new_demo(t)
            return
        for _step in range(200):
            if demo.is_over():
                if t - demo.last_t > 8.0:
                    self.card = (self.games[self.index % len(self.games)], t)
                return
            if self._pending is None:
                self._pending = next_random_action(demo, self.rng, mean_gap=3.0)
            action = self._pending
            if action is None:
                self._new_demo(t)
                return
            if action.t > t:
                return
            self._pending = None
            demo.apply(action)
            if demo.state.round != self.last_round:
                self.rounds_played += 1
                self.last_round = demo.state.round
                give_back()  # a round's pictures (a map's highlights) come and go: an unattended kiosk keeps none

    def parts(self, size: tuple[int, int], now: float) -> list[Part]:
        from table.display import final, howto

        demo = self.demo
        assert demo is not None
        memo = self._memo
        shown = self.card[0] if self.card is not None else demo.state
        if memo is None or memo[0] is not shown or memo[1] != (size, language()):
            renderer = renderer_of(demo.engine.name)
            if self.card is not None:
                parts = howto.card_parts(self.card[0], self.theme, size)
            elif demo.is_over():
                parts = final.final_parts(demo, player_theme(self.theme, demo), size)
            else:
                parts = [] if renderer is None else retimed(renderer_parts(renderer, demo.view(None), self.theme),
                                                            self.shown_time)
            self._animated = any(part.live is not None for part in parts)
            band = pygame.Rect(0, 0, size[0], self.theme.px(11))
            game = registry()[self.card[0]].title if self.card is not None else demo.engine.title
            title = _("Demo: {game} · press any button to play").format(game=game)
            where = draw.label_rect(self.theme, title, band.center, "large", ACCENT, "center", bold=True,
                                    max_width=band.width - self.theme.px(4))
            # An opaque band that takes the game's header line's place (a veil let the header
            # show through, half dimmed, under the title).
            parts.append(Part("attract:band", band, None, lambda s, t: self._band(s, band), opaque=True))
            # Only the title pulses: each frame repaints its own rect, not the whole band.
            parts.append(Part("attract:title", where, title, lambda s, t: self._title(s, band, title, t),
                              live=lambda t: (self._pulse(self.shown_time(t) / self.SPEED), where)))
            self._memo = memo = (shown, (size, language()), parts)
        return memo[2]

    def _band(self, surface: pygame.Surface, band: pygame.Rect) -> None:
        draw.panel(surface, band, PANEL)
        line = self.theme.px(0.5)
        surface.fill(ACCENT, pygame.Rect(band.left, band.bottom - line, band.width, line))

    PULSE_LEVELS = 8
    """Brightness steps of the title's pulse between dim and full. The eye reads eight
    steps over a second as a smooth breath; a new colour on every frame cost a repaint
    of the title sixty times a second, an idle kiosk's largest share of the CPU."""

    @classmethod
    def _pulse(cls, now: float) -> Colour:
        pulse = round((0.5 + 0.5 * math.sin(now * 3)) * cls.PULSE_LEVELS) / cls.PULSE_LEVELS
        r, g, b = ACCENT
        level = 0.6 + 0.4 * pulse
        return int(r * level), int(g * level), int(b * level)

    def _title(self, surface: pygame.Surface, band: pygame.Rect, title: str, now: float) -> None:
        draw.label(surface, self.theme, title, band.center, "large",
                   self._pulse(self.shown_time(now) / self.SPEED), "center",
                   bold=True, max_width=band.width - self.theme.px(4), box=band)


class LeaveKioskScreen(Screen):
    """Asks whether to leave the kiosk after the first and last stations held their knobs.

    Inputs never reach it: while it shows, the table loop hands every input to the
    leave gesture, which confirms (both buttons) or cancels (anything else, or time).
    """

    overlay = True

    def __init__(self, theme: Theme, first: int, last: int) -> None:
        self.theme = theme
        self.first = first
        self.last = last

    def parts(self, size: tuple[int, int], now: float) -> list[Part]:
        box = draw.dialog_box(size, self.theme, 130, 40)
        return [
            Part("leave:veil", whole(size), 200, lambda s, t: draw.veil(s, s.get_rect(), 200)),
            Part("leave:box", box, (self.first, self.last, language()), lambda s, t: self._box(s, box)),
        ]

    def _box(self, surface: pygame.Surface, box: pygame.Rect) -> None:
        theme = self.theme
        draw.panel(surface, box, PANEL, theme.px(2), ACCENT, theme.px(0.5))
        draw.label(surface, theme, _("Leave the kiosk?"), (box.centerx, box.top + theme.px(9)), "title", ACCENT,
                   "center", bold=True, max_width=box.width - theme.px(6), box=box)
        draw.label(surface, theme,
                   _("Stations {first} and {last}: press both buttons to leave").format(first=self.first + 1,
                                                                                        last=self.last + 1),
                   (box.centerx, box.top + theme.px(21)), "large", TEXT, "center", max_width=box.width - theme.px(6),
                   box=box)
        draw.label(surface, theme, _("Anything else, or waiting 10 s, goes back to the game"),
                   (box.centerx, box.top + theme.px(31)), "body", TEXT_DIM, "center", max_width=box.width - theme.px(6),
                   box=box)
