"""Reader settings from ``dice/reader.toml``: one typed schema, every problem at once.

Every setting is a field of :class:`ReaderSettings` (or, for the die finder's
thresholds in ``[finder]``, of :class:`table.dice.detect.DetectSettings`), declared
once with its default and its check (:func:`table.dice.schema.knob`). The file is
checked against those fields: an unknown section or key (with the nearest known one),
a value of the wrong type or out of range each give one line
``file: section.key: what is wrong (did you mean 'x'?)``, and :func:`load_settings`
raises :class:`ReaderSettingsError` listing all of them. A key left out keeps its
default, so the shipped file only names what an owner is expected to change.

The file, the face model it names and taught symbol dice are looked up in the config
directory in force and then in the shipped defaults (:mod:`table.common.datafiles`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.common.checks import boolean, did_you_mean, load_toml, non_empty, number, read_text_input, string, whole
from table.common.datafiles import config_dir, data_file, defaults_dir
from table.common.errors import TableError
from table.dice.detect import DetectSettings
from table.dice.schema import knob, read_table, settings_fields

SECTIONS = ("reader", "tray", "capture", "finder")
"""The tables of ``reader.toml``; ``[finder]`` holds :class:`DetectSettings`."""

REMOVED = {("finder", "min_area"): "MIN_AREA", ("finder", "pip_area"): "PIP_AREA"}
"""Keys that were settings once, and the die finder's constants they became (moving
them changed nothing measurable; docs/dice-settings.md): refused with that said."""


class ReaderSettingsError(TableError):
    """``dice/reader.toml`` has problems; ``problems`` lists them, one line each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        if len(problems) == 1:
            super().__init__(f"the dice reader settings have a problem: {problems[0]}")
        else:
            super().__init__(f"the dice reader settings have {len(problems)} problems:\n  " + "\n  ".join(problems))


def _model_default() -> Path:
    return data_file("dice/faces.npz")


def symbols_home() -> Path:
    """Where taught symbol dice are kept: ``dice/symbols`` of the config directory in
    force, else of the shipped defaults (read-only on an installed table)."""
    base = config_dir()
    return (base if base is not None else defaults_dir()) / "dice" / "symbols"


def _model_file(name: str, settings_file: Path) -> Path:
    """The model a settings file names: beside that file when it is there (an owner's
    own model), else the config directory's or the shipped ``dice/NAME``."""
    beside = settings_file.parent / name
    return beside if beside.is_file() else data_file(f"dice/{name}")


def _general_file(name: str, settings_file: Path) -> Path | None:
    return _model_file(name, settings_file) if name else None


def _engine(v: Any) -> str | None:
    from table.dice.engines import ENGINES

    if v in ENGINES:
        return None
    hint = did_you_mean(v, ENGINES) if isinstance(v, str) else ""
    return f"must be one of {', '.join(ENGINES)}, not {v!r}{hint}"


def _area(v: Any) -> str | None:
    if not isinstance(v, list) or len(v) != 4 or not all(isinstance(n, int) and not isinstance(n, bool) for n in v):
        return "must be four whole numbers [x0, y0, x1, y1] (pixels)"
    x0, y0, x1, y1 = v
    if min(v) < 0:
        return f"must not be negative, not {v}"
    if not (x0 < x1 and y0 < y1):
        return f"must have x0 < x1 and y0 < y1, not {v}"
    return None


def _file_name(v: Any) -> str | None:
    if non_empty(v) is not None:
        return "must be the file name of a face model, such as \"faces.npz\""
    return None


