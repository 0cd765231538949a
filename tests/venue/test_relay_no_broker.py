"""``table relay`` with no broker listening says what it waits for, then that it cannot reach it."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_relay_without_a_broker_says_so_in_one_line_each(tmp_path: Path) -> None:
    (tmp_path / "journal.db").touch()
    port = closed_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "table", "relay", "--table", "t1", "--journal", str(tmp_path / "journal.db"),
         "--state-dir", str(tmp_path / "state"), "--broker", "127.0.0.1", "--port", str(port)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd="/",
    )
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline and not any("cannot reach" in line for line in lines):
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
        time.sleep(3.5)  # the client retries after 1 s, then 2 s: neither may add a line
    finally:
        proc.send_signal(signal.SIGTERM)
        _, rest = proc.communicate(timeout=30)
    lines += rest.splitlines(keepends=True)
    where = f"127.0.0.1:{port}"
    assert lines[0] == f"table relay: publishing table t1's journal to the broker at {where} once it answers " \
                       "(stop it with Ctrl-C)\n"
    unreachable = [line for line in lines if "cannot reach the broker" in line]
    assert len(unreachable) == 1 and where in unreachable[0], lines  # once, not once per retry
    assert proc.returncode == 0
