"""Shared pieces of the venue tests: scenarios that end, a cuttable TCP proxy, processes."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from table.play.scenario import load_scenario
from table.play.scenario_writer import random_script, scenario_toml


def finished_scenario(tmp: Path, name: str, game: str, seed: int, names: list[str]) -> Path:
    """A random legal game of ``game`` that runs to its end, with player names."""
    data = random_script(game, seed, stations=len(names), meta_rate=0.0)
    data["names"] = names
    path = tmp / f"{name}.toml"
    path.write_text(scenario_toml(data))
    return path


def last_input_time(path: Path) -> float:
    scenario = load_scenario(path)
    return max((a.t for a in scenario.inputs), default=1.0)


def env() -> dict[str, str]:
    e = dict(os.environ)
    e.setdefault("SDL_VIDEODRIVER", "dummy")
    e.setdefault("SDL_AUDIODRIVER", "dummy")
    return e


def table_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "table", *args]


def spawn(cmd: list[str], log: Path) -> subprocess.Popen[bytes]:
    fh = log.open("ab")
    return subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env())


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.loads(resp.read())


def wait_for(predicate: Any, timeout: float, what: str, step: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except OSError:
            last = None
        if last:
            return last
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def replay_report(journal: Path, game: int) -> dict[str, Any]:
    out = subprocess.run(table_cmd("replay", str(journal), "--game", str(game), "--json"),
                         capture_output=True, text=True, check=True, env=env(), timeout=60)
    report: dict[str, Any] = json.loads(out.stdout)
    return report


class CutProxy:
    """A TCP proxy on loopback whose link can be cut (a table's Wi-Fi dropping) and restored."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = int(self.listener.getsockname()[1])
        self.up = True
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=2)
                upstream.settimeout(None)  # the connect's timeout must not end a quiet link
            except OSError:
                client.close()
                continue
            with self._lock:
                self._socks += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Drop every connection at once and refuse new ones until :meth:`restore`."""
        self.up = False
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self._closed = True
        self.cut()
        self.listener.close()


def publish_into_a_list(relay: Any) -> list[Any]:
    """Make ``relay`` connected and publishing into the returned list, as if a broker
    acknowledged every message at once; each payload must follow the schema."""
    from table.venue import contract
    from table.venue.relay import _next_position

    sent: list[Any] = []

    def publish(msg: Any) -> None:
        contract.validate(msg.payload)
        sent.append(msg)
        if msg.position is not None:
            relay._acked = _next_position(msg)

    relay._publish = publish
    relay._connected.set()
    return sent


def drain(relay: Any, sent: list[Any]) -> None:
    """Step the relay until it has nothing more to send (a window is 200 messages a pass);
    a step must never raise, and the relay must come to an end."""
    for _ in range(1000):
        before = len(sent)
        relay.step()
        if len(sent) == before:
            return
    raise AssertionError("the relay kept sending")
