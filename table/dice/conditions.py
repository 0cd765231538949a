"""Photos of one tray turned into photos of another setup: camera, light and surface.

Contract: :func:`apply_condition` takes a BGR ``uint8`` photo, its labelled boxes and a
:class:`Condition`, and returns the changed photo with the boxes moved to match (as
``(x0, y0, x1, y1)`` floats). Everything random comes from the ``rng`` given, so a set
made from a seed is made again the same.

A condition is what differs between one venue's setup and another's, applied to a real
photo so that the dice themselves stay real dice:

- ``tilt``: the camera looks at the tray up to this many degrees off vertical (a
  perspective warp: the far side shrinks, faces foreshorten);
- ``light``: a colour cast (warm lamp, cold daylight) and a brightness ramp across the
  view;
- ``soft``: a cheaper camera: the picture taken at a lower resolution and scaled up,
  with sensor noise and JPEG loss;
- ``surface``: the tray's floor replaced by another texture (wood grain, a printed
  page, cloth, speckled stone, green felt) outside the dice;
- ``clutter``: keyboard keys, cables with plugs and printed labels on that surface
  (hard negatives: a key is a light square with a dark mark, like a die showing one).

Used by ``tools/dice/make_conditions.py`` (the held-out conditions of docs/dice.md) and
by the tests' teaching set.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from table.dice.pictures import F32, Image, f32, u8

FBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class Condition:
    """One setup (see module doc); zero / empty means "as in the original photo"."""

    name: str
    tilt: float = 0.0  # degrees off vertical
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    ramp: float = 0.0  # brightness falls by this fraction across the view
    soft: float = 1.0  # the picture is taken at this fraction of its size, then scaled up
    noise: float = 0.0  # sensor noise, grey levels
    surface: str = ""  # "wood", "paper", "cloth", "stone", "felt" or "" (keep the tray)
    clutter: int = 0  # this many keys, cables and labels on the surface


def _surface(kind: str, h: int, w: int, rng: np.random.Generator) -> F32:
    yy: F32
    xx: F32
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        phase = rng.uniform(0, 6.28)
        grain: F32 = np.sin(yy / rng.uniform(3, 6) + 2 * np.sin(xx / 120 + phase)) * 0.5 + 0.5
        base = np.array([90, 140, 185], np.float32)
        return base * (0.9 + 0.12 * grain[..., None])
    if kind == "paper":
        page = np.full((h, w, 3), 232, np.float32)
        img = page.astype(np.uint8)
        for y in range(20, h, 22):  # lines of print: text the reader must not take for pips
            x = int(rng.integers(10, 40))
            while x < w - 40:
                word = int(rng.integers(15, 60))
                cv2.putText(
                    img,
                    "".join(rng.choice(list("aemnorsuxz"), size=max(1, word // 9))),
                    (x, y),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.45,
                    (40, 40, 40),
                    1,
                    cv2.LINE_AA,
                )
                x += word + 8
        return img.astype(np.float32)
    if kind == "cloth":
        weave: F32 = (np.sin(xx / 2.1) * np.sin(yy / 2.1)) * 10
        base = np.array([110, 60, 40], np.float32) * rng.uniform(0.8, 1.2)
        return base + weave[..., None]
    if kind == "stone":  # grey speckled stone: grain at the scale of pips, but no round dots
        speck = f32(cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), rng.uniform(0.8, 2.0)))
        speck /= max(float(speck.std()), 1e-3)
        veins = f32(cv2.GaussianBlur(rng.normal(0, 1, (h // 16 + 1, w // 16 + 1)).astype(np.float32), (0, 0), 1.5))
        veins /= max(float(veins.std()), 1e-3)
        veins = f32(cv2.resize(veins, (w, h), interpolation=cv2.INTER_CUBIC))
        base = np.array([150, 150, 145], np.float32) * rng.uniform(0.7, 1.1)
        return base * (1 + 0.07 * speck[..., None] + 0.08 * veins[..., None])
    if kind == "felt":  # a green card-table felt: fine fibres, a little mottled
        fibre = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.7)
        base = np.array([60, 120, 40], np.float32) * rng.uniform(0.8, 1.2)
        return base * (1 + 0.08 * fibre[..., None] / max(float(fibre.std()), 1e-3))
    raise ValueError(f"unknown surface {kind!r}")


def _replace_surface(img: Image, boxes: list[FBox], kind: str, rng: np.random.Generator) -> Image:
    """The floor outside the dice becomes ``kind``: each die keeps a soft-edged disc
    reaching its box's corners, so its outline and the shadow at its foot come along."""
    h, w = img.shape[:2]
    keep = np.zeros((h, w), np.float32)
    for x0, y0, x1, y1 in boxes:
        centre = (int((x0 + x1) / 2), int((y0 + y1) / 2))
        cv2.circle(keep, centre, int(0.62 * max(x1 - x0, y1 - y0)), 1.0, -1)
    keep = f32(cv2.GaussianBlur(keep, (0, 0), 2))[..., None]
    floor = _surface(kind, h, w, rng)
    # The new floor keeps the photo's light: its brightness is scaled by the old floor's.
    light = f32(cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 25))
    floor *= (light / max(float(np.median(light)), 1.0))[..., None]
    return np.clip(img * keep + floor * (1 - keep), 0, 255).astype(np.uint8)


