"""The loop's outputs: button LEDs and arming, the LED hourglass, and a failing output."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pygame
import pytest

from table.common.config import TableConfig
from table.display.output import Output
from table.display.theme import STATION_COLOURS
from table.games.base import Action, GameSetup
from table.hardware.hourglass import END_COLOUR
from table.hardware.interfaces import HourglassLayout, InputSink, LedState, StationInput, Stations
from table.loop.app import ScriptedInputs, Table
from table.loop.outputs import ButtonLeds, HourglassOutput, ScreenHourglass, StationInputs
from table.play.clock import VirtualClock


class RecordingStations(Stations):
    def __init__(self) -> None:
        self.leds: list[dict[int, LedState]] = []
        self.armed: list[Collection[int] | None] = []
        self.armed_at: list[float | None] = []
        self.sink: InputSink | None = None
        self.held: dict[int, float] = {}

    def pushes_held(self) -> dict[int, float]:
        return dict(self.held)

    def start(self, sink: InputSink) -> None:
        self.sink = sink

    def stop(self) -> None:
        self.sink = None

    def set_leds(self, states: Mapping[int, LedState]) -> None:
        self.leds.append(dict(states))

    def arm(self, stations: Collection[int] | None, at: float | None = None) -> None:
        self.armed.append(stations)
        self.armed_at.append(at)

    def diagnostics(self) -> dict[str, Any]:
        return {}


class Broken(Output):
    calls = 0

    def update(self, session: object, now: float) -> None:
        Broken.calls += 1
        raise OSError("the LED strip went away")

    def close(self) -> None:
        return None


@pytest.fixture
def table(tmp_path: Path) -> tuple[Table, VirtualClock, RecordingStations, ScreenHourglass]:
    pygame.display.init()
    pygame.font.init()
    clock = VirtualClock(50.0)
    stations = RecordingStations()
    inputs = StationInputs(stations)
    inputs.start()
    glass = ScreenHourglass(HourglassLayout("strip", 60))
    outputs: list[Any] = [Broken(), ButtonLeds(stations, 3, clock),
                          HourglassOutput(glass, STATION_COLOURS, max_fps=1000)]
    t = Table(TableConfig(stations=3), clock, pygame.Surface((640, 360)), None, inputs=[inputs, ScriptedInputs()],
              outputs=outputs, attract=False)
    return t, clock, stations, glass


def step(t: Table, clock: VirtualClock, seconds: float) -> None:
    end = clock.now + seconds
    while clock.now < end:
        clock.advance(0.05)
        t.step(clock.now)


def test_leds_follow_who_may_act_and_only_they_are_armed(table: Any) -> None:
    t, clock, stations, _ = table
    step(t, clock, 0.2)
    assert stations.leds[-1] == {0: "on", 1: "on", 2: "on"} and stations.armed[-1] is None
    t.start_game(GameSetup("ubongo_shimo", stations=(0, 2)))
    started = clock.now
    step(t, clock, 0.2)  # count-down: nobody may press yet; armed from the moment the cards turn
    assert stations.leds[-1] == {0: "off", 1: "off", 2: "off"}
    assert stations.armed[-1] == {0, 2}
    assert stations.armed_at[-1] == pytest.approx(started + 3.0, abs=0.06)
    step(t, clock, 3.0)
    assert stations.leds[-1] == {0: "blink", 1: "off", 2: "blink"} and stations.armed[-1] == {0, 2}
    assert stations.armed_at[-1] is None


def test_station_inputs_arrive_through_the_backend_sink(table: Any) -> None:
    t, clock, stations, _ = table
    t.start_game(GameSetup("ubongo_shimo", stations=(0, 2)))
    step(t, clock, 4.0)
    stations.sink(StationInput("press", 2, clock.now))
    step(t, clock, 0.1)
    assert t.session.view()["callers"] == [2]


def test_the_hourglass_flashes_a_press_runs_the_sand_and_flashes_at_the_end(table: Any) -> None:
    t, clock, stations, glass = table
    step(t, clock, 1.0)  # the menu first: game time restarts at 0 when the game starts
    t.start_game(GameSetup("ubongo_shimo", stations=(0, 2)))
    step(t, clock, 4.0)
    stations.sink(StationInput("press", 2, clock.now))
    step(t, clock, 0.1)
    assert STATION_COLOURS[2] in glass.frame or any(c != (0, 0, 0) for c in glass.frame)
    step(t, clock, 30.0)
    top, bottom = glass.frame[:30], glass.frame[30:]
    assert sum(any(c) for c in top) == pytest.approx(15, abs=2)  # half the sand has fallen
    assert sum(any(c) for c in bottom) == pytest.approx(15, abs=2)
    step(t, clock, 29.8)
    seen = []
    for _ in range(30):  # the 1.5 s around the end
        step(t, clock, 0.05)
        seen.append(glass.frame)
    assert [END_COLOUR] * 60 in seen  # the end flash
    step(t, clock, 5.0)
    assert all(any(c) for c in glass.frame[30:]) and not any(any(c) for c in glass.frame[:30])


def test_a_failing_output_is_dropped_and_the_game_goes_on(table: Any, caplog: pytest.LogCaptureFixture) -> None:
    t, clock, _, _ = table
    Broken.calls = 0
    step(t, clock, 1.0)
    assert Broken.calls == 1 and caplog.text.count("the table goes on without it") == 1
    t.dispatch(Action("press", clock.now, 0))
    step(t, clock, 0.5)


def test_the_first_callers_button_stays_lit_for_the_round() -> None:
    from table.games.base import Action, GameSetup
    from table.loop.outputs import ButtonLeds
    from table.play.session import Session, run_until_idle

    class Recorder:
        def __init__(self) -> None:
            self.leds: dict[int, str] = {}

        def set_leds(self, states: dict[int, str]) -> None:
            self.leds = dict(states)

        def arm(self, stations: object, at: float | None = None) -> None:
            return None

    stations = Recorder()
    leds = ButtonLeds(stations, 3)  # type: ignore[arg-type]
    s = Session.start("ubongo_shimo", GameSetup("ubongo_shimo", stations=(0, 1, 2)), 1)
    run_until_idle(s, until=5.0)
    leds.update(s, 5.0)
    assert stations.leds == {0: "blink", 1: "blink", 2: "blink"}
    s.apply(Action("press", 6.0, 1))
    leds.update(s, 6.0)
    assert stations.leds == {0: "blink", 1: "on", 2: "blink"}


def test_a_press_that_counts_flashes_its_button_led_and_its_place_on_screen(table: Any) -> None:
    t, clock, stations, _ = table
    t.start_game(GameSetup("ubongo_shimo", stations=(0, 2)))
    step(t, clock, 4.0)
    assert stations.leds[-1] == {0: "blink", 1: "off", 2: "blink"}
    armed = len(stations.armed)
    stations.sink(StationInput("press", 2, clock.now))
    step(t, clock, 0.05)
    # The caller's light turns the other way for a moment, then stays on ("you were first").
    assert stations.leds[-1] == {0: "blink", 1: "off", 2: "off"}
    assert "station:flash2" in {p.name for p in t.frame_parts((640, 360), clock.now)}
    step(t, clock, 0.4)
    assert stations.leds[-1] == {0: "blink", 1: "off", 2: "on"}
    assert "station:flash2" not in {p.name for p in t.frame_parts((640, 360), clock.now)}
    assert len(stations.armed) == armed + 1  # re-armed for the new state only, not for the flash
    # A press that means nothing (station 2 has called already) does not flash.
    stations.sink(StationInput("press", 2, clock.now))
    step(t, clock, 0.05)
    assert "station:flash2" not in {p.name for p in t.frame_parts((640, 360), clock.now)}


def test_a_held_knob_shows_a_ring_that_fills_and_goes_on_release(table: Any) -> None:
    from table.display.station_marks import ring_progress

    t, clock, stations, _ = table
    t.start_game(GameSetup("ubongo_shimo", stations=(0, 2)))
    step(t, clock, 4.0)
    stations.held[1] = clock.now
    down = clock.now
    step(t, clock, 0.05)  # the very next frame shows it
    rings = [p for p in t.frame_parts((640, 360), clock.now) if p.name == "station:ring1"]
    assert len(rings) == 1 and t.live
    early = rings[0].at(clock.now)[0]
    step(t, clock, 1.0)
    later = rings[0].at(clock.now)[0]
    assert early != later
    assert ring_progress(down, 2.0, down + 0.5) < ring_progress(down, 2.0, down + 1.0) < ring_progress(
        down, 2.0, down + 2.0) == ring_progress(down, 2.0, down + 9.0)
    del stations.held[1]  # released early
    step(t, clock, 0.05)
    assert not any(p.name.startswith("station:ring") for p in t.frame_parts((640, 360), clock.now))


def test_a_non_players_ring_never_lands_in_a_players_panel(table: Any) -> None:
    """Two of three stations play: the third one's seat share of the bottom edge lies in a
    player's panel, so its ring shows in the middle; a player's stays on their own panel."""
    from table.display.station_marks import hold_ring_rect, station_slot

    t, clock, stations, _ = table
    size = (640, 360)
    t.start_game(GameSetup("ubongo_shimo", stations=(0, 2)))
    step(t, clock, 4.0)
    stations.held[1] = clock.now
    stations.held[2] = clock.now
    step(t, clock, 0.05)
    rings = {p.name: p.rect for p in t.frame_parts(size, clock.now) if p.name.startswith("station:ring")}
    assert rings["station:ring2"] == hold_ring_rect(t.theme, size, 1, 2)  # player 2's panel: the right half
    outsider = rings["station:ring1"]
    assert outsider.center == (size[0] // 2, size[1] // 2)
    panels_top = size[1] * 2 // 3  # the players' panels fill the bottom of a game's screen
    assert outsider.bottom < panels_top
    assert not any(outsider.colliderect(station_slot(t.theme, size, k, 2)) for k in range(2))


def test_a_games_bad_speech_file_is_refused_when_the_game_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``table run`` leaves a game's own files to the game's start (the table starts
    without importing any game's screen): ``speed = "fast"`` is refused there, in one
    sentence, and the game plays without reading aloud (``table check-config`` refuses
    the file before: ``tests/test_cli.py``)."""
    from table.games import get_engine
    from table.loop.outputs import GameOutputs
    from table.play.session import Session

    (tmp_path / "umtata").mkdir()
    (tmp_path / "umtata" / "speech.toml").write_text('speed = "fast"\n')
    engine = get_engine("umtata")
    session = Session.start("umtata", GameSetup("umtata", stations=tuple(range(engine.min_stations))), 1)
    outputs = GameOutputs(tmp_path)
    outputs.update(session, 0.0)
    assert outputs.made == {"umtata": []}
    said = [r.getMessage() for r in caplog.records if "plays without its own outputs" in r.getMessage()]
    assert said == [f"{engine.title} plays without its own outputs: {tmp_path}/umtata/speech.toml: speed: must be "
                    "a whole number from 80 to 450"]
