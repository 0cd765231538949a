"""Every screen renders headless at both display sizes, and the pictures are not blank.

The PNGs are written to a temporary folder; `table screens docs/screens` refreshes the
committed copies that people look at.
"""

from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from table.display.snapshots import render_all, shell_moments, shimo_moments


@pytest.mark.parametrize("moments", [shell_moments, shimo_moments], ids=["shell", "shimo"])
def test_every_screen_renders_with_content(tmp_path: Path, moments: object) -> None:
    written = render_all(tmp_path, ((1920, 1080), (1280, 720)), moments)  # type: ignore[arg-type]
    assert written
    for path in written:
        img = pygame.image.load(str(path))
        w, h = img.get_size()
        colours = {img.get_at((x, y))[:3] for x in range(0, w, 37) for y in range(0, h, 29)}
        assert len(colours) > 8, f"{path.name} looks blank"


def test_committed_screenshots_exist_for_the_menu_and_every_shimo_phase() -> None:
    docs = Path(__file__).resolve().parent.parent / "docs" / "screens"
    names = [name for name, _ in shell_moments()] + [name for name, _ in shimo_moments()]
    missing = [n for n in names if not (docs / f"{n}.png").is_file()]
    assert not missing, f"run 'table screens docs/screens' (missing: {missing})"