def _clutter(img: Image, boxes: list[FBox], count: int, rng: np.random.Generator) -> Image:
    """Desk clutter around the dice: keyboard keys, cables and printed labels (never on a die)."""
    out = img.copy()
    h, w = out.shape[:2]
    size = float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in boxes])) if boxes else 40.0
    taken = np.zeros((h, w), np.uint8)
    for x0, y0, x1, y1 in boxes:
        taken[max(0, int(y0) - 4) : int(y1) + 4, max(0, int(x0) - 4) : int(x1) + 4] = 1
    for _ in range(count):
        kind = rng.choice(["key", "key", "cable", "label"])
        layer = np.zeros_like(out)
        shape = np.zeros((h, w), np.uint8)
        if kind == "key":  # a light keycap with a letter: square, like a white die with one pip
            s = int(size * rng.uniform(0.8, 1.2))
            x, y = int(rng.integers(0, w - s)), int(rng.integers(0, h - s))
            grey = int(rng.integers(170, 240))
            cv2.rectangle(layer, (x, y), (x + s, y + s), (grey, grey, grey), -1)
            cv2.rectangle(layer, (x, y), (x + s, y + s), (grey - 60,) * 3, 2)
            cv2.putText(
                layer,
                str(rng.choice(list("ASDFJKL1234QW"))),
                (x + s // 4, y + 3 * s // 4),
                cv2.FONT_HERSHEY_SIMPLEX,
                s / 45,
                (30, 30, 30),
                2,
                cv2.LINE_AA,
            )
            cv2.rectangle(shape, (x, y), (x + s, y + s), 1, -1)
        elif kind == "cable":  # a dark cable with a plug end
            pts = np.cumsum(rng.normal(0, size * 0.6, (6, 2)), axis=0) + rng.uniform(0, [w, h])
            colour = (int(rng.integers(10, 60)),) * 3
            cv2.polylines(layer, [pts.astype(np.int32)], False, colour, int(size * 0.2), cv2.LINE_AA)
            cv2.polylines(shape, [pts.astype(np.int32)], False, 1, int(size * 0.2))
            end = pts[-1].astype(int)
            cv2.rectangle(layer, tuple(end - int(size * 0.3)), tuple(end + int(size * 0.3)), (200, 200, 200), -1)
            cv2.rectangle(shape, tuple(end - int(size * 0.3)), tuple(end + int(size * 0.3)), 1, -1)
        else:  # a printed label: dots and letters
            lw, lh = int(size * rng.uniform(1.5, 3)), int(size * rng.uniform(0.6, 1.0))
            x, y = int(rng.integers(0, max(1, w - lw))), int(rng.integers(0, max(1, h - lh)))
            cv2.rectangle(layer, (x, y), (x + lw, y + lh), (245, 245, 245), -1)
            cv2.putText(
                layer,
                "USB 3.0 o o",
                (x + 3, y + 2 * lh // 3),
                cv2.FONT_HERSHEY_SIMPLEX,
                lh / 50,
                (20, 20, 20),
                1,
                cv2.LINE_AA,
            )
            cv2.rectangle(shape, (x, y), (x + lw, y + lh), 1, -1)
        free = (shape > 0) & (taken == 0)
        out[free] = layer[free]
        taken |= shape
    return out


def _tilt(img: Image, boxes: list[FBox], degrees: float, rng: np.random.Generator) -> tuple[Image, list[FBox]]:
    """A perspective view ``degrees`` off vertical, from a random side."""
    h, w = img.shape[:2]
    shrink = 1 - np.cos(np.radians(degrees))  # how much the far edge narrows and the view squashes
    squash = np.cos(np.radians(degrees))
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inset = 0.5 * w * shrink * 1.6
    top = h * (1 - squash) / 2
    dst = np.array([[inset, top], [w - inset, top], [w, h - top * 0.2], [0, h - top * 0.2]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    turns = int(rng.integers(0, 4))  # the far side is any of the four
    rot = np.array([[0, 1, 0], [-1, 0, w], [0, 0, 1]], np.float64)  # quarter turn of a square view
    full = np.eye(3)
    for _ in range(turns):
        full = rot @ full
    m = np.linalg.inv(full) @ m @ full
    out = u8(cv2.warpPerspective(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT))
    moved = []
    for x0, y0, x1, y1 in boxes:
        corners = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float32)
        pts = cv2.perspectiveTransform(corners, m)[0]
        moved.append((float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())))
    return out, moved


def apply_condition(
    img: Image, boxes: list[FBox], cond: Condition, rng: np.random.Generator
) -> tuple[Image, list[FBox]]:
    """The photo as ``cond``'s setup would take it, and the boxes where the dice now are."""
    out = img.copy()
    if cond.surface:
        out = _replace_surface(out, boxes, cond.surface, rng)
    if cond.clutter:
        out = _clutter(out, boxes, cond.clutter, rng)
    if cond.tilt:
        out, boxes = _tilt(out, boxes, cond.tilt, rng)
    h, w = out.shape[:2]
    f = out.astype(np.float32) * np.array(cond.cast, np.float32)
    if cond.ramp:
        angle = rng.uniform(0, 2 * np.pi)
        yy: F32
        xx: F32
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        along = ((xx - w / 2) * np.cos(angle) + (yy - h / 2) * np.sin(angle)) / max(w, h)
        f *= (1 - cond.ramp * (along + 0.5))[..., None]
    if cond.soft < 1:
        small = cv2.resize(
            np.clip(f, 0, 255).astype(np.uint8), (int(w * cond.soft), int(h * cond.soft)), interpolation=cv2.INTER_AREA
        )
        f = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    if cond.noise:
        f += rng.normal(0, cond.noise, f.shape).astype(np.float32)
    return np.clip(f, 0, 255).astype(np.uint8), boxes
