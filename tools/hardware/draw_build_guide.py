"""Draw the build guide's diagrams (docs/images/hardware/): one station's wiring, the
level shifter's wiring, the tray camera seen from the side, and the whole table from above.

Run from a development install (pygame is one of the table's own dependencies):

    .venv/bin/python tools/hardware/draw_build_guide.py [--out docs/images/hardware]

The pictures are drawings, not photographs: they show what connects to what and the
sizes docs/hardware.md gives. The station's pin numbers are those of station S1 of the
encoder example (``tests/hardware/wiring_examples/pi-encoders.toml``); the resistor values
come from the ``table wiring`` command so the pictures, the header map and the guide say
the same.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from table.commands.wiring import BASE_RESISTOR_OHMS, LED_RESISTOR_OHMS

Colour = tuple[int, int, int]
PAPER: Colour = (250, 250, 246)
INK: Colour = (20, 24, 32)
GREY: Colour = (110, 110, 110)
RED: Colour = (200, 45, 35)
BLACK: Colour = (15, 15, 15)
GREEN: Colour = (30, 120, 70)
BLUE: Colour = (40, 90, 190)
ORANGE: Colour = (230, 130, 20)
YELLOW: Colour = (235, 190, 40)
# The table's station colours (as the display and the pin map use them), S1 to S4.
STATIONS: tuple[Colour, ...] = ((230, 159, 0), (86, 180, 233), (0, 158, 115), (204, 121, 167))


class Canvas:
    """A white sheet with text and parts that records every text box it draws, so the
    caller (and the test) can check that no two labels overlap."""

    def __init__(self, size: tuple[int, int]) -> None:
        pygame.font.init()
        self.surface = pygame.Surface(size)
        self.surface.fill(PAPER)
        self.boxes: list[tuple[str, pygame.Rect]] = []
        self._fonts: dict[tuple[int, bool], pygame.font.Font] = {}

    def font(self, px: int, bold: bool = False) -> pygame.font.Font:
        if (px, bold) not in self._fonts:
            f = pygame.font.Font(None, px)
            f.set_bold(bold)
            self._fonts[(px, bold)] = f
        return self._fonts[(px, bold)]

    def text(self, s: str, px: int = 28, colour: Colour = INK, bold: bool = False,
             **where: tuple[int, int]) -> pygame.Rect:
        img = self.font(px, bold).render(s, True, colour)
        rect = img.get_rect(**where)
        self.surface.blit(img, rect)
        self.boxes.append((s, rect))
        return rect

    def wire(self, points: list[tuple[int, int]], colour: Colour = INK, width: int = 4) -> None:
        pygame.draw.lines(self.surface, colour, False, points, width)
        for p in points[1:-1]:
            pygame.draw.circle(self.surface, colour, p, width // 2)

    def dot(self, p: tuple[int, int], colour: Colour = INK) -> None:
        pygame.draw.circle(self.surface, colour, p, 7)

    def resistor(self, a: tuple[int, int], b: tuple[int, int], label: str, colour: Colour = INK) -> None:
        """A resistor box between a and b (horizontal or vertical), labelled beside it."""
        horizontal = a[1] == b[1]
        mid = ((a[0] + b[0]) // 2, (a[1] + b[1]) // 2)
        body = pygame.Rect(0, 0, 70, 26) if horizontal else pygame.Rect(0, 0, 26, 70)
        body.center = mid
        self.wire([a, b], colour)
        pygame.draw.rect(self.surface, PAPER, body)
        pygame.draw.rect(self.surface, INK, body, 3)
        if horizontal:
            self.text(label, 26, midbottom=(mid[0], body.top - 6))
        else:
            self.text(label, 26, midleft=(body.right + 10, mid[1]))

    def terminal(self, p: tuple[int, int], label: str, colour: Colour, side: str = "left") -> None:
        """A labelled connection point (a GPIO, a supply rail, GND)."""
        pygame.draw.circle(self.surface, colour, p, 10)
        pygame.draw.circle(self.surface, INK, p, 10, 2)
        if side == "left":
            self.text(label, 28, colour=INK, midright=(p[0] - 18, p[1]))
        elif side == "right":
            self.text(label, 28, colour=INK, midleft=(p[0] + 18, p[1]))
        elif side == "below":
            self.text(label, 28, colour=INK, midtop=(p[0], p[1] + 16))
        else:
            self.text(label, 28, colour=INK, midbottom=(p[0], p[1] - 16))

    def ground(self, p: tuple[int, int]) -> None:
        x, y = p
        for k, half in enumerate((22, 14, 6)):
            pygame.draw.line(self.surface, INK, (x - half, y + 8 * k), (x + half, y + 8 * k), 3)

    def switch(self, a: tuple[int, int], b: tuple[int, int]) -> None:
        """A push switch on a vertical wire from a (top) to b (bottom)."""
        x = a[0]
        top, bottom = a[1], b[1]
        mid = (top + bottom) // 2
        self.wire([(x, top), (x, mid - 20)])
        self.wire([(x, mid + 20), (x, bottom)])
        pygame.draw.circle(self.surface, INK, (x, mid - 20), 5)
        pygame.draw.circle(self.surface, INK, (x, mid + 20), 5)
        pygame.draw.line(self.surface, INK, (x - 18, mid - 28), (x - 18, mid + 28), 4)
        pygame.draw.line(self.surface, INK, (x - 18, mid), (x - 34, mid), 4)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(self.surface, str(path))


def overlaps(boxes: list[tuple[str, pygame.Rect]]) -> list[tuple[str, str]]:
    """Pairs of labels whose boxes overlap (what the test checks is empty)."""
    found = []
    for i, (a, ra) in enumerate(boxes):
        for b, rb in boxes[i + 1:]:
            if ra.colliderect(rb):
                found.append((a, b))
    return found


def draw_station() -> Canvas:
    """One encoder station: the big button, its 12 V lamp switched by a transistor, the encoder."""
    c = Canvas((1320, 1060))
    c.text("An encoder station (S1 of pi-encoders.toml): button, lamp, encoder", 44, bold=True,
           topleft=(40, 26))
    c.text("Every switch goes between its GPIO and GND (the Pi's internal pull-ups); "
           "all grounds are joined.", 28, GREY, topleft=(40, 74))

    # The station box seen from above, on the left.
    box = pygame.Rect(40, 150, 420, 560)
    pygame.draw.rect(c.surface, (225, 215, 195), box, border_radius=24)
    pygame.draw.rect(c.surface, INK, box, 3, border_radius=24)
    c.text("station box, from above", 28, GREY, midtop=(box.centerx, box.top + 14))
    pygame.draw.circle(c.surface, STATIONS[0], (box.centerx, 330), 110)
    pygame.draw.circle(c.surface, INK, (box.centerx, 330), 110, 4)
    pygame.draw.circle(c.surface, (255, 235, 170), (box.centerx, 330), 60)
    c.text("big button, 100 mm", 28, midtop=(box.centerx, 450))
    pygame.draw.circle(c.surface, (60, 60, 60), (box.centerx, 570), 52)
    pygame.draw.line(c.surface, (240, 240, 240), (box.centerx, 570), (box.centerx, 524), 6)
    c.text("knob on the encoder", 28, midtop=(box.centerx, 630))
    pygame.draw.line(c.surface, INK, (box.centerx, box.bottom), (box.centerx, box.bottom + 60), 8)
    c.text("one 8-core cable (up to 2 m)", 28, midtop=(box.centerx, box.bottom + 70))
    c.text("to the Pi's header and the 12 V supply", 28, midtop=(box.centerx, box.bottom + 100))
    cores = ["GND", "+12 V (lamp)", "lamp (to transistor)", "button", "encoder A",
             "encoder B", "knob switch", "spare"]
    c.text("cable cores:", 28, bold=True, topleft=(60, box.bottom + 150))
    for k, core in enumerate(cores):
        c.text(f"{k + 1}. {core}", 26, topleft=(60 + 210 * (k // 4), box.bottom + 184 + 30 * (k % 4)))

    # Circuit 1: the button's switch.
    x = 640
    c.text("button", 30, bold=True, midbottom=(x, 170))
    c.terminal((x, 210), "GPIO 4", STATIONS[0], "left")
    c.switch((x, 210), (x, 380))
    c.ground((x, 380))

    # Circuit 2: the lamp on 12 V through an NPN transistor.
    x = 980
    c.text("button lamp (12 V)", 30, bold=True, midbottom=(x + 40, 170))
    c.terminal((x + 100, 210), "+12 V", RED, "right")
    lamp = pygame.Rect(0, 0, 60, 60)
    lamp.center = (x + 100, 290)
    c.wire([(x + 100, 210), (x + 100, lamp.top)])
    pygame.draw.circle(c.surface, YELLOW, lamp.center, 30)
    pygame.draw.circle(c.surface, INK, lamp.center, 30, 3)
    pygame.draw.line(c.surface, INK, (lamp.left + 9, lamp.top + 9), (lamp.right - 9, lamp.bottom - 9), 3)
    pygame.draw.line(c.surface, INK, (lamp.left + 9, lamp.bottom - 9), (lamp.right - 9, lamp.top + 9), 3)
    c.text("lamp in the button", 26, midleft=(lamp.right + 12, lamp.centery))
    # NPN: collector up to the lamp, emitter down to GND, base from the left.
    bx, by = x + 70, 420
    c.wire([(x + 100, lamp.bottom), (x + 100, by - 40)])
    pygame.draw.circle(c.surface, INK, (x + 90, by), 44, 3)
    pygame.draw.line(c.surface, INK, (bx, by - 26), (bx, by + 26), 5)
    pygame.draw.line(c.surface, INK, (bx, by - 10), (x + 100, by - 40), 4)
    pygame.draw.line(c.surface, INK, (bx, by + 10), (x + 100, by + 40), 4)
    pygame.draw.polygon(c.surface, INK, [(x + 100, by + 40), (x + 84, by + 36), (x + 94, by + 26)])
    c.text("NPN (BC337)", 26, midleft=(x + 146, by - 14))
    c.text("C up, E down", 24, GREY, midleft=(x + 146, by + 14))
    c.wire([(x + 100, by + 40), (x + 100, 520)])
    c.ground((x + 100, 520))
    c.text("transistor and resistor: on a small board by the Pi", 24, GREY, midtop=(x + 20, 560))
    c.terminal((x - 170, by), "GPIO 17", STATIONS[0], "below")
    c.resistor((x - 170, by), (bx, by), f"{BASE_RESISTOR_OHMS // 1000} k\u03a9")

    # Circuit 3: the encoder.
    x = 640
    c.text("rotary encoder with push switch", 30, bold=True, midbottom=(x + 200, 620))
    enc = pygame.Rect(x + 90, 660, 230, 150)
    pygame.draw.rect(c.surface, (200, 200, 205), enc, border_radius=10)
    pygame.draw.rect(c.surface, INK, enc, 3, border_radius=10)
    c.text("encoder", 28, center=(enc.centerx, enc.top + 30))
    pins = {"A": enc.left + 40, "C": enc.left + 115, "B": enc.left + 190}
    for name, px_ in pins.items():
        c.text(name, 26, midbottom=(px_, enc.bottom - 8))
    c.terminal((enc.left - 150, 900), "GPIO 27", STATIONS[0], "below")
    c.wire([(pins["A"], enc.bottom), (pins["A"], 900), (enc.left - 150, 900)])
    c.wire([(pins["C"], enc.bottom), (pins["C"], 960)])
    c.ground((pins["C"], 960))
    c.text("common", 24, GREY, midleft=(pins["C"] + 30, 950))
    c.terminal((enc.right + 70, 900), "GPIO 22", STATIONS[0], "below")
    c.wire([(pins["B"], enc.bottom), (pins["B"], 900), (enc.right + 70, 900)])
    # The push switch's two pins on the far side of the encoder.
    sw_x = enc.right + 200
    c.text("its push switch", 26, midbottom=(sw_x, 690))
    c.terminal((sw_x, 720), "GPIO 23", STATIONS[0], "right")
    c.switch((sw_x, 720), (sw_x, 880))
    c.ground((sw_x, 880))
    c.text("Turns count the wrong way? Swap encoder_a and encoder_b in hardware.toml.", 26, GREY,
           topleft=(560, 1010))
    return c


def draw_level_shifter() -> Canvas:
    """The 74AHCT125 between the Pi's 3.3 V data pin and the strip's 5 V DIN."""
    c = Canvas((1600, 900))
    c.text("The LED strip's data: 74AHCT125 level shifter (DIP-14, seen from above)", 44, bold=True,
           topleft=(40, 26))
    c.text("One of its four buffers lifts the Pi's 3.3 V data to 5 V; the other three are switched off.",
           28, GREY, topleft=(40, 74))
    chip = pygame.Rect(620, 190, 260, 560)
    pygame.draw.rect(c.surface, (40, 40, 44), chip, border_radius=8)
    pygame.draw.circle(c.surface, PAPER, (chip.centerx, chip.top), 18, draw_top_left=False,
                       draw_top_right=False, draw_bottom_left=True, draw_bottom_right=True)
    c.text("74AHCT125", 34, INK, bold=True, midbottom=(chip.centerx, chip.top - 24))
    left = ["1OE", "1A", "1Y", "2OE", "2A", "2Y", "GND"]
    right = ["VCC", "4OE", "4A", "4Y", "3OE", "3A", "3Y"]
    step = 72
    y0 = chip.top + 60
    where: dict[str, tuple[int, int]] = {}
    for k, name in enumerate(left):
        y = y0 + k * step
        pygame.draw.rect(c.surface, (190, 190, 190), pygame.Rect(chip.left - 30, y - 10, 30, 20))
        c.text(f"{k + 1}", 24, (240, 240, 240), midleft=(chip.left + 10, y))
        c.text(name, 24, (240, 240, 240), midleft=(chip.left + 40, y))
        where[name] = (chip.left - 30, y)
    for k, name in enumerate(right):
        y = y0 + k * step
        pygame.draw.rect(c.surface, (190, 190, 190), pygame.Rect(chip.right, y - 10, 30, 20))
        c.text(f"{14 - k}", 24, (240, 240, 240), midright=(chip.right - 10, y))
        c.text(name, 24, (240, 240, 240), midright=(chip.right - 46, y))
        where[name] = (chip.right + 30, y)

    def to_left(pin: str, label: str, colour: Colour, x: int = 300) -> None:
        px_, py = where[pin]
        c.wire([(px_, py), (x, py)], colour)
        c.terminal((x, py), label, colour, "left")

    def to_right(pin: str, label: str, colour: Colour, x: int = 1180) -> None:
        px_, py = where[pin]
        c.wire([(px_, py), (x, py)], colour)
        c.terminal((x, py), label, colour, "right")

    to_left("1OE", "GND (buffer 1 on)", BLACK)
    to_left("1A", "Pi GPIO 10 (header pin 19)", ORANGE)
    # 1Y through the series resistor to the strip's DIN.
    px_, py = where["1Y"]
    c.wire([(px_, py), (400, py), (400, 820), (960, 820)], ORANGE)
    c.resistor((960, 820), (1180, 820), f"{LED_RESISTOR_OHMS} \u03a9", ORANGE)
    c.terminal((1180, 820), "strip DIN", ORANGE, "right")
    to_left("2OE", "+5 V (buffer 2 off)", RED)
    to_left("2A", "GND (unused input)", BLACK)
    c.text("2Y: not connected", 24, GREY, midright=(where["2Y"][0] - 16, where["2Y"][1]))
    to_left("GND", "GND (Pi, strip supply)", BLACK)
    to_right("VCC", "+5 V (strip supply)", RED)
    to_right("4OE", "+5 V (off)", RED)
    to_right("4A", "GND (unused)", BLACK)
    c.text("4Y, 3Y: not connected", 24, GREY, midleft=(where["4Y"][0] + 16, where["4Y"][1]))
    to_right("3OE", "+5 V (off)", RED)
    to_right("3A", "GND (unused)", BLACK)
    c.text("100 nF capacitor from pin 14 to pin 7, close to the chip", 26, INK,
           topleft=(1000, where["3Y"][1] - 12))
    return c


def draw_tray_camera() -> Canvas:
    """The dice tray and its camera from the side, drawn to scale (16 pixels per cm)."""
    c = Canvas((1400, 800))
    c.text("The dice tray from the side, to scale: camera straight above, light from two sides", 40,
           bold=True, topleft=(40, 26))
    cm = 16
    floor_y = 700
    cx = 640
    tray_l, tray_r = cx - 10 * cm, cx + 10 * cm
    pygame.draw.rect(c.surface, (190, 160, 120), pygame.Rect(60, floor_y, 1280, 24))
    c.text("table top", 26, GREY, topleft=(70, floor_y + 30))
    wall = 4 * cm
    for x in (tray_l - 12, tray_r):
        pygame.draw.rect(c.surface, (90, 70, 60), pygame.Rect(x, floor_y - wall, 12, wall))
    pygame.draw.rect(c.surface, (120, 150, 120), pygame.Rect(tray_l, floor_y - 6, tray_r - tray_l, 6))
    die = int(1.6 * cm)
    for x in (tray_l + 40, cx - 20, tray_r - 80):
        pygame.draw.rect(c.surface, (245, 245, 240), pygame.Rect(x, floor_y - 6 - die, die, die))
        pygame.draw.rect(c.surface, INK, pygame.Rect(x, floor_y - 6 - die, die, die), 2)
    c.text("tray: 20 x 20 cm inside, matt floor, 4 cm walls", 26, midtop=(cx, floor_y + 30))
    # The camera 28 cm above the tray floor on an arm from a post behind the tray.
    lens_y = floor_y - 6 - 28 * cm
    post_x = tray_r + 10 * cm
    pygame.draw.rect(c.surface, (120, 120, 125), pygame.Rect(post_x, lens_y - 30, 14, floor_y - lens_y + 30))
    pygame.draw.rect(c.surface, (120, 120, 125), pygame.Rect(cx, lens_y - 30, post_x - cx + 14, 12))
    cam = pygame.Rect(0, 0, 56, 22)
    cam.midbottom = (cx, lens_y - 4)
    pygame.draw.rect(c.surface, GREEN, cam)
    pygame.draw.circle(c.surface, INK, (cx, lens_y - 2), 7)
    c.text("camera, lens straight down", 26, midright=(cam.left - 24, cam.centery))
    c.text("over the tray's centre", 26, midright=(cam.left - 24, cam.centery + 28))
    # The view: about 41 degrees across covers the tray floor from 28 cm.
    for edge in (tray_l, tray_r):
        pygame.draw.line(c.surface, BLUE, (cx, lens_y), (edge, floor_y - 6), 2)
    c.text("41\u00b0 (Camera Module 3, narrow side)", 26, BLUE, midleft=(cx + 40, lens_y + 60))
    ax = post_x + 70
    pygame.draw.line(c.surface, GREY, (cx + 30, lens_y), (ax + 10, lens_y), 1)
    pygame.draw.line(c.surface, INK, (ax, lens_y), (ax, floor_y - 6), 3)
    pygame.draw.polygon(c.surface, INK, [(ax, lens_y), (ax - 8, lens_y + 16), (ax + 8, lens_y + 16)])
    pygame.draw.polygon(c.surface, INK, [(ax, floor_y - 6), (ax - 8, floor_y - 22), (ax + 8, floor_y - 22)])
    mid = (lens_y + floor_y) // 2
    c.text("28 cm", 34, bold=True, midleft=(ax + 16, mid))
    c.text("lens to tray floor", 24, GREY, midleft=(ax + 16, mid + 30))
    # Two diffused light bars, 20 cm up and outside the tray, aimed across it, so the
    # dice cast soft short shadows and the lens sees no reflection of the lamps.
    for lx, towards in ((tray_l - 5 * cm, 1), (tray_r + 5 * cm, -1)):
        bar = pygame.Rect(0, 0, 20, 5 * cm)
        bar.midbottom = (lx, floor_y - 20 * cm + 40)
        pygame.draw.rect(c.surface, (255, 244, 200), bar)
        pygame.draw.rect(c.surface, INK, bar, 2)
        for k in range(3):
            pygame.draw.line(c.surface, (225, 190, 70), (lx, bar.centery),
                             (lx + towards * (8 * cm + 40 * k), floor_y - 12), 2)
    c.text("diffused LED light bars, 4000-5000 K,", 26, midright=(tray_l - 5 * cm - 24, floor_y - 20 * cm - 10))
    c.text("about 20 cm up, either side", 26, midright=(tray_l - 5 * cm - 24, floor_y - 20 * cm + 20))
    return c


def draw_table_layout() -> Canvas:
    """The whole table from above: four stations, the tray, the hourglass, the TV, the box."""
    c = Canvas((1600, 1060))
    c.text("The whole table from above (four stations, 140 x 90 cm table)", 44, bold=True, topleft=(40, 26))
    # The TV beyond the far end.
    tv = pygame.Rect(0, 0, 560, 40)
    tv.midtop = (800, 110)
    pygame.draw.rect(c.surface, (30, 30, 34), tv, border_radius=6)
    c.text("TV on a stand, screen towards the players", 28, (235, 235, 235), center=tv.center)
    table = pygame.Rect(0, 0, 900, 580)
    table.midtop = (800, 240)
    pygame.draw.rect(c.surface, (205, 175, 130), table, border_radius=18)
    pygame.draw.rect(c.surface, INK, table, 3, border_radius=18)
    c.text("far end (towards the TV)", 26, GREY, midtop=(table.centerx, table.top + 12))
    # The LED hourglass stands at the far end, between the players and the TV.
    glass = pygame.Rect(0, 0, 60, 110)
    glass.midtop = (table.centerx, table.top + 50)
    pygame.draw.rect(c.surface, (60, 60, 66), glass, border_radius=8)
    pygame.draw.polygon(c.surface, ORANGE, [(glass.left + 10, glass.top + 12), (glass.right - 10, glass.top + 12),
                                            (glass.centerx, glass.centery)])
    pygame.draw.polygon(c.surface, ORANGE, [(glass.centerx, glass.centery), (glass.left + 10, glass.bottom - 12),
                                            (glass.right - 10, glass.bottom - 12)])
    c.text("LED hourglass", 26, midleft=(glass.right + 14, glass.centery))
    # The dice tray in the middle with the camera arm.
    tray = pygame.Rect(0, 0, 130, 130)  # 20 cm at the drawing's 6.4 pixels per cm
    tray.center = (table.centerx, table.centery)
    pygame.draw.rect(c.surface, (120, 150, 120), tray)
    pygame.draw.rect(c.surface, (90, 70, 60), tray, 8)
    c.text("dice tray", 26, (245, 245, 245), center=(tray.centerx, tray.centery - 14))
    c.text("20 x 20 cm", 24, (245, 245, 245), center=(tray.centerx, tray.centery + 14))
    pygame.draw.circle(c.surface, GREEN, (tray.centerx, tray.centery - 40), 10)
    pygame.draw.line(c.surface, (120, 120, 125), (tray.centerx, tray.centery - 40),
                     (tray.right + 40, tray.centery - 40), 6)
    pygame.draw.circle(c.surface, (120, 120, 125), (tray.right + 40, tray.centery - 40), 10)
    c.text("camera arm", 24, midleft=(tray.right + 56, tray.centery - 40))
    # Four stations, clockwise from the near left: S1, S2 on the left, S3, S4 on the right.
    spots = [(table.left - 10, table.top + 420, "left"), (table.left - 10, table.top + 190, "left"),
             (table.right + 10, table.top + 190, "right"), (table.right + 10, table.top + 420, "right")]
    box_centres = []
    for k, (x, y, side) in enumerate(spots):
        box = pygame.Rect(0, 0, 130, 150)
        box.center = (x + (75 if side == "left" else -75), y)
        pygame.draw.rect(c.surface, (225, 215, 195), box, border_radius=14)
        pygame.draw.rect(c.surface, STATIONS[k], box, 6, border_radius=14)
        pygame.draw.circle(c.surface, STATIONS[k], (box.centerx, box.top + 50), 34)
        pygame.draw.circle(c.surface, (60, 60, 60), (box.centerx, box.bottom - 36), 20)
        label_pos = {"midright": (table.left - 30, y)} if side == "left" else {"midleft": (table.right + 30, y)}
        c.text(f"S{k + 1}", 48, STATIONS[k], bold=True, **label_pos)
        box_centres.append(box.center)
    c.text("players sit here", 24, GREY, midright=(table.left - 30, table.top + 240))
    c.text("players sit here", 24, GREY, midleft=(table.right + 30, table.top + 240))
    # The electronics box under the near end, with the cable runs (dashed).
    elec = pygame.Rect(0, 0, 420, 120)
    elec.midbottom = (table.centerx, table.bottom - 40)
    dash(c, elec)
    c.text("under the table: Pi 4, 74AHCT125,", 26, midtop=(elec.centerx, elec.top + 16))
    c.text("transistors, 5 V + 12 V supplies,", 26, midtop=(elec.centerx, elec.top + 46))
    c.text("power strip", 26, midtop=(elec.centerx, elec.top + 76))
    for cx_, cy_ in box_centres:
        inner = cx_ + 65 if cx_ < elec.centerx else cx_ - 65
        dashed_line(c, (inner, cy_), (elec.left if cx_ < elec.centerx else elec.right, elec.centery), STATIONS[0])
    dashed_line(c, (elec.left + 30, elec.top), (glass.centerx - 15, glass.bottom), ORANGE)
    dashed_line(c, (tray.right + 40, elec.top), (tray.right + 40, tray.centery - 30), GREEN)
    dashed_line(c, (elec.right - 20, elec.top), (tv.right - 30, tv.bottom), BLUE)
    c.text("near end", 26, GREY, midbottom=(table.centerx, table.bottom - 8))
    legend = [("station cables (8 cores each)", STATIONS[0]), ("LED data and 5 V", ORANGE),
              ("camera cable", GREEN), ("HDMI", BLUE)]
    for k, (name, colour) in enumerate(legend):
        y = table.bottom + 60 + 34 * (k % 2)
        x = 260 + 560 * (k // 2)
        dashed_line(c, (x, y), (x + 60, y), colour)
        c.text(name, 26, midleft=(x + 76, y))
    c.text("Keep 60-70 cm of table edge per player; the TV about 2-3 m from the far players.", 26, GREY,
           topleft=(260, table.bottom + 150))
    return c


def dash(c: Canvas, rect: pygame.Rect) -> None:
    pygame.draw.rect(c.surface, (245, 240, 230), rect)
    for a, b in ((rect.topleft, rect.topright), (rect.topright, rect.bottomright),
                 (rect.bottomright, rect.bottomleft), (rect.bottomleft, rect.topleft)):
        dashed_line(c, a, b, INK)


def dashed_line(c: Canvas, a: tuple[int, int], b: tuple[int, int], colour: Colour) -> None:
    length = max(1.0, ((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) ** 0.5)
    steps = int(length // 14)
    for k in range(0, steps, 2):
        p = (a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps)
        q = (a[0] + (b[0] - a[0]) * (k + 1) / steps, a[1] + (b[1] - a[1]) * (k + 1) / steps)
        pygame.draw.line(c.surface, colour, p, q, 4)


PICTURES: dict[str, Callable[[], Canvas]] = {
    "station.png": draw_station,
    "level-shifter.png": draw_level_shifter,
    "tray-camera.png": draw_tray_camera,
    "table-layout.png": draw_table_layout,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images/hardware", help="folder for the PNGs")
    args = parser.parse_args(argv)
    out = Path(args.out)
    for name, draw in PICTURES.items():
        canvas = draw()
        clashes = overlaps(canvas.boxes)
        if clashes:
            print(f"{name}: labels overlap: {clashes}", file=sys.stderr)
            return 1
        canvas.save(out / name)
        print(f"wrote {out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
