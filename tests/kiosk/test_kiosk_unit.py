"""The systemd unit passes ``systemd-analyze verify`` cleanly and scores <= 2.0 on security.

``verify`` checks that ExecStart's program exists, so it runs with ``--root`` on a
scratch root that holds the distribution's own units, the table's unit and a
stand-in for the venv's ``table`` script. Both commands' stderr is read: any
warning fails the test, not only a non-zero exit.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "table.service"
SYSTEM_UNITS = next(
    (p for p in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")) if p.is_dir()), None
)
MAX_EXPOSURE = 2.0

analyze = shutil.which("systemd-analyze")
pytestmark = pytest.mark.skipif(
    analyze is None, reason="systemd-analyze is not installed (Debian package: systemd)"
)


def unit_exec_path() -> str:
    for line in UNIT.read_text().splitlines():
        if line.startswith("ExecStart="):
            return line.split("=", 1)[1].split()[0].lstrip("-@:+!")
    raise AssertionError("table.service has no ExecStart=")


def scratch_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    if SYSTEM_UNITS is None:
        pytest.skip("no systemd unit directory on this machine")
    shutil.copytree(SYSTEM_UNITS, root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    shutil.copy(UNIT, root / "etc/systemd/system/table.service")
    exe = root / unit_exec_path().lstrip("/")
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return root


def test_verify_is_clean(tmp_path: Path) -> None:
    root = scratch_root(tmp_path)
    result = subprocess.run(
        [str(analyze), "verify", f"--root={root}", "table.service"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", f"systemd-analyze verify warned:\n{result.stderr}"


def test_verify_notices_a_bad_unit(tmp_path: Path) -> None:
    """Guards the test above: a typo in the unit must show up in stderr."""
    root = scratch_root(tmp_path)
    unit = root / "etc/systemd/system/table.service"
    unit.write_text(unit.read_text().replace("[Service]\n", "[Service]\nRestartt=always\n"))
    result = subprocess.run(
        [str(analyze), "verify", f"--root={root}", "table.service"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert "Restartt" in result.stderr


def security_exposure(unit: Path, cwd: Path) -> tuple[float, str]:
    result = subprocess.run(
        [str(analyze), "security", "--offline=true", "--no-pager", str(unit)],
        capture_output=True, text=True, timeout=60, cwd=cwd,
    )
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert match, f"no exposure level in the output:\n{result.stdout}\n{result.stderr}"
    return float(match.group(1)), result.stderr


def test_security_exposure_is_at_most_2(tmp_path: Path) -> None:
    score, stderr = security_exposure(UNIT, tmp_path)
    assert stderr.strip() == "", f"systemd-analyze security warned:\n{stderr}"
    assert score <= MAX_EXPOSURE, f"exposure {score} > {MAX_EXPOSURE}"


def test_docs_quote_the_current_score(tmp_path: Path) -> None:
    score, _ = security_exposure(UNIT, tmp_path)
    docs = (REPO / "docs" / "kiosk.md").read_text()
    assert f"exposure level for table.service: {score:.1f}" in docs


def test_unit_keeps_the_promises_of_the_issue() -> None:
    text = UNIT.read_text()
    for line in (
        "Type=notify", "WatchdogSec=", "Restart=always", "StartLimitBurst=", "User=table",
        "SupplementaryGroups=gpio spi video input render audio", "StateDirectory=table",
        "ProtectSystem=strict", "PrivateTmp=yes", "NoNewPrivileges=yes", "DevicePolicy=closed",
        "PrivateNetwork=yes", "Environment=SDL_VIDEODRIVER=kmsdrm", "WantedBy=multi-user.target",
    ):
        assert line in text, line
    assert "User=root" not in text
