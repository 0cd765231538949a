"""Read every die's top face from one still frame of the tray.

Contract: :meth:`DiceReader.read` takes a BGR ``uint8`` frame and returns one
:class:`DieReading` per die found: ``face`` (1-6, or a symbol name when the reader was
given a calibrated symbol set), ``box`` (x0, y0, x1, y1 in the frame's pixels) and
``confidence`` in 0..1. Dice below the configured confidence are still reported, marked
by their confidence; :func:`tray_faces` turns a reading into the list the games use, or
None when any die is unsure (the table then asks for the manual fallback).

Pipeline: :func:`table.dice.detect.find_dice` proposes boxes, :mod:`table.dice.features`
describes each one, and the trained classifier (:mod:`table.dice.model`) names the face
or rejects the box as "not a die".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from table.common.errors import TableError
from table.common.repeats import RepeatedLog
from table.dice.capture import FrameSource, wait_until_settled
from table.dice.detect import Box, find_dice, grey_of, helper, rougher_than, texture_of, too_small, tray_area
from table.dice.features import canonical_crop, face_inputs
from table.dice.imagefile import MIN_SIDE
from table.dice.model import FaceModel
from table.dice.pictures import u8
from table.dice.settings import ReaderSettings, load_settings
from table.dice.symbols import REJECT_BELOW, SymbolSet, decide

log = logging.getLogger(__name__)
_too_small = RepeatedLog(log)  # a camera that gives tiny frames gives them each throw


@dataclass(frozen=True)
class DieReading:
    """One die: its top face, where it lies and how sure the reader is."""

    face: int | str
    box: Box
    confidence: float

    def as_json(self) -> dict[str, object]:
        return {"face": self.face, "box": list(self.box), "confidence": round(self.confidence, 3)}


class DiceReader:
    """Reads pip dice (default) or a calibrated set of symbol dice from still frames."""

    def __init__(self, settings: ReaderSettings | None = None, symbols: SymbolSet | None = None) -> None:
        self.settings = settings or load_settings()
        self.symbols = symbols
        self._model: FaceModel | None = None
        self._general: FaceModel | None = None
        # Whether the last frame read was read by the general networks (for reports).
        self.last_general = False

    @property
    def model(self) -> FaceModel:
        """The face networks for frames like the tray (``model`` in the settings)."""
        if self._model is None:
            self._model = _load(self.settings.model_path, self.settings.engine)
        return self._model

    @property
    def general(self) -> FaceModel | None:
        """The networks for frames unlike the tray (``general_model``), or None when off."""
        if self.settings.general_model is None:
            return None
        if self._general is None:
            self._general = _load(self.settings.general_model, self.settings.engine)
        return self._general

    def _networks(
        self, frame: NDArray[np.uint8], boxes: list[Box], area: NDArray[np.uint8] | None,
        grey: NDArray[np.uint8] | None = None, texture: NDArray[np.uint8] | None = None,
    ) -> tuple[FaceModel, bool, float]:
        """The networks that read this frame, whether to take the second look, and the
        confidence below which a reading is dropped as "not a die".

        With a ``general_model`` set, the reader chooses by itself from the frame: a frame
        whose surface away from the dice is rougher than the tray's, in fine detail
        (``tray_texture``: printing, woven cloth, a noisy camera) or in coarse grain
        (``tray_grain``: wood, stone, felt), is read by the general networks, with the
        second look.
        """
        s = self.settings
        if s.general_model is None:
            self.last_general = False
        else:
            self.last_general = rougher_than(frame, boxes, s.tray_texture, s.tray_grain, area, grey=grey,
                                             texture=texture)
        if self.last_general:
            general = self.general
            assert general is not None
            return general, True, s.general_drop_below
        return self.model, s.shrink_boxes, s.drop_below

    def _area(self, frame: NDArray[np.uint8]) -> NDArray[np.uint8] | None:
        if self.settings.tray_area is None:
            return None
        x0, y0, x1, y1 = self.settings.tray_area
        area = np.zeros(frame.shape[:2], np.uint8)
        area[y0:y1, x0:x1] = 1
        return area

    def read(self, frame: NDArray[np.uint8]) -> list[DieReading]:
        """All dice in ``frame``, in reading order (top to bottom, left to right); none
        in a frame under :data:`table.dice.imagefile.MIN_SIDE` pixels across or down,
        which cannot hold a die the finder reads."""
        if too_small(frame):
            _too_small.warning("a frame of %dx%d pixels is too small to hold dice (a tray picture is at least "
                               "%dx%d pixels): no dice read in it", frame.shape[1], frame.shape[0], MIN_SIDE, MIN_SIDE)
            return []
        area = self._area(frame)
        # The grey picture and its texture, made once for the die finder, the tray's rim
        # and the choice of networks.
        grey = grey_of(frame)
        rim: Future[NDArray[np.uint8] | None] | None = None
        if area is None and self.symbols is None and self.settings.general_model is not None:
            # Found once for the die finder and the choice of networks (both look inside
            # it), on the other core while this one makes the texture and the finder looks
            # for die pixels.
            rim = helper().submit(_inside_rim, grey, self.settings.finder.frame_dark)
        texture = texture_of(grey)
        boxes, _ = find_dice(frame, self.settings.finder, area=rim if rim is not None else area, grey=grey,
                             texture=texture)
        if rim is not None:
            area = rim.result()
        out: list[DieReading] = []
        if not boxes:
            return out
        if self.symbols is not None:
            for box in boxes:
                scores = self.symbols.scores(frame, box)
                if max(scores.values()) < REJECT_BELOW:
                    continue  # nothing like any calibrated face: tray hole, rim, shadow
                face, confidence = decide(scores)
                out.append(DieReading(face, box, confidence))
        else:
            out = self._read_pips(frame, boxes, area, grey, texture)
        out = _one_per_die(out)
        out.sort(key=lambda r: (r.box[1] // 20, r.box[0]))
        return out

    def _read_pips(
        self, frame: NDArray[np.uint8], boxes: list[Box], area: NDArray[np.uint8] | None = None,
        grey: NDArray[np.uint8] | None = None, texture: NDArray[np.uint8] | None = None,
    ) -> list[DieReading]:
        """Name each proposed box's face; boxes the network calls "not a die" (class 0) are dropped.

        With the second look (``shrink_boxes``, or a frame the general networks read) a
        box is read again shrunk about its centre when its first reading is a die less
        sure than ``second_look_below`` or "not a die" less sure than
        ``second_look_reject_below``: a die sure at first sight is not read twice. The
        two readings of a die share a centre, so the duplicate rule keeps the surer one.
        Readings below ``drop_below`` (``general_drop_below`` on a frame the general
        networks read) are dropped as "not a die" too.
        """
        s = self.settings
        if not boxes:
            return []
        # Which networks read the frame is decided on the other core while the faces'
        # inputs are made (for the tray's networks: the others take crops of the same side).
        tray = self.model
        choice = helper().submit(self._networks, frame, boxes, area, grey, texture)
        first = _inputs_beside_helper(np.stack([canonical_crop(frame, b, side=tray.side) for b in boxes]))
        model, second_look, floor = choice.result()

        def crops(bs: list[Box]) -> NDArray[np.float32]:
            return face_inputs(np.stack([canonical_crop(frame, b, side=model.side) for b in bs]))

        if model.side != tray.side:
            first = crops(boxes)
        classes, conf = model.predict(first)
        read = list(zip(boxes, classes, conf, strict=True))
        if second_look:
            h, w = frame.shape[:2]
            again = [shrunk(b, w, h, s.second_look_size) for b, c, p in read if _look_again(int(c), float(p), s)]
            if again:
                c2, p2 = model.predict(crops(again), s.second_look_views)
                read += list(zip(again, c2, p2, strict=True))
        return [DieReading(int(c), box, float(p)) for box, c, p in read if int(c) != 0 and p >= floor]

    def read_file(self, path: Path) -> list[DieReading]:
        return self.read(load_image(path))


# The share of a frame's crops whose inputs this thread makes while the helper, once it
# has chosen the networks (about a third of the time the inputs take), makes the rest.
HEAD_SHARE = 0.6


def _inputs_beside_helper(crops: NDArray[np.float32]) -> NDArray[np.float32]:
    """:func:`face_inputs` of ``crops``, the last part made on the helper thread.

    Each crop's input is computed from that crop alone, and parts of two crops or more
    are summed in the same order as the whole batch, so the parts give what the whole
    batch gives, to the bit (a batch of one crop sums one standard deviation in another
    order). numpy's array work releases the interpreter lock: the parts take two cores.
    """
    head = max(2, round(len(crops) * HEAD_SHARE))
    if len(crops) - head < 2:
        return face_inputs(crops)
    tail = helper().submit(face_inputs, crops[head:])
    return np.concatenate([face_inputs(crops[:head]), tail.result()])


def _inside_rim(grey: NDArray[np.uint8], frame_dark: int) -> NDArray[np.uint8]:
    """The inside of the tray's dark rim, or the whole frame when no rim spans the view."""
    rim = tray_area(grey, frame_dark)
    return rim if rim is not None else np.ones(grey.shape[:2], np.uint8)


