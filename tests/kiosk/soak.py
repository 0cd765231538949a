"""The soak driver: the real table loop for hours of virtual table time.

``soak(hours)`` builds :class:`table.loop.app.Table` exactly as ``table run --headless``
does (SDL dummy driver, a real SQLite journal, the sound output), drives its clock
virtually, and plays like an evening's guests: stations join in the lobby and
start every registered game in turn; in a game each station makes random *legal*
inputs (from the engine's ``legal_actions``); now and then someone opens the table
menu with a long push and picks at random (pause, undo, skip, end); finished games
go back to the lobby; and every so often nobody touches the table until the attract
mode runs, then a press brings the lobby back.

Memory is sampled as the process's resident set (``/proc/self/statm``) after a
garbage collection and ``malloc_trim``; growth is that of the resident floor after a warm-up (``SoakStats.growth_mb``).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from table.games.base import TICK, Action


def _trim_heap() -> None:
    """Give freed C heap back to the system (glibc) so RSS shows live memory, not
    fragmentation left by large short-lived surfaces."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def rss_bytes() -> int:
    """Resident memory after a garbage collection and a heap trim."""
    gc.collect()
    _trim_heap()
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@dataclass
class SoakStats:
    table_seconds: float = 0.0
    steps: int = 0
    frames: int = 0
    inputs: int = 0
    games_started: Counter[str] = field(default_factory=Counter)
    games_finished: int = 0
    attract_shown: int = 0
    menus_opened: int = 0
    rss_after_warmup: int = 0
    rss_end: int = 0
    journal_actions: int = 0
    rss_hourly: list[int] = field(default_factory=list)
    rss_samples: list[tuple[float, int]] = field(default_factory=list)
    """(table time, resident bytes) every ten table minutes after the warm-up."""

    @property
    def growth_mb(self) -> float:
        """Growth of the resident floor: the lowest sample of the last two hours minus the
        lowest of the first two after the warm-up. One reading at each end would count
        whatever bounded caches (a screen-sized layer, the map's highlight pictures, some
        5-8 MB each at 1080p) happen to hold at that moment, which swings by tens of MB
        from run to run; a leak raises the floor."""
        if len(self.rss_samples) < 2:
            return (self.rss_end - self.rss_after_warmup) / 1e6
        start = self.rss_samples[0][0]
        end = self.rss_samples[-1][0]
        span = min(2 * 3600.0, (end - start) / 2)
        first = [rss for t, rss in self.rss_samples if t <= start + span]
        last = [rss for t, rss in self.rss_samples if t >= end - span]
        return (min(last) - min(first)) / 1e6


class Guests:
    """The input source: queued station inputs released at their clock time."""

    def __init__(self) -> None:
        self.queue: list[Action] = []

    def add(self, action: Action) -> None:
        self.queue.append(action)

    def poll(self, now: float) -> list[Action]:
        ready = [a for a in self.queue if a.t <= now]
        self.queue = [a for a in self.queue if a.t > now]
        return ready


