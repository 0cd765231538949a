"""Build the Umtata map asset (``config/umtata/europe.json``) from Natural Earth's map units.

Run (development install, which carries shapely and pyproj):

    .venv/bin/python tools/umtata/build_map.py NE_MAP_UNITS.geojson [--out config/umtata/europe.json]

The input is Natural Earth's 1:50m "admin 0 map units" for Europe and its neighbours as
GeoJSON (longitude/latitude, WGS84). The output is everything the table needs to draw the
map without any geo library: per board country its projected, simplified, clipped polygon
rings and a label anchor; the grey neighbours; the lines where two regions meet; the
Greenland inset; and the land borders among the 48 board countries, derived from the full
polygons before any simplification.

What the tool does, in order:

1. Map units become board countries by their Natural Earth code (``UNITS``); Belgium,
   Bosnia and Herzegovina and Serbia arrive in parts and are joined (``shapely.union_all``),
   as is Åland into Finland. Units that are not board countries become grey neighbours.
2. Everything is projected with a Lambert azimuthal equal-area projection centred on
   Europe (52°N 10°E, the EU's statistical projection without its false origin), so
   countries keep their relative sizes. Greenland, far to the north-west, gets its own
   equal-area projection centred on it and is drawn small in an inset in the Atlantic.
3. Land borders: two board countries are neighbours when their full-resolution shapes
   come within ``TOUCH_M`` metres (Natural Earth's borders share vertices, but a few
   carry slivers) along at least ``MIN_BORDER_M`` metres of boundary, so a mere corner
   contact would not count.
4. The shapes are cut to the frame and simplified as one coverage
   (``shapely.coverage_simplify``), so neighbours keep a common border with no gaps or
   overlaps; islands smaller than ``MIN_ISLAND_KM2`` are dropped (never a country's
   largest part).
5. Label anchors are the pole of inaccessibility of each country's largest part in the
   frame (``shapely.ops.polylabel``): the point deepest inside, where a label has most room.

Coordinates in the asset are kilometres in the frame, x to the right and y downwards from
the frame's top-left corner, rounded to whole kilometres (a pixel is 3-6 km on the table's
displays). The table never imports this tool; geometry libraries are dev dependencies only.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import shapely
from pyproj import Transformer
from shapely.geometry import LineString, MultiLineString, MultiPolygon, Polygon, box, shape
from shapely.ops import linemerge, polylabel

EUROPE_CRS = "+proj=laea +lat_0=52 +lon_0=10 +x_0=0 +y_0=0 +ellps=GRS80 +units=m +no_defs"
GREENLAND_CRS = "+proj=laea +lat_0=72 +lon_0=-40 +x_0=0 +y_0=0 +ellps=GRS80 +units=m +no_defs"

# The frame in the Europe projection (metres): Portugal and Iceland on the left, the north
# cape at the top, Crete and Malta at the bottom, and most of Turkey on the right (its far
# east is cut, as on most maps of Europe: the data set holds no Iran or Iraq beyond it).
FRAME = (-1_900_000.0, -1_880_000.0, 2_620_000.0, 2_170_000.0)  # xmin, ymin, xmax, ymax

# Greenland's inset: a box in frame kilometres (x, y, w, h), over the open Atlantic west
# of Ireland, and the scale of Greenland inside it relative to the main map.
INSET_BOX = (10, 620, 620, 960)

# Region names are written in the sea (longitude, latitude).
REGION_TAGS = {
    "north": (-4.0, 66.0),
    "west": (-9.5, 46.6),
    "south": (18.5, 36.0),
    "east": (34.0, 43.4),
}

TOUCH_M = 250.0
MIN_BORDER_M = 1_000.0
SIMPLIFY_M = 1_600.0
MIN_ISLAND_KM2 = 250.0

# Natural Earth map unit code (SU_A3) -> board id. Several units may map to one country.
UNITS: dict[str, str] = {
    "ALB": "al", "AUT": "at", "BCR": "be", "BFR": "be", "BWR": "be", "BHF": "ba", "BIS": "ba",
    "BGR": "bg", "BLR": "by", "CHE": "ch", "CZE": "cz", "DEU": "de", "DNK": "dk", "ENG": "en",
    "ESP": "es", "EST": "ee", "FIN": "fi", "ALD": "fi", "FRO": "fo", "FXX": "fr", "GRC": "gr",
    "GRL": "gl", "HRV": "hr", "HUN": "hu", "IRL": "ie", "ISL": "is", "ITA": "it", "KOS": "xk",
    "LIE": "li", "LTU": "lt", "LUX": "lu", "LVA": "lv", "MCO": "mc", "MDA": "md", "MKD": "mk",
    "MLT": "mt", "MNE": "me", "NIR": "ni", "NLD": "nl", "NOR": "no", "POL": "pl", "PRX": "pt",
    "ROU": "ro", "RUS": "ru", "SCT": "sc", "SRS": "rs", "SRV": "rs", "SVK": "sk", "SVN": "si",
    "SWE": "se", "TUR": "tr", "UKR": "ua", "WLS": "wa",
}  # fmt: skip

# Grey neighbours shown for orientation, by SU_A3, with the name written on them (if any
# fits). Northern Cyprus joins Cyprus: the map shows the island, not its politics.
GREY: dict[str, str] = {
    "AND": "Andorra", "SMR": "San Marino", "VAT": "Vatican", "CYP": "Cyprus", "CYN": "Cyprus",
    "GEG": "Georgia", "ARM": "Armenia", "AZE": "Azerbaijan", "SYR": "Syria", "LBN": "Lebanon",
    "ISR": "Israel", "PSX": "Palestine", "GAZ": "Palestine", "WEB": "Palestine", "MAR": "Morocco",
    "DZA": "Algeria", "TUN": "Tunisia", "IMN": "Isle of Man", "GGY": "Guernsey", "JEY": "Jersey",
    "NJM": "Jan Mayen", "NSV": "Svalbard", "PAZ": "Azores", "PMD": "Madeira",
}  # fmt: skip


CRIMEA = (34.1, 45.0)
"""A point inside Crimea (longitude, latitude)."""


def move_crimea(parts: dict[str, list[Any]]) -> None:
    """Draw Crimea as part of Ukraine, as the UN and most of the table's players see it.

    The 2017 data puts the peninsula in Russia's shape, as a separate polygon (its only
    land link is to Ukraine). Moving it changes no border among the board's countries.
    """
    point = shapely.Point(*CRIMEA)
    kept: list[Any] = []
    moved: list[Any] = []
    for geom in parts.get("ru", []):
        for p in polygons(geom):
            (moved if p.contains(point) else kept).append(p)
    if moved:
        parts["ru"] = [shapely.MultiPolygon(kept)]
        parts.setdefault("ua", []).extend(moved)


def fail(message: str) -> NoReturn:
    print(f"build_map: {message}", file=sys.stderr)
    raise SystemExit(2)


def load_units(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}")
    except ValueError as exc:
        fail(f"{path} is not JSON: {exc}")
    features = data.get("features") if isinstance(data, dict) else None
    if not isinstance(features, list):
        fail(f"{path} is not a GeoJSON FeatureCollection")
    return features


def project(geom: Any, crs: str) -> Any:
    """``geom`` (lon/lat degrees) in the projection ``crs`` (metres)."""
    tr = Transformer.from_crs("EPSG:4326", crs, always_xy=True)

    def fn(coords: np.ndarray) -> np.ndarray:
        x, y = tr.transform(coords[:, 0], coords[:, 1])
        return np.column_stack([x, y])

    return shapely.make_valid(shapely.transform(geom, fn))


def polygons(geom: Any) -> list[Polygon]:
    """The polygons inside any geometry (collections included), largest first."""
    if geom is None or geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        return [geom]
    if isinstance(geom, MultiPolygon):
        out = list(geom.geoms)
    elif hasattr(geom, "geoms"):
        out = [p for g in geom.geoms for p in polygons(g)]
    else:
        return []
    return sorted(out, key=lambda p: -p.area)


def lines(geom: Any) -> list[LineString]:
    if geom is None or geom.is_empty:
        return []
    if isinstance(geom, LineString):
        return [geom]
    if isinstance(geom, MultiLineString):
        return list(geom.geoms)
    if hasattr(geom, "geoms"):
        return [ln for g in geom.geoms for ln in lines(g)]
    return []


def derive_land_borders(shapes: dict[str, Any]) -> tuple[list[tuple[str, str]], dict[tuple[str, str], float]]:
    """Pairs of board countries that share a land border, and the border's length (m)."""
    ids = sorted(shapes)
    tree = shapely.STRtree([shapes[i] for i in ids])
    found: dict[tuple[str, str], float] = {}
    for i, a in enumerate(ids):
        for j in tree.query(shapes[a], predicate="dwithin", distance=TOUCH_M):
            b = ids[int(j)]
            if b <= a:
                continue
            # The length of a's boundary that lies within the touch distance of b.
            near = shapes[a].boundary.intersection(shapes[b].buffer(TOUCH_M))
            length = sum(ln.length for ln in lines(near))
            if length >= MIN_BORDER_M:
                found[(a, b)] = length
        del i
    return sorted(found), found


