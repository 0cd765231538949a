"""The arm64 half of the target check: ``scripts/target-check`` must pass.

It installs the wheel in a Debian 12 arm64 root under qemu-user as docs/kiosk.md says
and runs every command as the ``table`` user (see the script's header). Its step log is
printed whatever the outcome, so CI's output shows each step with its result.
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


def test_the_recipe_installs_what_the_check_installs() -> None:
    """docs/kiosk.md's apt-get line names exactly the packages the check installs."""
    doc = (CHECKOUT / "docs" / "kiosk.md").read_text()
    lines = re.findall(r"^sudo apt-get install -y (.+)$", doc, flags=re.M)
    assert lines, "docs/kiosk.md has no 'sudo apt-get install -y ...' line"
    assert sorted(lines[0].split()) == sorted(pi_packages())
    assert "pip install" in doc and "[pi]" in doc and "/opt/table/venv/bin/table install" in doc


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="the arm64 target check needs root (debootstrap, chroot)")
@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the arm64 target check needs a Debian host")
def test_arm64_target_check(capsys: pytest.CaptureFixture[str]) -> None:
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=40 * 60, check=False,
                          cwd="/")
    with capsys.disabled():
        print("\n" + done.stdout + done.stderr[-4000:])
    assert done.returncode == 0, "the arm64 target check failed (its log is above)"
    steps = [line for line in done.stdout.splitlines() if line.startswith("target: ")]
    assert sum(" ... ok" in line for line in steps) >= 18
    assert steps[-1].startswith("target: all steps passed")