def _look_again(face: int, confidence: float, s: ReaderSettings) -> bool:
    """Whether a box first read as ``face`` (0: not a die) at ``confidence`` gets the second look."""
    limit = s.second_look_below if face else s.second_look_reject_below
    return limit >= 1.0 or confidence < limit  # 1.0: every box (a probability may round to 1.0)


def _load(path: Path, engine: str) -> FaceModel:
    try:
        return FaceModel.load(path, engine)
    except (OSError, ValueError) as exc:
        raise TableError(str(exc)) from exc


# :func:`shrunk`'s own size, the second look's when the general networks were fine-tuned
# (tools/dice/conditions.py); the reader's second look takes ``second_look_size``.
SHRINK = 0.8


def shrunk(box: Box, width: int, height: int, factor: float = SHRINK) -> Box:
    """The square of ``factor`` x the box's longer side about its centre, inside the frame.

    Where the finder's box takes in a ring around the die (its shadow, or a surface the
    die's colour does not stand out from), the shrunk box is the die's face.
    """
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    half = max(box[2] - box[0], box[3] - box[1]) * factor / 2
    return (max(0, int(cx - half)), max(0, int(cy - half)), min(width, int(cx + half)), min(height, int(cy + half)))


# A box this much under surer dice's boxes is a piece of them (measured in docs/dice.md:
# anywhere from 0.5 to 0.7 removes the same boxes on the tray-d6 photos).
COVERED = 0.6


