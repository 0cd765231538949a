"""Render the table's screens to PNG files headless (for docs/screens and the tests).

Each snapshot is a named moment built from real engine states and the real screens,
so what is saved is exactly what the display would show.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pygame

from table.common.config import DisplayConfig, TableConfig
from table.common.i18n import language
from table.display.final import final_parts
from table.display.games import RenderContext, renderer_of, renderers
from table.display.howto import card_parts
from table.display.layers import paint_all
from table.display.screens import (
    AttractScreen,
    HowToPlayScreen,
    LeaveKioskScreen,
    PausedScreen,
    SettingsNotice,
    TableMenuScreen,
    player_theme,
)
from table.display.theme import Theme, note_cover
from table.games import lobby_games, registry
from table.games.base import Action, GameSetup
from table.loop.app import ScriptedInputs, Table
from table.play.clock import VirtualClock
from table.play.session import Session

Snapshot = Callable[[pygame.Surface], "bool | None"]
"""Paints one picture onto the surface given; False: there is nothing to show (no file)."""

NAMES = ("Ada", "Ben", "Cleo", "Dan")


@dataclass
class HeldKnobs(ScriptedInputs):
    """Scripted inputs that also tell which knobs are held down (the hold ring's pictures)."""

    held: dict[int, float] = field(default_factory=dict)

    def pushes_held(self) -> dict[int, float]:
        return dict(self.held)


def _final_draw(table: Table, now: float) -> None:
    """Draw the table's picture from scratch: only this picture's text counts as drawn
    (for the layout test), not the frames that led to it."""
    note_cover(table.surface.get_rect())
    table.draw(now, force=True)


def game_pictures() -> Iterator[tuple[str, Snapshot]]:
    """Every game's pictures of its own (``GameRenderer.pictures``), game by game."""
    for renderer in renderers().values():
        yield from renderer.pictures()


def shell_moments(stations: int = 4) -> Iterator[tuple[str, Snapshot]]:
    """Lobby, table menu, paused, attract mode, inputs that wait, through the real table loop; the game
    played is the one the lobby offers first."""
    first = lobby_games()[0]

    def table_at(surface: pygame.Surface) -> tuple[Table, VirtualClock, HeldKnobs]:
        clock = VirtualClock(100.0)
        inputs = HeldKnobs()
        # The table takes its language from the config: keep the one the pictures are made in.
        # Celebrations are left out: a still picture shows the screen, not a moment's frame.
        table = Table(TableConfig(stations=stations, language=language(), display=DisplayConfig(celebrations=False)),
                      clock, surface, None, inputs=[inputs], seed_source=lambda: 3)
        return table, clock, inputs

    def go(table: Table, clock: VirtualClock, inputs: ScriptedInputs, actions: list[Action], seconds: float) -> None:
        inputs.add(*(Action(a.kind, clock.now + a.t, a.station, a.value) for a in actions))
        end = clock.now + seconds
        while clock.now < end:
            clock.advance(1 / 30)
            table.step(clock.now)

    def lobby(surface: pygame.Surface) -> None:
        table, clock, inputs = table_at(surface)
        joins = [Action("press", 0.1, 0), Action("press", 0.2, 2)]
        # The first player option's line (a level, say), pushed twice by station 3.
        option = next((i for i, line in enumerate(table.lobby._lines()) if line.startswith("option:")), 0)
        levels = [Action("turn", 0.3, 0, {"delta": option}), Action("push", 0.4, 2), Action("push", 0.5, 2)]
        go(table, clock, inputs, joins + levels, 1.0)
        _final_draw(table, clock.now)

    def lobby_name(surface: pygame.Surface) -> None:
        """Station 1 spelling its initials (two letters in), station 3 done: "ADA"."""
        table, clock, inputs = table_at(surface)
        line = table.lobby._lines().index("name")
        spell = [Action("turn", 0.1, 0, {"delta": line}), Action("push", 0.2, 2),
                 Action("push", 0.3, 2), Action("turn", 0.4, 2, {"delta": 3}), Action("push", 0.5, 2),
                 Action("push", 0.6, 2), Action("press", 0.7, 2),
                 Action("push", 0.8, 0), Action("turn", 0.9, 0, {"delta": 1}), Action("push", 1.0, 0),
                 Action("turn", 1.1, 0, {"delta": -1})]
        go(table, clock, inputs, spell, 1.5)
        _final_draw(table, clock.now)

    def lobby_card(surface: pygame.Surface) -> None:
        """The lobby's "How to play" line pushed: the chosen game's card."""
        table, clock, inputs = table_at(surface)
        line = table.lobby._lines().index(table.lobby.HOW_TO_PLAY)
        go(table, clock, inputs, [Action("turn", 0.1, 1, {"delta": line}), Action("push", 0.2, 1)], 0.5)
        assert isinstance(table.screens[-1], HowToPlayScreen)
        _final_draw(table, clock.now)

    def lobby_starting(surface: pygame.Surface) -> None:
        """The frame that answers the push on "Start the game", before the game is built."""
        table, clock, inputs = table_at(surface)
        joins = [Action("press", 0.1, 0), Action("press", 0.2, 1), Action("press", 0.3, 2)]
        start = table.lobby._lines().index("start")
        go(table, clock, inputs, [*joins, Action("turn", 0.4, 0, {"delta": start})], 0.6)
        inputs.add(Action("push", clock.now + 0.001, 0))
        clock.advance(1 / 30)
        table.step(clock.now)
        assert table.session is None and table.lobby.starting
        _final_draw(table, clock.now)

    def lobby_notice(surface: pygame.Surface) -> None:
        """Settings on the SD card the table did not take: the lobby says which file,
        which line and what to change, over everything, until a knob is pushed."""
        table, clock, inputs = table_at(surface)
        table.lobby.notice = SettingsNotice("card", (
            "table/table.toml: line 7: table.stations: must be from 1 to 5, not 9",
            "table/hardware.toml: S2.button: GPIO 2 is already used by S1.button",
            "table/tabel.toml: not taken: the table reads only hardware.toml, relay.toml or table.toml here "
            "(did you mean 'table.toml'?)"))
        go(table, clock, inputs, [], 0.5)
        _final_draw(table, clock.now)

    def hold_ring(surface: pygame.Surface) -> None:
        """A game of three at a four-station table: Ben holds his knob (his ring fills on his
        panel), and so does station 4, who does not play (its ring shows in the middle)."""
        table, clock, inputs = table_at(surface)
        table.start_game(GameSetup(first, stations=(0, 1, 2), names=NAMES[:3]))
        go(table, clock, inputs, [], 8.0)
        inputs.held = {1: clock.now - 1.2, 3: clock.now - 0.6}
        go(table, clock, inputs, [], 0.1)
        _final_draw(table, clock.now)

    def wait(surface: pygame.Surface) -> None:
        """Inputs as the screen changed: Ann's push takes the table menu's "Continue";
        Ben's press and station 4's push a moment later wait (at Ben's panel, and in
        station 4's share of the edge), taken by nothing."""
        table, clock, inputs = table_at(surface)
        table.start_game(GameSetup(first, stations=(0, 1, 2), names=NAMES[:3]))
        go(table, clock, inputs, [Action("long_push", 8.0, 0), Action("push", 9.0, 0), Action("press", 9.15, 1),
                                  Action("push", 9.25, 3)], 9.35)
        _final_draw(table, clock.now)

    def menu_choice(surface: pygame.Surface, steps: int, expect: type) -> None:
        """A game with a press made, the table menu opened and one line pushed."""
        table, clock, inputs = table_at(surface)
        table.start_game(GameSetup(first, stations=(0, 1, 2), names=NAMES[:3]))
        go(table, clock, inputs, [Action("press", 8.0, 1), Action("long_push", 15.0, 0),
                                  Action("turn", 15.8, 0, {"delta": steps}), Action("push", 16.0, 0)], 16.5)
        assert isinstance(table.screens[-1], expect)
        _final_draw(table, clock.now)

    def menu(surface: pygame.Surface) -> None:
        menu_choice(surface, 2, TableMenuScreen)  # "undo", waiting for the confirming push

    def paused(surface: pygame.Surface) -> None:
        menu_choice(surface, 1, PausedScreen)

    def attract(surface: pygame.Surface) -> None:
        table, clock, inputs = table_at(surface)
        table.push_screen(AttractScreen(table, table.theme, clock.now, seed=5, games=[first]))
        go(table, clock, inputs, [], 25.0)
        _final_draw(table, clock.now)

    def leave(surface: pygame.Surface) -> None:
        table, clock, inputs = table_at(surface)
        table.start_game(GameSetup(first, stations=(0, 1, 2, 3), names=NAMES))
        go(table, clock, inputs, [Action("long_push", 8.0, 0)], 9.0)
        table.push_screen(LeaveKioskScreen(table.theme, 0, stations - 1))
        _final_draw(table, clock.now)

    yield "menu", lobby
    yield "menu-name", lobby_name
    yield "menu-how-to-play", lobby_card
    yield "menu-starting", lobby_starting
    yield "menu-settings-notice", lobby_notice
    yield "hold-ring", hold_ring
    yield "wait", wait
    yield "table-menu", menu
    yield "paused", paused
    yield "attract", attract
    yield "leave-kiosk", leave


def _language_options(engine_name: str) -> dict[str, object]:
    """The setup options that carry the language in force to a game that takes one (a
    question deck, say, is chosen by it), as the lobby gives them: German pictures get German cards."""
    known = registry()[engine_name].option_names or frozenset()
    return {"language": language()} if "language" in known else {}


def _players(engine_name: str) -> int:
    engine = registry()[engine_name]
    return max(engine.min_stations, min(engine.max_stations, 4))


def phase_walk(game: str, variant: str, seed: int, players: int | None = None,
               limit: int = 4000) -> Iterator[tuple[str, Session, float]]:
    """Random legal play of one game, yielding ``(phase, session, now)`` the first time
    each phase shows, once more near the end of a timed phase (the last seconds), and
    at the end; ``now`` is a game time inside that moment. The session is live: use it
    before asking for the next moment."""
    import random

    from table.play.autoplay import next_random_action

    n = players or _players(game)
    setup = GameSetup(game, variant, tuple(range(n)), NAMES[:n], _language_options(game))
    session = Session.start(game, setup, seed)
    rng = random.Random(seed)
    seen: set[str] = set()
    for _ in range(limit):
        view = session.view(None)
        phase = str(view.get("phase", ""))
        deadline = view.get("deadline")
        if phase not in seen:
            seen.add(phase)
            now = session.last_t + 0.5
            if isinstance(deadline, (int, float)):
                now = min(now, float(deadline) - 0.05)
            yield phase, session, now
            if isinstance(deadline, (int, float)) and float(deadline) - session.last_t > 12:
                yield f"{phase}-last-seconds", session, float(deadline) - 4.6
        if session.is_over():
            return
        action = next_random_action(session, rng, mean_gap=2.0)
        if action is None:
            return
        session.apply(action)


def game_moments(games: list[str] | None = None) -> Iterator[tuple[str, Snapshot]]:
    """Every phase of every variant of every game (random legal play, fixed seeds), drawn
    by the game's renderer as the table shows it (the end by the final ranking): named
    ``game/variant-NN-phase``."""
    for game in games or list(registry()):
        engine = registry()[game]
        for variant in engine.variants:
            for k, (phase, session, now) in enumerate(phase_walk(game, variant, seed=3)):
                name = f"{game}/{variant}-{k + 1:02d}-{phase}"
                if session.is_over():  # the last moment: the walk leaves the session as it is
                    yield name, _final_snap(session)
                    continue
                view = dict(session.view(None))
                paused = session.paused
                yield name, _view_snap(game, view, now, paused)


def card_moments(games: list[str] | None = None) -> Iterator[tuple[str, Snapshot]]:
    """Every game's how-to-play card as the attract loop shows it: ``game/how-to-play``."""
    for game in games or list(registry()):
        def snap(surface: pygame.Surface, game: str = game) -> None:
            size = surface.get_size()
            paint_all(surface, card_parts(game, Theme(*size), size), 0.0)
        yield f"{game}/how-to-play", snap


def _final_snap(session: Session) -> Snapshot:
    """The finished ``session``'s final ranking, as the game screen shows it."""
    def snap(surface: pygame.Surface) -> None:
        theme = player_theme(Theme(*surface.get_size()), session)
        paint_all(surface, final_parts(session, theme, surface.get_size()), 0.0)
    return snap


def _view_snap(game: str, view: dict[str, object], now: float, paused: bool) -> Snapshot:
    def snap(surface: pygame.Surface) -> None:
        theme = Theme(*surface.get_size())
        renderers()[game].draw(surface, view, RenderContext(theme, now, paused))
    return snap


MENU_CHOICES = ("continue", "pause", "undo", "skip", "end")


def walk_to(game: str, phase: str, surface: pygame.Surface, seed: int = 3,
            celebrations: bool = True) -> tuple[Table, VirtualClock, ScriptedInputs] | None:
    """A table loop whose game (random legal play, fixed seed) has reached ``phase``
    (the view's phase), or None if that play never gets there. Inputs go through the
    table's screens as a station's would, at the game's times on a virtual clock."""
    return walk_until(game, surface, lambda table: table.session is not None
                      and table.session.view(None).get("phase") == phase, seed, celebrations)


def walk_until(game: str, surface: pygame.Surface, done: Callable[[Table], bool], seed: int = 3,
               celebrations: bool = True) -> tuple[Table, VirtualClock, ScriptedInputs] | None:
    """Like :func:`walk_to`, until ``done(table)`` holds (checked after every frame)."""
    import random

    from table.play.autoplay import next_random_action

    clock = VirtualClock(100.0)
    inputs = ScriptedInputs()
    config = TableConfig(stations=4, language=language(), display=DisplayConfig(celebrations=celebrations))
    table = Table(config, clock, surface, None, inputs=[inputs], seed_source=lambda: seed, attract=False)
    n = _players(game)
    table.start_game(GameSetup(game, registry()[game].variants[0], tuple(range(n)), NAMES[:n],
                               _language_options(game)), seed=seed)
    session = table.session
    assert session is not None
    rng = random.Random(seed)
    for _ in range(4000):
        if done(table):
            return table, clock, inputs
        if session.is_over():
            return None
        action = next_random_action(session, rng, mean_gap=2.0)
        if action is None:
            return None
        at = table.epoch + action.t
        if action.kind != "tick":
            inputs.add(Action(action.kind, at, action.station, action.value))
        # A tick's time is the deadline itself: a hair past it, so that the table time
        # (epoch + t, rounded) never falls short of it and the walk waits for ever.
        clock.now = max(clock.now, at + (1e-6 if action.kind == "tick" else 0.0))
        table.step(clock.now)
    return (table, clock, inputs) if done(table) else None


CELEBRATED = ("first", "round", "final")


def celebration_frames(game: str, kind: str, size: tuple[int, int], fps: float = 12.0,
                       seed: int = 3) -> list[pygame.Surface]:
    """The frames of the first moment of ``kind`` ("first", "round" or "final") that a
    random game of ``game`` shows through the table loop, from its start to its end
    (empty when that play never has one)."""
    from table.display.moments import DURATIONS
    from table.display.screens import GameScreen

    def showing(table: Table) -> bool:
        game_screen = next((s for s in table.screens if isinstance(s, GameScreen)), None)
        return game_screen is not None and any(m.kind == kind for m in game_screen.moments)

    surface = pygame.Surface(size)
    found = walk_until(game, surface, showing, seed)
    if found is None or not showing(found[0]):
        return []
    table, clock, inputs = found
    frames = []
    for _ in range(int(DURATIONS[kind] * fps) + 2):
        table.draw(clock.now)
        frames.append(surface.copy())
        run_frames(table, clock, inputs, [], 1 / fps, fps=fps)
    return frames


def run_frames(table: Table, clock: VirtualClock, inputs: ScriptedInputs, actions: list[Action],
               seconds: float, fps: float = 30.0) -> None:
    """Feed ``actions`` (times relative to now) and run the loop for ``seconds``."""
    inputs.add(*(Action(a.kind, clock.now + a.t, a.station, a.value) for a in actions))
    end = clock.now + seconds
    while clock.now < end:
        clock.advance(1 / fps)
        table.step(clock.now)


def menu_choice(table: Table, clock: VirtualClock, inputs: ScriptedInputs, choice: str) -> None:
    """Open the table menu with a long push, turn to ``choice`` and take it (pushing
    twice where the menu asks to confirm), then let a second pass."""
    from table.display.screens import MENU_ITEMS, NEEDS_CONFIRMATION

    steps = [k for k, _ in MENU_ITEMS].index(choice)
    # Each step after the menu has been up a moment (inputs settle round a change of screen).
    actions = [Action("long_push", 0.1, 0), Action("turn", 0.9, 0, {"delta": steps}), Action("push", 1.1, 0)]
    if choice in NEEDS_CONFIRMATION:
        actions.append(Action("push", 1.3, 0))
    run_frames(table, clock, inputs, actions, 2.4)


def showcase(game: str, view: dict[str, object]) -> bool:
    """Whether ``view`` is where the table menu is opened for ``game``'s flow pictures: its
    screen's ``showcase_phase`` (``None``: any phase with a deadline), some rounds in (for
    a game that counts rounds), so that the scores on the ranking differ."""
    renderer = renderer_of(game)
    phase = renderer.showcase_phase if renderer is not None else None
    shown = view.get("deadline") is not None if phase is None else view.get("phase") == phase
    rounds = view.get("round", 0)
    return shown and ("round" not in view or int(rounds if isinstance(rounds, (int, float)) else 0) >= 3)


def flow_moments(games: list[str] | None = None) -> Iterator[tuple[str, Snapshot]]:
    """Per game, through the real table loop: the table menu mid-game (:func:`showcase`),
    the paused screen, and the final ranking after "end the game"."""
    for game in games or list(registry()):

        def shot(surface: pygame.Surface, game: str = game, choice: str | None = None) -> None:
            found = walk_until(game, surface, lambda table: table.session is not None
                               and showcase(game, table.session.view(None)), celebrations=False)
            assert found is not None, f"{game} never reached its showcase phase"
            table, clock, inputs = found
            if choice is None:
                run_frames(table, clock, inputs, [Action("long_push", 0.1, 0), Action("turn", 0.9, 0, {"delta": 4}),
                                                  Action("push", 1.1, 0)], 1.6)
            else:
                menu_choice(table, clock, inputs, choice)
                run_frames(table, clock, inputs, [], 5.0)
            _final_draw(table, clock.now)

        yield f"{game}/menu-end-confirm", shot
        yield f"{game}/menu-paused", functools.partial(shot, choice="pause")
        yield f"{game}/menu-ended-ranking", functools.partial(shot, choice="end")


def all_moments() -> Iterator[tuple[str, Snapshot]]:
    """Every screen: the table's own, every phase of every game, the menu's flows."""
    yield from shell_moments()
    yield from game_pictures()
    yield from game_moments()
    yield from card_moments()
    yield from flow_moments()


def celebration_moments(game: str) -> Iterator[tuple[str, Snapshot]]:
    """``game``'s celebrations ("first", "round", "final") as a random game shows them
    through the table loop, each at the middle of its moment: ``game/celebration-KIND``.
    A kind that play never reaches draws nothing and returns False (no picture)."""
    for kind in CELEBRATED:
        def snap(surface: pygame.Surface, kind: str = kind) -> bool:
            frames = celebration_frames(game, kind, surface.get_size(), fps=4)
            if frames:
                surface.blit(frames[len(frames) // 2], (0, 0))
            return bool(frames)

        yield f"{game}/celebration-{kind}", snap


def game_screens(game: str) -> Iterator[tuple[str, Snapshot]]:
    """Every screen of one game: its pictures of its own, every phase of every variant,
    its how-to-play card, the menu's flows, and its celebrations."""
    yield from renderers()[game].pictures()
    yield from game_moments([game])
    yield from card_moments([game])
    yield from flow_moments([game])
    yield from celebration_moments(game)


def render_all(out_dir: Path, sizes: tuple[tuple[int, int], ...] = ((1920, 1080),),
               moments: Callable[[], Iterator[tuple[str, Snapshot]]] | None = None) -> list[Path]:
    """Render every snapshot at every size into ``out_dir``; returns the files written."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pygame.display.init()
    pygame.font.init()
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    sources = [moments] if moments else [all_moments]
    for size in sizes:
        suffix = "" if size == (1920, 1080) else f"-{size[1]}p"
        for source in sources:
            for name, snap in source():
                surface = pygame.Surface(size)
                if snap(surface) is False:
                    continue  # nothing to show at this size (a celebration that play never reaches)
                path = out_dir / f"{name}{suffix}.png"
                path.parent.mkdir(parents=True, exist_ok=True)
                pygame.image.save(surface, str(path))
                written.append(path)
    return written
