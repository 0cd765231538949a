"""Running a throw-away Mosquitto on loopback, for tests and ``bench/bench_venue.py``.

:class:`LocalBroker` writes a config with the shipped ACL's rules and settings (one
user per table, a read-only ``venue`` user, client ids bound to users), starts
``mosquitto`` on 127.0.0.1 on a free port, and can be killed and started again on
the same port with the same store.
"""

from __future__ import annotations

import getpass
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

ACL = """user venue
topic read venue/v1/#
topic deny venue/v1/venue/#

pattern write venue/v1/%u/#
"""
# The broker settings the shipped ``table-venue.conf`` and the test broker share.
SETTINGS = ("per_listener_settings false", "allow_anonymous false", "persistent_client_expiration 1w")
# A client's id is its user name, so no one takes another account's session (or the
# venue's persistent one) by connecting with its id. Mosquitto takes it per listener:
# it must follow the listener line.
LISTENER_SETTINGS = ("use_username_as_clientid true",)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 10.0, host: str = "127.0.0.1") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout:.0f} s")


class LocalBroker:
    """A Mosquitto on 127.0.0.1 with per-table users and the ACL (see the module docstring)."""

    def __init__(self, workdir: Path, users: dict[str, str], port: int | None = None,
                 persistence: bool = True, autosave_s: int = 1, extra_acl: str = "",
                 tls: tuple[Path, Path] | None = None) -> None:
        exe = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
        passwd = shutil.which("mosquitto_passwd")
        if exe is None or passwd is None:
            raise FileNotFoundError("mosquitto is not installed (Debian package: mosquitto)")
        self.exe = exe
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        pw = self.dir / "passwd"
        pw.write_text("")
        for user, password in users.items():
            subprocess.run([passwd, "-b", str(pw), user, password], check=True, capture_output=True)
        (self.dir / "acl").write_text(ACL + extra_acl)
        lines = [
            # As root, mosquitto would switch to its own user, who cannot read a private test directory.
            f"user {getpass.getuser()}",
            *SETTINGS,
            f"password_file {pw}",
            f"acl_file {self.dir / 'acl'}",
            f"listener {self.port} 127.0.0.1",
            *LISTENER_SETTINGS,
            *([f"certfile {tls[0]}", f"keyfile {tls[1]}", "tls_version tlsv1.2"] if tls else []),
            "max_queued_messages 100000",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
        ]
        if persistence:
            lines += ["persistence true", f"persistence_location {self.dir}/", f"autosave_interval {autosave_s}"]
        (self.dir / "mosquitto.conf").write_text("\n".join(lines) + "\n")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.log = (self.dir / "mosquitto.log").open("ab")
        self.proc = subprocess.Popen([self.exe, "-c", str(self.dir / "mosquitto.conf")],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        wait_port(self.port)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=10)
            self.proc = None
            self.log.close()

    def stop(self) -> None:
        self.kill(signal.SIGTERM)

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid
