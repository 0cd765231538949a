"""The reader's settings file: one schema, every problem at once, the shipped file valid."""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from table.dice.detect import DetectSettings
from table.dice.schema import default_of, settings_fields
from table.dice.settings import SECTIONS, ReaderSettings, ReaderSettingsError, load_settings, settings_problems

SHIPPED = Path(__file__).resolve().parents[2] / "config" / "dice" / "reader.toml"


def _problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "reader.toml"
    path.write_text(text)
    return settings_problems(path)[1]


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = tmp_path / "reader.toml"
    path.write_text(
        '[reader]\nmin_confidense = 0.7\nengine = "opencl"\nsecond_look_views = 9\nshrink_boxes = "yes"\n'
        "[tray]\narea = [1, 2]\n"
        "[capture]\nmotion_level = -3\n"
        "[finder]\ntexure = 5\nframe_dark = 70.5\n"
        "[captur]\nsettle = 1\n"
    )
    with pytest.raises(ReaderSettingsError) as caught:
        load_settings(path)
    problems = caught.value.problems
    assert problems == [
        f"{path}: reader.min_confidense: unknown key (did you mean 'min_confidence'?)",
        f"{path}: reader.engine: must be one of auto, numpy, onnxruntime, opencv, not 'opencl' "
        "(did you mean 'opencv'?)",
        f"{path}: reader.second_look_views: must be from 1 to 8, not 9",
        f"{path}: reader.shrink_boxes: must be true or false",
        f"{path}: tray.area: must be four whole numbers [x0, y0, x1, y1] (pixels)",
        f"{path}: capture.motion_level: must be from 0 to 255, not -3",
        f"{path}: finder.texure: unknown key (did you mean 'texture'?)",
        f"{path}: finder.frame_dark: must be a whole number from 0 to 255",
        f"{path}: captur: unknown section (did you mean 'capture'?)",
    ]
    assert str(caught.value).startswith("the dice reader settings have 9 problems:\n  ")


def test_settings_that_became_constants_are_refused_with_a_hint(tmp_path: Path) -> None:
    problems = _problems(tmp_path, "[finder]\nmin_area = 0.2\npip_area = 0.02\ntexture = 5\n")
    path = tmp_path / "reader.toml"
    assert problems == [
        f"{path}: finder.min_area: no longer a setting: it became the die finder's constant MIN_AREA, "
        "since changing it made no difference; remove the line",
        f"{path}: finder.pip_area: no longer a setting: it became the die finder's constant PIP_AREA, "
        "since changing it made no difference; remove the line",
    ]


def test_bad_types_and_ranges(tmp_path: Path) -> None:
    cases = {
        "[reader]\nmin_confidence = 1.5\n": "reader.min_confidence: must be from 0 to 1, not 1.5",
        '[reader]\nmin_confidence = "high"\n': "reader.min_confidence: must be a number from 0 to 1",
        "[reader]\ndrop_below = nan\n": "reader.drop_below: must be a finite number from 0 to 1, not nan",
        "[reader]\nsecond_look_views = true\n": "reader.second_look_views: must be a whole number from 1 to 8",
        "[reader]\nmodel = 3\n": 'reader.model: must be the file name of a face model, such as "faces.npz"',
        "[reader]\ngeneral_model = 3\n": "reader.general_model: must be a string",
        "[tray]\narea = [10, 0, 5, 100]\n": "tray.area: must have x0 < x1 and y0 < y1, not [10, 0, 5, 100]",
        "[tray]\narea = [-1, 0, 5, 100]\n": "tray.area: must not be negative, not [-1, 0, 5, 100]",
        "[capture]\nsettle_seconds = 5\ntimeout_seconds = 2\n":
            "capture.timeout_seconds: must be longer than settle_seconds (5), not 2: "
            "the dice could never settle in time",
        "[finder]\nbright_ratio = 0.5\n": "finder.bright_ratio: must be from 1 to 10, not 0.5",
        "reader = 3\n": "reader: must be a table ([reader])",
    }
    for text, problem in cases.items():
        assert [p.split(": ", 1)[1] for p in _problems(tmp_path, text)] == [problem], text


def test_unknown_keys_are_refused(tmp_path: Path) -> None:
    assert _problems(tmp_path, "[reader]\nsecond_look_sise = 0.5\n") == [
        f"{tmp_path / 'reader.toml'}: reader.second_look_sise: unknown key (did you mean 'second_look_size'?)"
    ]
    # A key of another table is unknown where it is put, with no far-fetched hint.
    assert _problems(tmp_path, "[capture]\nmin_confidence = 0.5\n") == [
        f"{tmp_path / 'reader.toml'}: capture.min_confidence: unknown key"
    ]
    (tmp_path / "reader.toml").write_text("zoom = 2\n")
    with pytest.raises(ReaderSettingsError, match=r"have a problem: .*: zoom: unknown section$"):
        load_settings(tmp_path / "reader.toml")


def test_a_good_file_sets_what_it_names_and_leaves_the_rest_at_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "reader.toml"
    path.write_text(
        '[reader]\nmin_confidence = 0.7\nengine = "numpy"\ngeneral_model = ""\n'
        "[tray]\narea = [1, 2, 300, 400]\n[capture]\nmotion_level = 20\n[finder]\ntexture = 7\n"
    )
    s = load_settings(path)
    assert (s.min_confidence, s.engine, s.general_model, s.tray_area) == (0.7, "numpy", None, (1, 2, 300, 400))
    assert s.motion_level == 20 and s.finder == DetectSettings(texture=7)
    assert s.second_look_size == default_of(ReaderSettings, "second_look_size")
    assert load_settings(tmp_path / "missing.toml") == ReaderSettings()


def test_every_field_but_the_derived_ones_is_a_key_of_one_table() -> None:
    keys = {section: settings_fields(ReaderSettings, section) for section in SECTIONS if section != "finder"}
    in_file = {f.name for table in keys.values() for f in table.values()}
    assert {f.name for f in fields(ReaderSettings)} - in_file == {"finder", "symbols_dir"}
    assert set(settings_fields(DetectSettings)) == {f.name for f in fields(DetectSettings)}
    assert keys["reader"]["model"].name == "model_path" and keys["tray"]["area"].name == "tray_area"


def test_the_shipped_file_is_valid_and_names_only_what_an_owner_changes() -> None:
    assert settings_problems(SHIPPED)[1] == []
    data = tomllib.loads(SHIPPED.read_text(encoding="utf-8"))
    shipped = load_settings(SHIPPED)
    same = [f"{section}.{key}" for section, table in data.items() for key in table
            if section != "finder" and key not in ("model", "general_model")
            and getattr(shipped, settings_fields(ReaderSettings, section)[key].name)
            == default_of(ReaderSettings, settings_fields(ReaderSettings, section)[key].name)]
    # What an owner is expected to change is named even at its default.
    owners = {"reader.min_confidence", "reader.engine", "capture.settle_seconds", "capture.motion_level",
              "capture.timeout_seconds"}
    assert set(same) <= owners, same


def test_check_config_lists_the_reader_settings_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table.cli import main

    (tmp_path / "dice").mkdir()
    (tmp_path / "dice" / "reader.toml").write_text("[reader]\nmin_confidance = 0.7\nsecond_look_views = 0\n")
    code = main(["check-config", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "reader.min_confidance: unknown key (did you mean 'min_confidence'?)" in err
    assert "reader.second_look_views: must be from 1 to 8, not 0" in err