def ring_coords(ring: Any, to_frame: Any) -> list[int]:
    """A ring as a flat ``[x0, y0, x1, y1, ...]`` list of whole frame kilometres."""
    out: list[int] = []
    last = None
    for x, y in list(ring.coords)[:-1]:
        pt = to_frame(x, y)
        if pt != last:
            out.extend(pt)
            last = pt
    if len(out) >= 4 and out[:2] == out[-2:]:
        out = out[:-2]
    return out if len(out) >= 6 else []


def encode(geom: Any, to_frame: Any, keep_largest: bool = True) -> list[list[int]]:
    """Polygon exteriors as frame rings, islands under ``MIN_ISLAND_KM2`` left out (the
    largest part always stays). Holes are not stored: the only ones in the data are
    enclaves (San Marino and the Vatican inside Italy), which are drawn on top."""
    parts = polygons(geom)
    out = []
    for k, p in enumerate(parts):
        if (k > 0 or not keep_largest) and p.area < MIN_ISLAND_KM2 * 1e6:
            continue
        ring = ring_coords(p.exterior, to_frame)
        if ring:
            out.append(ring)
    return out


def greenland_inset(geoms: list[Any]) -> tuple[dict[str, Any], float]:
    """Greenland in its own equal-area projection, scaled to fit the inset box (frame km);
    returns its asset entry and the scale relative to the main map."""
    inset_x, inset_y, inset_w, inset_h = INSET_BOX
    gl = shapely.simplify(project(shapely.union_all(geoms), GREENLAND_CRS), SIMPLIFY_M * 2)
    gx0, gy0, gx1, gy1 = gl.bounds
    pad = 20.0
    scale = min((inset_w - 2 * pad) / ((gx1 - gx0) / 1000.0), (inset_h - 2 * pad) / ((gy1 - gy0) / 1000.0))
    off_x = inset_x + (inset_w - (gx1 - gx0) / 1000.0 * scale) / 2
    off_y = inset_y + (inset_h - (gy1 - gy0) / 1000.0 * scale) / 2

    def to_inset(x: float, y: float) -> tuple[int, int]:
        return round(off_x + (x - gx0) / 1000.0 * scale), round(off_y + (gy1 - y) / 1000.0 * scale)

    # The inset's parts are kept by their size on the map (scaled), not on the ground.
    parts = [p for k, p in enumerate(polygons(gl)) if k == 0 or p.area * scale**2 >= MIN_ISLAND_KM2 * 1e6]
    anchor = polylabel(polygons(gl)[0], tolerance=2_000.0)
    entry = {
        "rings": [r for r in (ring_coords(p.exterior, to_inset) for p in parts) if r],
        "anchor": list(to_inset(anchor.x, anchor.y)),
        "area": round(polygons(gl)[0].area * scale**2 / 1e6),
        "inset": True,
    }
    return entry, scale


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("geojson", type=Path, help="Natural Earth 1:50m admin 0 map units (GeoJSON)")
    parser.add_argument("--board", type=Path, help="the board file (default: the table's umtata/board.toml)")
    parser.add_argument("--out", type=Path, help="where to write the asset (default: the table's umtata/europe.json)")
    args = parser.parse_args(argv)

    from table.common.datafiles import package_path

    defaults = package_path("defaults")
    board_path = args.board or defaults / "umtata" / "board.toml"
    out_path = args.out or defaults / "umtata" / "europe.json"
    try:
        board = tomllib.loads(board_path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        fail(f"cannot read the board {board_path}: {exc}")
    region_of = {str(c["id"]): str(c["region"]) for c in board["country"]}

    features = load_units(args.geojson)
    parts: dict[str, list[Any]] = {}
    grey_parts: dict[str, list[Any]] = {}
    for f in features:
        props = f.get("properties") or {}
        code = str(props.get("SU_A3", ""))
        geom = shape(f["geometry"])
        if code in UNITS:
            parts.setdefault(UNITS[code], []).append(geom)
        elif code in GREY:
            grey_parts.setdefault(GREY[code], []).append(geom)
        else:
            print(f"build_map: left out {props.get('NAME')} ({code})", file=sys.stderr)
    move_crimea(parts)
    missing = sorted(set(region_of) - set(parts))
    if missing:
        fail(f"the data has no shape for the board countries {', '.join(missing)}")

    # 1-2: join the parts, project.
    full = {cid: project(shapely.union_all(geoms), EUROPE_CRS) for cid, geoms in parts.items()}
    full = {cid: g for cid, g in full.items() if cid in region_of}
    grey_full = {name: project(shapely.union_all(geoms), EUROPE_CRS) for name, geoms in grey_parts.items()}

    # 3: land borders from the full shapes.
    land, lengths = derive_land_borders(full)

    # 4: cut to the frame (with a margin so the frame edge is not simplified), simplify as
    # one coverage, cut exactly.
    xmin, ymin, xmax, ymax = FRAME
    margin = 50_000.0
    cut = box(xmin - margin, ymin - margin, xmax + margin, ymax + margin)
    inset_x, inset_y, inset_w, inset_h = INSET_BOX
    inset_frame = box(
        xmin + inset_x * 1000.0, ymax - (inset_y + inset_h) * 1000.0,
        xmin + (inset_x + inset_w) * 1000.0, ymax - inset_y * 1000.0,
    )  # fmt: skip
    names: list[str] = []
    geoms: list[Any] = []
    for cid, g in full.items():
        if cid == "gl":
            continue  # drawn in its inset only
        clipped = shapely.intersection(g, cut)
        if not clipped.is_empty:
            names.append(cid)
            geoms.append(shapely.MultiPolygon(polygons(clipped)))
    for name, g in grey_full.items():
        clipped = shapely.difference(shapely.intersection(g, cut), inset_frame)
        if polygons(clipped):
            names.append("grey:" + name)
            geoms.append(shapely.MultiPolygon(polygons(clipped)))
    simple = shapely.coverage_simplify(np.array(geoms, dtype=object), SIMPLIFY_M)
    frame_box = box(xmin, ymin, xmax, ymax)
    drawn = {n: shapely.make_valid(shapely.intersection(g, frame_box)) for n, g in zip(names, simple, strict=True)}

    def to_frame(x: float, y: float) -> tuple[int, int]:
        return round((x - xmin) / 1000.0), round((ymax - y) / 1000.0)

    countries: dict[str, Any] = {}
    scale = 0.0
    for cid in region_of:
        if cid == "gl":
            countries[cid], scale = greenland_inset(parts["gl"])
            continue
        g = drawn.get(cid)
        if g is None or not polygons(g):
            fail(f"{cid} falls outside the frame")
        rings = encode(g, to_frame)
        main_part = polygons(g)[0]
        anchor = polylabel(main_part, tolerance=1_000.0)
        countries[cid] = {
            "rings": rings,
            "anchor": list(to_frame(anchor.x, anchor.y)),
            "area": round(sum(p.area for p in polygons(g)) / 1e6),
        }
    grey: list[dict[str, Any]] = []
    for n, g in drawn.items():
        if not n.startswith("grey:") or not polygons(g):
            continue
        rings = encode(g, to_frame, keep_largest=polygons(g)[0].area > 20e6)
        if not rings:
            continue
        anchor = polylabel(polygons(g)[0], tolerance=1_000.0)
        grey.append({"name": n[5:], "rings": rings, "anchor": list(to_frame(anchor.x, anchor.y)),
                     "area": round(sum(p.area for p in polygons(g)) / 1e6)})
    grey.sort(key=lambda item: -item["area"])

    # Region lines: where two neighbours of different regions meet, along the drawn borders.
    region_lines: list[list[int]] = []
    for a, b in land:
        if region_of[a] == region_of[b] or a not in drawn or b not in drawn:
            continue
        shared = shapely.intersection(drawn[a].boundary, drawn[b].boundary)
        merged = linemerge(lines(shared)) if lines(shared) else None
        for ln in lines(merged):
            pts: list[int] = []
            for x, y in ln.coords:
                pt = to_frame(x, y)
                if pts[-2:] != list(pt):
                    pts.extend(pt)
            if len(pts) >= 4:
                region_lines.append(pts)

    tr = Transformer.from_crs("EPSG:4326", EUROPE_CRS, always_xy=True)
    tags = {r: list(to_frame(*tr.transform(lon, lat))) for r, (lon, lat) in REGION_TAGS.items()}

    asset = {
        "about": "The Umtata map of Europe, built by tools/umtata/build_map.py from Natural Earth "
        "1:50m admin 0 map units (public domain). Kilometres in a Lambert azimuthal equal-area "
        "projection centred on 52N 10E; x right, y down from the frame's top-left corner.",
        "frame": [round((xmax - xmin) / 1000.0), round((ymax - ymin) / 1000.0)],
        "inset": {"country": "gl", "box": list(INSET_BOX), "scale": round(scale, 3)},
        "region_tags": tags,
        "land": [f"{a}-{b}" for a, b in land],
        "countries": countries,
        "grey": grey,
        "region_lines": region_lines,
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(asset, separators=(",", ":"))
    out_path.write_text(text + "\n", encoding="utf-8")
    points = sum(len(r) // 2 for c in countries.values() for r in c["rings"]) + sum(
        len(r) // 2 for g in grey for r in g["rings"]
    )
    print(f"wrote {out_path}: {len(text) // 1024} KiB, {points} points, {len(land)} land borders")
    for a, b in land:
        print(f"  {a}-{b}: {lengths[(a, b)] / 1000:.1f} km")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
