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
    runner.run(seconds)  # the loop sleeps until something is due: run() bounds it


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


def _still_lobby(tmp_path: Path) -> Runner:
    """The table in its lobby, its layers taken as built, nothing moving on screen."""
    runner = Runner(load_config(), sim=True, headless=True, journal_path=tmp_path / "j.db")
    runner.table.attract_enabled = False
    runner.table.prepare_enabled = False
    runner.run(0.1)  # the first frame
    return runner


def _counting(runner: Runner) -> dict[str, int]:
    counts = {"wakes": 0, "steps": 0}
    frame, step = runner.frame, runner.table.step

    def counted_frame() -> None:
        counts["wakes"] += 1
        frame()

    def counted_step(now: float) -> bool:
        counts["steps"] += 1
        return step(now)

    runner.frame = counted_frame  # type: ignore[method-assign]
    runner.table.step = counted_step  # type: ignore[method-assign]
    return counts


def test_a_still_lobby_wakes_only_for_the_leds_glow(tmp_path: Path) -> None:
    from table.loop.outputs import HourglassOutput

    runner = _still_lobby(tmp_path)
    counts = _counting(runner)
    runner.run(1.0)
    runner.close()
    assert counts["steps"] == 0  # the screens are not looked at: nothing on them is due
    assert counts["wakes"] <= HourglassOutput.IDLE_FPS * 1.0 + 3  # no polling beside the glow


def test_with_nothing_due_the_loop_sleeps_until_an_input(tmp_path: Path) -> None:
    import threading

    from table.loop.outputs import HourglassOutput

    runner = _still_lobby(tmp_path)
    runner.table.outputs = [o for o in runner.table.outputs if not isinstance(o, HourglassOutput)]
    runner.run(0.05)
    counts = _counting(runner)
    runner.run(0.5)
    assert counts["steps"] == 0 and counts["wakes"] <= 2  # a sleep to the end of the run
    pressed = threading.Timer(0.2, runner.sim_stations._station_input, ("press", 1))
    begin = time.monotonic()
    pressed.start()
    runner.run(0.5)
    pressed.join()
    runner.close()
    assert 0.2 <= runner.table.last_input - begin < 0.3  # handled when it came
    assert 1 in runner.table.lobby.settings.joined


@pytest.mark.heavy  # preparation starts after two idle seconds
def test_sigterm_cuts_a_long_preparation_step_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A preparation step builds one cached picture (a map: seconds on a Pi); a SIGTERM
    that comes during it stops the table at once, cleanly, instead of after the step."""
    import signal
    import threading
    from collections.abc import Iterator

    import table.loop.app as app
    from table.kiosk.runner import run_table

    entered = threading.Event()
    spun: list[float] = []

    def slow_preparations(theme: object) -> Iterator[None]:
        entered.set()
        end = time.monotonic() + 60.0  # far longer than the stop may take
        while time.monotonic() < end:  # pure Python, as a step's drawing is between calls
            pass
        spun.append(time.monotonic())
        yield

    monkeypatch.setattr(app, "preparations", slow_preparations)

    def terminate() -> None:
        if entered.wait(30.0):
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGTERM)

    handlers = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    killer = threading.Thread(target=terminate, daemon=True)
    killer.start()
    try:
        started = time.monotonic()
        status = run_table(load_config(), sim=True, headless=True, seconds=None, journal_path=tmp_path / "j.db")
        took = time.monotonic() - started
    finally:
        signal.signal(signal.SIGTERM, handlers[0])
        signal.signal(signal.SIGINT, handlers[1])
    assert entered.is_set() and status == 0
    assert not spun, "the step ran to its end before the table stopped"
    assert took < 30.0, took
