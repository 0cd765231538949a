"""Rendered test pictures of symbol dice (the project's own, no outside data).

Contract: :func:`render_tray` draws ``count`` dice, each showing one of :data:`SYMBOLS`,
on a grey tray at random positions and turns, with uneven light, blur and noise, all from
``rng``; it returns the BGR frame and the truth ``[(symbol, box), ...]``. Used by the
symbol-dice tests and by anyone trying calibration without real dice.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from table.dice.pictures import f32

SYMBOLS = ("bone", "spear", "fire", "leaf", "moon", "skull")


def _draw_symbol(face: NDArray[np.uint8], symbol: str, ink: tuple[int, int, int]) -> None:
    s = face.shape[0]
    c = s // 2
    u = s / 100.0

    def p(x: float, y: float) -> tuple[int, int]:
        return int(c + x * u), int(c + y * u)

    t = max(2, int(7 * u))
    if symbol == "bone":
        cv2.line(face, p(-22, 22), p(22, -22), ink, int(12 * u))
        for x, y in ((-26, 18), (-18, 26), (26, -18), (18, -26)):
            cv2.circle(face, p(x, y), int(9 * u), ink, -1)
    elif symbol == "spear":
        cv2.line(face, p(-28, 28), p(14, -14), ink, t)
        cv2.fillPoly(face, [np.array([p(30, -30), p(6, -20), p(20, -6)])], ink)
    elif symbol == "fire":
        pts = np.array([p(0, -34), p(18, -4), p(22, 18), p(0, 32), p(-22, 18), p(-18, -4)])
        cv2.fillPoly(face, [pts], ink)
        cv2.circle(face, p(0, 16), int(9 * u), (235, 235, 235), -1)
    elif symbol == "leaf":
        cv2.ellipse(face, p(0, 0), (int(34 * u), int(14 * u)), 0, 0, 360, ink, -1)
        cv2.line(face, p(-38, 0), p(-20, 0), ink, t)
    elif symbol == "moon":
        cv2.circle(face, p(0, 0), int(30 * u), ink, -1)
        cv2.circle(face, p(14, -8), int(26 * u), (235, 235, 235), -1)
    elif symbol == "skull":
        cv2.circle(face, p(0, -6), int(26 * u), ink, -1)
        cv2.rectangle(face, p(-14, 10), p(14, 32), ink, -1)
        for x in (-10, 10):
            cv2.circle(face, p(x, -8), int(7 * u), (235, 235, 235), -1)
    else:
        raise ValueError(f"unknown symbol {symbol!r}")


def render_die(symbol: str, side: int = 100) -> NDArray[np.uint8]:
    """One face, seen square on: ivory die with a dark red picture."""
    face = np.full((side, side, 3), (225, 232, 236), np.uint8)
    _draw_symbol(face, symbol, (40, 30, 150))
    cv2.rectangle(face, (0, 0), (side - 1, side - 1), (120, 120, 120), 2)
    return face


def render_tray(
    rng: np.random.Generator, count: int, symbols: tuple[str, ...] = SYMBOLS, size: int = 640
) -> tuple[NDArray[np.uint8], list[tuple[str, tuple[int, int, int, int]]]]:
    """A tray picture with ``count`` symbol dice and the truth (see module doc)."""
    frame = np.full((size, size, 3), 150, np.float32)
    truth: list[tuple[str, tuple[int, int, int, int]]] = []
    centres: list[tuple[float, float, float]] = []
    while len(truth) < count:
        side = float(rng.uniform(42, 62))
        cx, cy = rng.uniform(70, size - 70, 2)
        if any(math.hypot(cx - x, cy - y) < (side + s) * 0.8 for x, y, s in centres):
            continue
        centres.append((cx, cy, side))
        sym = symbols[int(rng.integers(len(symbols)))]
        face = render_die(sym).astype(np.float32)
        angle = float(rng.uniform(0, 360))
        scale = side / face.shape[0]
        m = cv2.getRotationMatrix2D((face.shape[1] / 2, face.shape[0] / 2), angle, scale)
        m[0, 2] += cx - face.shape[1] / 2
        m[1, 2] += cy - face.shape[0] / 2
        warped = f32(cv2.warpAffine(face, m, (size, size)))
        cover = f32(cv2.warpAffine(np.ones(face.shape[:2], np.float32), m, (size, size)))[..., None]
        offset = np.array([[1, 0, 4], [0, 1, 4]], np.float32)
        shadow = f32(cv2.GaussianBlur(cv2.warpAffine(cover, offset, (size, size)), (9, 9), 0))
        frame *= 1 - 0.3 * shadow[..., None]
        frame = frame * (1 - cover) + warped * cover
        ys, xs = np.nonzero(cover[..., 0] > 0.5)
        truth.append((sym, (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)))
    # Uneven light: a brightness ramp in a random direction, then blur and sensor noise.
    gx, gy = np.meshgrid(np.linspace(-1, 1, size), np.linspace(-1, 1, size))
    a = rng.uniform(0, 2 * math.pi)
    light = 1 + rng.uniform(0.1, 0.3) * (gx * math.cos(a) + gy * math.sin(a))
    frame *= light[..., None] * rng.uniform(0.75, 1.15)
    k = int(rng.choice([1, 3, 5]))
    if k > 1:
        frame = f32(cv2.GaussianBlur(frame, (k, k), 0))
    frame += rng.normal(0, rng.uniform(2, 8), frame.shape)
    return np.clip(frame, 0, 255).astype(np.uint8), truth
