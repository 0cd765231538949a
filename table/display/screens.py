"""The screen stack: lobby (menu), game, table menu overlay, attract mode.

Lifecycle of a screen (as in Tuxemon's state machine): the :class:`~table.app.Table`
pushes and pops screens; the top screen receives every logical input through
``handle``; ``update(now)`` advances only the screen's own animation state;
``draw(surface, now)`` paints and changes nothing; ``frame_key(now)`` is a value that
changes whenever the picture would change, so a static screen is not redrawn.

Screens never see pygame key codes or pin numbers: inputs are :class:`Action` objects
(press / turn / push / long_push from a station). What a screen wants the table to
do (start a game, journal a menu choice, leave attract mode) goes through the
``TableControl`` it was given.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pygame

from table.autoplay import next_random_action
from table.display import draw
from table.display.games import RenderContext, renderers
from table.display.theme import ACCENT, BACKGROUND, GOOD, PANEL, PANEL_LIGHT, TEXT, TEXT_DIM, Theme
from table.games import registry
from table.games.base import Action, GameSetup, knob_choice
from table.session import END, PAUSE, RESUME, UNDO, Session

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
    """Base class. Subclasses override ``handle``, ``draw`` and usually ``frame_key``."""

    overlay = False  # an overlay is drawn on top of the screen below it

    def handle(self, action: Action) -> None:
        log.debug("%s ignores %s", type(self).__name__, action)

    def update(self, now: float) -> None:
        return None

    def frame_key(self, now: float) -> Hashable:
        return None

    def draw(self, surface: pygame.Surface, now: float) -> None:
        raise NotImplementedError


def _game_title(name: str) -> str:
    return str(registry()[name].title)


@dataclass
class LobbySettings:
    """What the lobby has chosen so far."""

    game: str
    variant: str
    joined: list[int] = field(default_factory=list)
    levels: dict[int, int] = field(default_factory=dict)
    colours: dict[int, int] = field(default_factory=dict)


class LobbyScreen(Screen):
    """Choose the game, variant, who plays, levels and colours with knobs and buttons.

    Any station's knob moves the shared cursor through the lines; a short push changes
    the line under the cursor (for "your level" and "your colour", the pushing
    station's own setting); a station's button joins or leaves the game.
    """

    LINES = ("game", "variant", "level", "colour", "start")

    def __init__(self, control: TableControl, theme: Theme, stations: int,
                 game_options: dict[str, dict[str, Any]] | None = None) -> None:
        self.control = control
        self.theme = theme
        self.stations = stations
        self.game_options = game_options or {}
        games = list(registry())
        first = "ubongo_shimo" if "ubongo_shimo" in games else games[0]
        self.settings = LobbySettings(first, registry()[first].variants[0],
                                      colours={s: s for s in range(stations)})
        self.cursor = 0
        self.message = ""

    def _lines(self) -> list[str]:
        return [line for line in self.LINES if line != "level" or self.settings.game == "ubongo_shimo"]

    def handle(self, action: Action) -> None:
        if action.station is None or not 0 <= action.station < self.stations:
            return
        s = self.settings
        lines = self._lines()
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
            games = list(registry())
            if line == "game":
                s.game = games[(games.index(s.game) + 1) % len(games)]
                s.variant = registry()[s.game].variants[0]
            elif line == "variant":
                variants = registry()[s.game].variants
                s.variant = variants[(variants.index(s.variant) + 1) % len(variants)]
            elif line == "level":
                s.levels[action.station] = s.levels.get(action.station, 1) % 4 + 1
            elif line == "colour":
                used = {c for st, c in s.colours.items() if st != action.station}
                c = s.colours.get(action.station, action.station)
                for _ in range(len(self.theme.colours)):
                    c = (c + 1) % len(self.theme.colours)
                    if c not in used:
                        break
                s.colours[action.station] = c
            elif line == "start":
                self._start()

    def _start(self) -> None:
        s = self.settings
        engine = registry()[s.game]
        if not engine.min_stations <= len(s.joined) <= engine.max_stations:
            self.message = (f"{engine.title} needs {engine.min_stations} to {engine.max_stations} players: "
                            "press your button to join")
            return
        from table.display.theme import STATION_COLOUR_NAMES

        options: dict[str, Any] = dict(self.game_options.get(s.game, {}))
        if s.game == "ubongo_shimo":
            options["levels"] = [s.levels.get(st, 1) for st in s.joined]
        options["colours"] = [s.colours.get(st, st) for st in s.joined]
        names = tuple(STATION_COLOUR_NAMES[s.colours.get(st, st) % len(STATION_COLOUR_NAMES)].capitalize()
                      for st in s.joined)
        self.control.start_game(GameSetup(game=s.game, variant=s.variant, stations=tuple(s.joined),
                                          names=names, options=options))

    def frame_key(self, now: float) -> Hashable:
        s = self.settings
        return (s.game, s.variant, tuple(s.joined), tuple(sorted(s.levels.items())),
                tuple(sorted(s.colours.items())), self.cursor, self.message)

    def draw(self, surface: pygame.Surface, now: float) -> None:
        theme = self.theme
        w, h = surface.get_size()
        surface.fill(BACKGROUND)
        s = self.settings
        draw.label(surface, theme, "The game table", (w / 2, theme.px(7)), "title", ACCENT, "center", bold=True)
        lines = self._lines()
        values = {
            "game": _game_title(s.game),
            "variant": s.variant,
            "level": "push your knob to change your own level",
            "colour": "push your knob to change your own colour",
            "start": "push to start",
        }
        labels = {"game": "Game", "variant": "Variant", "level": "Your level", "colour": "Your colour",
                  "start": "Start the game"}
        top = theme.px(15)
        row_h = theme.px(9)
        box_w = min(w - theme.px(8), theme.px(140))
        for i, line in enumerate(lines):
            rect = pygame.Rect((w - box_w) // 2, top + i * (row_h + theme.px(1.5)), box_w, row_h)
            selected = i == min(self.cursor, len(lines) - 1)
            draw.panel(surface, rect, PANEL_LIGHT if selected else PANEL, theme.px(1.2),
                       ACCENT if selected else None, theme.px(0.5))
            draw.label(surface, theme, labels[line], (rect.left + theme.px(3), rect.centery), "large",
                       ACCENT if selected else TEXT, "midleft", bold=True)
            draw.label(surface, theme, values[line], (rect.right - theme.px(3), rect.centery),
                       "large" if line in ("game", "variant") else "body", TEXT if selected else TEXT_DIM,
                       "midright", max_width=box_w // 2)
        # One panel per station: joined or not, level, colour.
        n = self.stations
        gap = theme.px(1.5)
        pw = (w - gap * (n + 1)) // n
        y = theme.px(72)
        for st in range(n):
            rect = pygame.Rect(gap + st * (pw + gap), y, pw, theme.px(18))
            colour = theme.station_colour(s.colours.get(st, st))
            joined = st in s.joined
            draw.panel(surface, rect, PANEL_LIGHT if joined else PANEL, theme.px(1.2), colour,
                       theme.px(0.6) if joined else theme.px(0.2))
            from table.display.theme import STATION_COLOUR_NAMES

            name = STATION_COLOUR_NAMES[s.colours.get(st, st) % len(STATION_COLOUR_NAMES)].capitalize()
            draw.label(surface, theme, f"Station {st + 1} · {name}", (rect.left + theme.px(2), rect.top + theme.px(2)),
                       "body", colour, bold=True, max_width=pw - theme.px(4))
            if joined:
                detail = "playing" + (f" · level {s.levels.get(st, 1)}" if s.game == "ubongo_shimo" else "")
                draw.label(surface, theme, detail, (rect.left + theme.px(2), rect.top + theme.px(8)), "body", GOOD)
                hint = "press button to leave"
            else:
                hint = "press button to join"
            draw.label(surface, theme, hint, (rect.left + theme.px(2), rect.bottom - theme.px(2)), "small",
                       TEXT_DIM, "bottomleft")
        footer = self.message or "Turn any knob: choose a line · Push: change it · Button: join or leave"
        draw.label(surface, theme, footer, (w / 2, h - theme.px(4)), "body", ACCENT if self.message else TEXT_DIM,
                   "center", max_width=w - theme.px(6))


class GameScreen(Screen):
    """A game in progress: station inputs go to the session; the game's renderer draws."""

    def __init__(self, control: TableControl, theme: Theme) -> None:
        self.control = control
        self.theme = theme
        self.over_since: float | None = None

    def handle(self, action: Action) -> None:
        session = self.control.session
        if session is None:
            return
        if action.kind == LONG_PUSH:
            menu = TableMenuScreen(self.control, self.theme)
            self.control.push_screen(menu)
            menu.open(action.t)
            return
        if session.is_over():
            if action.kind == "press" and self.over_since is not None and action.t - self.over_since >= 2.0:
                self.control.leave_game()
            return
        self.control.game_input(action)

    def update(self, now: float) -> None:
        session = self.control.session
        if session is not None and session.is_over() and self.over_since is None:
            self.over_since = now

    def _render_now(self, now: float) -> float:
        session = self.control.session
        if session is None:
            return now
        # Game time for the renderer (the engine's clock); frozen while paused.
        t = session.paused_since if session.paused_since is not None else self.control.game_time(now)
        return session.game_time(t)

    def frame_key(self, now: float) -> Hashable:
        session = self.control.session
        if session is None:
            return None
        game_now = self._render_now(now)
        events = session.state.events
        if events and 0 <= game_now - events[-1].t < 1.2 and not session.paused:
            # Just after something happened (gems flying, a flash): animate every frame.
            return (id(session.state), int(game_now * 60))
        # Otherwise whole tenths of a second are enough for timers and the sand.
        return (id(session.state), session.paused, int(game_now * 10))

    def draw(self, surface: pygame.Surface, now: float) -> None:
        session = self.control.session
        if session is None:
            surface.fill(BACKGROUND)
            return
        renderer = renderers().get(session.engine.name)
        view = session.view(None)
        ctx = RenderContext(self.theme, self._render_now(now), session.paused)
        if renderer is None:
            surface.fill(BACKGROUND)
            draw.label(surface, self.theme, f"{session.engine.title}: no screen for this game",
                       (surface.get_width() / 2, surface.get_height() / 2), "title", TEXT, "center")
            return
        renderer.draw(surface, view, ctx)
        if session.is_over():
            draw.label(surface, self.theme, "Press any button for the menu",
                       (surface.get_width() / 2, surface.get_height() - self.theme.px(1)), "small", TEXT_DIM,
                       "midbottom")


MENU_ITEMS = (
    ("continue", "Continue"),
    ("pause", "Pause the game"),
    ("undo", "Undo the last action"),
    ("skip", "Skip this round"),
    ("end", "End the game"),
)
NEEDS_CONFIRMATION = {"undo", "skip", "end"}


class TableMenuScreen(Screen):
    """The long-push table menu. Opening it pauses the game; every choice is journaled.

    Turn to choose, push to take; undo, skip and end ask for a second push to confirm.
    "Pause the game" closes the menu but leaves the game paused until a push.
    """

    overlay = True

    def __init__(self, control: TableControl, theme: Theme) -> None:
        self.control = control
        self.theme = theme
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
        if key == "continue":
            self.control.game_input(Action(RESUME, action.t))
        elif key == "pause":
            self.control.push_screen(PausedScreen(self.control, self.theme))
        elif key == "undo":
            self.control.game_input(Action(UNDO, action.t))
            self.control.game_input(Action(RESUME, action.t))
        elif key == "skip":
            self.control.game_input(Action(RESUME, action.t))
            self.control.game_input(Action("skip_round", action.t))
        elif key == "end":
            self.control.game_input(Action(END, action.t))

    def open(self, t: float) -> None:
        """Pause the game as the menu opens (the table loop calls this on push)."""
        session = self.control.session
        self.opened_at = t
        if session is not None and not session.paused:
            self.control.game_input(Action(PAUSE, t))

    def frame_key(self, now: float) -> Hashable:
        return (self.cursor, self.confirming)

    def draw(self, surface: pygame.Surface, now: float) -> None:
        theme = self.theme
        box = draw.dialog(surface, theme, 110, 80)
        draw.label(surface, theme, "Table menu · game paused", (box.centerx, box.top + theme.px(7)), "large", ACCENT,
                   "center", bold=True)
        for i, (key, text_) in enumerate(MENU_ITEMS):
            y = box.top + theme.px(16) + i * theme.px(10)
            row = pygame.Rect(box.left + theme.px(4), y, box.width - theme.px(8), theme.px(8.5))
            selected = i == self.cursor
            if selected:
                draw.panel(surface, row, PANEL_LIGHT, theme.px(1))
            label = text_
            if self.confirming == key:
                label = f"{text_}? Push again to confirm"
            draw.label(surface, theme, label, (row.left + theme.px(3), row.centery), "large",
                       ACCENT if selected else TEXT, "midleft", bold=selected, max_width=row.width - theme.px(6))
        draw.label(surface, theme, "Turn: choose · Push: take", (box.centerx, box.bottom - theme.px(3)), "small",
                   TEXT_DIM, "midbottom")


class PausedScreen(Screen):
    """The game stays paused until any station pushes its knob or presses its button."""

    overlay = True

    def __init__(self, control: TableControl, theme: Theme) -> None:
        self.control = control
        self.theme = theme

    def handle(self, action: Action) -> None:
        if action.kind in ("push", "press"):
            self.control.pop_screen()
            self.control.game_input(Action(RESUME, action.t))

    def frame_key(self, now: float) -> Hashable:
        return "paused"

    def draw(self, surface: pygame.Surface, now: float) -> None:
        w, h = surface.get_size()
        draw.label(surface, self.theme, "Push any knob to continue", (w / 2, h / 2 + self.theme.px(9)), "large",
                   TEXT, "center")


class AttractScreen(Screen):
    """The self-playing demo shown when nobody has touched the table for a while.

    It plays random legal games of each registered engine at four times real speed;
    nothing is journaled. Any input returns to the lobby.
    """

    SPEED = 4.0

    def __init__(self, control: TableControl, theme: Theme, started: float, seed: int = 0,
                 games: Sequence[str] | None = None) -> None:
        self.control = control
        self.theme = theme
        self.rng = random.Random(seed)
        self.games = list(games or registry())
        self.index = 0
        self.started = started
        self.demo: Session | None = None
        self.rounds_played = 0
        self._new_demo(0.0)

    def _new_demo(self, t: float) -> None:
        name = self.games[self.index % len(self.games)]
        self.index += 1
        engine = registry()[name]
        n = max(engine.min_stations, min(engine.max_stations, 4))
        setup = GameSetup(game=name, variant=engine.variants[0], stations=tuple(range(n)),
                          names=tuple(f"Demo {i + 1}" for i in range(n)))
        self.demo = Session.start(name, setup, self.rng.randrange(1 << 30))
        self.demo.last_t = t
        self.last_round = 1

    def handle(self, action: Action) -> None:
        self.control.pop_screen()

    def demo_time(self, now: float) -> float:
        return (now - self.started) * self.SPEED

    def update(self, now: float) -> None:
        demo = self.demo
        assert demo is not None
        t = self.demo_time(now)
        for _ in range(200):
            if demo.is_over():
                if t - demo.last_t > 8.0:
                    self._new_demo(t)
                return
            action = next_random_action(demo, self.rng, mean_gap=3.0)
            if action is None:
                self._new_demo(t)
                return
            if action.t > t:
                return
            demo.apply(action)
            if demo.state.round != self.last_round:
                self.rounds_played += 1
                self.last_round = demo.state.round

    def frame_key(self, now: float) -> Hashable:
        demo = self.demo
        return (id(demo.state) if demo else None, int(self.demo_time(now) * 10), int(now * 2))

    def draw(self, surface: pygame.Surface, now: float) -> None:
        demo = self.demo
        assert demo is not None
        renderer = renderers().get(demo.engine.name)
        if renderer is not None:
            renderer.draw(surface, demo.view(None), RenderContext(self.theme, self.demo_time(now)))
        w = surface.get_width()
        band = pygame.Rect(0, 0, w, self.theme.px(11))
        veil = pygame.Surface(band.size, pygame.SRCALPHA)
        veil.fill((0, 0, 0, 235))
        surface.blit(veil, band)
        pulse = 0.5 + 0.5 * math.sin(now * 3)
        colour = tuple(int(c * (0.6 + 0.4 * pulse)) for c in ACCENT)
        draw.label(surface, self.theme, f"Demo: {demo.engine.title} · press any button to play", band.center,
                   "large", colour, "center", bold=True)  # type: ignore[arg-type]


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

    def frame_key(self, now: float) -> Hashable:
        return "leave"

    def draw(self, surface: pygame.Surface, now: float) -> None:
        theme = self.theme
        box = draw.dialog(surface, theme, 130, 40, veil_alpha=200)
        draw.label(surface, theme, "Leave the kiosk?", (box.centerx, box.top + theme.px(9)), "title", ACCENT,
                   "center", bold=True)
        draw.label(surface, theme, f"Stations {self.first + 1} and {self.last + 1}: press both buttons to leave",
                   (box.centerx, box.top + theme.px(21)), "large", TEXT, "center", max_width=box.width - theme.px(6))
        draw.label(surface, theme, "Anything else, or waiting 10 s, goes back to the game",
                   (box.centerx, box.top + theme.px(31)), "body", TEXT_DIM, "center", max_width=box.width - theme.px(6))
