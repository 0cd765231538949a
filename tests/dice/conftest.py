"""Shared fixtures: the tray-d6 photos (skipped when absent) and a cheap virtual clock."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TRAY_D6 = REPO.parent / "shared" / "data" / "dice" / "tray-d6"


@pytest.fixture(scope="session")
def tray_d6() -> Path:
    if not (TRAY_D6 / "labels.csv").is_file():
        pytest.skip(f"the tray-d6 photos are not at {TRAY_D6} (../shared/data/dice/tray-d6 from the repo root)")
    return TRAY_D6
