"""The broker's users and ACL as shipped, and the relay over TLS (docs/venue.md, Security).

A table may write only below its own topic and reads nothing; the venue user reads
and writes nothing; strangers are refused. With TLS, the relay checks the broker's
certificate against the venue's CA and a result still arrives.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from table.venue import contract
from table.venue.broker import ACL, LocalBroker, free_port, wait_port
from venue.helpers import get_json, spawn, table_cmd, wait_for

REPO = Path(__file__).resolve().parents[2]
MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed (Debian package: mosquitto)")
SCENARIOS = REPO / "docs" / "scenarios"


def _client(port: int, user: str, password: str, **tls: Any) -> Any:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{user}-{time.monotonic_ns()}")
    client.username_pw_set(user, password)
    if tls:
        client.tls_set(**tls)
    return client


class Inbox:
    """A subscriber that remembers what arrived."""

    def __init__(self, port: int, user: str, password: str, topic: str) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.ready = threading.Event()
        self.refused = ""
        self.client = _client(port, user, password)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *a: self.ready.set()
        self.client.on_message = lambda c, u, m: self.got.append((m.topic, m.payload))
        self.topic = topic
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self.refused = str(reason)
            self.ready.set()
            return
        client.subscribe(self.topic, 1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _publish(port: int, user: str, password: str, topic: str, payload: bytes) -> None:
    client = _client(port, user, password)
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        client.publish(topic, payload, qos=1).wait_for_publish(5)
    finally:
        client.disconnect()
        client.loop_stop()


def test_the_shipped_acl_is_the_one_tested() -> None:
    shipped = (REPO / "packaging" / "mosquitto" / "table-venue.acl").read_text()
    rules = [line for line in shipped.splitlines() if line and not line.startswith("#")]
    assert rules == [line for line in ACL.splitlines() if line]
    conf = (REPO / "packaging" / "mosquitto" / "table-venue.conf").read_text()
    assert "allow_anonymous false" in conf and "acl_file /etc/mosquitto/table-venue.acl" in conf


def test_a_table_writes_only_its_own_topics(tmp_path: Path) -> None:
    broker = LocalBroker(tmp_path / "broker", {"T1": "one", "T2": "two", "venue": "v"})
    broker.start()
    inboxes: list[Inbox] = []
    try:
        venue = Inbox(broker.port, "venue", "v", "venue/v1/#")
        spy = Inbox(broker.port, "T2", "two", "venue/v1/#")  # a table trying to read
        inboxes += [venue, spy]
        assert venue.ready.wait(5) and spy.ready.wait(5)
        status = {"v": 1, "type": "status", "table": "T2", "online": False, "sent": time.time()}
        _publish(broker.port, "T1", "one", "venue/v1/T2/status", contract.encode(status))  # forged
        _publish(broker.port, "venue", "v", "venue/v1/T2/status", contract.encode(status))  # venue is read-only
        _publish(broker.port, "T2", "two", "venue/v1/T2/status", contract.encode(status))  # its own: allowed
        wait_for(lambda: venue.got, 5, "the allowed message")
        time.sleep(0.5)
        assert len(venue.got) == 1, venue.got
        assert spy.got == []
        stranger = Inbox(broker.port, "T1", "wrong password", "venue/v1/#")
        inboxes.append(stranger)
        assert stranger.ready.wait(5) and stranger.refused
    finally:
        for inbox in inboxes:
            inbox.close()
        broker.kill()


def _certs(tmp: Path) -> tuple[Path, Path, Path]:
    """A CA and a broker certificate for 127.0.0.1, as docs/venue.md makes them."""
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=tmp, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=venue CA",
        "-keyout", "ca.key", "-out", "ca.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "broker.key",
        "-out", "broker.csr")
    (tmp / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-extfile", "san.ext", "-out", "broker.crt")
    return tmp / "ca.crt", tmp / "broker.crt", tmp / "broker.key"


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed (Debian package: openssl)")
def test_relay_and_venue_over_tls(tmp_path: Path) -> None:
    ca, cert, key = _certs(tmp_path)
    broker = LocalBroker(tmp_path / "broker", {"T1": "one", "venue": "v"}, tls=(cert, key))
    (tmp_path / "one").write_text("one")
    (tmp_path / "v").write_text("v")
    journal = tmp_path / "T1.db"
    subprocess.run([table_cmd()[0], "-m", "table", "play", str(SCENARIOS / "ugah-whole-game.toml"), "--journal",
                    str(journal)], check=True, capture_output=True, timeout=120)
    http_port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        broker.start()
        tls = ["--tls", "--ca-file", str(ca), "--port", str(broker.port)]
        procs.append(spawn(table_cmd("venue", "--db", str(tmp_path / "venue.db"), "--username", "venue",
                                     "--password-file", str(tmp_path / "v"), "--http-host", "127.0.0.1",
                                     "--http-port", str(http_port), *tls), tmp_path / "venue.log"))
        procs.append(spawn(table_cmd("relay", "--table", "T1", "--journal", str(journal), "--state-dir",
                                     str(tmp_path / "relay"), "--password-file", str(tmp_path / "one"), *tls),
                           tmp_path / "relay.log"))
        wait_port(http_port)
        state = wait_for(lambda: (s := get_json(f"http://127.0.0.1:{http_port}/api/state"))["results"] == 1 and s,
                         30, "the result over TLS")
        assert state["tables"][0]["online"]
        # A client that does not trust the venue's CA is not let in.
        import ssl

        plain = _client(broker.port, "T1", "one", ca_certs=None, cert_reqs=ssl.CERT_REQUIRED)
        with pytest.raises(ssl.SSLError):
            plain.connect("127.0.0.1", broker.port)
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait(10)
        broker.kill()
