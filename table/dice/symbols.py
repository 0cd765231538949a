"""Symbol dice: faces with pictures instead of pips, taught once by calibration.

Contract: a :class:`SymbolSet` holds, for every face name, a few templates taken from
pictures of that face. :meth:`SymbolSet.classify` takes a frame and a die box and returns
``(name, confidence)``; :meth:`SymbolSet.save` / :func:`load_symbols` store the set in
``config/dice/symbols/<NAME>.npz``.

Matching does not care how the die lies: each face becomes a polar image (rings around
the die centre x angles) of its normalised brightness, and two faces are compared by
circular cross-correlation over all angle shifts (an FFT along the angle axis), keeping
the best shift. A small shift of the centre is tried too, since the die finder's box is
not exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from table.common.errors import TableError
from table.dice.detect import Box
from table.dice.features import SIDE, canonical_crop
from table.dice.pictures import f32

Finder = Callable[[NDArray[np.uint8]], tuple[list[Box], float]]
"""A die finder: a frame -> the die boxes in it and the typical die size."""

RINGS = 14
ANGLES = 72
_YY, _XX = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32) - (SIDE - 1) / 2.0
_CENTRE = np.sqrt(_XX**2 + _YY**2) < SIDE * 0.36
_SHIFTS = [(dx, dy) for dx in (-1.5, 0.0, 1.5) for dy in (-1.5, 0.0, 1.5)]
# Below this best correlation a box is not taken for a die of the set at all.
REJECT_BELOW = 0.35


def _polar(grey: NDArray[np.float32], dx: float = 0.0, dy: float = 0.0) -> NDArray[np.complex64]:
    """FFT over angle of the normalised polar image (rows: harmonics, columns: rings)."""
    centre = ((SIDE - 1) / 2 + dx, (SIDE - 1) / 2 + dy)
    polar = cv2.warpPolar(grey, (RINGS, ANGLES), centre, SIDE * 0.42, cv2.WARP_POLAR_LINEAR)
    polar = polar - polar.mean()
    polar /= float(np.linalg.norm(polar)) + 1e-6
    return np.fft.rfft(polar, axis=0).astype(np.complex64)


def face_signature(image: NDArray[np.uint8], box: Box) -> NDArray[np.float32]:
    """The die's face as normalised grey SIDE x SIDE (what templates store)."""
    crop = canonical_crop(image, box, pad=0.0)
    grey = f32(cv2.cvtColor(crop.astype(np.float32), cv2.COLOR_BGR2GRAY))
    centre = grey[_CENTRE]
    signature: NDArray[np.float32] = ((grey - centre.mean()) / (centre.std() + 1e-3)).astype(np.float32)
    return signature


def _best_correlation(spec: NDArray[np.complex64], templates: NDArray[np.complex64]) -> NDArray[np.float32]:
    """Max over angle shifts of the correlation of ``spec`` with each template."""
    cross = (templates * np.conj(spec)[None]).sum(axis=2)  # (n, harmonics)
    corr = np.fft.irfft(cross, n=ANGLES, axis=1)
    best: NDArray[np.float32] = corr.max(axis=1).astype(np.float32)
    return best


@dataclass
class SymbolSet:
    """Named faces of one kind of symbol die, each with a few templates."""

    name: str
    names: list[str] = field(default_factory=list)  # one entry per template
    signatures: list[NDArray[np.float32]] = field(default_factory=list)

    def add(self, face: str, image: NDArray[np.uint8], box: Box) -> None:
        self.names.append(face)
        self.signatures.append(face_signature(image, box))

    @property
    def faces(self) -> list[str]:
        return sorted(set(self.names))

    def _template_spectra(self) -> NDArray[np.complex64]:
        cached: NDArray[np.complex64] | None = getattr(self, "_spectra", None)
        if cached is None or len(cached) != len(self.signatures):
            cached = np.stack([_polar(s) for s in self.signatures])
            self._spectra = cached
        return cached

    def scores(self, image: NDArray[np.uint8], box: Box) -> dict[str, float]:
        """Best correlation per face name for the die in ``box``."""
        if not self.signatures:
            raise TableError(f"the symbol dice '{self.name}' have no templates; run 'table dice calibrate'")
        sig = face_signature(image, box)
        templates = self._template_spectra()
        best = np.full(len(self.names), -1.0, np.float32)
        for dx, dy in _SHIFTS:
            best = np.maximum(best, _best_correlation(_polar(sig, dx, dy), templates))
        out: dict[str, float] = {}
        for face, s in zip(self.names, best, strict=True):
            out[face] = max(out.get(face, -1.0), float(s))
        return out

    def classify(self, image: NDArray[np.uint8], box: Box) -> tuple[str, float]:
        """The face name and a confidence in 0..1 (margin over the runner-up face)."""
        return decide(self.scores(image, box))

    def save(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.name}.npz"
        np.savez_compressed(path, names=np.array(self.names), signatures=np.stack(self.signatures))
        return path


def decide(scores: dict[str, float]) -> tuple[str, float]:
    """The best face of ``scores`` and its confidence (0 when nothing correlates well)."""
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    face, best = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else -1.0
    if best < REJECT_BELOW:
        return face, 0.0
    # A clear winner is one whose correlation beats the next face's by ~0.15.
    return face, float(np.clip(0.5 + (best - second) / 0.3, 0.0, 1.0))


def load_symbols(directory: Path, name: str) -> SymbolSet:
    """The calibrated set ``name``; TableError when it was never calibrated."""
    path = directory / f"{name}.npz"
    if not path.is_file():
        raise TableError(
            f"no calibrated symbol dice named '{name}' in {directory}; run 'table dice calibrate --dice {name}'"
        )
    with np.load(path) as z:
        names = [str(v) for v in z["names"]]
        sigs = [s.astype(np.float32) for s in z["signatures"]]
    return SymbolSet(name, names, sigs)


def calibrate(name: str, shots: Iterable[tuple[str, NDArray[np.uint8]]], finder: Finder | None = None) -> SymbolSet:
    """A symbol set from pictures: each ``(face, frame)`` adds every die found in the frame
    by ``finder`` (default: :func:`table.dice.detect.find_dice`)."""
    from table.dice.detect import find_dice

    find = finder or find_dice
    symbols = SymbolSet(name)
    for face, frame in shots:
        boxes, _ = find(frame)
        if not boxes:
            raise TableError(f"no die found in a picture of the face '{face}'")
        for box in boxes:
            symbols.add(face, frame, box)
    return symbols
