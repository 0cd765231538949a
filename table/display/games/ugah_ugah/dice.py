"""The faces of an Ugah die as pictograms drawn with pygame's shapes (no image files).

Each symbol is a dark silhouette on a light face with a dark outline, so it reads
from across the table on the dark screen: bone, dinosaur, mammoth, bird, and the
two hunters (Mammoth Masher with a club, Bone Breaker, the bigger one, with a bone
raised over his head). Shapes are laid out on a unit square (0..1 both ways, y down)
and scaled to the die; the silhouette colours keep at least 4.5:1 on the face, a
dimmed face (a die not chosen) keeps 3:1 at least.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import pygame

from table.common.memory import DIE_FACES
from table.display.games import screen_palette
from table.display.theme import Colour

FACE: Colour = (246, 240, 226)
FACE_DIM: Colour = (180, 176, 168)
"""A die not chosen: greyed, yet every silhouette keeps 3:1 on it (a test computes it)."""
EDGE: Colour = (34, 28, 22)
INK = screen_palette(__file__, "dice_ink")
"""Each symbol's silhouette colour: its own hue, dark enough for the light face
(``[palette.dice_ink]`` of ``screen.toml``)."""

Point = tuple[float, float]


class _Pen:
    """Draws on the unit square of one die face."""

    def __init__(self, surface: pygame.Surface, box: pygame.Rect, ink: Colour) -> None:
        self.surface, self.box, self.ink = surface, box, ink

    def at(self, x: float, y: float) -> Point:
        return self.box.left + x * self.box.width, self.box.top + y * self.box.height

    def length(self, v: float) -> int:
        return max(1, round(v * self.box.width))

    def ellipse(self, x0: float, y0: float, x1: float, y1: float, ink: Colour | None = None) -> None:
        (ax, ay), (bx, by) = self.at(x0, y0), self.at(x1, y1)
        pygame.draw.ellipse(self.surface, ink or self.ink, pygame.Rect(round(ax), round(ay), round(bx - ax),
                                                                       round(by - ay)))

    def circle(self, x: float, y: float, r: float, ink: Colour | None = None) -> None:
        pygame.draw.circle(self.surface, ink or self.ink, self.at(x, y), max(1.0, r * self.box.width))

    def polygon(self, points: Sequence[Point], ink: Colour | None = None) -> None:
        pygame.draw.polygon(self.surface, ink or self.ink, [self.at(x, y) for x, y in points])

    def line(self, points: Sequence[Point], width: float, ink: Colour | None = None) -> None:
        """A thick line with round joints and ends."""
        colour = ink or self.ink
        w = self.length(width)
        pts = [self.at(x, y) for x, y in points]
        pygame.draw.lines(self.surface, colour, False, pts, w)
        for p in pts:
            pygame.draw.circle(self.surface, colour, p, w / 2)

    def rect(self, x0: float, y0: float, x1: float, y1: float) -> None:
        (ax, ay), (bx, by) = self.at(x0, y0), self.at(x1, y1)
        pygame.draw.rect(self.surface, self.ink, pygame.Rect(round(ax), round(ay), max(1, round(bx - ax)),
                                                             max(1, round(by - ay))))


def _bone(pen: _Pen) -> None:
    pen.line([(0.26, 0.74), (0.74, 0.26)], 0.14)
    for x, y in ((0.2, 0.7), (0.3, 0.8), (0.7, 0.2), (0.8, 0.3)):
        pen.circle(x, y, 0.1)


def _dinosaur(pen: _Pen) -> None:
    # a long-necked dinosaur walking right
    pen.ellipse(0.18, 0.46, 0.7, 0.76)
    pen.polygon([(0.5, 0.5), (0.66, 0.56), (0.82, 0.26), (0.74, 0.2)])
    pen.ellipse(0.68, 0.14, 0.92, 0.3)
    pen.polygon([(0.26, 0.54), (0.02, 0.76), (0.3, 0.7)])
    for x in (0.24, 0.36, 0.5, 0.6):
        pen.rect(x, 0.66, x + 0.09, 0.88)


def _mammoth(pen: _Pen, face: Colour) -> None:
    # a woolly mammoth facing left: high back, trunk, light tusk
    pen.ellipse(0.3, 0.24, 0.92, 0.74)
    pen.circle(0.3, 0.36, 0.17)
    pen.line([(0.2, 0.42), (0.14, 0.64), (0.2, 0.82)], 0.1)
    for x in (0.36, 0.5, 0.7, 0.8):
        pen.rect(x, 0.6, x + 0.1, 0.88)
    pen.line([(0.3, 0.52), (0.22, 0.62), (0.08, 0.58)], 0.05, face)
    pen.circle(0.26, 0.3, 0.035, face)


def _bird(pen: _Pen, face: Colour) -> None:
    # a bird seen from the front, wings spread
    pen.polygon([(0.04, 0.22), (0.32, 0.46), (0.5, 0.5), (0.68, 0.46), (0.96, 0.22), (0.78, 0.6), (0.58, 0.66),
                 (0.5, 0.84), (0.42, 0.66), (0.22, 0.6)])
    pen.circle(0.5, 0.4, 0.11)
    pen.polygon([(0.45, 0.46), (0.55, 0.46), (0.5, 0.58)], face)
    pen.circle(0.46, 0.37, 0.025, face)
    pen.circle(0.54, 0.37, 0.025, face)


def _figure(pen: _Pen, scale: float) -> None:
    """A hunter's body, standing; ``scale`` makes Bone Breaker broader."""
    cx = 0.42
    half = 0.12 * scale
    pen.circle(cx, 0.26, 0.1 * scale)
    pen.polygon([(cx - half, 0.38), (cx + half, 0.38), (cx + half + 0.04, 0.7), (cx - half - 0.04, 0.7)])
    pen.rect(cx - half, 0.68, cx - half + 0.1, 0.92)
    pen.rect(cx + half - 0.1, 0.68, cx + half, 0.92)


