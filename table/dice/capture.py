"""Where frames come from, and waiting until the dice have settled.

Contract: a :class:`FrameSource` yields BGR ``uint8`` frames with ``grab()`` (None when
it has no more) and is closed with ``close()``. Three sources:
- :class:`PiCamera` (picamera2, imported only when opened: it exists only on a Pi),
- :class:`Webcam` (OpenCV ``VideoCapture`` for a USB camera),
- :class:`ImageFiles` (a folder or list of picture files: tests and the simulator).
:func:`wait_until_settled` grabs frames until nothing moved for ``settle_seconds`` and
returns that still frame (or None on timeout / end of frames). The clock is injected so
tests run in virtual time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from table.common.checks import camera_problem
from table.common.errors import TableError
from table.dice.pictures import Image, u8

Frame = Image
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}


class FrameSource(Protocol):
    """Anything that hands out frames; must override ``grab`` and ``close``."""

    def grab(self) -> Frame | None: ...

    def close(self) -> None: ...


class ImageFiles:
    """Frames from picture files, in the given order (a folder: sorted by name)."""

    def __init__(self, paths: Sequence[Path] | Path, repeat_last: bool = False) -> None:
        if isinstance(paths, Path):
            if not paths.is_dir():
                raise TableError(f"{paths} is not a folder of pictures")
            paths = sorted(p for p in paths.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        self._paths = list(paths)
        self._next = 0
        self._repeat_last = repeat_last
        self._last: Frame | None = None

    def grab(self) -> Frame | None:
        if self._next >= len(self._paths):
            return self._last if self._repeat_last else None
        path = self._paths[self._next]
        self._next += 1
        try:
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        except cv2.error:
            img = None
        if img is None:
            raise TableError(f"{path} is not a picture OpenCV can read")
        self._last = u8(img)  # IMREAD_COLOR decodes to 8-bit BGR
        return self._last

    def close(self) -> None:
        self._next = len(self._paths)


class Webcam:
    """A USB camera through OpenCV's VideoCapture."""

    def __init__(self, index: int = 0, width: int = 640, height: int = 640) -> None:
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise TableError(f"the USB camera {index} could not be opened")
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def grab(self) -> Frame | None:
        ok, frame = self._cap.read()
        return u8(frame) if ok else None

    def close(self) -> None:
        self._cap.release()


class PiCamera:
    """The Raspberry Pi camera through picamera2 (Debian's python3-picamera2)."""

    def __init__(self, width: int = 640, height: int = 640) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise TableError("picamera2 is not installed (apt install python3-picamera2 on the Pi)") from exc
        self._cam = Picamera2()
        config = self._cam.create_still_configuration(main={"size": (width, height), "format": "RGB888"})
        self._cam.configure(config)
        self._cam.start()

    def grab(self) -> Frame | None:
        # picamera2's "RGB888" is stored B, G, R in memory: what OpenCV expects.
        return np.ascontiguousarray(self._cam.capture_array())

    def close(self) -> None:
        self._cam.stop()
        self._cam.close()


def open_source(spec: str) -> FrameSource:
    """``pi``, ``usb`` / ``usb:N``, or a folder / picture file path; a spec that cannot
    name a camera (``usb:-1``, a 20-digit number) is refused in one sentence."""
    problem = camera_problem(spec)
    if problem is not None:
        raise TableError(f"camera {spec!r}: {problem}")
    if spec == "pi":
        return PiCamera()
    if spec == "usb" or spec.startswith("usb:"):
        return Webcam(int(spec.split(":", 1)[1]) if ":" in spec else 0)
    path = Path(spec)
    if path.is_dir():
        return ImageFiles(path)
    if path.is_file():
        return ImageFiles([path])
    raise TableError(f"camera '{spec}' is neither pi, usb[:N], a folder nor a picture file")


def motion(a: Frame, b: Frame) -> float:
    """How much changed between two frames: the largest mean grey change of a 16x16 block."""
    small_a = cv2.resize(cv2.cvtColor(a, cv2.COLOR_BGR2GRAY), (40, 40), interpolation=cv2.INTER_AREA)
    small_b = cv2.resize(cv2.cvtColor(b, cv2.COLOR_BGR2GRAY), (40, 40), interpolation=cv2.INTER_AREA)
    return float(cv2.absdiff(small_a, small_b).max())


def wait_until_settled(
    source: FrameSource,
    settle_seconds: float = 0.6,
    motion_level: float = 12.0,
    timeout_seconds: float = 8.0,
    clock: Callable[[], float] = time.monotonic,
) -> Frame | None:
    """The first frame after which nothing moved for ``settle_seconds`` (see module doc)."""
    start = clock()
    prev = source.grab()
    if prev is None:
        return None
    still_since = clock()
    while clock() - start <= timeout_seconds:
        frame = source.grab()
        if frame is None:
            return None
        now = clock()
        if motion(prev, frame) > motion_level:
            still_since = now
        elif now - still_since >= settle_seconds:
            return frame
        prev = frame
    return None
