"""What the face classifier sees of each die.

Contract: :func:`canonical_crop` cuts a die's square neighbourhood out of the frame
(BGR ``uint8``) as ``(side, side, 3)`` float32; :func:`face_inputs` turns a batch of
such crops into the network's input ``(N, side, side, CHANNELS)`` float32. The network
in ``config/dice/faces.npz`` was trained on exactly this (its side is stored with it), so
any change here needs ``tools/dice/train_faces.py`` re-run.

Channel 0 is a "pip contrast" channel: the colour axis along which the face's pixels
vary most (pips against face, whatever their two colours are: black on white, white on
red, yellow on green), signed so that the pips, the smaller part of the face, are bright.
Channels 1-3 keep blue, green and red, less their mean inside the face and scaled by the
face's overall spread, so the network can tell light from dark faces and find pips the
contrast channel misses (ink pips on a marbled or translucent die).
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
from numpy.typing import NDArray

SIDE = 32  # default crop side (the symbol reader's); the face network stores its own
CHANNELS = 4
PAD = 0.08  # the crop reaches this fraction of the box's side beyond the box


def canonical_crop(
    image: NDArray[np.uint8],
    box: tuple[float, float, float, float],
    pad: float = PAD,
    angle: float = 0.0,
    side: int = SIDE,
) -> NDArray[np.float32]:
    """The die's square neighbourhood resampled to ``side`` x ``side`` x 3 float32.

    ``angle`` (degrees) turns the crop about the die's centre; training uses it to show
    the classifier every orientation.
    """
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    half = max(x1 - x0, y1 - y0, 1) * (0.5 + pad)
    scale = side / (2 * half)
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[0, 2] += side / 2 - cx
    m[1, 2] += side / 2 - cy
    flags = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (side, side), flags=flags, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


@functools.cache
def centre_mask(side: int) -> NDArray[np.bool_]:
    """The disc of the crop that lies on the die's face whatever its turn."""
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) - (side - 1) / 2.0
    return np.asarray(np.sqrt(xx**2 + yy**2) < side * 0.36)


def face_inputs(crops: NDArray[np.float32] | NDArray[np.uint8]) -> NDArray[np.float32]:
    """The network's input for a batch of crops ``(N, side, side, 3)`` (see module doc)."""
    x = np.asarray(crops, np.float32)
    n, side = x.shape[0], x.shape[1]
    if n == 0:
        return np.zeros((0, side, side, CHANNELS), np.float32)
    px = x[:, centre_mask(side)]  # (N, P, 3): the face's pixels
    mean = px.mean(axis=1)
    dev = px - mean[:, None]
    cov = np.einsum("npi,npj->nij", dev, dev) / (px.shape[1] - 1) + np.eye(3, dtype=np.float32) * 1e-3
    _, vecs = np.linalg.eigh(cov)
    axis = vecs[:, :, -1]  # each crop's main colour axis
    along = np.einsum("npc,nc->np", dev, axis)
    sd = along.std(axis=1) + 1e-3
    centred = x - mean[:, None, None]  # once for both the contrast and the colour channels
    # The product over the three colours written out: the same sums as an einsum, in the
    # same order, at about half its time on a crop batch.
    ax = axis[:, None, None, :]
    proj = (centred[..., 0] * ax[..., 0] + centred[..., 1] * ax[..., 1] + centred[..., 2] * ax[..., 2]) / sd[
        :, None, None]
    # Pips cover less of the face than the face itself, so their side of the
    # distribution is the long tail: make that tail positive.
    proj *= np.where(skewed_left(along / sd[:, None]), -1.0, 1.0).astype(np.float32)[:, None, None]
    spread = px.reshape(n, -1).std(axis=1) + 8.0
    out = np.empty((n, side, side, CHANNELS), np.float32)
    np.clip(proj, -4, 4, out=out[..., 0])
    np.clip(centred / spread[:, None, None, None], -4, 4, out=out[..., 1:])
    return out


# How far from zero, as a share of the mean |z|^3, the mean of the cubes made by
# multiplying must lie for its sign to be the one ``z ** 3`` gives. A cube made either
# way is off by at most 2 float32 rounding units (2^-24 of it each), and numpy's
# summation of a crop's 650 cubes adds about 25 more of the sum of |cubes|: the two
# means differ by under 3e-6 of the mean |cube|, a margin of over 30.
CUBE_MARGIN = 1e-4


def skewed_left(z: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Per row of ``z`` (N, P): whether ``(z ** 3).mean(axis=1) < 0``, to the bit.

    float32 ``** 3`` calls the C library's ``powf`` on every value (some 2.5 ms for a
    crowded frame's crops), where ``z * z * z`` costs a hundredth of that but rounds
    differently in the last bit. Only the sign of the mean is used, and that is the same
    unless the mean lies within rounding of zero: the rows where it does are cubed with
    ``** 3`` as before, so the answer is always the one ``** 3`` gives.
    """
    cubes = z * z * z
    mean = cubes.mean(axis=1)
    near = np.abs(mean) <= np.abs(cubes).mean(axis=1) * np.float32(CUBE_MARGIN)
    left = mean < 0
    if near.any():
        left[near] = (z[near] ** 3).mean(axis=1) < 0
    return np.asarray(left)
