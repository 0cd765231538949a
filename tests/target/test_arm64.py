"""The arm64 half of the target check: ``scripts/target-check`` must pass.

It installs the wheel in a Debian 13 (trixie) arm64 root under qemu-user as docs/kiosk.md
says, from the wheelhouse with the root's network cut, and runs every command as the
``table`` user (see the script's header). Its step log is printed line by line as the
check goes (a long step prints a line every 50 s), so CI's output shows each step with
its result.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from target.recipe import RecipeError, apt_packages, plan, recipe_lines, stand_ins

CHECKOUT = Path(__file__).resolve().parents[2]
SCRIPT = CHECKOUT / "scripts" / "target-check"


PAGE = CHECKOUT / "docs" / "kiosk.md"
RASPI_ONLY = CHECKOUT / "packaging" / "raspi-only.txt"


def pi_packages() -> list[str]:
    lines = (CHECKOUT / "packaging" / "debian-pi.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def raspi_only() -> list[str]:
    return list(stand_ins(RASPI_ONLY.read_text()))


def test_the_recipe_installs_what_the_check_installs() -> None:
    """docs/kiosk.md's apt-get lines name exactly the packages of packaging/debian-pi.txt,
    its pip line installs from the wheelhouse alone, SPI is switched on for the LEDs alone
    (never the whole bus), and each thing only Raspberry Pi OS has is named with a
    stand-in in packaging/raspi-only.txt."""
    lines = recipe_lines(PAGE.read_text())
    packages = [p for line in lines for p in apt_packages(line)]
    assert sorted(packages) == sorted(pi_packages())
    assert {"libgbm1", "libegl1", "libgles2", "libgl1-mesa-dri"} <= set(packages)  # SDL's kmsdrm
    assert ("sudo /opt/table/venv/bin/pip install --no-index --only-binary=:all: --find-links "
            "/mnt/table-wheelhouse 'game-table[pi]'") in lines
    assert "sudo /opt/table/venv/bin/table install" in lines
    assert "sudo /opt/table/venv/bin/table check-config --kiosk /etc/table" in lines
    # The overlay line exactly as Raspberry Pi's overlay README documents it.
    assert [line.split(" #")[0].strip() for line in lines if "dtoverlay" in line] == [
        "echo dtoverlay=spi0-0cs,no_miso | sudo tee -a /boot/firmware/config.txt"]
    assert not any("raspi-config" in line or "dtparam=spi" in line for line in lines)
    assert set(raspi_only()) == {"python3-lgpio", "python3-picamera2", "spi0-0cs"}
    assert set(raspi_only()) & set(pi_packages()) == {"python3-lgpio", "python3-picamera2"}


def test_the_check_runs_every_line_of_the_recipe() -> None:
    """Each recipe line has its way to run in the arm64 root: Debian's packages with the
    network, Raspberry Pi OS's as stand-ins, the install with the network cut."""
    steps = plan(recipe_lines(PAGE.read_text()), stand_ins(RASPI_ONLY.read_text()))
    assert [s.kind for s in steps] == ["network", "network", "stand-in", "offline", "mount", "offline",
                                       "offline", "offline", "offline", "umount", "reboot"]
    assert all("sudo" not in s.run and s.run for s in steps)
    install = steps[1].run.split()
    assert install[:4] == ["apt-get", "install", "-y", "--no-upgrade"]
    assert sorted(install[4:]) == sorted(set(pi_packages()) - set(raspi_only()))
    assert steps[2].run.startswith("python3-picamera2: ")
    assert steps[3].run == "echo dtoverlay=spi0-0cs,no_miso | tee -a /boot/firmware/config.txt"
    assert "--find-links /mnt/table-wheelhouse" in steps[6].run  # where the check binds the wheelhouse
    with pytest.raises(RecipeError, match="does not know how to run the recipe's line 'sudo raspi-config"):
        plan(["sudo apt-get update", "sudo raspi-config nonint do_spi 0"], {})


def test_the_recipe_script_prints_three_fields_a_line(tmp_path: Path) -> None:
    """scripts/target-check splits each line at its tabs: no field may be empty."""
    out = subprocess.run([sys.executable, str(CHECKOUT / "tests" / "target" / "recipe.py"), str(PAGE),
                          str(RASPI_ONLY)], capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) == 11 and all(len(row) == 3 and all(row) for row in rows)
    bad = tmp_path / "kiosk.md"
    bad.write_text("### From a fresh Raspberry Pi OS Lite card to the kiosk\n\n```\nsudo rm -rf /\n```\n")
    run = subprocess.run([sys.executable, str(CHECKOUT / "tests" / "target" / "recipe.py"), str(bad),
                          str(RASPI_ONLY)], capture_output=True, text=True)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == "recipe: the target check does not know how to run the recipe's line 'sudo rm -rf /'\n"


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
    assert any(line.startswith("target: recipe: sudo /opt/table/venv/bin/pip install") for line in steps)
    assert any(line.startswith("target: recipe: sudo apt-get install -y python3-venv") for line in steps)
    assert lines[-1].startswith("target: all steps passed")
