"""The build guide (docs/hardware.md) and its pictures agree with each other and the code.

- one series resistor value everywhere: the guide's text, ``table wiring --png``'s notes and
  the drawn diagrams all take it from ``table.commands.wiring``;
- no text of the header map runs into another or into the header drawing;
- the diagram tool draws every picture the guide shows, with no two labels overlapping;
- the guide and the other docs stand alone: no pointers to issues or to files outside the
  repository.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from table.commands.wiring import BASE_RESISTOR_OHMS, LED_RESISTOR_OHMS, draw_header_png
from table.hardware.config import load_hardware

CHECKOUT = Path(__file__).resolve().parents[2]
GUIDE = CHECKOUT / "docs" / "hardware.md"
EXAMPLES = Path(__file__).resolve().parent / "wiring_examples"


def load_tool() -> ModuleType:
    path = CHECKOUT / "tools" / "hardware" / "draw_build_guide.py"
    spec = importlib.util.spec_from_file_location("draw_build_guide", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["draw_build_guide"] = module
    spec.loader.exec_module(module)
    return module


def test_the_guide_names_one_led_resistor_value() -> None:
    text = GUIDE.read_text()
    ohms = {int(v) for v in re.findall(r"(\d+)\s*\u03a9", text)}
    # Only the LED/data resistor and the 1 kOhm base resistor (written "1 k\u03a9"); the
    # MCP3008's potentiometers are given in kOhm too.
    assert ohms == {LED_RESISTOR_OHMS}, ohms
    assert f"{BASE_RESISTOR_OHMS // 1000} k\u03a9" in text
    assert "220" not in text


@pytest.mark.heavy  # draws the header map
@pytest.mark.parametrize("config", [None, EXAMPLES / "pi5-absolute.toml", EXAMPLES / "pi4-potentiometers.toml",
                                    EXAMPLES / "pi5-encoders-displays.toml", EXAMPLES / "pi-encoders.toml"])
def test_the_header_map_has_no_text_over_text_or_the_drawing(config: Path | None, tmp_path: Path) -> None:
    import pygame

    cfg = load_hardware(config)
    png = tmp_path / "w.png"
    boxes = draw_header_png(cfg, png)
    size = pygame.image.load(str(png)).get_size()
    rects = [(text, pygame.Rect(box)) for text, box in boxes]
    whole = pygame.Rect((0, 0), size)
    for text, rect in rects:
        assert whole.contains(rect), f"{text!r} leaves the picture"
    for i, (a, ra) in enumerate(rects):
        for b, rb in rects[i + 1:]:
            assert not ra.colliderect(rb), f"{a!r} overlaps {b!r}"
    notes = " ".join(text for text, _ in boxes)
    assert f"{LED_RESISTOR_OHMS} ohm" in notes and "220" not in notes


@pytest.mark.heavy  # draws every picture
def test_the_diagram_tool_draws_every_picture_the_guide_shows(tmp_path: Path) -> None:
    tool = load_tool()
    assert tool.main(["--out", str(tmp_path)]) == 0
    text = GUIDE.read_text()
    for name in tool.PICTURES:
        assert (tmp_path / name).stat().st_size > 10_000
        assert f"images/hardware/{name}" in text, f"the guide does not show {name}"
    for name, draw in tool.PICTURES.items():
        canvas = draw()
        assert tool.overlaps(canvas.boxes) == [], name
        whole = canvas.surface.get_rect()
        for label, rect in canvas.boxes:
            assert whole.contains(rect), f"{name}: {label!r} leaves the picture"


def test_the_docs_stand_alone() -> None:
    # The benchmarks' and tools' docstrings say how to run them: docs too.
    docs = [CHECKOUT / "README.md", *sorted((CHECKOUT / "docs").rglob("*.md")),
            *sorted((CHECKOUT / "bench").rglob("*.py")), *sorted((CHECKOUT / "tools").rglob("*.py"))]
    # Any case: "the issue", "issue 15", "../shared", a path on the machine the docs were
    # written on ("/work/venv/bin/python"); as written: the product documents that live
    # outside the repository (docs/architecture.md, in it, is fine).
    banned_any_case = re.compile(r"\bthe issue|\bissues? #?\d|\.\./shared|(?<![\w.])/work/", re.I)
    banned = re.compile(r"\bTABLE\.md|\bARCHITECTURE\.md")
    found = []
    for path in docs:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if banned_any_case.search(line) or banned.search(line):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert found == []
