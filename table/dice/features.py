"""Describe one die's top face as a short, rotation-invariant vector of numbers.

Contract: :func:`face_features` takes the frame (BGR ``uint8``) and a die box and returns a
``float32`` vector of :data:`N_FEATURES` numbers; the face classifier (``model.py``) was
trained on exactly these, so any change here needs ``tools/dice/train_faces.py`` re-run.

The crop is turned into one "pip contrast" channel: the colour axis along which the face's
pixels vary most (pips against face, whatever the two colours are), signed so that pips
are the bright minority. From it come
- polar-Fourier magnitudes (rings around the centre, harmonics around the ring), which do
  not change when the die turns: one pip in the middle, two across a diagonal, four in the
  corners and so on each leave a distinct trace;
- counts of pip-sized blobs at several contrast levels (the classical pip count), with the
  blobs near the crop's edge (side faces seen at an angle) counted apart;
- a few global numbers (die size relative to the frame's typical die, contrast spread).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

Box = tuple[int, int, int, int]
SIDE = 32  # the canonical crop is SIDE x SIDE pixels
RINGS = 8
ANGLES = 32
HARMONICS = 7
LEVELS = (0.8, 1.2, 1.6, 2.2)
N_FEATURES = RINGS * HARMONICS + RINGS + 3 * len(LEVELS) * 2 + 4


def canonical_crop(image: NDArray[np.uint8], box: Box, pad: float = 0.08, angle: float = 0.0) -> NDArray[np.float32]:
    """The die's square neighbourhood resampled to SIDE x SIDE x 3 float32.

    ``angle`` (degrees) turns the crop about the die's centre; training uses it to show
    the classifier every orientation.
    """
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    half = max(x1 - x0, y1 - y0) * (0.5 + pad)
    scale = SIDE / (2 * half)
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[0, 2] += SIDE / 2 - cx
    m[1, 2] += SIDE / 2 - cy
    return cv2.warpAffine(image, m, (SIDE, SIDE), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


_YY, _XX = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32) - (SIDE - 1) / 2.0
_RADIUS = np.sqrt(_XX**2 + _YY**2)
_CENTRE = _RADIUS < SIDE * 0.36


def pip_channel(crop: NDArray[np.float32]) -> NDArray[np.float32]:
    """Project colours on their main axis inside the face; pips bright, unit spread."""
    px = crop[_CENTRE]
    mean = px.mean(axis=0)
    cov = np.cov((px - mean).T) + np.eye(3, dtype=np.float32) * 1e-3
    _, vecs = np.linalg.eigh(cov)
    axis = vecs[:, -1].astype(np.float32)
    proj = (crop - mean) @ axis
    centre = proj[_CENTRE]
    sd = float(centre.std()) + 1e-3
    proj /= sd
    # Pips cover less of the face than the face itself, so their side of the
    # distribution is the long tail: make that tail positive.
    if float(((centre / sd) ** 3).mean()) < 0:
        proj = -proj
    return proj.astype(np.float32)


def _blob_counts(chan: NDArray[np.float32]) -> list[float]:
    local = chan - cv2.blur(chan, (9, 9))
    out: list[float] = []
    for level in LEVELS:
        binary = (local > level * 0.5).astype(np.uint8)
        n, _, st, cen = cv2.connectedComponentsWithStats(binary)
        inner = edge = 0
        areas = []
        for k in range(1, n):
            a = st[k, 4]
            if a < 3 or a > 60:
                continue
            r = float(np.hypot(cen[k, 0] - (SIDE - 1) / 2, cen[k, 1] - (SIDE - 1) / 2))
            if r < SIDE * 0.36:
                inner += 1
                areas.append(a)
            else:
                edge += 1
        out += [min(inner, 9), min(edge, 9), float(np.std(areas) / (np.mean(areas) + 1)) if areas else 0.0]
    return out


def face_features(image: NDArray[np.uint8], box: Box, die_size: float, angle: float = 0.0) -> NDArray[np.float32]:
    """The feature vector of the die in ``box`` (see module doc)."""
    crop = canonical_crop(image, box, angle=angle)
    chan = pip_channel(crop)
    polar = cv2.warpPolar(chan, (RINGS, ANGLES), ((SIDE - 1) / 2, (SIDE - 1) / 2), SIDE * 0.47,
                          cv2.WARP_POLAR_LINEAR)  # rows: angles, columns: rings
    spectrum = np.abs(np.fft.rfft(polar, axis=0))[:HARMONICS] / ANGLES
    ring_mean = spectrum[0]
    feats = [spectrum.T.ravel(), ring_mean]
    blobs = _blob_counts(chan) + _blob_counts(-chan)
    w, h = box[2] - box[0], box[3] - box[1]
    extra = [max(w, h) / max(die_size, 1.0), w / max(h, 1), float(crop.std()) / 64.0,
             float(np.abs(chan[~_CENTRE]).mean())]
    return np.concatenate([*feats, np.array(blobs + extra, np.float32)]).astype(np.float32)
