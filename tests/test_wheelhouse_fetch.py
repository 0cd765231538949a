"""tools/wheelhouse/fetch.py picks the wheels pip on the Raspberry Pi would pick.

The runs here use no index (``PIP_NO_INDEX``): only a folder of wheels made by the test,
so they need no network and show what the script asks pip for: the target's tags
(CPython 3.13 on 64-bit ARM) and its environment markers, not the build machine's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FETCH = REPO / "tools" / "wheelhouse" / "fetch.py"


def make_wheel(folder: Path, name: str, tag: str, requires: list[str]) -> Path:
    """A wheel holding only its metadata (pip download reads nothing else)."""
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{name}-1.0-{tag}.whl"
    info = f"{name}-1.0.dist-info"
    metadata = "".join([f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
                        *(f"Requires-Dist: {r}\n" for r in requires)])
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr(f"{info}/METADATA", metadata)
        z.writestr(f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: {tag}\n")
        z.writestr(f"{info}/RECORD", "")
    return wheel


def fetch(tmp_path: Path, *requirements: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull)
    env.pop("PIP_FIND_LINKS", None)
    return subprocess.run([sys.executable, str(FETCH), "--dest", str(tmp_path / "out"),
                           "--find-links", str(tmp_path / "built"), "--python", "3.13.5", "--glibc", "2.41",
                           *requirements], capture_output=True, text=True, cwd="/", timeout=120, check=False)


def test_the_targets_tags_and_markers_decide(tmp_path: Path) -> None:
    """A wheel built on the target (linux_aarch64, cp313) is taken, a manylinux one up to
    the target's glibc too; a dependency whose marker holds only off the target is not
    asked for, one whose marker holds only on it is."""
    built = tmp_path / "built"
    make_wheel(built, "tablepart", "cp313-cp313-linux_aarch64",
               ["hostonly; platform_machine == 'x86_64'", "pionly; platform_machine == 'aarch64'",
                "oldonly; python_version < '3.12'"])
    make_wheel(built, "pionly", "cp313-cp313-manylinux_2_41_aarch64", [])
    done = fetch(tmp_path, "tablepart")
    assert done.returncode == 0, done.stdout
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "pionly-1.0-cp313-cp313-manylinux_2_41_aarch64.whl", "tablepart-1.0-cp313-cp313-linux_aarch64.whl"]


def test_a_project_with_no_wheel_for_the_target_is_named_for_a_build(tmp_path: Path) -> None:
    """Wheels for a newer glibc, another Python or the build machine's CPU do not fit:
    the script names the requirement to build and exits with 3."""
    for tag in ("cp313-cp313-manylinux_2_42_aarch64", "cp311-cp311-linux_aarch64", "cp313-cp313-linux_x86_64"):
        make_wheel(tmp_path / "built", "sourceonly", tag, [])
    done = fetch(tmp_path, "sourceonly>=0.5")
    assert done.returncode == 3, done.stdout
    assert done.stdout.splitlines()[-1] == "needs-build: sourceonly>=0.5"
