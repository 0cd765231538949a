"""Reader settings from ``dice/reader.toml`` (stdlib tomllib, frozen dataclass).

The file, the face model it names and taught symbol dice are looked up in the config
directory in force and then in the shipped defaults (:mod:`table.common.datafiles`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from table.common.checks import load_toml, read_text_input
from table.common.datafiles import config_dir, data_file, defaults_dir
from table.common.errors import TableError


def _model_default() -> Path:
    return data_file("dice/faces.npz")


def symbols_home() -> Path:
    """Where taught symbol dice are kept: ``dice/symbols`` of the config directory in
    force, else of the shipped defaults (read-only on an installed table)."""
    base = config_dir()
    return (base if base is not None else defaults_dir()) / "dice" / "symbols"


@dataclass(frozen=True)
class ReaderSettings:
    """What the reader needs besides the image; see the shipped ``dice/reader.toml``."""

    min_confidence: float = 0.6
    model_path: Path = field(default_factory=_model_default)
    tray_area: tuple[int, int, int, int] | None = None
    settle_seconds: float = 0.6
    motion_level: float = 12.0
    timeout_seconds: float = 8.0
    symbols_dir: Path = field(default_factory=symbols_home)
    # Which library runs the face networks (table.dice.engines): auto, numpy, onnxruntime, opencv.
    engine: str = "auto"
    # Also read every box shrunk about its centre (table.dice.reader.shrunk): for setups
    # where the finder's boxes take in a pale ring around each die (docs/dice.md).
    shrink_boxes: bool = False
    # A pip reading less sure than this is taken for "not a die" and not reported at all
    # (0: every reading is reported, the unsure ones marked by their confidence).
    drop_below: float = 0.0
    # The second look (``shrink_boxes``) is taken only for boxes whose first reading is a
    # die less sure than ``second_look_below``, or "not a die" less sure than
    # ``second_look_reject_below`` (1.0 or more: every box; docs/dice.md).
    second_look_below: float = 1.0
    # The second look's box: this fraction of the finder's box's longer side, same centre.
    second_look_size: float = 0.65
    second_look_reject_below: float = 0.99999
    # How many views (table.dice.model.VIEWS) an unsure box is read in on the second look.
    second_look_views: int = 8
    # The networks for setups unlike the tray (None: off). A frame whose surface away from
    # the dice is rougher than ``tray_texture`` in fine detail or than ``tray_grain`` in
    # coarse grain (table.dice.detect.background_texture) is read by them, with the second
    # look; a frame like the tray by ``model_path``.
    general_model: Path | None = None
    tray_texture: float = 1.44
    tray_grain: float = 2.04
    # ``drop_below`` for the frames the general networks read (``drop_below`` is the tray's).
    general_drop_below: float = 0.55


def load_settings(path: Path | None = None) -> ReaderSettings:
    """Read the settings (default: ``dice/reader.toml`` of the config directory in force,
    else the shipped one); a missing file gives the defaults, a bad one a TableError."""
    path = path or data_file("dice/reader.toml")
    if not path.exists():
        return ReaderSettings()
    try:
        data = load_toml(read_text_input(path, "dice reader settings file"))
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"{path} is not valid TOML: {exc}") from exc
    reader = data.get("reader", {})
    tray = data.get("tray", {})
    capture = data.get("capture", {})
    try:
        conf = float(reader.get("min_confidence", 0.6))
        if not 1 <= int(reader.get("second_look_views", 8)) <= 8:
            raise ValueError("reader.second_look_views must be 1-8")
        area = tray.get("area")
        if area is not None:
            if len(area) != 4:
                raise ValueError("tray.area needs four numbers")
            area = tuple(int(v) for v in area)
        return ReaderSettings(
            min_confidence=conf,
            model_path=_model_file(path, str(reader.get("model", "faces.npz"))),
            tray_area=area,
            settle_seconds=float(capture.get("settle_seconds", 0.6)),
            motion_level=float(capture.get("motion_level", 12)),
            timeout_seconds=float(capture.get("timeout_seconds", 8.0)),
            symbols_dir=symbols_home(),
            engine=_engine(reader.get("engine", "auto")),
            shrink_boxes=_flag(reader.get("shrink_boxes", False), "reader.shrink_boxes"),
            drop_below=float(reader.get("drop_below", 0.0)),
            second_look_below=float(reader.get("second_look_below", 1.0)),
            second_look_size=float(reader.get("second_look_size", 0.65)),
            second_look_reject_below=float(reader.get("second_look_reject_below", 0.99999)),
            second_look_views=int(reader.get("second_look_views", 8)),
            general_model=_general(path, reader.get("general_model", "")),
            tray_texture=float(reader.get("tray_texture", 1.44)),
            tray_grain=float(reader.get("tray_grain", 2.04)),
            general_drop_below=float(reader.get("general_drop_below", 0.55)),
        )
    except (TypeError, ValueError) as exc:
        raise TableError(f"{path}: a setting has the wrong type ({exc})") from exc


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} is {value!r}; use true or false")
    return value


def _general(settings_file: Path, value: object) -> Path | None:
    if not isinstance(value, str):
        raise ValueError(f"reader.general_model is {value!r}; give a file name, or \"\" for none")
    return _model_file(settings_file, value) if value else None


def _engine(value: object) -> str:
    from table.dice.engines import ENGINES

    if value not in ENGINES:
        raise ValueError(f"reader.engine is {value!r}; use one of {', '.join(ENGINES)}")
    return str(value)


def _model_file(settings_file: Path, name: str) -> Path:
    """The model a settings file names: beside that file when it is there (an owner's
    own model), else the config directory's or the shipped ``dice/NAME``."""
    beside = settings_file.parent / name
    return beside if beside.is_file() else data_file(f"dice/{name}")
