"""Make the printable dial of an Umtata station's 16-position switch (SVG, and PDF).

The dial goes under the knob of a 16-position coded rotary switch (docs/hardware.md,
section 3.3): each of the switch's positions is one region+colour sector of the board,
printed where the knob's pointer rests in that position, like the cardboard spinner of
the board game. The sectors come from the engine's own mapping (the position a switch
reports is the knob's sector, ``table.games.umtata.board.sector_parts``), the words
from the board file (``umtata/board.toml``: its region and colour names in the chosen
language) and the fill colours from the screen's map, so dial, board and screen agree.

Run from a development install:

    .venv/bin/python tools/hardware/make_dial.py [--out docs/images/hardware/umtata-dial.svg]
        [--language de] [--config DIR] [--counter-clockwise] [--pdf] [--png]

Sizes are millimetres on paper (print at 100 %, no "fit to page"): a 90 mm dial with a
9.5 mm hole for the switch's 3/8" bushing and a clear centre for a knob up to 40 mm.
Position 0 is at the top; positions count clockwise (``--counter-clockwise`` for a switch
whose code counts the other way). ``--pdf`` and ``--png`` print the SVG with Chromium
(``chromium`` or ``chromium-browser`` on the PATH) at the same size.
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from table.common.datafiles import data_file, use_config_dir
from table.display.games.umtata.map import LABEL_ON, TILE_COLOURS
from table.games.umtata.board import BOARD_FILE, COLOURS, REGIONS, SECTORS, load_board, sector_parts

DIAMETER_MM = 90.0
"""The dial's outer diameter: fits a station box's lid beside the big button."""
HOLE_MM = 9.5
"""The hole for the switch's bushing (3/8", the usual panel-mount rotary switch)."""
KNOB_CLEAR_MM = 40.0
"""Nothing is printed inside this diameter: the knob covers it."""
PAGE_MM = 100.0
STEP_DEG = 360.0 / SECTORS
"""A 16-position switch indexes at 22.5 degrees."""
REGION_RING_MM = 7.5
"""Width of the outer ring that names the region."""


@dataclass(frozen=True)
class Sector:
    """One position of the switch as the dial prints it."""

    position: int
    region: str
    colour: str
    angle: float
    """Degrees clockwise from the top where the pointer rests in this position."""
    region_name: str
    colour_name: str


def dial_sectors(language: str = "en", clockwise: bool = True) -> list[Sector]:
    """The 16 positions in switch order, each with the engine's region and colour for it
    and the board's words for them."""
    board = load_board()
    out = []
    for position in range(SECTORS):
        region, colour = sector_parts(position)
        angle = (position * STEP_DEG) % 360.0 if clockwise else (-position * STEP_DEG) % 360.0
        out.append(Sector(position, region, colour, angle, board.region_name(region, language),
                          board.colour_name(colour, language)))
    return out


