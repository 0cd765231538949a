"""The test suite on Python 3.13 (Raspberry Pi OS trixie's): ``scripts/trixie-tests`` must pass.

The script makes a native Debian 13 root (no emulation) with its Python 3.13, installs the
table with its development tools there and runs the whole suite but tests/target (see its
header). Its log is printed line by line as it goes, so CI's output shows its steps and
the suite's progress; ``scripts/run-tests`` runs this test beside the arm64 chain.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="the Python 3.13 root needs root (mmdebstrap, chroot)")
@pytest.mark.skipif(shutil.which("mmdebstrap") is None, reason="needs mmdebstrap (packaging/debian-target-host.txt)")
def test_the_suite_passes_on_python_3_13(capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    with capsys.disabled():
        print()
        proc = subprocess.Popen(["bash", str(CHECKOUT / "scripts" / "trixie-tests")], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, cwd="/")
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip())
            print(line.rstrip(), flush=True)
        status = proc.wait(timeout=60 * 60)
    assert status == 0, "the suite failed on Python 3.13 (its log is above)"
    assert any("Python 3.13" in line for line in lines if line.startswith("py3.13: "))
    assert any(" passed" in line for line in lines)