@dataclass(frozen=True)
class ReaderSettings:
    """What the reader needs besides the image; see the shipped ``dice/reader.toml``.

    Every field with a check is a key of ``reader.toml`` (its table in ``section``);
    the defaults here are the only ones.
    """

    # [reader]: below this confidence a die counts as unsure (the table asks by knob).
    min_confidence: float = knob(0.6, number(0, 1), section="reader")
    # The face networks for frames like the tray (a file beside reader.toml, else shipped).
    model_path: Path = knob(  # noqa: RUF009 (a knob is a field with a default factory)
        check=_file_name, key="model", section="reader", read=_model_file, factory=_model_default
    )
    # Which library runs the face networks (table.dice.engines): auto, numpy, onnxruntime, opencv.
    engine: str = knob("auto", _engine, section="reader")
    # Also read every box shrunk about its centre (the second look, every frame): for
    # setups where the finder's boxes take in a pale ring around each die (docs/dice.md).
    shrink_boxes: bool = knob(False, boolean, section="reader")
    # A pip reading less sure than this is taken for "not a die" and not reported at all
    # (0: every reading is reported, the unsure ones marked by their confidence).
    drop_below: float = knob(0.0, number(0, 1), section="reader")
    # The networks for setups unlike the tray (None, "" in the file: off). A frame whose
    # surface away from the dice is rougher than ``tray_texture`` in fine detail or than
    # ``tray_grain`` in coarse grain (table.dice.detect.background_texture) is read by
    # them, with the second look; a frame like the tray by ``model_path``. A limit of -1
    # gives every frame to them.
    general_model: Path | None = knob(None, string, section="reader", read=_general_file)  # noqa: RUF009
    tray_texture: float = knob(1.44, number(-1, 255), section="reader")
    tray_grain: float = knob(2.04, number(-1, 255), section="reader")
    # ``drop_below`` for the frames the general networks read (``drop_below`` is the tray's).
    general_drop_below: float = knob(0.55, number(0, 1), section="reader")
    # The second look is taken only for boxes whose first reading is a die less sure
    # than ``second_look_below``, or "not a die" less sure than
    # ``second_look_reject_below`` (1.0: every box; docs/dice.md) ...
    second_look_below: float = knob(1.0, number(0, 1), section="reader")
    second_look_reject_below: float = knob(0.99999, number(0, 1), section="reader")
    # ... its box is this fraction of the finder's box's longer side, same centre ...
    second_look_size: float = knob(0.65, number(0.1, 2), section="reader")
    # ... and an unsure box is read in this many views (table.dice.model.VIEWS).
    second_look_views: int = knob(8, whole(1, 8), section="reader")
    # [tray]: the tray area in pixels (x0, y0, x1, y1); None: found in each frame.
    tray_area: tuple[int, int, int, int] | None = knob(
        None, _area, key="area", section="tray", read=lambda v, _: tuple(v)
    )
    # [capture]: dice have settled when no pixel block changed by more than
    # ``motion_level`` grey levels for ``settle_seconds``; given up after ``timeout_seconds``.
    settle_seconds: float = knob(0.6, number(0, 60), section="capture")
    motion_level: float = knob(12.0, number(0, 255), section="capture")
    timeout_seconds: float = knob(8.0, number(0, 3600), section="capture")
    # [finder]: the die finder's thresholds.
    finder: DetectSettings = field(default_factory=DetectSettings)
    # Not in the file: where taught symbol dice are kept.
    symbols_dir: Path = field(default_factory=symbols_home)


def _without_removed(path: Path, section: str, table: Any, problems: list[str]) -> Any:
    """``table`` without the keys that are no longer settings, one problem for each."""
    if not isinstance(table, dict):
        return table
    kept = {}
    for key, value in table.items():
        constant = REMOVED.get((section, key))
        if constant is None:
            kept[key] = value
        else:
            problems.append(f"{path}: {section}.{key}: no longer a setting: it became the die finder's "
                            f"constant {constant}, since changing it made no difference; remove the line")
    return kept


def settings_problems(path: Path) -> tuple[ReaderSettings, list[str]]:
    """The settings in ``path`` and every problem with them (defaults when the file is
    missing; the defaults and the problems when it has any)."""
    if not path.exists():
        return ReaderSettings(), []
    try:
        data = load_toml(read_text_input(path, "dice reader settings file"))
    except TableError as exc:
        return ReaderSettings(), [str(exc)]
    except tomllib.TOMLDecodeError as exc:
        return ReaderSettings(), [f"{path}: not valid TOML ({exc})"]
    problems: list[str] = []
    values: dict[str, Any] = {}
    finder: dict[str, Any] = {}
    for section, table in data.items():
        if section not in SECTIONS:
            problems.append(f"{path}: {section}: unknown section{did_you_mean(section, SECTIONS)}")
        elif section == "finder":
            finder = read_table(path, section, _without_removed(path, section, table, problems),
                                settings_fields(DetectSettings), problems)
        else:
            values |= read_table(path, section, table, settings_fields(ReaderSettings, section), problems)
    settings = ReaderSettings(**values, finder=DetectSettings(**finder))
    if settings.timeout_seconds <= settings.settle_seconds:
        problems.append(
            f"{path}: capture.timeout_seconds: must be longer than settle_seconds "
            f"({settings.settle_seconds:g}), not {settings.timeout_seconds:g}: the dice could never settle in time"
        )
    return (ReaderSettings() if problems else settings), problems


def load_settings(path: Path | None = None) -> ReaderSettings:
    """Read the settings (default: ``dice/reader.toml`` of the config directory in force,
    else the shipped one); a missing file gives the defaults, a bad one a
    :class:`ReaderSettingsError` listing every problem."""
    settings, problems = settings_problems(path or data_file("dice/reader.toml"))
    if problems:
        raise ReaderSettingsError(problems)
    return settings

