"""The dice tray camera in the table loop: read the tray when a game waits for a throw.

A game's public view says ``expects_dice: n`` while it waits for the camera to read a
throw of ``n`` dice. :class:`TrayWatcher` sees that (it is an output of the loop),
reads the tray on its own thread once the dice have settled, and hands back a
``dice`` action (it is also an input source of the loop):

* a sure reading: ``{"faces": [...]}``; a wrong count is the game's to handle (it asks
  for a re-throw or a correction);
* an unsure reading, no still frame in time, or a camera that fails:
  ``{"faces": [...], "unsure": true}``, and the game lets the player set the dice with
  the knob. The game never stalls on the camera.

When the same throw must be read again (the game rejected the reading), the watcher
first waits for the dice to move, so it does not read the same still picture twice.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table.display.output import Output
from table.games.base import Action, JSONValue
from table.games.contract import TableView, table_view
from table.play.session import Session

log = logging.getLogger(__name__)


def _throw_key(session: Session, view: TableView) -> tuple[JSONValue, ...]:
    """What identifies one awaited throw: a new key means a new reading is wanted."""
    return (id(session), view.get("round"), view.get("turn"), view.get("throws"), view.get("expects_dice"),
            tuple(view.get("tray") or ()), view.get("tray_problem"))


class TrayWatcher(Output):
    """Reads the tray for the games (an input source and an output of the table loop).

    ``open_source`` opens the camera (``table.dice.capture.open_source``); ``read``
    turns a frame source into faces or None (``table.dice.read_settled_throw``).
    Both run on the watcher's thread, never on the loop's.
    """

    def __init__(
        self,
        open_source: Callable[[], Any],
        read: Callable[[Any], list[int | str] | None],
        clock: Callable[[], float],
        wake: Callable[[], None] | None = None,
        wait_for_motion: Callable[[Any], bool] | None = None,
    ) -> None:
        self._open_source = open_source
        self._read = read
        self._wait_for_motion = wait_for_motion
        self.clock = clock
        self.wake = wake
        self._requests: queue.SimpleQueue[tuple[tuple[JSONValue, ...], bool] | None] = queue.SimpleQueue()
        self._results: queue.SimpleQueue[Action] = queue.SimpleQueue()
        self._last_key: tuple[JSONValue, ...] | None = None
        self._read_for: tuple[JSONValue, ...] | None = None
        self._source: Any = None
        self._failed = False
        self._thread = threading.Thread(target=self._run, name="tray", daemon=True)
        self._thread.start()

    # -- output: follow the game --------------------------------------------------------
    def update(self, session: Session | None, now: float) -> None:
        if session is None:
            return
        view = table_view(session.view(None))
        if not view.get("expects_dice"):
            self._last_key = None
            return
        key = _throw_key(session, view)
        if key == self._last_key:
            return
        # Same throw again (the reading was rejected): wait for the dice to move first.
        again = self._read_for is not None and key[:4] == self._read_for[:4]
        self._last_key = key
        self._read_for = key
        self._requests.put((key, again))

    # -- input source: hand back what was read ------------------------------------------
    def poll(self, now: float) -> list[Action]:
        out: list[Action] = []
        while True:
            try:
                out.append(self._results.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        self._requests.put(None)
        self._thread.join(timeout=2)
        if self._source is not None and hasattr(self._source, "close"):
            try:
                self._source.close()
            except Exception:
                log.exception("closing the tray camera failed")

    # -- the watcher's thread -----------------------------------------------------------
    def _run(self) -> None:
        while True:
            request = self._requests.get()
            if request is None:
                return
            _, again = request
            faces: list[int | str] | None = None
            try:
                if self._source is None and not self._failed:
                    self._source = self._open_source()
                if self._source is not None:
                    if again and self._wait_for_motion is not None:
                        self._wait_for_motion(self._source)
                    faces = self._read(self._source)
            except Exception as exc:  # a camera failure is logged once; the knob takes over
                if not self._failed:
                    log.warning("the tray camera failed (%s); dice are set with the knob from now on", exc)
                self._failed = True
                self._source = None
            value: dict[str, JSONValue] = {"faces": faces or []}
            if faces is None:
                value["unsure"] = True
            self._results.put(Action("dice", self.clock(), None, value))
            if self.wake is not None:
                self.wake()


def camera_watcher(spec: str, clock: Callable[[], float], wake: Callable[[], None] | None) -> TrayWatcher:
    """A :class:`TrayWatcher` on the camera ``spec`` (``pi``, ``usb[:N]``, a folder or a file)."""

    def open_source() -> Any:
        from table.dice.capture import ImageFiles
        from table.dice.capture import open_source as open_camera

        path = Path(spec)
        if path.exists():
            # Pictures standing in for the camera: the last stays in view, as a still tray would.
            return ImageFiles(path if path.is_dir() else [path], repeat_last=True)
        return open_camera(spec)

    def read(source: Any) -> list[int | str] | None:
        from table.dice import read_settled_throw

        return read_settled_throw(source, clock=clock)

    def wait_for_motion(source: Any, timeout: float = 120.0) -> bool:
        from table.dice.capture import motion
        from table.dice.settings import load_settings

        level = load_settings().motion_level
        start = clock()
        prev = source.grab()
        while prev is not None and clock() - start < timeout:
            frame = source.grab()
            if frame is None:
                return False
            if motion(prev, frame) > level:
                return True
            prev = frame
        return False

    return TrayWatcher(open_source, read, clock, wake, wait_for_motion)
