"""Each station's private display follows its own view only: the cursor it is about to
lock, what it locked, what to do now - on the OLED (the real driver on a fake bus) and
in the simulator's stations bar, which draws the same picture."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path

import pygame
import pytest

from table.display.sim_window import draw_stations_bar
from table.display.station_screen import OLED_LIT, StationPicture, station_picture
from table.display.theme import Theme
from table.games.base import Action, GameSetup
from table.hardware.interfaces import MonoPicture, StationDisplays
from table.loop.outputs import ScreenStationDisplays, StationScreens, station_lines
from table.play.session import Session


class RecordingDisplays(StationDisplays):
    def __init__(self, stations: Collection[int]) -> None:
        self.stations = tuple(stations)
        self.shown: list[tuple[int, MonoPicture]] = []

    def start(self) -> None:
        return None

    def show(self, station: int, picture: MonoPicture) -> None:
        self.shown.append((station, picture))

    def close(self) -> None:
        return None


def umtata() -> Session:
    return Session.start("umtata", GameSetup("umtata", stations=(0, 1, 2)), seed=4)


def test_the_display_shows_its_own_cursor_and_no_other() -> None:
    session = umtata()
    displays = RecordingDisplays([0, 1])
    screens = StationScreens(displays)
    screens.update(session, 0.0)
    assert [s for s, _ in displays.shown] == [0, 1]
    session.apply(Action("turn", 1.0, 0, {"delta": 6}))  # sector 6: east, green
    displays.shown.clear()
    screens.update(session, 1.0)
    # Only S1's picture changed: S2's cursor is where it was, and S1's turn is not on it.
    assert [s for s, _ in displays.shown] == [0]
    assert station_lines(session, 0) == [("turn + push, or Tataaa!", "small"), ("East", "big"), ("green", "big")]
    assert station_lines(session, 1) == [("turn + push, or Tataaa!", "small"), ("North", "big"),
                                         ("orange", "big")]
    assert displays.shown[0][1] == station_picture(station_lines(session, 0))
    session.apply(Action("push", 2.0, 0))
    session.apply(Action("turn", 3.0, 1, {"delta": 3}))
    assert station_lines(session, 0) == [("locked - wait", "small"), ("East", "big"), ("green", "big")]
    assert "you" not in session.view(None)  # the shared screen never gets a cursor


def test_nothing_changes_nothing_is_sent() -> None:
    session = umtata()
    displays = RecordingDisplays([0])
    screens = StationScreens(displays)
    screens.update(session, 0.0)
    screens.update(session, 0.5)
    assert len(displays.shown) == 1
    screens.update(None, 1.0)  # the game ended: the lobby shows the station's name
    assert station_lines(None, 0) == [("S1", "big")]
    assert len(displays.shown) == 2


def test_the_real_driver_gets_the_cursor_on_a_fake_bus() -> None:
    pytest.importorskip("adafruit_ssd1306")
    from fakes.i2c import FakeI2C

    from table.hardware.config import StationDisplay
    from table.hardware.oled import OledDisplays, framebuffer_bytes

    bus = FakeI2C()
    oled = OledDisplays({0: StationDisplay(mux_channel=0)}, i2c=bus)
    oled.start()
    session = umtata()
    session.apply(Action("turn", 1.0, 0, {"delta": 6}))
    StationScreens(oled).update(session, 1.0)
    assert oled.flush()
    expected = station_picture(station_lines(session, 0))
    assert bus.frames()[-1][1:] == framebuffer_bytes(expected)
    assert oled._drivers[0].pixel(*next((x, y) for y in range(64) for x in range(128) if expected.lit(x, y)))


def test_the_simulator_bar_draws_the_same_picture(tmp_path: Path) -> None:
    pygame.init()
    session = umtata()
    session.apply(Action("turn", 1.0, 0, {"delta": 6}))
    sim = ScreenStationDisplays(range(3))
    StationScreens(sim).update(session, 1.0)

    class Bar:
        stations = 3
        leds: Mapping[int, str] = {}
        knob: Mapping[int, int] = {0: 6}
        held_push: Collection[int] = ()
        typing = None
        tray_message = ""

        def key_hint(self, station: int) -> str:
            return "Q W E R"

    surface = pygame.Surface((1280, 170))
    draw_stations_bar(surface, surface.get_rect(), Theme(1280, 720), 1.0, Bar(), sim.pictures)
    out = Path(os.environ.get("STATION_SCREENS_PNG", tmp_path / "bar.png"))
    pygame.image.save(surface, str(out))
    shown = sim.pictures[0]
    assert isinstance(shown, StationPicture)
    lit_pixels = pygame.mask.from_threshold(surface, (*OLED_LIT, 255), (1, 1, 1, 255)).count()
    # All three stations' displays are drawn, each pixel at least once.
    total = sum(sum(p.pixels) for p in sim.pictures.values())
    assert total > 600 and lit_pixels >= total


def test_the_display_speaks_the_tables_language() -> None:
    from table.common.i18n import LANGUAGES, set_language

    session = umtata()
    session.apply(Action("turn", 1.0, 0, {"delta": 6}))
    set_language("de")
    try:
        assert station_lines(session, 0) == [("drehen und drücken oder Tataaa!", "small"), ("Ost", "big"),
                                             ("grün", "big")]
    finally:
        set_language(LANGUAGES[0])


def test_after_the_game_the_display_says_it_is_over_not_the_last_prompt() -> None:
    from table.play.session import END

    session = umtata()
    session.apply(Action("turn", 1.0, 0, {"delta": 6}))
    assert station_lines(session, 0)[0] == ("turn + push, or Tataaa!", "small")
    session.apply(Action(END, 2.0, None))
    assert station_lines(session, 0) == [("S1", "big"), ("Game over", "small")]


def test_a_long_hint_is_wrapped_between_words_never_cut() -> None:
    hint = "drehen und drücken oder Tataaa! und dann noch einmal"
    wrapped = station_picture([("S1", "big"), (hint, "small")])
    # The same words, broken by hand where the display's width breaks them.
    from table.display.station_screen import _wrapped

    pieces = _wrapped([(hint, "small")], 126)
    assert len(pieces) >= 2 and " ".join(text for text, _ in pieces) == hint
    assert all("…" not in text for text, _ in pieces)
    assert wrapped == station_picture([("S1", "big"), *pieces])
    assert wrapped != station_picture([("S1", "big"), (hint, "small")][:1])
