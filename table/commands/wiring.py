"""``table wiring [--config PATH] [--png FILE]``: the header pin map of the configured table.

Refuses wiring that cannot work - a GPIO used twice, a GPIO that is not on the
header, a GPIO of a bus in use (I2C, SPI, UART, PWM) or of the HAT ID EEPROM -
with one sentence per problem on stderr and exit status 2. ``--png`` draws the
same map as a picture for the build guide.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from table.commands import COMMANDS, named_path
from table.common.errors import TableError
from table.hardware.config import HardwareConfig, load_hardware
from table.hardware.pinmap import display_lines, format_header, header_rows, wiring_problems


def cmd_wiring(args: argparse.Namespace) -> int:
    named_path(args.config, what="config directory or hardware.toml")
    cfg = load_hardware(args.config, check_pins=False)
    problems = wiring_problems(cfg)
    if problems:
        for problem in problems:
            sys.stderr.write(f"table: {problem}\n")
        return 2
    if cfg.backend != "gpio":
        print(f"The stations are on the {cfg.backend} backend (input.backend), not on the Pi's header;"
              " for the I/O bridge see firmware/config.py.\n")
    print(format_header(cfg))
    if args.png:
        draw_header_png(cfg, Path(args.png))
        print(f"\nwrote {args.png}")
    return 0

#: The one series resistor the build guide uses: a bare LED on a GPIO, and the LED
#: strip's data line. docs/hardware.md says the same value (a test holds them together).
LED_RESISTOR_OHMS = 330
#: The base resistor of each NPN transistor that switches an arcade button's lamp.
BASE_RESISTOR_OHMS = 1000


def draw_header_png(cfg: HardwareConfig, path: Path, width: int = 1600) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Draw the header as on the board (pin 1 top left), each used pin labelled and
    coloured by station; reserved pins grey, power red, ground black.

    Returns every text drawn with its box (x, y, w, h), and the board as ``"<board>"``,
    so a test can check that nothing overlaps and nothing leaves the picture."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    from table.display.theme import station_colour

    pygame.font.init()
    rows = header_rows(cfg)
    row_h = 44
    title = pygame.font.Font(None, 44)
    body = pygame.font.Font(None, 30)
    small = pygame.font.Font(None, 24)
    ink = (20, 24, 32)
    boxes: list[tuple[str, tuple[int, int, int, int]]] = []
    notes = [
        "Buttons, encoder contacts and switch lines: between the GPIO and any GND pin (internal pull-ups).",
        f"A bare LED: GPIO -> {LED_RESISTOR_OHMS} ohm -> LED -> GND. An arcade button's 12 V lamp: an NPN "
        f"transistor ({BASE_RESISTOR_OHMS // 1000} kohm to its base).",
        f"LED strip: data through a 74AHCT125 level shifter and {LED_RESISTOR_OHMS} ohm; 5 V supply sized "
        "for leds.max_milliamps.",
    ]
    if cfg.private_displays:
        notes.append("Station displays: SDA/SCL (GPIO 2/3), 3.3 V and GND to the TCA9548A; each OLED on its "
                     "channel:")
        notes += [f"    {line}" for line in display_lines(cfg)]
    subtitle = (f"from {cfg.source}; GPIO numbers are BCM; pin 1 is the square pad next to the SD card end")
    # The layout follows from the fonts: the header drawing starts below the subtitle,
    # the notes below the header, so no text can run into the drawing.
    title_y, subtitle_y = 28, 28 + title.get_linesize() + 6
    board_top = subtitle_y + small.get_linesize() + 20
    top = board_top + 26
    notes_y = board_top + 20 * row_h + 10 + 16
    height = notes_y + len(notes) * 28 + 24
    surface = pygame.Surface((width, height))
    surface.fill((250, 250, 246))

    def put(font: pygame.font.Font, text: str, colour: tuple[int, int, int], **where: tuple[int, int]) -> pygame.Rect:
        img = font.render(text, True, colour)
        rect = img.get_rect(**where)
        surface.blit(img, rect)
        boxes.append((text, (rect.x, rect.y, rect.w, rect.h)))
        return rect

    put(title, "Raspberry Pi 40-pin header - the game table's wiring", ink, topleft=(40, title_y))
    put(small, subtitle, (90, 90, 90), topleft=(40, subtitle_y))
    cx_left, cx_right = width // 2 - 40, width // 2 + 40
    board = pygame.Rect(cx_left - 34, board_top, cx_right - cx_left + 68, 20 * row_h + 10)
    pygame.draw.rect(surface, (30, 90, 60), board, border_radius=10)
    boxes.append(("<board>", (board.x, board.y, board.w, board.h)))

    def colour_for(name: str, use: str) -> tuple[int, int, int]:
        if name in ("5V", "3V3"):
            return (210, 50, 40)
        if name == "GND":
            return (10, 10, 10)
        if use.startswith("S") and use[1:2].isdigit():
            return station_colour(int(use[1]) - 1)
        if use.startswith("LED"):
            return (255, 150, 30)
        if use.startswith("OLED"):
            return (40, 140, 200)
        if use.startswith("MCP3008"):
            return (120, 80, 200)
        if use.startswith("("):
            return (170, 170, 170)
        return (235, 235, 225)

    for pos, name, use in rows:
        r = (pos - 1) // 2
        y = top + r * row_h
        left = pos % 2 == 1
        x = cx_left if left else cx_right
        fill = colour_for(name, use)
        pygame.draw.circle(surface, fill, (x, y), 15)
        pygame.draw.circle(surface, (255, 255, 255), (x, y), 15, 2)
        num = small.render(str(pos), True, (255, 255, 255) if sum(fill) < 400 else ink)
        surface.blit(num, num.get_rect(center=(x, y)))
        label = f"{name}  {use}".strip()
        rect = put(body, label, ink, **({"midright": (x - 50, y)} if left else {"midleft": (x + 50, y)}))
        if use and not use.startswith("("):
            swatch = pygame.Rect(0, 0, 14, 14)
            swatch.center = (rect.left - 14, y) if left else (rect.right + 14, y)
            pygame.draw.rect(surface, fill, swatch)
    for k, note in enumerate(notes):
        put(small, note, ink, topleft=(40, notes_y + 28 * k))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        pygame.image.save(surface, str(path))
    except pygame.error as exc:
        raise TableError(f"{path}: the picture could not be written ({exc})") from None
    return boxes


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("wiring", help=COMMANDS["wiring"].help)
    p.add_argument("--config", metavar="PATH",
                   help="config directory or hardware.toml (default: the shipped hardware.toml)")
    p.add_argument("--png", metavar="FILE", help="also draw the map into FILE (PNG)")
    p.set_defaults(func=cmd_wiring)