def _masher(pen: _Pen) -> None:
    _figure(pen, 1.0)
    pen.line([(0.5, 0.48), (0.78, 0.3)], 0.08)  # the arm
    pen.line([(0.72, 0.5), (0.84, 0.14)], 0.08)  # the club's handle
    pen.ellipse(0.74, 0.04, 0.96, 0.3)  # its head


def _breaker(pen: _Pen) -> None:
    _figure(pen, 1.35)
    pen.line([(0.28, 0.44), (0.2, 0.16)], 0.08)  # both arms up
    pen.line([(0.56, 0.44), (0.66, 0.16)], 0.08)
    pen.line([(0.1, 0.12), (0.78, 0.12)], 0.08)  # the bone held over his head
    for x, y in ((0.06, 0.08), (0.06, 0.17), (0.82, 0.08), (0.82, 0.17)):
        pen.circle(x, y, 0.055)


def draw_face(surface: pygame.Surface, rect: pygame.Rect, symbol: str, dim: bool = False) -> None:
    """One die showing ``symbol`` (a name of :data:`INK`) filling ``rect``: light face,
    dark outline, the symbol's silhouette. ``dim`` greys the face (a die not chosen).

    Drawn once per symbol, size and shade and kept as a picture (a face takes some
    thirty shapes, and a screen shows up to a dozen dice)."""
    surface.blit(_face_picture(symbol, rect.width, rect.height, dim), rect.topleft)


_CUT: Colour = (255, 0, 255)
"""The colour key around a face's rounded corners (no face, outline or ink uses it)."""


@lru_cache(maxsize=DIE_FACES)
def _face_picture(symbol: str, width: int, height: int, dim: bool) -> pygame.Surface:
    picture = pygame.Surface((width, height))
    picture.fill(_CUT)
    _paint_face(picture, pygame.Rect(0, 0, width, height), symbol, dim)
    picture.set_colorkey(_CUT)
    return picture


def _paint_face(surface: pygame.Surface, rect: pygame.Rect, symbol: str, dim: bool) -> None:
    face = FACE_DIM if dim else FACE
    radius = max(2, rect.width // 5)
    pygame.draw.rect(surface, face, rect, border_radius=radius)
    pygame.draw.rect(surface, EDGE, rect, max(2, rect.width // 16), border_radius=radius)
    inset = max(3, round(rect.width * 0.14))
    draw_symbol(surface, rect.inflate(-2 * inset, -2 * inset), symbol, face)


def draw_symbol(surface: pygame.Surface, box: pygame.Rect, symbol: str, face: Colour = FACE) -> None:
    """Only the silhouette of ``symbol``, filling ``box``, on a ground of colour ``face``
    (the colour its light details, a tusk or an eye, are cut out in)."""
    pen = _Pen(surface, box, INK[symbol])
    drawings: dict[str, Callable[[], None]] = {
        "bone": lambda: _bone(pen), "dinosaur": lambda: _dinosaur(pen), "mammoth": lambda: _mammoth(pen, face),
        "bird": lambda: _bird(pen, face), "masher": lambda: _masher(pen), "breaker": lambda: _breaker(pen),
    }
    drawings[symbol]()
