"""The systemd unit passes ``systemd-analyze verify`` cleanly and scores <= 2.0 on security.

``verify`` checks that every Exec line's program exists, so it runs with ``--root`` on
a scratch root that holds the distribution's own units, the table's unit and
stand-ins for the programs (the venv's ``table`` script, ``/bin/sh``). Both commands' stderr is read: any
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


def unit_exec_paths() -> list[str]:
    """The programs of the unit's Exec lines (ExecStart=, ExecStopPost=), prefixes stripped."""
    lines = [line for line in UNIT.read_text().splitlines() if line.startswith("Exec")]
    if not any(line.startswith("ExecStart=") for line in lines):
        raise AssertionError("table.service has no ExecStart=")
    return [line.split("=", 1)[1].split()[0].lstrip("-@:+!") for line in lines]


def scratch_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    if SYSTEM_UNITS is None:
        pytest.skip("no systemd unit directory on this machine")
    shutil.copytree(SYSTEM_UNITS, root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    shutil.copy(UNIT, root / "etc/systemd/system/table.service")
    for program in unit_exec_paths():
        exe = root / program.lstrip("/")
        exe.parent.mkdir(parents=True, exist_ok=True)
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
        "SupplementaryGroups=gpio spi i2c dialout video input render audio", "StateDirectory=table",
        "ProtectSystem=strict", "PrivateTmp=yes", "NoNewPrivileges=yes", "DevicePolicy=closed",
        "PrivateNetwork=yes", "Environment=SDL_VIDEODRIVER=kmsdrm", "WantedBy=multi-user.target",
    ):
        assert line in text, line
    assert "User=root" not in text


def test_only_leaving_the_kiosk_brings_the_login_prompt_back() -> None:
    """The first console's login prompt comes back on exit status 3 only.

    ``OnSuccess=`` would be simpler, but systemd 252 (Debian 12, Raspberry Pi OS Bookworm)
    triggers it on every automatic restart, after a crash too (the boot test saw the
    prompt start beside the restarted table), so the unit starts the prompt itself.
    """
    lines = UNIT.read_text().splitlines()
    assert not any(line.startswith("OnSuccess=") for line in lines)
    stop_post = [line for line in lines if line.startswith("ExecStopPost=")]
    assert len(stop_post) == 1 and stop_post[0].startswith("ExecStopPost=+/bin/sh -c ")
    script = stop_post[0].split(" -c ", 1)[1].strip("'").replace("$$", "$")
    assert '"$EXIT_CODE" = exited' in script and '"$EXIT_STATUS" = 3' in script
    assert "systemctl --no-block start getty@tty1.service" in script
    # The rest of the unit runs unprivileged: "+" is on this line only.
    assert [line for line in lines if line.startswith("Exec") and "=+" in line] == stop_post


@pytest.mark.parametrize(("code", "status", "starts"), [
    ("exited", "3", True), ("exited", "0", False), ("killed", "KILL", False), ("dumped", "ABRT", False),
    ("exited", "1", False),
])
def test_the_stop_post_line_starts_the_prompt_on_status_3_only(code: str, status: str, starts: bool,
                                                                tmp_path: Path) -> None:
    """The ExecStopPost= shell line itself, run by /bin/sh with a stand-in systemctl."""
    line = next(line for line in UNIT.read_text().splitlines() if line.startswith("ExecStopPost="))
    script = line.split(" -c ", 1)[1].strip("'").replace("$$", "$")
    (tmp_path / "systemctl").write_text(f"#!/bin/sh\necho \"$@\" > {tmp_path}/called\n")
    (tmp_path / "systemctl").chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "EXIT_CODE": code, "EXIT_STATUS": status}
    done = subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    called = tmp_path / "called"
    assert called.exists() == starts
    if starts:
        assert called.read_text().split() == ["--no-block", "start", "getty@tty1.service"]


def test_sdl_draws_through_opengl_es() -> None:
    """SDL's desktop OpenGL renderer draws nothing on KMS/DRM (a GLES context): black screen."""
    assert "Environment=SDL_RENDER_DRIVER=opengles2" in UNIT.read_text().splitlines()