def soak(hours: float, journal_path: Path, seed: int = 1, step_s: float = 1.0, size: tuple[int, int] = (480, 270),
         warmup_hours: float = 0.5, on_hour: Callable[[int], None] | None = None) -> SoakStats:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    import pygame

    from table.common.config import TableConfig
    from table.display.screens import AttractScreen, GameScreen, LobbyScreen, TableMenuScreen
    from table.games import registry
    from table.loop.app import Table
    from table.loop.sound import SoundOutput
    from table.play.autoplay import next_random_action
    from table.play.clock import VirtualClock
    from table.play.journal import Journal

    pygame.display.init()
    pygame.font.init()
    pygame.display.set_mode(size)
    surface = pygame.Surface(size).convert()
    config = TableConfig(stations=4)
    clock = VirtualClock(0.0)
    guests = Guests()
    rng = random.Random(seed)
    journal = Journal(journal_path)
    sounds = SoundOutput(config.sound.volume, True)
    table = Table(config, clock, surface, journal, inputs=[guests], outputs=[sounds],
                  seed_source=lambda: rng.randrange(1 << 30))
    stats = SoakStats()
    games = list(registry())
    next_game = 0
    idle_until: float | None = None  # guests stay away (attract mode) until then
    lobby_plan: list[Action] = []
    end = hours * 3600.0
    warm = warmup_hours * 3600.0
    gc.collect()

    def press(kind: str, station: int, t: float, value: object = None) -> None:
        guests.add(Action(kind, t, station, value))
        stats.inputs += 1

    try:
        while clock.now < end:
            now = clock.now
            top = table.screens[-1]
            if not guests.queue:
                if isinstance(top, AttractScreen):
                    if idle_until is not None and now >= idle_until:
                        idle_until = None
                        press("press", rng.randrange(config.stations), now + 0.1)
                elif isinstance(top, LobbyScreen) and idle_until is None:
                    if rng.random() < 0.08:
                        # Nobody at the table for a while: the attract mode takes over.
                        idle_until = now + config.timing.attract_after_s + rng.uniform(30, 900)
                        stats.attract_shown += 1
                    elif not lobby_plan:
                        lobby_plan = plan_lobby(top, games[next_game % len(games)], rng, now)
                        next_game += 1
                    if lobby_plan:
                        guests.add(lobby_plan.pop(0))
                        stats.inputs += 1
                elif isinstance(top, GameScreen | TableMenuScreen) or top.overlay:
                    session = table.session
                    if session is None:
                        pass
                    elif isinstance(top, TableMenuScreen) or top.overlay:
                        # In the menu or paused: random knob moves and pushes.
                        kind = rng.choice(("turn", "push", "push", "press"))
                        value = {"delta": rng.choice((-1, 1))} if kind == "turn" else None
                        press(kind, rng.randrange(config.stations), now + rng.uniform(0.3, 3.0), value)
                    elif session.is_over():
                        press("press", session.setup.stations[0], now + rng.uniform(2.5, 10.0))
                    elif rng.random() < 0.01:
                        press("long_push", rng.choice(session.setup.stations), now + 0.5)
                        stats.menus_opened += 1
                    else:
                        action = next_random_action(session, rng, mean_gap=4.0)
                        if action is not None and action.kind != TICK:
                            # Session time -> table clock (the game's epoch).
                            t = max(now, action.t + table.epoch)
                            guests.add(Action(action.kind, t, action.station, action.value))
                            stats.inputs += 1
            clock.now = now + step_s
            before = table.session
            if table.step(clock.now):
                stats.frames += 1
            stats.steps += 1
            if before is not None and before.is_over() and table.session is None:
                stats.games_finished += 1
            if table.session is not None and table.session is not before:
                stats.games_started[table.session.setup.game] += 1
            if int(clock.now) % 3600 == 0:
                gc.collect()
                stats.rss_hourly.append(rss_bytes())
                if on_hour is not None:
                    on_hour(len(stats.rss_hourly))
            if not stats.rss_after_warmup and clock.now >= warm:
                gc.collect()
                stats.rss_after_warmup = rss_bytes()
            if stats.rss_after_warmup and int(clock.now) % 600 == 0:
                stats.rss_samples.append((clock.now, rss_bytes()))
        gc.collect()
        stats.rss_end = rss_bytes()
        stats.table_seconds = clock.now
        stats.journal_actions = sum(len(journal.load(g).actions) for g in journal.game_ids())
    finally:
        table.close()
        pygame.display.quit()  # fonts stay valid for whatever runs next in this process
    return stats


def plan_lobby(lobby: object, game: str, rng: random.Random, now: float) -> list[Action]:
    """Inputs that choose ``game`` in the lobby, join some stations and start it."""
    from table.display.screens import LobbyScreen
    from table.games import registry

    assert isinstance(lobby, LobbyScreen)
    engine = registry()[game]
    t = now + rng.uniform(1.0, 5.0)
    plan: list[Action] = []

    def add(kind: str, station: int, value: object = None) -> None:
        nonlocal t
        plan.append(Action(kind, t, station, value))
        t += rng.uniform(0.3, 2.0)

    # The cursor to the game's own line of the lobby's list of games, and push.
    add("turn", 0, {"delta": lobby._lines().index(f"game:{game}") - lobby.cursor})
    add("push", 0)
    players = rng.randint(engine.min_stations, min(engine.max_stations, lobby.stations))
    want = set(rng.sample(range(lobby.stations), players))
    for station in range(lobby.stations):
        if (station in lobby.settings.joined) != (station in want):
            add("press", station)
    # A few idle knob turns by the guests, then to "start" (the last line) and push.
    for _ in range(rng.randrange(3)):
        add("turn", rng.randrange(lobby.stations), {"delta": rng.choice((-1, 1))})
    add("turn", 0, {"sector": 15, "sectors": 16})
    add("push", 0)
    return plan
