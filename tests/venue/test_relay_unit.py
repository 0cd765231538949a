"""The relay's systemd unit: verifies cleanly, scores <= 2.0, reaches only the broker.

Runs as the kiosk unit's test does: ``systemd-analyze verify`` on a scratch root
holding the distribution's units, the relay unit (with the drop-in that
``table relay --unit-dropin`` prints) and a stand-in for the venv's ``table``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from table.cli import main

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "table-relay.service"
KIOSK = REPO / "systemd" / "table.service"
SYSTEM_UNITS = next(
    (p for p in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")) if p.is_dir()), None
)
analyze = shutil.which("systemd-analyze")
pytestmark = pytest.mark.skipif(analyze is None, reason="systemd-analyze is not installed (Debian package: systemd)")


def _exposure(unit: Path, cwd: Path) -> tuple[float, str]:
    result = subprocess.run([str(analyze), "security", "--offline=true", "--no-pager", str(unit)],
                            capture_output=True, text=True, timeout=60, cwd=cwd)
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    return float(match.group(1)), result.stderr


def test_relay_unit_scores_at_most_2(tmp_path: Path) -> None:
    score, stderr = _exposure(UNIT, tmp_path)
    assert stderr.strip() == "", stderr
    assert score <= 2.0


def test_docs_quote_the_relay_score(tmp_path: Path) -> None:
    score, _ = _exposure(UNIT, tmp_path)
    assert f"exposure level for table-relay.service: {score:.1f}" in (REPO / "docs" / "venue.md").read_text()


def test_relay_unit_verifies_with_its_broker_dropin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if SYSTEM_UNITS is None:
        pytest.skip("no systemd unit directory on this machine")
    root = tmp_path / "root"
    shutil.copytree(SYSTEM_UNITS, root / "usr/lib/systemd/system", symlinks=True)
    units = root / "etc/systemd/system"
    units.mkdir(parents=True)
    shutil.copy(UNIT, units / "table-relay.service")
    shutil.copy(KIOSK, units / "table.service")
    assert main(["relay", "--broker", "192.168.40.2", "--unit-dropin"]) == 0
    dropin = capsys.readouterr().out
    assert "IPAddressAllow=192.168.40.2" in dropin
    (units / "table-relay.service.d").mkdir()
    (units / "table-relay.service.d" / "broker.conf").write_text(dropin)
    exe = root / "opt/table/venv/bin/table"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    result = subprocess.run([str(analyze), "verify", f"--root={root}", "table-relay.service"],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr


def test_units_keep_the_network_apart() -> None:
    kiosk = KIOSK.read_text()
    assert "PrivateNetwork=yes" in kiosk and "RestrictAddressFamilies=AF_UNIX" in kiosk
    relay = UNIT.read_text()
    for line in ("User=table", "IPAddressDeny=any", "ProtectSystem=strict", "NoNewPrivileges=yes",
                 "--journal %S/table/journal.db"):
        assert line in relay, line
    assert "User=root" not in relay


def test_dropin_wants_an_address(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["relay", "--broker", "broker.local", "--unit-dropin"]) == 2
    err = capsys.readouterr().err
    assert "must be an IP address" in err and err.count("\n") == 1
