"""The bridge's port that does not open: one log sentence per reason, never one per retry.

Through pyserial's real ``Serial`` on a real node: missing, then made (``os.mknod``,
ttyACM's 166:0, root:dialout 0660) so that root's open reaches the absent driver, and,
in a forked child that is an ordinary user outside ``dialout``, refused by the kernel.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import tempfile
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from table.hardware.serial_bridge import SerialBridge

pytest.importorskip("serial")
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="making device nodes and changing user needs root")
DIALOUT = 20  # Debian's and Raspberry Pi OS's fixed gid of dialout
NOBODY = 65534


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "table.hardware.serial"
            and r.levelno == logging.WARNING]


def test_a_missing_port_is_said_once_however_often_it_is_tried(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    port = tmp_path / "ttyACM0"
    bridge = SerialBridge(str(port), 2)
    with caplog.at_level(logging.WARNING, logger="table.hardware.serial"):
        for _ in range(5):
            assert bridge._open() is False
    said = warnings(caplog)
    assert said == [f"the I/O bridge is not at {port} (no such device): plug it in, or set [serial] port in "
                    "hardware.toml to its /dev/serial/by-id/ path; retrying until it appears"]


@as_root
def test_a_new_reason_is_said_once_more(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    port = tmp_path / "ttyACM0"
    bridge = SerialBridge(str(port), 2)
    with caplog.at_level(logging.WARNING, logger="table.hardware.serial"):
        bridge._open()
        os.mknod(port, stat.S_IFCHR | 0o660, os.makedev(166, 0))
        os.chown(port, 0, DIALOUT)
        os.chmod(port, 0o660)
        for _ in range(3):
            assert bridge._open() is False  # root passes the permission check; no driver answers
    said = warnings(caplog)
    assert len(said) == 2 and "not at" in said[0]
    assert said[1].startswith(f"cannot open the I/O bridge: {port} is root:") and "0660" in said[1]


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A scratch folder every user may pass through (pytest's own are closed to others)."""
    folder = Path(tempfile.mkdtemp(prefix="table-serial-open-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


@as_root
def test_a_user_outside_dialout_is_told_the_group_and_the_fix(open_folder: Path) -> None:
    tmp_path = open_folder
    port = tmp_path / "ttyACM0"
    os.mknod(port, stat.S_IFCHR | 0o660, os.makedev(166, 0))
    os.chown(port, 0, DIALOUT)
    os.chmod(port, 0o660)
    log_file = tmp_path / "child.log"
    log_file.touch()
    log_file.chmod(0o666)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setresgid(NOBODY, NOBODY, NOBODY)
            os.setresuid(NOBODY, NOBODY, NOBODY)
            os.environ.pop("INVOCATION_ID", None)
            handler = logging.FileHandler(log_file)
            logger = logging.getLogger("table.hardware.serial")
            logger.handlers[:] = [handler]
            logger.setLevel(logging.WARNING)
            logger.propagate = False
            bridge = SerialBridge(str(port), 2)
            opened = [bridge._open() for _ in range(4)]
            handler.flush()
            code = 0 if opened == [False] * 4 else 2
        except BaseException:
            log_file.write_text(traceback.format_exc())
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, log_file.read_text()
    lines = log_file.read_text().splitlines()
    assert lines == [f"cannot open the I/O bridge: {port} is root:dialout 0660 and this process is not in the "
                     "group dialout: sudo usermod -aG dialout $USER, then log in again; retrying until it can"]
