"""The stdlib notifier against a real AF_UNIX datagram socket, as systemd listens."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from table.common.errors import TableError
from table.kiosk.systemd import Notifier, RunningAsRootError, refuse_root


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(2.0)
    yield sock, path
    sock.close()


def received(sock: socket.socket) -> list[str]:
    return sock.recv(4096).decode().split("\n")


def test_ready_status_stopping_arrive_as_datagrams(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    n = Notifier({"NOTIFY_SOCKET": path})
    assert n.enabled
    assert n.ready("menu")
    assert received(sock) == ["READY=1", "STATUS=menu", f"MAINPID={os.getpid()}"]
    assert n.status("playing ubongo_shimo")
    assert received(sock) == ["STATUS=playing ubongo_shimo"]
    assert n.stopping()
    assert received(sock) == ["STOPPING=1", "STATUS=stopping"]
    n.close()


def test_abstract_namespace_socket() -> None:
    name = f"table-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(2.0)
    try:
        n = Notifier({"NOTIFY_SOCKET": "@" + name})
        assert n.ready()
        assert received(sock)[0] == "READY=1"
    finally:
        sock.close()


def test_watchdog_pings_at_half_the_interval(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    n = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())})
    assert n.watchdog_interval == 5.0
    sent = [t for t in (0.0, 1.0, 4.9, 5.0, 5.1, 9.9, 10.0, 30.0) if n.watchdog(t)]
    assert sent == [0.0, 5.0, 10.0, 30.0]
    for _ in sent:
        assert received(sock) == ["WATCHDOG=1"]


def test_waiting_sets_the_status_and_feeds_the_watchdog(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    n = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())})
    n.waiting("the journal is locked by another program; waiting for it")
    assert received(sock) == ["STATUS=the journal is locked by another program; waiting for it"]
    assert received(sock) == ["WATCHDOG=1"]
    n.close()


def test_watchdog_meant_for_another_process_is_ignored(listener: tuple[socket.socket, str]) -> None:
    _, path = listener
    n = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"})
    assert n.watchdog_interval is None
    assert not n.watchdog(0.0)


def test_without_watchdog_usec_no_ping(listener: tuple[socket.socket, str]) -> None:
    _, path = listener
    n = Notifier({"NOTIFY_SOCKET": path})
    assert not n.watchdog(0.0)


def test_outside_systemd_everything_is_a_no_op() -> None:
    n = Notifier({})
    assert not n.enabled
    assert not n.ready()
    assert not n.status("x")
    assert not n.watchdog(0.0)
    assert not n.stopping()
    n.close()


def test_a_vanished_socket_is_logged_once_and_never_raises(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    n = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert not n.ready()
    assert not n.status("x")
    warnings = [r for r in caplog.records if "cannot notify systemd" in r.getMessage()]
    assert len(warnings) == 1


def test_refuse_root() -> None:
    with pytest.raises(RunningAsRootError) as info:
        refuse_root(euid=0)
    assert isinstance(info.value, TableError)
    assert "root" in str(info.value)
    refuse_root(euid=1000)


def test_leave_gesture_needs_both_holds_then_both_presses() -> None:
    from table.kiosk.systemd import LeaveGesture

    g = LeaveGesture(first=0, last=3)
    assert g.feed("long_push", 0, 10.0) is None  # alone: the ordinary table menu
    assert g.feed("long_push", 3, 10.4) == "ask"
    assert g.asking
    assert g.feed("press", 0, 12.0) is None
    assert g.feed("press", 3, 12.5) == "leave"
    assert not g.asking


def test_leave_gesture_cancels_on_anything_else_or_time() -> None:
    from table.kiosk.systemd import LeaveGesture

    g = LeaveGesture(first=0, last=3)
    assert g.feed("long_push", 0, 10.0) is None
    assert g.feed("long_push", 3, 11.5) is None  # too far apart
    assert g.feed("long_push", 0, 11.9) == "ask"
    assert g.feed("turn", 1, 12.0) == "cancel"
    g.feed("long_push", 0, 20.0)
    assert g.feed("long_push", 3, 20.2) == "ask"
    assert g.expire(25.0) is None
    assert g.expire(30.3) == "cancel"
    g.feed("long_push", 0, 40.0)
    g.feed("long_push", 3, 40.0)
    assert g.feed("press", 1, 41.0) == "cancel"  # another station's press is not a yes
    assert g.feed("long_push", 1, 50.0) is None and g.feed("long_push", 2, 50.0) is None
