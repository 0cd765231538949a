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

from table.errors import TableError
from table.hardware.config import HardwareConfig, load_hardware
from table.hardware.pinmap import format_header, header_rows, wiring_problems


def cmd_wiring(args: argparse.Namespace) -> int:
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

def draw_header_png(cfg: HardwareConfig, path: Path, width: int = 1600) -> None:
    """Draw the header as on the board (pin 1 top left), each used pin labelled and
    coloured by station; reserved pins grey, power red, ground black."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    from table.display.theme import station_colour

    pygame.font.init()
    rows = header_rows(cfg)
    row_h = 44
    top = 110
    height = top + 20 * row_h + 120
    surface = pygame.Surface((width, height))
    surface.fill((250, 250, 246))
    title = pygame.font.Font(None, 44)
    body = pygame.font.Font(None, 30)
    small = pygame.font.Font(None, 24)
    ink = (20, 24, 32)
    surface.blit(title.render("Raspberry Pi 40-pin header - the game table's wiring", True, ink), (40, 28))
    surface.blit(small.render(f"from {cfg.source}; GPIO numbers are BCM; pin 1 is the square pad next to "
                              "the SD card end", True, (90, 90, 90)), (40, 70))
    cx_left, cx_right = width // 2 - 40, width // 2 + 40
    board = pygame.Rect(cx_left - 34, top - 26, cx_right - cx_left + 68, 20 * row_h + 10)
    pygame.draw.rect(surface, (30, 90, 60), board, border_radius=10)

    def colour_for(name: str, use: str) -> tuple[int, int, int]:
        if name in ("5V", "3V3"):
            return (210, 50, 40)
        if name == "GND":
            return (10, 10, 10)
        if use.startswith("S") and use[1:2].isdigit():
            return station_colour(int(use[1]) - 1)
        if use.startswith("LED"):
            return (255, 150, 30)
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
        img = body.render(label, True, ink)
        rect = img.get_rect(midright=(x - 50, y)) if left else img.get_rect(midleft=(x + 50, y))
        surface.blit(img, rect)
        if use and not use.startswith("("):
            swatch = pygame.Rect(0, 0, 14, 14)
            swatch.center = (rect.left - 14, y) if left else (rect.right + 14, y)
            pygame.draw.rect(surface, fill, swatch)
    notes = [
        "Buttons, encoder contacts and switch lines: between the GPIO and any GND pin (internal pull-ups).",
        "Button LEDs: GPIO -> resistor (e.g. 330 ohm) -> LED -> GND, or a transistor for 12 V arcade LEDs.",
        "LED strip: data through a 74AHCT125 level shifter; 5 V supply sized for leds.max_milliamps.",
    ]
    for k, note in enumerate(notes):
        surface.blit(small.render(note, True, ink), (40, top + 20 * row_h + 10 + 28 * k))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        pygame.image.save(surface, str(path))
    except pygame.error as exc:
        raise TableError(f"{path}: the picture could not be written ({exc})") from None

def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("wiring", help="print the header pin map and refuse wiring that cannot work")
    p.add_argument("--config", metavar="PATH",
                   help="config directory or hardware.toml (default: the shipped hardware.toml)")
    p.add_argument("--png", metavar="FILE", help="also draw the map into FILE (PNG)")
    p.set_defaults(func=cmd_wiring)