def board_order_problem(path: Path) -> str | None:
    """A sentence when the board file lists its ``regions`` or ``colours`` in an order other
    than the engine's (the dial would then not match the knob), else ``None``."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for key, engine in (("regions", REGIONS), ("colours", COLOURS)):
        listed = data.get(key)
        if listed is not None and tuple(listed) != engine:
            return (f"{path}: {key} = {listed} is not the knob's order {list(engine)}: the dial would not "
                    "match the table")
    return None


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _point(cx: float, cy: float, r: float, deg: float) -> tuple[float, float]:
    a = math.radians(deg)
    return cx + r * math.sin(a), cy - r * math.cos(a)


def _wedge(cx: float, cy: float, r_in: float, r_out: float, start: float, end: float) -> str:
    """An annulus sector from ``start`` to ``end`` degrees (clockwise from the top)."""
    large = 1 if (end - start) % 360 > 180 else 0
    x1, y1 = _point(cx, cy, r_out, start)
    x2, y2 = _point(cx, cy, r_out, end)
    x3, y3 = _point(cx, cy, r_in, end)
    x4, y4 = _point(cx, cy, r_in, start)
    return (f"M{x1:.3f},{y1:.3f} A{r_out},{r_out} 0 {large} 1 {x2:.3f},{y2:.3f} "
            f"L{x3:.3f},{y3:.3f} A{r_in},{r_in} 0 {large} 0 {x4:.3f},{y4:.3f} Z")


def _upright(angle: float) -> float:
    """Rotation for a word at ``angle`` so that it reads from outside, never upside down."""
    return angle if not 90 < angle % 360 < 270 else angle + 180


def dial_svg(sectors: list[Sector], title: str) -> str:
    """The dial as an SVG document measured in millimetres."""
    c = PAGE_MM / 2
    r_out = DIAMETER_MM / 2
    r_region = r_out - REGION_RING_MM
    r_in = KNOB_CLEAR_MM / 2
    ink = "#1e2230"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{PAGE_MM}mm" height="{PAGE_MM}mm" '
        f'viewBox="0 0 {PAGE_MM} {PAGE_MM}" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{PAGE_MM}" height="{PAGE_MM}" fill="#ffffff"/>',
    ]
    half = STEP_DEG / 2
    for s in sectors:
        fill, text = _hex(TILE_COLOURS[s.colour]), _hex(LABEL_ON[s.colour])
        parts.append(f'<path class="sector" data-position="{s.position}" data-region="{s.region}" '
                     f'data-colour="{s.colour}" data-angle="{s.angle:g}" '
                     f'd="{_wedge(c, c, r_in, r_region, s.angle - half, s.angle + half)}" '
                     f'fill="{fill}" stroke="{ink}" stroke-width="0.3"/>')
        x, y = _point(c, c, (r_in + r_region) / 2 + 1.5, s.angle)
        parts.append(f'<text x="{x:.3f}" y="{y:.3f}" font-size="2.6" fill="{text}" text-anchor="middle" '
                     f'dominant-baseline="central" transform="rotate({_upright(s.angle):g} {x:.3f} {y:.3f})">'
                     f"{escape(s.colour_name)}</text>")
        x, y = _point(c, c, r_in + 2.4, s.angle)
        parts.append(f'<text x="{x:.3f}" y="{y:.3f}" font-size="1.8" fill="{text}" text-anchor="middle" '
                     f'dominant-baseline="central" transform="rotate({_upright(s.angle):g} {x:.3f} {y:.3f})">'
                     f"{s.position:X}</text>")
        # The pointer's mark: where the knob points in this position.
        x1, y1 = _point(c, c, r_out - 0.2, s.angle)
        x2, y2 = _point(c, c, r_out - 1.8, s.angle)
        parts.append(f'<line x1="{x1:.3f}" y1="{y1:.3f}" x2="{x2:.3f}" y2="{y2:.3f}" stroke="{ink}" '
                     'stroke-width="0.5"/>')
    for region in REGIONS:
        mine = [s for s in sectors if s.region == region]
        # Four neighbouring positions: the region's ring runs from the first to the last.
        angles = sorted(s.angle for s in mine)
        spread = [(a - angles[0]) % 360 for a in angles]
        start = angles[0] if max(spread) < 180 else max(a for a in angles if a > 180)
        begin, end = start - half, start + 3 * STEP_DEG + half
        name = mine[0].region_name
        parts.append(f'<path class="region" data-region="{region}" '
                     f'd="{_wedge(c, c, r_region, r_out, begin, end)}" fill="#f4f1e8" stroke="{ink}" '
                     'stroke-width="0.4"/>')
        middle = start + 1.5 * STEP_DEG
        x, y = _point(c, c, r_region + REGION_RING_MM / 2 - 0.6, middle)
        parts.append(f'<text x="{x:.3f}" y="{y:.3f}" font-size="3.6" font-weight="bold" fill="{ink}" '
                     f'text-anchor="middle" dominant-baseline="central" '
                     f'transform="rotate({_upright(middle):g} {x:.3f} {y:.3f})">{escape(name)}</text>')
    parts += [
        f'<circle cx="{c}" cy="{c}" r="{r_out}" fill="none" stroke="{ink}" stroke-width="0.5"/>',
        f'<circle cx="{c}" cy="{c}" r="{r_in}" fill="#ffffff" stroke="{ink}" stroke-width="0.3"/>',
        f'<circle cx="{c}" cy="{c}" r="{HOLE_MM / 2}" fill="none" stroke="{ink}" stroke-width="0.3" '
        'stroke-dasharray="1 0.8"/>',
        f'<line x1="{c - 2}" y1="{c}" x2="{c + 2}" y2="{c}" stroke="{ink}" stroke-width="0.2"/>',
        f'<line x1="{c}" y1="{c - 2}" x2="{c}" y2="{c + 2}" stroke="{ink}" stroke-width="0.2"/>',
        f'<text x="{c}" y="{c - HOLE_MM / 2 - 3}" font-size="1.8" fill="{ink}" text-anchor="middle">'
        f"cut {HOLE_MM:g} mm</text>",
        f'<text x="{c}" y="{PAGE_MM - 1.5}" font-size="1.9" fill="{ink}" text-anchor="middle">'
        f"{escape(title)} - print at 100 %: the circle is {DIAMETER_MM:g} mm across</text>",
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def print_with_chromium(svg: Path, out: Path, kind: str) -> None:
    """``out`` as a PDF (``kind="pdf"``, one page the dial's size) or a PNG (10 px per mm)."""
    browser = _chromium()
    if browser is None:
        raise SystemExit(f"make_dial: no Chromium on the PATH, so no {kind.upper()}; the SVG is {svg}")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "dial.html"
        page.write_text(f"<!doctype html><style>@page {{ size: {PAGE_MM}mm {PAGE_MM}mm; margin: 0 }} "
                        "html, body { margin: 0 } img { display: block; width: 100mm; height: 100mm }</style>"
                        f'<img src="{svg.resolve().as_uri()}">', encoding="utf-8")
        common = [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp}/profile",
                  "--allow-file-access-from-files"]
        if kind == "pdf":
            args = [*common, "--no-pdf-header-footer", f"--print-to-pdf={out.resolve()}", page.as_uri()]
        else:
            # 100 mm at 96 CSS px per inch is 378 px; a device scale of 2.7 gives about 10 px per mm.
            args = [*common, "--hide-scrollbars", "--window-size=378,378", "--force-device-scale-factor=2.7",
                    f"--screenshot={out.resolve()}", page.as_uri()]
        done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"make_dial: Chromium could not print {out}: {done.stderr.strip()[-300:]}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="the printable dial of an Umtata station's 16-position switch")
    p.add_argument("--out", type=Path, default=Path("docs/images/hardware/umtata-dial.svg"))
    p.add_argument("--language", default="en", help="the words on the dial (a language of the board file)")
    p.add_argument("--config", type=Path, help="a config directory whose umtata/board.toml to use")
    p.add_argument("--counter-clockwise", action="store_true",
                   help="positions count counter-clockwise (the switch's code rises to the left)")
    p.add_argument("--pdf", action="store_true", help="also write the PDF beside the SVG (needs Chromium)")
    p.add_argument("--png", action="store_true", help="also write a PNG beside the SVG (needs Chromium)")
    args = p.parse_args(argv)
    use_config_dir(args.config)
    problem = board_order_problem(data_file(BOARD_FILE))
    if problem:
        print(f"make_dial: {problem}", file=sys.stderr)
        return 2
    if args.language not in load_board().words:
        print(f"make_dial: the board file has no words for language {args.language!r}", file=sys.stderr)
        return 2
    sectors = dial_sectors(args.language, clockwise=not args.counter_clockwise)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dial_svg(sectors, "Wo ist bitte Umtata? - station dial"), encoding="utf-8")
    print(f"wrote {args.out}")
    for kind, wanted in (("pdf", args.pdf), ("png", args.png)):
        if wanted:
            out = args.out.with_suffix(f".{kind}")
            print_with_chromium(args.out, out, kind)
            print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
