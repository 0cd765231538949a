"""Reader settings from ``config/dice/reader.toml`` (stdlib tomllib, frozen dataclass)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from table.errors import TableError

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config" / "dice"


@dataclass(frozen=True)
class ReaderSettings:
    """What the reader needs besides the image; see ``config/dice/reader.toml``."""

    min_confidence: float = 0.6
    model_path: Path = CONFIG_DIR / "faces.npz"
    tray_area: tuple[int, int, int, int] | None = None
    settle_seconds: float = 0.6
    motion_level: float = 12.0
    timeout_seconds: float = 8.0
    symbols_dir: Path = CONFIG_DIR / "symbols"


def load_settings(path: Path = CONFIG_DIR / "reader.toml") -> ReaderSettings:
    """Read the settings; a missing file gives the defaults, a bad one a TableError."""
    if not path.is_file():
        return ReaderSettings()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"{path} is not valid TOML: {exc}") from exc
    reader = data.get("reader", {})
    tray = data.get("tray", {})
    capture = data.get("capture", {})
    try:
        conf = float(reader.get("min_confidence", 0.6))
        area = tray.get("area")
        if area is not None:
            if len(area) != 4:
                raise ValueError("tray.area needs four numbers")
            area = tuple(int(v) for v in area)
        return ReaderSettings(
            min_confidence=conf,
            model_path=path.parent / str(reader.get("model", "faces.npz")),
            tray_area=area,
            settle_seconds=float(capture.get("settle_seconds", 0.6)),
            motion_level=float(capture.get("motion_level", 12)),
            timeout_seconds=float(capture.get("timeout_seconds", 8.0)),
            symbols_dir=path.parent / "symbols",
        )
    except (TypeError, ValueError) as exc:
        raise TableError(f"{path}: a setting has the wrong type ({exc})") from exc
