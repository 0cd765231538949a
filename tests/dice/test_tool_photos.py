"""The dice tools that read the tray-d6 photos take their folder as --photos and say what it must hold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = {
    "evaluate.py": ["read"],
    "train_faces.py": [],
    "doc_pictures.py": ["--label-errors"],
}


def run_tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPO / "tools" / "dice" / name), *TOOLS[name], *args],
                          capture_output=True, text=True, cwd="/", timeout=120, check=False)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_dice_tool_needs_the_photos_folder(name: str) -> None:
    done = run_tool(name)
    assert done.returncode == 2
    assert "the following arguments are required: --photos" in done.stderr


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_folder_without_labels_is_one_clear_line(name: str, tmp_path: Path) -> None:
    done = run_tool(name, "--photos", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (f"{tmp_path} holds no labels.csv: --photos takes the folder of the tray-d6 "
                                   "photos and their labels.csv (docs/dice.md, Data and licence)")
