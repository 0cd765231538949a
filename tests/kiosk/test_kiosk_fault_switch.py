"""The boot test's fault switch: off unless its variable asks, and then it really hangs.

``TABLE_TEST_FAULTS=hang-on-sigusr1`` (set only by the boot test image's drop-in) makes
SIGUSR1 hang the table loop, so systemd's watchdog has something to restart. Without
the variable SIGUSR1 keeps its default meaning; a mistyped value is refused in one
sentence before the table starts.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from table.common.errors import TableError
from table.kiosk.faults import TEST_FAULTS, requested_test_fault

TABLE = Path(sys.executable).with_name("table")


def test_unset_means_no_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TEST_FAULTS, raising=False)
    assert requested_test_fault() is None


def test_a_mistyped_fault_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_FAULTS, "hang")
    with pytest.raises(TableError, match="TABLE_TEST_FAULTS='hang' is not a fault"):
        requested_test_fault()


def test_the_daemon_refuses_a_mistyped_fault_in_one_sentence(tmp_path: Path) -> None:
    env = {**os.environ, TEST_FAULTS: "hang-on-sigusr2", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    done = subprocess.run([str(TABLE), "run", "--headless", "--journal", str(tmp_path / "j.db"), "--seconds", "1"],
                          capture_output=True, text=True, env=env, cwd="/", timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("table: TABLE_TEST_FAULTS=")
    assert not (tmp_path / "j.db").exists()


def _daemon(tmp_path: Path, fault: str | None) -> tuple[subprocess.Popen[str], socket.socket]:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / "notify"))
    listener.settimeout(0.2)
    env = {k: v for k, v in os.environ.items() if k != TEST_FAULTS}
    env.update({"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "1000000",
                "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    if fault is not None:
        env[TEST_FAULTS] = fault
    proc = subprocess.Popen([str(TABLE), "run", "--headless", "--allow-root", "--journal", str(tmp_path / "j.db")],
                            env=env, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return proc, listener


def _messages(listener: socket.socket, seconds: float) -> list[str]:
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            out.append(listener.recv(4096).decode())
        except TimeoutError:
            continue
    return out


def test_sigusr1_hangs_the_loop_only_when_armed(tmp_path: Path) -> None:
    proc, listener = _daemon(tmp_path, "hang-on-sigusr1")
    try:
        seen = _messages(listener, 20)
        assert any("READY=1" in m for m in seen), seen
        assert any("WATCHDOG=1" in m for m in seen)
        proc.send_signal(signal.SIGUSR1)
        time.sleep(1.5)  # a ping may be in flight when the signal lands
        _messages(listener, 0.5)
        # Hung: alive, but no watchdog pings for several intervals.
        assert [m for m in _messages(listener, 4) if "WATCHDOG=1" in m] == []
        assert proc.poll() is None
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=30)
        listener.close()
    assert "test fault switch armed" in err and "the table loop hangs now" in err


def test_unarmed_sigusr1_is_not_a_hang(tmp_path: Path) -> None:
    proc, listener = _daemon(tmp_path, None)
    try:
        seen = _messages(listener, 20)
        assert any("READY=1" in m for m in seen), seen
        proc.send_signal(signal.SIGUSR1)
        # SIGUSR1's default action ends the process: the switch is not there to catch it.
        assert proc.wait(timeout=20) == -signal.SIGUSR1
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=30)
        listener.close()
    assert "test fault" not in err
