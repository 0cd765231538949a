"""Talking to systemd: readiness, status, watchdog pings and the no-root rule.

The unit (``systemd/table.service``) is ``Type=notify`` with ``WatchdogSec=``:
systemd waits for ``READY=1`` before it counts the table as started, and restarts
the daemon when the main loop stops sending ``WATCHDOG=1`` (a hung loop). The
protocol is one datagram of ``KEY=value`` lines to the AF_UNIX socket named in
``$NOTIFY_SOCKET``, so a few lines of stdlib do it; outside systemd (a laptop, a
test, ``table sim``) the variable is unset and every call does nothing.

Contract of :class:`Notifier`:

* ``ready()``, ``status(text)``, ``stopping()`` send at once; they never raise
  (a lost notification must not take the table down; it is logged once).
* ``watchdog(now)`` is meant to be called on every pass of the main loop; it sends
  only when half of ``$WATCHDOG_USEC`` has passed since the last ping, so calling it
  often costs nothing. ``now`` is a monotonic clock reading in seconds.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import time
from collections.abc import Mapping

from table.common.errors import TableError

log = logging.getLogger(__name__)


class RunningAsRootError(TableError):
    """The daemon was started as root; it must run as the unprivileged ``table`` user."""


def refuse_root(euid: int | None = None) -> None:
    """Raise :class:`RunningAsRootError` when the effective user is root.

    The daemon reads untrusted files (scenarios, images, configs) and drives a
    display; none of that needs root, and the unit gives it exactly the groups it
    needs. ``euid`` is for tests; by default the process's own effective uid.
    """
    uid = os.geteuid() if euid is None else euid
    if uid == 0:
        raise RunningAsRootError(
            "the table daemon refuses to run as root; start it as the 'table' user "
            "(the systemd unit does, see docs/kiosk.md)"
        )


def _socket_address(raw: str) -> str | bytes:
    """``$NOTIFY_SOCKET`` as an address: ``@name`` is Linux's abstract namespace."""
    if raw.startswith("@"):
        return b"\0" + raw[1:].encode()
    return raw


class Notifier:
    """sd_notify(3) in stdlib Python; inert when ``$NOTIFY_SOCKET`` is not set."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        raw = env.get("NOTIFY_SOCKET", "")
        self._address: str | bytes | None = _socket_address(raw) if raw else None
        self._socket: socket.socket | None = None
        self._failed_once = False
        self.watchdog_interval: float | None = None
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        # systemd sets WATCHDOG_PID to the main process; a child that inherited the
        # environment must not ping on the parent's behalf.
        if usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            self.watchdog_interval = int(usec) / 1_000_000 / 2
        self._last_ping: float | None = None

    @property
    def enabled(self) -> bool:
        """Whether a systemd notification socket was given."""
        return self._address is not None

    def notify(self, *lines: str) -> bool:
        """Send ``lines`` as one datagram; returns whether it was sent."""
        if self._address is None:
            return False
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._socket.sendto("\n".join(lines).encode(), self._address)
        except OSError as exc:
            if not self._failed_once:
                log.warning("cannot notify systemd at %s (%s); carrying on without it", self._address, exc)
                self._failed_once = True
            return False
        return True

    def ready(self, status: str = "ready") -> bool:
        """Tell systemd that the table is up (the menu is on screen)."""
        return self.notify("READY=1", f"STATUS={status}", f"MAINPID={os.getpid()}")

    def status(self, text: str) -> bool:
        """A one-line status that ``systemctl status table`` shows."""
        return self.notify(f"STATUS={text}")

    def waiting(self, text: str) -> None:
        """While the table waits on something before it can go on (another program's lock
        on the journal): ``text`` as the status, and a watchdog ping, so that a long wait
        is not taken for a hang. Fits ``open_daemon_journal``'s ``on_wait``."""
        self.status(text)
        self.watchdog()

    def stopping(self, status: str = "stopping") -> bool:
        """Tell systemd a clean stop has begun (so a slow stop is not a hang)."""
        return self.notify("STOPPING=1", f"STATUS={status}")

    def watchdog(self, now: float | None = None) -> bool:
        """Ping the watchdog if half its interval has passed; returns whether it sent."""
        if self.watchdog_interval is None or self._address is None:
            return False
        t = time.monotonic() if now is None else now
        if self._last_ping is not None and t - self._last_ping < self.watchdog_interval:
            return False
        self._last_ping = t
        return self.notify("WATCHDOG=1")

    def next_ping(self) -> float | None:
        """When :meth:`watchdog` will next send (``time.monotonic`` time, or the ``now`` it
        was given); None without a watchdog."""
        if self.watchdog_interval is None or self._address is None:
            return None
        return -math.inf if self._last_ping is None else self._last_ping + self.watchdog_interval

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


