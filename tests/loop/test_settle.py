"""One press, one meaning: every station's inputs round a change of screen or of the
game's question belong to that change (:data:`table.loop.app.SETTLE_S`), are taken by
nothing, and show their station "wait"."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import pygame
import pytest

from table.common.config import TableConfig, TimingConfig
from table.display.final import HOLD_S
from table.display.screens import AttractScreen, GameScreen, LobbyScreen, PausedScreen, TableMenuScreen
from table.display.station_marks import WAIT_S
from table.games import games, lobby_games, registry
from table.games.base import TICK, Action, GameSetup
from table.games.contract import GameEngine, engine_of
from table.loop.app import SETTLE_S, ScriptedInputs, Table
from table.loop.outputs import ScreenStationDisplays, StationScreens
from table.play.autoplay import next_random_action
from table.play.clock import VirtualClock

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

STATIONS = 4
OFFSETS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6)
"""When the inputs of a burst come, in seconds after the input that changed the screen."""
KINDS = (("press", None), ("push", None), ("turn", {"delta": 1}), ("turn", {"delta": -1}))


@pytest.fixture(autouse=True)
def _pygame() -> Iterator[None]:
    pygame.display.init()
    pygame.font.init()
    yield


class RecordedScreens(StationScreens):
    """The station displays, with every "wait" they are told of recorded."""

    def __init__(self, displays: ScreenStationDisplays, record: list[tuple[int, float]]) -> None:
        super().__init__(displays)
        self.record = record

    def on_wait(self, station: int, at: float) -> None:
        self.record.append((station, at))
        super().on_wait(station, at)


class Table4:
    """A four-station table on a virtual clock with its station displays, stepped at
    60 frames a second or straight to the next input."""

    def __init__(self, attract: bool = False, seed: int = 7) -> None:
        self.clock = VirtualClock(100.0)
        self.inputs = ScriptedInputs()
        self.displays = ScreenStationDisplays(range(STATIONS))
        self.waits: list[tuple[int, float]] = []
        config = TableConfig(stations=STATIONS, timing=TimingConfig(attract_after_s=30.0))
        outputs = [RecordedScreens(self.displays, self.waits)]
        self.table = Table(config, self.clock, pygame.Surface((640, 360)), None, inputs=[self.inputs],
                           outputs=outputs, seed_source=lambda: seed, attract=attract, prepare=False)
        self.table.step(self.clock.now)

    def frames(self, seconds: float) -> None:
        end = self.clock.now + seconds
        while self.clock.now < end:
            self.clock.advance(1 / 60)
            self.table.step(self.clock.now)

    def at(self, action: Action) -> None:
        """``action`` (its ``t`` on the table's clock) and the frame that takes it."""
        self.inputs.add(action)
        self.clock.now = max(self.clock.now, action.t)
        self.table.step(self.clock.now)

    def send(self, kind: str, station: int, value: object = None, after: float = 1 / 60) -> float:
        """One input ``after`` seconds from now, and the frames to it; its time."""
        t = self.clock.now + after
        self.inputs.add(Action(kind, t, station, value))
        self.frames(after + 1 / 120)
        return t

    def settle(self) -> None:
        """Frames until whatever the last change settles has settled."""
        self.frames(max(0.0, self.table.settles_until - self.clock.now) + 0.05)

    def burst(self, t: float) -> int:
        """Every station's press, push and turns at :data:`OFFSETS` after ``t``, and the
        frames through them; returns how many inputs there were."""
        actions = burst(t)
        self.inputs.add(*actions)
        self.frames(t + max(OFFSETS) + 0.05 - self.clock.now)
        return len(actions)


def burst(t: float) -> list[Action]:
    """Each station at each of :data:`OFFSETS` after ``t``, its kind of input in turn:
    every station presses, pushes and turns both ways at some of them."""
    return [Action(KINDS[(i + s) % len(KINDS)][0], t + off, s, KINDS[(i + s) % len(KINDS)][1])
            for i, off in enumerate(OFFSETS) for s in range(STATIONS)]


def moves(table: Table) -> list[Action]:
    """What the players did in the game (its inputs that changed it, ticks left out)."""
    session = table.session
    return [] if session is None else [a for a in session.history if a.kind != TICK]


def assert_settled(t4: Table4, t: float) -> None:
    """A burst after the input at ``t`` that changed the screen: nothing is taken, and
    every input of it shows its station "wait"."""
    table = t4.table
    assert table.settles_until >= t + SETTLE_S, "the change did not settle the inputs after it"
    screens = list(table.screens)
    before, joined, cursor = moves(table), list(table.lobby.settings.joined), table.lobby.cursor
    waits = len(t4.waits)
    count = t4.burst(t)
    assert table.screens == screens
    assert moves(table) == before
    assert table.lobby.settings.joined == joined and table.lobby.cursor == cursor
    assert len(t4.waits) - waits == count  # each one's "wait"


def start(t4: Table4, game: str, players: tuple[int, ...], **options: object) -> None:
    engine = registry()[game]
    known = engine.option_names or frozenset()
    opts = {k: v for k, v in options.items() if k in known}
    t4.table.start_game(GameSetup(game, engine.variants[0], players, options=opts))
    t4.frames(0.1)


# -- the three cases found at the table ---------------------------------------------------


@pytest.mark.parametrize("gap", [0.05, 0.15, 0.3, 0.55])
def test_a_second_press_for_the_next_umtata_round_is_not_a_tataaa(gap: float) -> None:
    from table.games.umtata.state import GUESS, REVEAL

    t4 = Table4()
    start(t4, "umtata", (0, 1))
    session = t4.table.session
    assert session is not None
    t4.send("push", 0, after=1.0)
    t4.send("push", 1, after=1.0)  # both guessed: the card is turned over
    assert session.state.phase == REVEAL
    t4.frames(2.0)
    t = t4.send("press", 0, after=0.5)  # "press any button for the next round"
    t4.inputs.add(Action("press", t + gap, 1))  # ... and the other player did too
    t4.frames(gap + 0.1)
    assert session.state.phase == GUESS and session.state.round == 2
    assert session.state.tataaa == () and session.state.guesses == (None, None)
    assert (1, t4.table.game_time(t + gap)) in t4.waits
    # Once the question has been up a moment, a press is a Tataaa again.
    t4.frames(SETTLE_S)
    t4.send("press", 1)
    assert session.state.tataaa == (1,)


def test_presses_right_after_the_final_ranking_leave_every_player_in_the_lobby() -> None:
    t4 = Table4()
    table = t4.table
    for s in (0, 1, 2):
        t4.send("press", s, after=0.1)
    assert table.lobby.settings.joined == [0, 1, 2]
    start(t4, lobby_games()[0], (0, 1, 2))
    assert table.session is not None
    t4.at(Action("long_push", t4.clock.now + 1.0, 0))  # the table menu: "End the game", confirmed
    t4.frames(SETTLE_S + 0.1)
    t4.send("turn", 0, {"delta": 4})
    t4.send("push", 0)
    t4.send("push", 0)
    assert table.session.is_over()
    early = t4.send("press", 1, after=0.7)  # the ranking stands a moment: "wait"
    assert table.session is not None and table.lobby.settings.joined == [0, 1, 2]
    assert t4.waits[-1] == (1, table.game_time(early))
    t4.frames(HOLD_S)
    t = t4.send("press", 0)  # back to the lobby...
    assert table.screens == [table.lobby]
    for s, gap in ((1, 0.2), (2, 0.35), (0, 0.5)):  # ... and the others pressed to go on too
        t4.inputs.add(Action("press", t + gap, s))
    t4.frames(0.6)
    assert table.lobby.settings.joined == [0, 1, 2]
    assert {s for s, _ in t4.waits} == {0, 1, 2}


@pytest.mark.parametrize("gap", [0.05, 0.15, 0.4])
def test_a_push_right_after_an_ugah_ugah_turn_passed_confirms_no_die(gap: float) -> None:
    from table.games.ugah_ugah.engine import DICE_COUNT

    t4 = Table4()
    start(t4, "ugah_ugah", (0, 1))
    session = t4.table.session
    assert session is not None and session.state.station == 0
    for _ in range(DICE_COUNT - 1):  # every die set by the knob (all bones)...
        t4.send("push", 0, after=0.3)
    assert session.state.manual_index == DICE_COUNT - 1
    t = t4.send("push", 0, after=0.3)  # ... the last: no hunter moves, the turn passes
    assert session.state.station == 1 and session.state.manual_index == 0
    t4.inputs.add(Action("push", t + gap, 1))
    t4.frames(gap + 0.1)
    assert session.state.station == 1 and session.state.manual_index == 0
    assert (1, t4.table.game_time(t + gap)) in t4.waits
    t4.frames(SETTLE_S)
    t4.send("push", 1)
    assert session.state.manual_index == 1


def test_presses_in_a_countdown_show_wait_and_so_do_the_players_displays() -> None:
    from table.games.ubongo_shimo.engine import COUNTDOWN, SOLVING

    t4 = Table4()
    start(t4, "ubongo_shimo", (0, 1))
    session = t4.table.session
    assert session is not None and session.state.phase == COUNTDOWN
    t = t4.send("press", 1, after=0.5)
    assert (1, t4.table.game_time(t)) in t4.waits
    assert 1 not in t4.table._flashes  # not the flash of a press that counted
    picture = t4.displays.pictures[1]
    middle = picture.pixels[picture.width * (picture.height // 2):][:picture.width]
    assert sum(middle) > picture.width // 2  # the lit band of "Wait" across the middle
    t4.frames(WAIT_S + 0.05)
    picture = t4.displays.pictures[1]
    middle = picture.pixels[picture.width * (picture.height // 2):][:picture.width]
    assert sum(middle) < picture.width // 2  # gone again
    while session.state.phase == COUNTDOWN:
        t4.frames(0.1)
    assert session.state.phase == SOLVING
    waits = len(t4.waits)
    t4.send("press", 0)  # the cards are turned: a press is a call, no "wait"
    assert session.view()["callers"] == [0] and len(t4.waits) == waits


def test_the_racers_after_the_first_call_still_count() -> None:
    """A race keeps its question across the first call: a press a moment after it is
    a tie or a solve, not a press for another screen."""
    from table.games.ubongo_shimo.engine import SOLVING

    t4 = Table4()
    start(t4, "ubongo_shimo", (0, 1, 2))
    session = t4.table.session
    assert session is not None
    while session.state.phase != SOLVING:
        t4.frames(0.1)
    t = t4.send("press", 0, after=2.0)
    t4.inputs.add(Action("press", t + 0.001, 1), Action("press", t + 0.2, 2))
    t4.frames(0.3)
    assert session.state.callers == (0, 1) and session.state.solvers == (0, 1, 2)


# -- every screen of the table ---------------------------------------------------------------


def test_the_lobby_the_card_and_the_start_settle_every_stations_inputs() -> None:
    t4 = Table4()
    table = t4.table
    lobby = table.lobby
    # The how-to-play card: a push opens it, a press closes it.
    t4.send("turn", 0, {"delta": lobby._lines().index(LobbyScreen.HOW_TO_PLAY) - lobby.cursor})
    t = t4.send("push", 0)
    assert not isinstance(table.screens[-1], LobbyScreen)
    assert_settled(t4, t)
    t4.settle()
    t = t4.send("press", 1)
    assert table.screens == [lobby]
    assert_settled(t4, t)
    t4.settle()
    # The start: players join, the start line is pushed.
    for s in (0, 1):
        t4.send("press", s)
    t4.send("turn", 0, {"delta": lobby._lines().index("start") - lobby.cursor})
    t = t4.send("push", 0)
    assert lobby.starting or table.session is not None
    t4.inputs.add(*burst(t))
    t4.frames(max(OFFSETS) + 0.1)
    session = table.session
    assert session is not None and isinstance(table.screens[-1], GameScreen)
    assert session.setup.stations == (0, 1) and moves(table) == []
    assert table.settles_until >= t + SETTLE_S


def test_the_table_menu_the_pause_and_their_ends_settle_every_stations_inputs() -> None:
    t4 = Table4()
    table = t4.table
    start(t4, lobby_games()[0], (0, 1))
    session = table.session
    assert session is not None
    t = t4.send("long_push", 2, after=1.0)
    assert isinstance(table.screens[-1], TableMenuScreen) and session.paused
    assert_settled(t4, t)
    menu = table.screens[-1]
    assert isinstance(menu, TableMenuScreen) and menu.cursor == 0 and menu.confirming is None
    t4.settle()
    t = t4.send("push", 2)  # "Continue"
    assert isinstance(table.screens[-1], GameScreen) and not session.paused
    assert_settled(t4, t)
    t4.settle()
    t4.send("long_push", 3)
    t4.settle()
    t4.send("turn", 3, {"delta": 1})
    t = t4.send("push", 3)  # "Pause the game"
    assert isinstance(table.screens[-1], PausedScreen) and session.paused
    assert_settled(t4, t)
    assert session.paused
    t4.settle()
    t = t4.send("press", 0)  # go on
    assert isinstance(table.screens[-1], GameScreen) and not session.paused
    assert_settled(t4, t)


def test_a_press_that_ends_the_demo_joins_nobody() -> None:
    t4 = Table4(attract=True)
    table = t4.table
    t4.frames(31.0)
    assert isinstance(table.screens[-1], AttractScreen)
    t = t4.send("press", 2)
    assert table.screens == [table.lobby] and table.lobby.settings.joined == []
    assert_settled(t4, t)
    t4.settle()
    t4.send("press", 2)
    assert table.lobby.settings.joined == [2]


def test_inputs_before_a_change_or_well_after_it_are_taken() -> None:
    """The settling is only round a change: the lobby's joins, a moment apart, all count."""
    t4 = Table4()
    for s in range(STATIONS):
        t4.send("press", s, after=0.05)
    assert t4.table.lobby.settings.joined == [0, 1, 2, 3] and t4.waits == []


@pytest.mark.heavy  # plays whole games frame by frame round every change
@pytest.mark.parametrize("game", sorted(registry()))
def test_every_change_a_station_makes_in_every_game_settles_every_stations_inputs(game: str) -> None:
    """Random legal play of ``game`` through the table loop. After each input that
    changes the game's question (its prompt's key) or the screen, and after the press
    that leaves the final ranking, every station presses, pushes and turns at 0 to
    600 ms: no game action, no join or leave, a "wait" for each."""
    engine = registry()[game]
    changes = 0
    for seed, players in ((1, engine.min_stations), (2, min(engine.max_stations, STATIONS))):
        t4 = Table4(seed=seed)
        table = t4.table
        stations = tuple(range(players))
        for s in stations:
            t4.send("press", s, after=0.05)
        start(t4, game, stations)
        session = table.session
        assert session is not None
        rng = random.Random(seed)
        for _ in range(3000):
            if session.is_over():
                break
            action = next_random_action(session, rng, mean_gap=1.0)
            assert action is not None, f"{game} is stuck"
            if action.kind == TICK:
                t4.frames(max(0.0, table.epoch + action.t - t4.clock.now) + 1 / 60)
                continue
            at = max(table.epoch + action.t, t4.clock.now + 0.001, table.settles_until + 0.001)
            t4.at(Action(action.kind, at, action.station, action.value))
            if table.settles_until > at:
                changes += 1
                assert_settled(t4, at)
        assert session.is_over(), f"{game} (seed {seed}) did not end"
        t4.frames(HOLD_S + 0.1)
        t = t4.send("press", stations[-1])
        assert table.screens == [table.lobby]
        assert_settled(t4, t)
        assert table.lobby.settings.joined == list(stations)
    if type(engine_of(games()[game])).prompt is not GameEngine.prompt:
        # A game that states its questions has its players move it on more than once.
        assert changes >= 2, f"{game}: {changes} changes made by a station"