def _one_per_die(readings: list[DieReading]) -> list[DieReading]:
    """Keep one reading per die: surest first, a reading is dropped when its box's centre
    lies in a kept box, or when kept boxes cover at least COVERED of its area.

    The finder sometimes offers a die twice (whole, and a piece of it next to a touching
    neighbour), or one box over the touching halves of two dice that also have boxes of
    their own; the classifier is then usually surer of the whole dice. Seen from above, a
    die lies mostly in the open, so a box mostly under other dice's boxes is not one.
    """
    kept: list[DieReading] = []
    for r in sorted(readings, key=lambda r: -r.confidence):
        x0, y0, x1, y1 = r.box
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if any(k.box[0] < cx < k.box[2] and k.box[1] < cy < k.box[3] for k in kept):
            continue
        under = np.zeros((max(y1 - y0, 1), max(x1 - x0, 1)), bool)
        for k in kept:
            under[max(k.box[1] - y0, 0) : max(k.box[3] - y0, 0), max(k.box[0] - x0, 0) : max(k.box[2] - x0, 0)] = True
        if under.mean() >= COVERED:
            continue
        kept.append(r)
    return kept


def load_image(path: Path) -> NDArray[np.uint8]:
    """The image at ``path`` as BGR; OSError with one sentence when it cannot be read.

    The header is checked before decoding (:mod:`table.dice.imagefile`): a picture over
    the pixel limit, cut short or not a picture at all is refused without decoding it.
    """
    from table.dice.imagefile import ImageError, read_image_bytes

    data = read_image_bytes(path)
    try:
        img = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    except cv2.error as exc:
        raise ImageError(f"{path}: not an image OpenCV can read (damaged, or larger than it accepts)") from exc
    if img is None:
        raise ImageError(f"{path}: a damaged picture (OpenCV cannot decode it)")
    return u8(img)  # IMREAD_COLOR decodes to 8-bit BGR


def tray_faces(readings: list[DieReading], min_confidence: float) -> list[int | str] | None:
    """The faces for the game, or None (= ask for the manual fallback) when unsure."""
    if not readings or any(r.confidence < min_confidence for r in readings):
        return None
    return [r.face for r in readings]


_default: DiceReader | None = None
_default_home: object = None  # the config directory the cached reader was made under


def forget_default_reader() -> None:
    """The next :func:`read_tray_image` loads the settings and model afresh (after a teach)."""
    global _default
    _default = None


def read_tray_image(path: str | Path) -> list[int | str] | None:
    """Faces of the dice in a picture file, or None when unsure or unreadable.

    This is what the simulator's dice tray calls with a picture file: None means the
    table should ask for the faces by knob (the manual fallback).
    """
    global _default, _default_home
    from table.common.datafiles import config_dir

    if _default is None or _default_home != config_dir():
        # Made anew when the config directory in force changed: its settings and model
        # (a taught one, say) are another reader's.
        _default, _default_home = DiceReader(), config_dir()
    try:
        readings = _default.read_file(Path(path))
    except (OSError, TableError):  # unreadable picture, or no usable face model: ask by knob
        return None
    return tray_faces(readings, _default.settings.min_confidence)


def read_settled_throw(
    source: FrameSource, reader: DiceReader | None = None, clock: Callable[[], float] = time.monotonic
) -> list[int | str] | None:
    """What the table loop calls after a throw: wait for still dice, read them.

    Returns the faces, or None (ask by knob) when the camera gave no still frame in time
    or any die is unsure.
    """
    reader = reader or DiceReader()
    s = reader.settings
    frame = wait_until_settled(source, s.settle_seconds, s.motion_level, s.timeout_seconds, clock)
    if frame is None:
        return None
    return tray_faces(reader.read(frame), s.min_confidence)
