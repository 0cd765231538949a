"""The arm64 half of the target check: ``scripts/target-check`` must pass.

It installs the wheel in a Debian 13 (trixie) arm64 root under qemu-user as docs/kiosk.md
says, from the wheelhouse with the root's network cut, and runs every command as the
``table`` user (see the script's header). Its step log is printed line by line as the
check goes (a long step prints a line every 50 s), so CI's output shows each step with
its result.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
SCRIPT = CHECKOUT / "scripts" / "target-check"


def pi_packages() -> list[str]:
    lines = (CHECKOUT / "packaging" / "debian-pi.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def raspi_only() -> list[str]:
    lines = (CHECKOUT / "packaging" / "raspi-only.txt").read_text().splitlines()
    return [line.split()[0] for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_the_recipe_installs_what_the_check_installs() -> None:
    """docs/kiosk.md's apt-get line names exactly the packages of packaging/debian-pi.txt,
    its pip line installs from the wheelhouse alone, and each package only Raspberry Pi's
    archive has is named with a stand-in in packaging/raspi-only.txt."""
    doc = (CHECKOUT / "docs" / "kiosk.md").read_text()
    lines = re.findall(r"^sudo apt-get install -y (.+)$", doc, flags=re.M)
    assert lines, "docs/kiosk.md has no 'sudo apt-get install -y ...' line"
    assert sorted(lines[0].split()) == sorted(pi_packages())
    assert "sudo /opt/table/venv/bin/pip install --no-index --only-binary=:all: --find-links" in doc
    assert "'game-table[pi]'" in doc and "/opt/table/venv/bin/table install" in doc
    assert "sudo raspi-config nonint do_spi 0" in doc
    assert {"python3-lgpio", "raspi-config", "python3-picamera2"} <= set(raspi_only())
    assert set(raspi_only()) & set(pi_packages()) == {"python3-lgpio"}


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("TABLE_LONG_CHECKS") == "0", reason="TABLE_LONG_CHECKS=0 leaves the long checks out")
@pytest.mark.skipif(os.geteuid() != 0, reason="the arm64 target check needs root (mmdebstrap, chroot)")
@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the arm64 target check needs a Debian host")
def test_arm64_target_check(capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    with capsys.disabled():
        print()
        proc = subprocess.Popen(["bash", str(SCRIPT)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                cwd="/")
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip())
            print(line.rstrip(), flush=True)
        status = proc.wait(timeout=60 * 60)
    assert status == 0, "the arm64 target check failed (its log is above)"
    steps = [line for line in lines if line.startswith("target: ") and " ... ok" in line]
    assert len(steps) >= 24
    for stand_in in raspi_only():
        assert any(f"stand-in for {stand_in}" in line for line in steps), stand_in
    assert any("the dice reader on two shipped photos" in line and "auto chose" in line for line in steps)
    assert any("offline: the venv and the wheel" in line for line in steps)
    assert lines[-1].startswith("target: all steps passed")
