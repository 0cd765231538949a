"""The tray camera in the loop: a game waiting for dice gets them read, or the knob takes over."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from table.games.base import GameSetup
from table.loop.tray import TrayWatcher, camera_watcher
from table.play.session import Session

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "data" / "dice" / "tray-d6"


def ugah(dice_reader: bool = True) -> Session:
    return Session.start("ugah_ugah", GameSetup("ugah_ugah", stations=(0, 1), options={"dice_reader": dice_reader}), 4)


def results(watcher: TrayWatcher, timeout: float = 10.0) -> list[Any]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = watcher.poll(0.0)
        if got:
            return got
        time.sleep(0.01)
    return []


def test_a_waiting_game_gets_the_read_faces_and_a_read_counts_once() -> None:
    reads = []

    def read(source: object) -> list[int | str]:
        reads.append(source)
        return [1, 2, 3, 4, 5]

    watcher = TrayWatcher(lambda: "camera", read, time.monotonic)
    session = ugah()
    assert session.view()["expects_dice"] == 5
    watcher.update(session, 0.0)
    watcher.update(session, 0.1)  # same throw: no second reading
    (action,) = results(watcher)
    assert action.kind == "dice" and dict(action.value) == {"faces": [1, 2, 3, 4, 5]}
    assert len(reads) == 1
    session.apply(action)
    assert session.view()["throws"] >= 1 or session.view()["phase"] != "throw"
    watcher.close()


def test_a_failing_camera_hands_the_throw_to_the_knob(caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> object:
        raise OSError("no camera on /dev/video0")

    watcher = TrayWatcher(broken, lambda s: [1], time.monotonic)
    session = ugah()
    watcher.update(session, 0.0)
    (action,) = results(watcher)
    assert action.value["unsure"] is True
    session.apply(action)
    assert session.view()["input_mode"] == "manual"  # the knob sets the dice now
    assert "dice are set with the knob" in caplog.text
    watcher.close()


def test_games_without_a_camera_do_not_ask_the_tray() -> None:
    watcher = TrayWatcher(lambda: "camera", lambda s: [1], time.monotonic)
    watcher.update(ugah(dice_reader=False), 0.0)
    assert results(watcher, timeout=0.3) == []
    watcher.close()


@pytest.mark.skipif(not PHOTOS.is_dir(), reason="the shared tray photos are not here (../shared/data/dice/tray-d6)")
def test_the_real_reader_on_a_photo_folder_answers_a_ubongo_roll() -> None:
    setup = GameSetup("ubongo", "easy", (0, 1), options={"dice_reader": True})
    session = Session.start("ubongo", setup, 2)
    one_die = PHOTOS / "IMG_20191208_112554.jpg"  # one die, labelled four
    watcher = camera_watcher(str(one_die), time.monotonic, None)
    # Place both figures, then the round waits for the die.
    from table.games.base import Action

    for station in (0, 1):
        session.apply(Action("push", 1.0, station))
    assert session.view()["expects_dice"] == 1
    watcher.update(session, 1.0)
    (action,) = results(watcher, timeout=30)
    assert action.kind == "dice" and list(action.value["faces"]) == [4]
    session.apply(action)
    assert session.view()["die"]["index"] == 3  # the fourth symbol: row 4 of the puzzle board
    watcher.close()


@pytest.mark.skipif(not PHOTOS.is_dir(), reason="the shared tray photos are not here (../shared/data/dice/tray-d6)")
def test_the_simulators_tray_reads_a_picture_with_the_real_reader_or_takes_typed_faces() -> None:
    from table.hardware.sim import SimStations
    from table.kiosk.runner import _read_picture

    sim = SimStations(4, time.monotonic, dice_reader=_read_picture)
    sim.submit_tray(str(PHOTOS / "IMG_20191208_112554.jpg"))
    sim.submit_tray("3 5 1")
    faces = [list(a.value["faces"]) for a in sim.poll(time.monotonic())]
    assert faces == [[4], [3, 5, 1]]
    assert "read 4" not in sim.tray_message and "3 5 1" in sim.tray_message


def test_a_frame_too_small_for_dice_is_unreadable_not_a_broken_camera(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A 1x1 picture standing in for the camera (the size that broke the reader's filters):
    each throw is handed to the knob as unsure, and the camera is not given up."""
    import cv2
    import numpy as np

    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.full((1, 1, 3), 200, np.uint8))
    watcher = camera_watcher(str(tiny), time.monotonic, None)
    session = ugah()
    watcher.update(session, 0.0)
    (action,) = results(watcher, timeout=60)
    assert action.kind == "dice" and action.value["unsure"] is True and list(action.value["faces"]) == []
    assert "dice are set with the knob" not in caplog.text
    assert not watcher._failed
    watcher.close()
