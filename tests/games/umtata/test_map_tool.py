"""The map tool (tools/umtata/build_map.py) finds borders from the polygons, joins split
countries and writes an asset the table can draw.

A toy atlas of squares stands in for Natural Earth: two squares sharing an edge are
neighbours; a corner contact or a one-kilometre gap is not a border.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]


def _tool() -> ModuleType:
    pytest.importorskip("shapely", reason="shapely is a dev dependency (pip install -e .[dev])")
    pytest.importorskip("pyproj", reason="pyproj is a dev dependency (pip install -e .[dev])")
    spec = importlib.util.spec_from_file_location("build_map", REPO / "tools" / "umtata" / "build_map.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_map"] = module
    spec.loader.exec_module(module)
    return module


def _square(code: str, lon0: float, lat0: float, lon1: float, lat1: float) -> dict[str, Any]:
    ring = [[lon0, lat0], [lon1, lat0], [lon1, lat1], [lon0, lat1], [lon0, lat0]]
    return {"type": "Feature", "properties": {"SU_A3": code, "NAME": code},
            "geometry": {"type": "Polygon", "coordinates": [ring]}}


BOARD = "\n".join(
    f'[[country]]\nid = "{cid}"\nname = "{cid}"\nregion = "{region}"\ncolour = "green"\n'
    for cid, region in (("de", "west"), ("pl", "east"), ("cz", "west"), ("at", "west"), ("be", "west"))
)


def test_borders_from_polygons_and_split_countries_joined(tmp_path: Path) -> None:
    tool = _tool()
    atlas = {"type": "FeatureCollection", "features": [
        _square("DEU", 8, 50, 12, 54),
        _square("POL", 12, 50, 16, 54),  # shares Germany's east edge
        _square("CZE", 12, 46, 16, 50),  # shares Poland's south edge, touches Germany at one corner only
        _square("AUT", 8, 46, 11.99, 49.99),  # a kilometre short of Germany
        _square("BFR", 6, 52, 8, 54),  # Belgium in two parts (Flemish, Walloon) that the tool joins
        _square("BWR", 6, 50, 8, 52),
        _square("DZA", 0, 30, 8, 36),  # a grey neighbour
    ]}
    src = tmp_path / "atlas.geojson"
    src.write_text(json.dumps(atlas))
    board = tmp_path / "board.toml"
    board.write_text(BOARD)
    out = tmp_path / "europe.json"
    assert tool.main([str(src), "--board", str(board), "--out", str(out)]) == 0
    asset = json.loads(out.read_text())
    assert asset["land"] == ["be-de", "cz-pl", "de-pl"]
    assert len(asset["countries"]["be"]["rings"]) == 1  # the two parts are one country
    fw, fh = asset["frame"]
    for c in asset["countries"].values():
        x, y = c["anchor"]
        assert 0 <= x <= fw and 0 <= y <= fh
    assert [g["name"] for g in asset["grey"]] == ["Algeria"]
    # Where Poland and Czechia (east and west) meet, a region line is drawn.
    assert asset["region_lines"]


def test_bad_input_is_one_sentence_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tool = _tool()
    src = tmp_path / "atlas.geojson"
    src.write_text("not json")
    with pytest.raises(SystemExit) as exc:
        tool.main([str(src), "--out", str(tmp_path / "x.json")])
    assert exc.value.code == 2
    assert "is not JSON" in capsys.readouterr().err
