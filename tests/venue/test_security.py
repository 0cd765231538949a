"""The broker's users and ACL as shipped, and the relay over TLS (docs/venue.md, Security).

A table may write only below its own topic and reads nothing; the venue user reads
and writes nothing (not even as a table called ``venue``); strangers are refused; a
client's id is its account's, so no one takes another's connection or session. With TLS, the relay checks the broker's
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

from table.venue.broker import ACL, LISTENER_SETTINGS, SETTINGS, LocalBroker, free_port, wait_port
from venue.helpers import get_json, spawn, table_cmd, wait_for

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("mosquitto")  # a skip only where it cannot be installed (conftest.py)
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
    lines = [line for line in conf.splitlines() if line and not line.startswith("#")]
    assert set(SETTINGS) <= set(lines)
    # Mosquitto applies a listener's settings to the listener line before them.
    listener = lines.index("listener 1883")
    assert all(lines.index(setting) > listener for setting in LISTENER_SETTINGS)


class Account:
    """One connection as one account, with the client id and session it asks for."""

    def __init__(self, port: int, user: str, password: str, client_id: str, clean: bool = True) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.got: list[tuple[str, bytes]] = []
        self.connects = 0
        self.drops = 0
        self.subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean,
                                  protocol=mqtt.MQTTv311)
        self.client.username_pw_set(user, password)
        self.client.reconnect_delay_set(5, 5)  # a dropped connection stays visible for a while
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_message = lambda c, u, m: self.got.append((m.topic, bytes(m.payload)))
        self.topics: list[str] = []
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()
        wait_for(lambda: self.connects, 5, f"{user} connected")

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if not reason.is_failure:
            self.connects += 1
            for topic in self.topics:
                client.subscribe(topic, 1)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.drops += 1

    def subscribe(self, *topics: str) -> None:
        self.topics += topics
        self.subscribed.clear()
        self.client.subscribe([(t, 1) for t in topics])
        assert self.subscribed.wait(5)

    def publish(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


ACCOUNTS = {"T1": "one", "T2": "two", "venue": "v"}
# Every topic an account might try: its own, another table's, the venue's name as a table,
# another version, the broker's own and something else entirely.
TOPICS = ["venue/v1/T1/status", "venue/v1/T1/results/1", "venue/v1/T2/status", "venue/v1/T2/games/1/events",
          "venue/v1/venue/status", "venue/v1/venue/results/1", "venue/v2/T1/status", "venue/T1", "$SYS/forged",
          "other/topic"]


def test_each_account_publishes_and_reads_only_what_it_should(tmp_path: Path) -> None:
    """Every account tries every topic: only a table's own topics take its messages; only the venue reads."""
    watcher_acl = "\nuser watcher\ntopic read #\ntopic read $SYS/#\n"
    broker = LocalBroker(tmp_path / "broker", {**ACCOUNTS, "watcher": "w"}, extra_acl=watcher_acl)
    broker.start()
    open_: list[Account] = []
    try:
        watcher = Account(broker.port, "watcher", "w", "watcher")
        open_.append(watcher)
        watcher.subscribe("#", "$SYS/forged")
        # One connection per account (a second one would take over the first: ids are bound to users).
        accounts = {user: Account(broker.port, user, pw, f"client-{user}") for user, pw in ACCOUNTS.items()}
        open_ += accounts.values()
        for account in accounts.values():
            account.subscribe("#", "venue/v1/#", "$SYS/forged")
        for account in accounts.values():
            account.got.clear()  # the $SYS/... the broker may send itself
        expected = set()
        for user, account in accounts.items():
            for topic in TOPICS:
                payload = f"{user}->{topic}".encode()
                account.publish(topic, payload)
                if user != "venue" and topic.startswith(f"venue/v1/{user}/"):
                    expected.add((topic, payload))
        wait_for(lambda: len(watcher.got) >= len(expected), 5, "the allowed messages")
        time.sleep(0.5)  # anything let through by mistake would arrive now
        assert set(watcher.got) == expected, sorted(set(watcher.got) ^ expected)
        # Only the venue reads, and it reads the tables' topics.
        assert accounts["T1"].got == [] and accounts["T2"].got == []
        assert set(accounts["venue"].got) == expected
        assert all(account.drops == 0 for account in accounts.values())
        stranger = Inbox(broker.port, "T1", "wrong password", "venue/v1/#")
        try:
            assert stranger.ready.wait(5) and stranger.refused
        finally:
            stranger.close()
    finally:
        for account in open_:
            account.close()
        broker.kill()


def test_no_table_takes_another_accounts_client_id_or_session(tmp_path: Path) -> None:
    """Client ids are bound to accounts: a table using the venue's or another table's id throws no one off."""
    import socket

    broker = LocalBroker(tmp_path / "broker", ACCOUNTS)
    broker.start()
    open_: list[Account] = []
    try:
        # The venue's persistent session: subscribed, then away for a while.
        venue = Account(broker.port, "venue", "v", "venue", clean=False)
        venue.subscribe("venue/v1/#")
        venue.close()
        t2 = Account(broker.port, "T2", "two", "table-relay-T2")
        open_.append(t2)
        # T1 connects with every id it should not have: the venue's (its user name, as the program
        # picks it, and the older host-name form), T2's relay's and T2's user name, with a clean
        # session each time.
        for client_id in ("venue", f"table-venue-{socket.gethostname()}"[:64], "table-relay-T2", "T2"):
            intruder = Account(broker.port, "T1", "one", client_id)
            intruder.close()
        time.sleep(0.5)
        assert t2.drops == 0 and t2.connects == 1, "T2 was thrown off by a client id it owns"
        # The venue's queue outlived every intruder: what T2 sent while it was away is waiting.
        t2.publish("venue/v1/T2/results/1", b"kept for the venue")
        back = Account(broker.port, "venue", "v", "venue", clean=False)
        open_.append(back)
        wait_for(lambda: back.got, 5, "the venue's queued message")
        assert back.got == [("venue/v1/T2/results/1", b"kept for the venue")]
        # And a venue connected meanwhile is not thrown off by a table using its id.
        Account(broker.port, "T2", "two", "venue").close()
        time.sleep(0.5)
        assert back.drops == 0
    finally:
        for account in open_:
            account.close()
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