__all__ = ["Notifier", "RunningAsRootError", "refuse_root"]


# -- leaving the kiosk -------------------------------------------------------------------------
EXIT_LEAVE_KIOSK = 3
"""Exit status of a confirmed "leave the kiosk": the unit neither restarts the daemon
(``RestartPreventExitStatus=3``) nor calls it a failure (``SuccessExitStatus=3``),
and its ``ExecStopPost=`` line starts ``getty@tty1.service`` on this status only, which
puts a login prompt on the first console."""


class LeaveGesture:
    """The one way out of the kiosk: a held combination of station inputs, confirmed.

    1. The first and the last station hold their knob switches together: both
       ``long_push`` inputs arrive within ``together_s`` of each other. The table
       then asks on screen (``feed`` returns ``"ask"``).
    2. Within ``confirm_s``, the same two stations press their buttons (in any
       order): ``feed`` returns ``"leave"`` and the daemon exits with
       :data:`EXIT_LEAVE_KIOSK`. Any other input, or the time running out, cancels
       (``"cancel"``); the game was paused by the long push and simply goes on.

    Pure: inputs are ``(kind, station, t)`` in table time; no clock is read.
    A single long push still opens the ordinary table menu; the loop should hold a
    lone ``long_push`` back for ``together_s`` before treating it as the menu.
    """

    def __init__(self, first: int, last: int, together_s: float = 1.0, confirm_s: float = 10.0) -> None:
        self.pair = (first, last)
        self.together_s = together_s
        self.confirm_s = confirm_s
        self._held: dict[int, float] = {}
        self._asked_at: float | None = None
        self._pressed: set[int] = set()

    @property
    def asking(self) -> bool:
        return self._asked_at is not None

    def feed(self, kind: str, station: int | None, t: float) -> str | None:
        """One input; returns ``"ask"``, ``"leave"``, ``"cancel"`` or None."""
        if self._asked_at is not None:
            if t - self._asked_at > self.confirm_s:
                self._reset()
                return "cancel"
            if kind == "press" and station in self.pair:
                self._pressed.add(station)
                if self._pressed == set(self.pair):
                    self._reset()
                    return "leave"
                return None
            self._reset()
            return "cancel"
        if kind == "long_push" and station in self.pair:
            self._held = {s: at for s, at in self._held.items() if t - at <= self.together_s}
            self._held[station] = t
            if set(self._held) == set(self.pair):
                self._held = {}
                self._asked_at = t
                return "ask"
        return None

    def expire(self, now: float) -> str | None:
        """Call on each loop pass: ``"cancel"`` once the question has timed out."""
        if self._asked_at is not None and now - self._asked_at > self.confirm_s:
            self._reset()
            return "cancel"
        return None

    def expires_at(self) -> float | None:
        """When the question on screen times out (table time); None while not asking."""
        return None if self._asked_at is None else self._asked_at + self.confirm_s

    def _reset(self) -> None:
        self._held = {}
        self._asked_at = None
        self._pressed = set()
