"""``table relay``: follow the table's journal and publish it to the venue's MQTT broker.

The kiosk daemon has no network at all (its unit has ``PrivateNetwork=yes``); this
separate process reads the journal read-only and publishes (docs/venue.md).

Contract:

* **The journal is the outbox.** Every action and every finished game's result is
  published with QoS 1 in journal order. The relay keeps, in its own small SQLite
  file, the position up to which the broker has acknowledged (PUBACK) *every*
  message; after a crash, a broker restart or an hour without Wi-Fi it goes on from
  there. Nothing is lost; what was in flight may arrive twice, which consumers
  ignore (each message names its table, game and sequence number).
* On every (re)connection the relay publishes again, retained, the results of the
  games finished in the last ``republish_hours``: a broker that lost its store (a
  restart without persistence) gets them back, and consumers drop the duplicates.
* The table's status is a retained message, sent when it changes and every
  ``heartbeat_s``; the last will marks the table offline when the connection
  breaks, and a clean stop says so itself. It names the results the broker has
  acknowledged (the newest :data:`RESULTS_IN_STATUS` of the last
  ``republish_hours``), so the venue can ask the broker for any it lacks.
* A relay with no outbox starts at the first game of the last ``backlog_hours``,
  found in one snapshot of the journal (:meth:`JournalFollower.first_position`).
* The relay never subscribes to anything: nothing from the network reaches the
  table.
* ``state_dir/relay-status.json`` tells ``table selftest`` whether the broker is
  reachable and how far behind the relay is.
* No journal stops the relay: a game that cannot be read is skipped, counted
  (``games_skipped`` in the status file) and logged once, and the games after it
  are published (:mod:`table.venue.follow`); a pass that fails in any other way is
  logged once per kind of failure and tried again on the next pass.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import ssl
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.common.checks import load_json
from table.venue import contract
from table.venue.follow import JournalFollower, Message, Position, UnreadableGame, read_health

log = logging.getLogger(__name__)

STATUS_FILE = "relay-status.json"
_QUEUE_SIZE = 15  # paho's MQTT_ERR_QUEUE_SIZE: publish() kept nothing
RESULTS_IN_STATUS = 64  # the newest acknowledged results a status names (the schema's bound)


@dataclass(frozen=True)
class RelayConfig:
    """Where the relay reads and where it publishes."""

    table: str
    journal: Path
    state_dir: Path
    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: Path | None = None
    keepalive_s: int = 10
    poll_s: float = 0.1
    heartbeat_s: float = 30.0
    window: int = 200
    backlog_hours: float = 12.0
    republish_hours: float = 24.0
    health_file: Path | None = None


class Outbox:
    """The acknowledged position, kept in ``state_dir/outbox.db`` (survives crashes)."""

    def __init__(self, path: Path, table: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        # ``journal`` names the journal the position belongs to (its first game's start
        # time): a journal set aside as damaged and started afresh numbers games from 1 again.
        self._db.execute("CREATE TABLE IF NOT EXISTS acked "
                         "(tbl TEXT PRIMARY KEY, game INTEGER, step INTEGER, journal TEXT NOT NULL DEFAULT '')")
        self.table = table

    def load(self) -> tuple[Position, str] | None:
        row = self._db.execute("SELECT game, step, journal FROM acked WHERE tbl = ?", (self.table,)).fetchone()
        return None if row is None else (Position(int(row[0]), int(row[1])), str(row[2]))

    def save(self, pos: Position, journal: str) -> None:
        self._db.execute(
            "INSERT INTO acked VALUES (?, ?, ?, ?) ON CONFLICT(tbl) DO UPDATE SET game = excluded.game, "
            "step = excluded.step, journal = excluded.journal",
            (self.table, pos.game, pos.step, journal),
        )

    def close(self) -> None:
        self._db.close()


def _next_position(msg: Message) -> Position:
    assert msg.position is not None
    if msg.payload["type"] == "result":
        return Position(msg.position.game + 1, 0)
    return Position(msg.position.game, msg.position.step + 1)


class Relay:
    """One table's relay; ``run(stop)`` until ``stop`` is set (see the module docstring)."""

    def __init__(self, config: RelayConfig) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.config = config
        self.table = contract.check_table_id(config.table)
        self.follower = JournalFollower(config.journal, self.table)
        self.outbox = Outbox(config.state_dir / "outbox.db", self.table)
        self._lock = threading.Lock()
        self._inflight: OrderedDict[int, tuple[Position, bool]] = OrderedDict()
        self._early_acks: set[int] = set()
        self._untracked: set[int] = set()
        stored = self.outbox.load()
        self._acked: Position | None = None if stored is None else stored[0]
        self._journal_id: str | None = None if stored is None else stored[1]
        self._journal_ino: int | None = None
        self._saved: Position | None = self._acked
        self._sent: Position | None = self._acked
        self._connected = threading.Event()
        self._stopping = False
        self._republish = False
        self._seen_version: tuple[int, float] | None = None
        self._caught_up = False
        self._last_status: tuple[str, float] = ("", 0.0)
        self._connected_since: float | None = None
        self._last_error = "not connected yet"
        self._said_unreachable = False  # one line per outage, not one per retry
        self._failures: set[str] = set()  # kinds of failed passes already logged
        self.published = 0
        self.acks = 0
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"table-relay-{self.table}",
            clean_session=True,
            protocol=mqtt.MQTTv311,
        )
        client.max_inflight_messages_set(50)
        client.max_queued_messages_set(0)
        client.reconnect_delay_set(min_delay=1, max_delay=10)
        if config.username:
            client.username_pw_set(config.username, config.password)
        if config.tls:
            client.tls_set(ca_certs=str(config.ca_file) if config.ca_file else None,
                           cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
        will = self._status_payload(online=False, reason="connection to the table lost")
        client.will_set(contract.status_topic(self.table), contract.encode(will), qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        self.client = client

    # -- paho callbacks (network thread) ------------------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._last_error = f"the broker refused the connection ({reason})"
            log.warning("%s", self._last_error)
            return
        if self._said_unreachable:
            log.warning("reached the broker at %s:%d; publishing", self.config.host, self.config.port)
            self._said_unreachable = False
        else:
            log.info("connected to %s:%d", self.config.host, self.config.port)
        self._connected_since = time.time()
        self._republish = True
        self._last_status = ("", 0.0)
        self._seen_version = None
        self._connected.set()

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self._last_error = "no answer (is the broker running, is the address right?)"
        if not self._said_unreachable:
            log.warning("cannot reach the broker at %s:%d; trying again every few seconds, and the journal "
                        "keeps everything until it answers", self.config.host, self.config.port)
            self._said_unreachable = True

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if self._connected.is_set() and not self._stopping:
            log.warning("lost the broker (%s); the journal keeps everything until it is back", reason)
        self._last_error = f"disconnected ({reason})"
        self._connected_since = None
        self._connected.clear()

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        with self._lock:
            self.acks += 1
            if mid in self._untracked:
                self._untracked.discard(mid)  # a status message: nothing to remember
                return
            if mid not in self._inflight:
                self._early_acks.add(mid)
                return
            self._ack(mid)

    def _ack(self, mid: int) -> None:
        """Mark ``mid`` acknowledged (lock held)."""
        entry = self._inflight.get(mid)
        if entry is not None:
            self._inflight[mid] = (entry[0], True)
            # The acknowledged position moves only over an unbroken run of acks.
            while self._inflight:
                first = next(iter(self._inflight))
                nxt, done = self._inflight[first]
                if not done:
                    break
                self._acked = nxt
                del self._inflight[first]

    # -- publishing ------------------------------------------------------------------------------
    def _publish(self, msg: Message) -> None:
        # paho calls on_publish holding its own lock, so ours is never held across
        # client.publish (that would deadlock); an ack that beats the bookkeeping
        # below waits in _early_acks.
        info = self.client.publish(msg.topic, contract.encode(msg.payload), qos=1, retain=msg.retain)
        if info.rc == _QUEUE_SIZE:
            # paho kept nothing (its id is still in use): no ack will ever come for it. The
            # pass fails before the stream's position moves, and the next pass sends it again.
            raise RuntimeError("paho refused a message (its message id is still in flight)")
        with self._lock:
            self.published += 1
            early = info.mid in self._early_acks
            self._early_acks.discard(info.mid)
            if msg.position is not None:
                self._inflight[info.mid] = (_next_position(msg), False)
                if early:
                    self._ack(info.mid)
            elif not early:
                self._untracked.add(info.mid)

    def _status_payload(self, online: bool, reason: str = "") -> dict[str, Any]:
        payload: dict[str, Any] = {
            "v": contract.VERSION, "type": "status", "table": self.table, "online": online, "sent": time.time(),
        }
        if reason:
            payload["reason"] = reason
        if online:
            try:
                payload["game"] = self.follower.live_game()
            except (FileNotFoundError, sqlite3.Error, ValueError) as exc:
                payload["game"] = None
                payload["reason"] = f"journal not readable ({exc})"[:200]
            payload["health"] = read_health(self._health_file())
            with self._lock:
                acked = self._acked
            if acked is not None:
                # What the broker acknowledged: the venue holds these against what it has and asks
                # the broker for the retained copy of any it lacks (the relay hears nothing back).
                try:
                    since = time.time() - self.config.republish_hours * 3600
                    payload["results"] = self.follower.results_before(since, acked, RESULTS_IN_STATUS)
                    journal = self.follower.journal_start()
                    if journal is not None:
                        payload["journal"] = journal
                except (FileNotFoundError, sqlite3.Error):
                    pass
        return payload

    def _maybe_status(self) -> None:
        payload = self._status_payload(online=True)
        key = json.dumps({k: v for k, v in payload.items() if k != "sent"}, sort_keys=True)
        last_key, last_t = self._last_status
        if key != last_key or time.monotonic() - last_t >= self.config.heartbeat_s:
            self._publish(Message(None, contract.status_topic(self.table), payload, True))
            self._last_status = (key, time.monotonic())

    def _check_journal(self) -> None:
        """Notice a journal replaced under us (the table set a damaged one aside).

        The old file stays open through its inode, so the path is checked each pass;
        a new file, or one whose first game is another, starts the stream afresh.
        """
        ino = self.config.journal.stat().st_ino  # FileNotFoundError: no journal yet
        if self._journal_ino is not None and ino != self._journal_ino:
            log.warning("the journal %s was replaced; following the new file", self.config.journal)
            self.follower.close()
            self._seen_version = None
            self._caught_up = False
        self._journal_ino = ino
        ident = self.follower.identity()
        if not ident:
            return
        if self._journal_id and ident != self._journal_id:
            log.warning("the journal holds other games than the outbox remembers; starting its stream afresh")
            with self._lock:
                # Acks for the old file's messages must not move the new position (their
                # message ids are remembered as "nothing to do", so a reused id is not mistaken).
                self._untracked.update(self._inflight)
                self._inflight.clear()
                self._acked = None
            self._sent = None
            self._saved = None
        self._journal_id = ident

    def _start_position(self) -> Position:
        if self._sent is None:
            since = time.time() - self.config.backlog_hours * 3600
            self._sent = self._acked = self.follower.first_position(since)
            log.info("no outbox yet: starting at game %d (games of the last %.0f h)",
                     self._sent.game, self.config.backlog_hours)
        return self._sent

    def step(self) -> None:
        """One pass: publish what the journal has that the broker has not, and the status."""
        try:
            if not self._connected.is_set():
                return
            self._check_journal()
            pos = self._start_position()
            if self._republish:
                self._republish = False
                acked = self._acked or pos
                since = time.time() - self.config.republish_hours * 3600
                for game in self.follower.finished_games(since, acked):
                    if game < acked.game:
                        try:
                            self._publish(Message(None, *self._result_parts(game)))
                        except UnreadableGame as exc:
                            self.follower._skip(exc)
            # Cheap when nothing happened: the journal's data_version and the health file's
            # time are unchanged, the stream is caught up and no heartbeat is due.
            version = (self.follower.data_version(), self._health_mtime())
            fresh = version != self._seen_version
            with self._lock:
                room = self.config.window - len(self._inflight)
            if room > 0 and (fresh or not self._caught_up):
                msgs, nxt = self.follower.messages_after(pos, room)
                for msg in msgs:
                    self._publish(msg)
                self._sent = nxt
                self._caught_up = len(msgs) < room
            elif room <= 0:
                self._caught_up = False  # read again as soon as acks make room
            if fresh or time.monotonic() - self._last_status[1] >= self.config.heartbeat_s:
                self._maybe_status()
            self._seen_version = version
        except FileNotFoundError:
            pass  # the table has not written its journal yet
        except sqlite3.Error as exc:
            # The table may be mid-checkpoint; the next pass reads again.
            log.debug("journal read failed (%s); trying again", exc)
            self.follower.close()
        except Exception as exc:  # the relay must go on: a restart would meet the same journal
            kind = f"{type(exc).__name__}: {str(exc)[:200]}"
            if kind not in self._failures:
                self._failures.add(kind)
                log.error("a pass over the journal %s failed (%s); trying again every pass, logged once",
                          self.config.journal, kind)
            self.follower.close()
        finally:
            self._save()

    def _health_file(self) -> Path:
        return self.config.health_file or self.config.journal.with_name("health.json")

    def _health_mtime(self) -> float:
        try:
            return self._health_file().stat().st_mtime
        except OSError:
            return 0.0

    def _result_parts(self, game: int) -> tuple[str, dict[str, Any], bool]:
        msg = self.follower.result_message(game)
        return msg.topic, msg.payload, True

    def _save(self) -> None:
        with self._lock:
            acked = self._acked
        if acked is not None and acked != self._saved:
            self.outbox.save(acked, self._journal_id or "")
            self._saved = acked
        self._write_status_file()

    def _write_status_file(self) -> None:
        with self._lock:
            inflight = len(self._inflight)
        data = {
            "table": self.table,
            "broker": f"{self.config.host}:{self.config.port}",
            "connected": self._connected.is_set(),
            "connected_since": self._connected_since,
            "error": "" if self._connected.is_set() else self._last_error,
            "acked": None if self._acked is None else [self._acked.game, self._acked.step],
            "in_flight": inflight,
            "games_skipped": len(self.follower.unreadable),
            "written": time.time(),
        }
        path = self.config.state_dir / STATUS_FILE
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(data), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            log.debug("cannot write %s (%s)", path, exc)

    # -- lifecycle ---------------------------------------------------------------------------------
    def run(self, stop: threading.Event, on_ready: Any = None) -> None:
        """Connect (retrying for ever) and relay until ``stop`` is set, then say goodbye."""
        self.client.connect_async(self.config.host, self.config.port, keepalive=self.config.keepalive_s)
        self.client.loop_start()
        if on_ready is not None:
            on_ready()
        try:
            while not stop.is_set():
                self.step()
                stop.wait(self.config.poll_s)
            if self._connected.is_set():
                # A clean stop: say so, and give the in-flight messages a moment to be acknowledged.
                self.client.publish(contract.status_topic(self.table),
                                    contract.encode(self._status_payload(False, "relay stopped")), qos=1, retain=True)
                deadline = time.monotonic() + 2.0
                while time.monotonic() < deadline and self._inflight and self._connected.is_set():
                    time.sleep(0.05)
                self._save()
                self._stopping = True
                self.client.disconnect()
        finally:
            self.client.loop_stop()
            self._save()
            self.outbox.close()
            self.follower.close()


def read_relay_status(state_dir: Path, max_age_s: float = 30.0) -> tuple[bool, str]:
    """For ``table selftest``: (reaches the broker?, one sentence)."""
    path = state_dir / STATUS_FILE
    try:
        data = load_json(path.read_text(encoding="utf-8"), size=64 * 1024)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        age = time.time() - float(data.get("written", 0))
    except (OSError, ValueError, TypeError):
        return False, f"the relay has not run (no {path})"
    if age > max_age_s:
        return False, f"the relay is not running (its status is {age:.0f} s old)"
    if data.get("connected"):
        return True, f"the relay reaches the broker at {data.get('broker')} ({data.get('in_flight', 0)} in flight)"
    return False, f"the relay cannot reach the broker at {data.get('broker')}: {data.get('error') or 'not connected'}"
