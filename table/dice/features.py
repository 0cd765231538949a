"""What the face classifier sees of one die.

Contract: :func:`face_input` takes the frame (BGR ``uint8``) and a die box and returns a
``(SIDE, SIDE, CHANNELS)`` float32 array; the network in ``config/dice/faces.npz`` was
trained on exactly this, so any change here needs ``tools/dice/train_faces.py`` re-run.

The die's square neighbourhood is resampled to SIDE x SIDE and turned into a "pip
contrast" channel: the colour axis along which the face's pixels vary most (pips against
face, whatever their two colours are: black on white, white on red, yellow on green),
signed so that the pips, the smaller part of the face, are bright. Three more channels
keep the normalised colours, so the network can tell light from dark faces and find pips
the contrast channel misses.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

Box = tuple[int, int, int, int]
SIDE = 32  # the canonical crop is SIDE x SIDE pixels


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
    return cv2.warpAffine(
        image,
        m,
        (SIDE, SIDE),
        flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float32)


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


CHANNELS = 4


def face_input(image: NDArray[np.uint8], box: Box, angle: float = 0.0) -> NDArray[np.float32]:
    """The network's input for one die: ``(SIDE, SIDE, CHANNELS)`` float32.

    Channel 0 is the signed pip-contrast channel; channels 1-3 are blue, green and red,
    each less its mean inside the face and scaled by the face's overall spread, so the
    network also sees colour differences the contrast channel misses (ink pips on a
    marbled or translucent die).
    """
    crop = canonical_crop(image, box, angle=angle)
    chan = np.clip(pip_channel(crop), -4, 4)
    centre = crop[_CENTRE]
    colour = np.clip((crop - centre.mean(axis=0)) / (float(centre.std()) + 8.0), -4, 4)
    return np.concatenate([chan[..., None], colour], axis=2).astype(np.float32)
