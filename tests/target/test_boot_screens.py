"""The booted lobby in docs/screens matches the lobby rendered headless.

``docs/screens/lobby-qemu.png`` is QEMU's screendump of the kiosk image's first frame
(saved by the boot test, tests/target/test_boot.py) and ``lobby-headless.png`` the lobby
``table run --headless`` draws at the same size; the boot test compares the two on every
run, this test keeps the pictures in the docs honest with the same tolerance.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pygame
from target.kiosk_vm import MEAN_TOLERANCE, PIXEL_SHARE_TOLERANCE, SCREEN, compare

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"


def _pixels(path: Path) -> np.ndarray:
    return np.transpose(pygame.surfarray.array3d(pygame.image.load(str(path))), (1, 0, 2))


def test_the_booted_lobby_matches_the_headless_one() -> None:
    booted, headless = _pixels(SCREENS / "lobby-qemu.png"), _pixels(SCREENS / "lobby-headless.png")
    assert booted.shape == headless.shape == (SCREEN[1], SCREEN[0], 3)
    mean, share = compare(booted, headless)
    assert mean <= MEAN_TOLERANCE and share <= PIXEL_SHARE_TOLERANCE, (mean, share)
    # Not a blank picture on both sides: the lobby has text and colour.
    assert len(np.unique(booted.reshape(-1, 3), axis=0)) > 50
