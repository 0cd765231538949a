"""The process around the table (``table run``): systemd, the kiosk's way out, a bad journal."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from table.common.config import load_config
from table.display.screens import LeaveKioskScreen, TableMenuScreen
from table.games.base import GameSetup
from table.kiosk.runner import Runner
from table.kiosk.systemd import EXIT_LEAVE_KIOSK

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def frames(runner: Runner, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end and not runner.stop:
        runner.frame()


def test_ready_and_watchdog_reach_systemd_and_stopping_at_the_end(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    sock_path = tmp_path / "notify"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(sock_path))
    server.settimeout(2)
    monkeypatch.setenv("NOTIFY_SOCKET", str(sock_path))
    monkeypatch.setenv("WATCHDOG_USEC", "200000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    runner = Runner(load_config(), sim=True, headless=True, journal_path=tmp_path / "j.db")
    frames(runner, 0.5)
    runner.close()
    got = []
    try:
        while True:
            got.append(server.recv(4096).decode())
    except TimeoutError:
        pass
    server.close()
    text = "\n".join(got)
    assert "READY=1" in text and "WATCHDOG=1" in text and "STOPPING=1" in text
    assert text.index("READY=1") < text.index("STOPPING=1")


def test_first_and_last_station_hold_then_press_to_leave_the_kiosk(tmp_path: Path) -> None:
    runner = Runner(load_config(), sim=True, headless=True, journal_path=tmp_path / "j.db")
    runner.table.start_game(GameSetup("ubongo_shimo", stations=(0, 1, 2, 3)))
    frames(runner, 0.1)
    sim = runner.sim_stations
    sim._station_input("long_push", 0)
    sim._station_input("long_push", 3)
    frames(runner, 0.1)
    assert isinstance(runner.table.screens[-1], LeaveKioskScreen)
    assert isinstance(runner.table.screens[-2], TableMenuScreen)  # the game is paused meanwhile
    sim._station_input("press", 1)  # anything else cancels
    frames(runner, 0.1)
    assert not isinstance(runner.table.screens[-1], LeaveKioskScreen) and not runner.stop
    sim._station_input("long_push", 3)
    sim._station_input("long_push", 0)
    frames(runner, 0.1)
    sim._station_input("press", 0)
    sim._station_input("press", 3)
    frames(runner, 0.2)
    assert runner.stop and runner.exit_status == EXIT_LEAVE_KIOSK
    runner.close()


def test_an_unusable_journal_is_set_aside_and_the_table_starts(tmp_path: Path) -> None:
    bad = tmp_path / "j.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    runner = Runner(load_config(), sim=True, headless=True, journal_path=bad)
    frames(runner, 0.2)
    runner.close()
    assert list(tmp_path.glob("j.db.damaged-*"))


def test_a_display_that_cannot_be_opened_is_one_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the display device (no screen, or the unit's DeviceAllow=char-drm gone) SDL
    refuses to start; the table says so in one sentence instead of a traceback."""
    import pygame

    from table.common.errors import TableError

    def refuse() -> None:
        raise pygame.error("kmsdrm not available")

    monkeypatch.setattr(pygame.display, "init", refuse)
    monkeypatch.setenv("SDL_VIDEODRIVER", "kmsdrm")
    with pytest.raises(TableError) as caught:
        Runner(load_config(), sim=True, headless=False, journal_path=tmp_path / "j.db")
    message = str(caught.value)
    assert "the display cannot be opened with SDL's 'kmsdrm' driver (kmsdrm not available)" in message
    assert "/dev/dri" in message and "\n" not in message


def test_a_screenshot_taken_mid_sweep_is_the_finished_picture(tmp_path: Path) -> None:
    import pygame

    from table.display.layers import paint_all

    runner = Runner(load_config(), sim=True, headless=True, journal_path=tmp_path / "j.db")
    frames(runner, 0.1)
    # A new screen over most of the lobby: the frame that shows it starts a sweep.
    runner.table.start_game(GameSetup("ubongo_shimo", stations=(0, 1, 2, 3)))
    runner.frame()
    assert runner.table.composer.pending
    shot = tmp_path / "shot.png"
    now = runner.clock()
    expected = pygame.Surface(runner.surface.get_size())
    paint_all(expected, [p for s in runner.table._visible() for p in s.parts(expected.get_size(), now)], now)
    runner.close(shot)
    saved = pygame.image.load(str(shot))
    top = saved.subsurface((0, 0, *expected.get_size()))
    # Below the first band too, the saved picture is the new screen (the sand may
    # have moved a pixel in between: compare the game's header and its lower half).
    for y in (5, expected.get_height() * 3 // 4, expected.get_height() - 5):
        for x in range(0, expected.get_width(), 37):
            assert top.get_at((x, y))[:3] == expected.get_at((x, y))[:3], (x, y)
