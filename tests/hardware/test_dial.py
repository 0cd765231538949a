"""The printed dial of an Umtata station's 16-position switch: at every position the
pointer rests on the region and colour the engine takes from that switch position, and
the dial in the build guide is the one the tool makes from the board today."""

from __future__ import annotations

import importlib.util
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from table.display.games.umtata.map import TILE_COLOURS
from table.games.base import Action, GameSetup
from table.games.umtata.board import SECTORS, load_board
from table.games.umtata.engine import ENGINE

CHECKOUT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def load_tool() -> ModuleType:
    path = CHECKOUT / "tools" / "hardware" / "make_dial.py"
    spec = importlib.util.spec_from_file_location("make_dial", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_dial"] = module
    spec.loader.exec_module(module)
    return module


def printed(svg: str) -> dict[int, dict[str, str]]:
    """Each position's printed sector: its region, colour, fill and angle."""
    root = ET.fromstring(svg)
    return {int(p.get("data-position", "")): dict(p.attrib) for p in root.iter(f"{SVG}path")
            if p.get("class") == "sector"}


def guess_at(position: int) -> dict[str, str]:
    """What the engine locks for station 0 after its switch reports ``position`` and a push."""
    state = ENGINE.new_game(GameSetup("umtata", stations=(0, 1)), seed=2)
    state = ENGINE.apply(state, Action("turn", 1.0, 0, {"sector": position, "sectors": 16}))
    state = ENGINE.apply(state, Action("push", 2.0, 0))
    guess = ENGINE.view(state, 0)["you"]["guess"]
    assert isinstance(guess, dict)
    return {str(k): str(v) for k, v in guess.items()}


def test_the_dial_shows_the_sector_the_engine_takes_at_every_position() -> None:
    tool = load_tool()
    sectors = printed(tool.dial_svg(tool.dial_sectors(), "test"))
    assert sorted(sectors) == list(range(SECTORS))
    for position, attrs in sectors.items():
        assert guess_at(position) == {"region": attrs["data-region"], "colour": attrs["data-colour"]}, position
        assert float(attrs["data-angle"]) == pytest.approx(position * 22.5)
        assert attrs["fill"] == "#{:02x}{:02x}{:02x}".format(*TILE_COLOURS[attrs["data-colour"]])
        # The board has three countries under each printed sector.
        assert len(load_board().in_sector(position)) == 3


def test_counter_clockwise_mirrors_the_positions() -> None:
    tool = load_tool()
    sectors = printed(tool.dial_svg(tool.dial_sectors(clockwise=False), "test"))
    assert float(sectors[1]["data-angle"]) == pytest.approx(360 - 22.5)
    assert sectors[1]["data-colour"] == guess_at(1)["colour"]


def test_the_guides_dials_are_the_tools_output() -> None:
    tool = load_tool()
    for language, name in (("en", "umtata-dial.svg"), ("de", "umtata-dial.de.svg")):
        shipped = (CHECKOUT / "docs" / "images" / "hardware" / name).read_text(encoding="utf-8")
        assert shipped == tool.dial_svg(tool.dial_sectors(language), "Wo ist bitte Umtata? - station dial"), (
            f"regenerate {name}: tools/hardware/make_dial.py")
    assert ">Süd<" in (CHECKOUT / "docs" / "images" / "hardware" / "umtata-dial.de.svg").read_text()
    root = ET.fromstring((CHECKOUT / "docs" / "images" / "hardware" / "umtata-dial.svg").read_text())
    assert root.get("width") == "100.0mm" and root.get("viewBox") == "0 0 100.0 100.0"


def test_a_board_listing_another_order_is_refused(tmp_path: Path) -> None:
    tool = load_tool()
    board = tmp_path / "board.toml"
    board.write_text('regions = ["north", "south", "east", "west"]\n')
    problem = tool.board_order_problem(board)
    assert problem is not None and "is not the knob's order" in problem
    board.write_text('regions = ["north", "east", "south", "west"]\ncolours = ["orange", "yellow", "green", '
                     '"purple"]\n')
    assert tool.board_order_problem(board) is None
