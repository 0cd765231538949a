"""``table venue``: subscribe to every table and serve the venue page (read-only).

Contract:

* The subscriber keeps a persistent MQTT session (QoS 1), so what the tables send
  while ``table venue`` is down is delivered when it is back; retained statuses and
  results fill a fresh start. Every payload is read within the contract's bounds
  (:func:`contract.decode`), must name the table whose topic it came on, and an
  event's ``seq`` may move forward only by ``contract.SEQ_STEP``; anything else is
  counted (``counts["invalid"]``, the page shows it), logged in one line,
  acknowledged and dropped.
* No message makes the venue deaf: nothing a message does escapes the handler, and
  the MQTT loop runs under a supervisor that starts it again (a fresh connection:
  the broker resends what was not acknowledged) if it fails anyway. ``connected``
  on the page is true only while the loop runs and the broker has accepted it.
* Results go into the venue's SQLite file (:class:`VenueStore`), at most once each
  per ``(table, journal, game)``: a second delivery or a re-stamped copy is counted,
  skipped and logged once per kind; stored rows that break the bounds are set aside
  on start and never served.
* A game ended early from the table menu (its result carries ``"ended": "early"``)
  has no winner on the page: its card stars nobody and the leaderboard counts no win,
  whatever its players' ``winner`` say (an older table named the leaders).
* A table's status names the results the broker acknowledged; the venue subscribes
  to the topic of each one its file lacks (the broker sends the retained copy),
  logs each once and shows the count until they come.
* Every player's name is held to the one rule for names
  (:mod:`table.common.names`); one it refuses is shown as the station's usual name,
  counted (``renamed``) and logged once per table.
* The page's state is kept in memory beside the file and encoded piece by piece: a
  table's card is encoded again only when its status, its live event or its count of
  games changes, the leaderboard and the latest results only when the results do, so
  a state costs little more than joining bytes however many tables report. Its
  ``recent`` holds the latest :data:`RECENT` results and every result received in the
  last :data:`RECENT_S` seconds (at most :data:`RECENT_MAX`), so a page that hears a
  state at least that often misses no result, however many finish at once.
* The HTTP server (:mod:`table.venue.web`: one asyncio loop, bounded connections,
  timeouts) answers ``GET`` and ``HEAD`` only: ``/`` (wall view), ``/leaderboard``,
  ``/api/state`` (JSON) and ``/events`` (server-sent events: the whole state, sent
  within ``push_s`` of any change); anything else gets ``405``. No request changes anything.
"""

from __future__ import annotations

import bisect
import json
import logging
import socket
import ssl
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.common.names import name_problem, shown_name
from table.venue import contract
from table.venue.store import RESTAMPED, VenueStore
from table.venue.web import VenueWebServer, WebLimits

log = logging.getLogger(__name__)

TOP_N = 10
RECENT = 8  # the latest results the ticker shows
RECENT_S = 10.0  # ... and every result received this recently
RECENT_MAX = 64


@dataclass(frozen=True)
class VenueConfig:
    db: Path
    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: Path | None = None
    http_host: str = "0.0.0.0"
    http_port: int = 8080
    hours: float = 12.0
    stale_s: float = 300.0
    push_s: float = 0.2
    client_id: str = ""


class Venue:
    """The subscriber and the state the page shows."""

    def __init__(self, config: VenueConfig) -> None:
        self.config = config
        self.store = VenueStore(config.db)
        self._cond = threading.Condition()
        self.version = 0
        self.counts: Counter[str] = Counter()
        self._last_events: dict[str, dict[str, Any]] = {}
        self._snapshot: tuple[int, bytes] = (-1, b"")
        self._connected = False
        self.client: Any = None
        self.last_dropped: dict[str, Any] | None = None
        self._stopping = threading.Event()
        self._loop: threading.Thread | None = None
        set_aside = self.store.set_aside(
            lambda r: contract.stored_problem(r, time.time()), lambda st: contract.stored_problem(st, time.time()))
        if set_aside:
            self.counts["set_aside"] += set_aside
            log.warning("set aside %d stored result(s) or status(es) that break the venue's bounds "
                        "(table set_aside in %s)", set_aside, config.db)
        # The page's state in memory (the module docstring): guarded by _lock, which the
        # MQTT thread holds while it takes a message and the page's server while it builds.
        self._lock = threading.RLock()
        self._said: set[str] = set()  # kinds of skipped results already logged
        # Results the tables' statuses say the broker has, which the file lacks (asked for once each).
        self._missing: dict[str, set[int]] = {}
        self._asked: set[tuple[str, Any, int]] = set()
        self.missing: list[str] = []
        self._renamed: set[str] = set()  # tables whose names were replaced (logged once each)
        # Rows stored before the one rule for names applied here are shown by it too.
        self._statuses: dict[str, dict[str, Any]] = {t: neutral_names(s) for t, s in self.store.statuses().items()}
        self._order = sorted(self._statuses)
        self._results = [neutral_names(r) for r in self.store.results(since=time.time() - config.hours * 3600)]
        # The evening's games ended early, by (table, game, started): their cards star nobody.
        self._early = {_result_key(r) for r in self._results if r.get("ended") == "early"}
        self._arrived: deque[tuple[float, tuple[str, int, float]]] = deque()  # (received, key) of new results
        self._played: Counter[str] = Counter()
        self._cards: dict[str, bytes] = {}
        self._dirty: set[str] = set(self._statuses)
        self._clock_bound: set[str] = set()  # cards whose last input is held back to now
        self._results_changed = True
        self._board = self._recent = b"[]"

    # -- MQTT --------------------------------------------------------------------------------
    def start_mqtt(self) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        cfg = self.config
        # The shipped broker binds client ids to user names (use_username_as_clientid): the
        # id is the user's own, so no table can take the venue's persistent session.
        client_id = cfg.client_id or cfg.username or f"table-venue-{socket.gethostname()}"[:64]
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False,
                             protocol=mqtt.MQTTv311)
        client.reconnect_delay_set(min_delay=1, max_delay=5)
        if cfg.username:
            client.username_pw_set(cfg.username, cfg.password)
        if cfg.tls:
            client.tls_set(ca_certs=str(cfg.ca_file) if cfg.ca_file else None, cert_reqs=ssl.CERT_REQUIRED,
                           tls_version=ssl.PROTOCOL_TLS_CLIENT)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self.client = client
        self._stopping.clear()
        self._start_loop()

    def _start_loop(self) -> None:
        self._loop = threading.Thread(target=self._run_loop, name="venue-mqtt", daemon=True)
        self._loop.start()

    def _run_loop(self) -> None:
        """paho's network loop, started again whenever it fails (the supervisor)."""
        client = self.client
        while not self._stopping.is_set():
            client.connect_async(self.config.host, self.config.port, keepalive=10)
            try:
                client.loop_forever(retry_first_connection=True)
            except Exception as exc:  # whatever kills the loop, the venue must hear again
                self.counts["restarts"] += 1
                log.error("the venue's MQTT loop failed (%s: %s); starting it again", type(exc).__name__,
                          str(exc)[:200])
            self._connected = False
            self._changed()
            # A clean return is a disconnect() by stop(); anything else waits a moment and reconnects.
            self._stopping.wait(1.0)

    def watch(self) -> None:
        """Start the MQTT loop again if its thread is gone (called periodically by :func:`serve`)."""
        if self.client is not None and not self._stopping.is_set() and (self._loop is None
                                                                          or not self._loop.is_alive()):
            self.counts["restarts"] += 1
            log.error("the venue's MQTT thread had stopped; starting it again")
            self._connected = False
            self._changed()
            self._start_loop()

    @property
    def connected(self) -> bool:
        """True while the MQTT loop runs and the broker has accepted the venue."""
        return self._connected and self._loop is not None and self._loop.is_alive()

    def stop(self) -> None:
        self._stopping.set()
        if self.client is not None:
            self.client.disconnect()
            if self._loop is not None:
                self._loop.join(timeout=5)
        self.store.close()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("the broker refused the venue (%s)", reason)
            return
        log.info("venue connected to %s:%d", self.config.host, self.config.port)
        self._connected = True
        root = contract.ROOT
        client.subscribe([(f"{root}/+/status", 1), (f"{root}/+/results/+", 1), (f"{root}/+/games/+/events", 1)])
        self._changed()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected = False
        log.warning("venue lost the broker (%s); reconnecting", reason)
        self._changed()

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        # paho acknowledges (PUBACK) when this returns: it must return, whatever the message.
        try:
            topic = msg.topic
        except (UnicodeDecodeError, ValueError):
            topic = "(a topic that is not UTF-8)"
        self.handle(topic, msg.payload)

    def handle(self, topic: str, raw: bytes) -> None:
        """Take one message (from the broker, or a test): validate, dedupe, store. Never raises."""
        self.counts["received"] += 1
        try:
            payload = contract.decode(raw, topic, now=time.time())
            with self._lock:
                self._take(payload)
        except contract.ContractError as exc:
            self._drop(topic, str(exc))
        except Exception as exc:  # one message must never make the venue deaf
            self.counts["errors"] += 1
            self._drop(topic, f"the venue failed on it ({type(exc).__name__}: {str(exc)[:200]})")

    def _drop(self, topic: str, reason: str) -> None:
        self.counts["invalid"] += 1
        self.last_dropped = {"topic": topic[:120], "reason": reason[:300], "at": time.time()}
        log.warning("dropped a message on %s: %s", topic[:120], reason)
        self._changed()

    def _take(self, payload: dict[str, Any]) -> None:
        kind = payload["type"]
        table = payload["table"]
        payload = self._named(table, payload)
        if kind == "result":
            why = self.store.take_result(payload)
            if why is None:
                self.counts["results"] += 1
                self._add_result(payload)
                self._found(table, payload["game"])
            else:
                # Counted and skipped; said once per kind (a second delivery is routine: QoS 1, retained copies).
                self.counts["duplicates"] += 1
                if why == RESTAMPED:
                    self.counts["restamped"] += 1
                if why not in self._said:
                    self._said.add(why)
                    log.log(logging.WARNING if why == RESTAMPED else logging.INFO,
                            "skipped %s (%s game %d; counted, said once)", why, table, payload["game"])
                return
        elif kind == "status":
            old = self._statuses.get(table)
            # An online status older than the one kept is a late duplicate. (A last will
            # carries the time of its connection, so offline ones are always taken.)
            if payload["online"] and old is not None and old.get("online") and old.get("sent", 0) > payload["sent"]:
                self.counts["stale"] += 1
                return
            if not payload["online"] and old is not None and old.get("game") and "game" not in payload:
                payload = {**payload, "game": old.get("game"), "health": old.get("health")}
                payload = {k: v for k, v in payload.items() if v is not None}
            game = payload.get("game")
            last = self._last_events.get(table)
            if game and last is not None and (last["game"], last["started"]) == (game["id"], game["started"]) \
                    and last["seq"] > game["seq"] + contract.SEQ_STEP:
                # The status is the table's word on its game: an event that far ahead of it was implausible.
                # (Counted apart from the dropped messages: the event was taken when it came.)
                del self._last_events[table]
                self.counts["set_aside"] += 1
                log.warning("set aside %s's event seq %d: its status says the game is at seq %d", table,
                            last["seq"], game["seq"])
            self.store.set_status(table, payload)
            self._check_results(table, payload)
            if table not in self._statuses:
                bisect.insort(self._order, table)
            self._statuses[table] = payload
            self._dirty.add(table)
            self.counts["statuses"] += 1
        else:
            self._take_event(table, payload)
            return
        self._changed()

    def _named(self, table: str, payload: dict[str, Any]) -> dict[str, Any]:
        """``payload`` with every name the one rule for names refuses (:mod:`table.common.names`)
        in its station's usual name, counted (``renamed``) and logged once per table."""
        renamed = neutral_names(payload)
        if renamed is payload:
            return payload
        self.counts["renamed"] += 1
        if table not in self._renamed:
            self._renamed.add(table)
            log.warning("%s sent a player's name the table itself would refuse; the venue shows the station's "
                        "usual name instead (logged once per table)", table)
        return renamed

    def _check_results(self, table: str, status: dict[str, Any]) -> None:
        """Hold the results a table's status says the broker acknowledged against the file's;
        ask the broker for each one missing (lock held).

        The relay hears nothing (docs/venue.md), so the venue asks the broker: a subscription
        to that one result's topic brings its retained copy, which is taken like any result.
        Each missing result is asked for and logged once; until it comes, the page counts it.
        """
        games = status.get("results")
        if not isinstance(games, list) or not games:
            return
        journal = status.get("journal")
        missing = sorted(set(games) - self.store.held_games(table, games, journal))
        if set(missing) == self._missing.get(table, set()):
            return
        if missing:
            self._missing[table] = set(missing)
        else:
            self._missing.pop(table, None)
        for game in missing:
            if (table, journal, game) in self._asked:
                continue
            self._asked.add((table, journal, game))
            log.warning("%s's relay says the broker acknowledged the result of its game %d, which the venue "
                        "does not hold; asking the broker for its retained copy", table, game)
            if self.client is not None:
                self.client.subscribe(contract.result_topic(table, game), 1)
        self._missing_changed()

    def _found(self, table: str, game: int) -> None:
        """A result came: no longer missing (and its one-result subscription goes) (lock held)."""
        held = self._missing.get(table)
        if held is None or game not in held:
            return
        held.discard(game)
        if not held:
            del self._missing[table]
        log.info("%s's result of game %d arrived", table, game)
        if self.client is not None:
            self.client.unsubscribe(contract.result_topic(table, game))
        self._missing_changed()

    def _missing_changed(self) -> None:
        self.missing = sorted(f"{t} game {g}" for t, games in self._missing.items() for g in games)
        self._changed()

    def _take_event(self, table: str, payload: dict[str, Any]) -> None:
        """Keep an event if it is the newest of its game and follows the last known seq plausibly."""
        key = (payload["game"], payload["started"])
        seq = payload["seq"]
        last = self._last_events.get(table)
        known: list[int] = []
        if last is not None and (last["game"], last["started"]) == key:
            if last["seq"] >= seq:
                self.counts["duplicates"] += 1
                return
            known.append(last["seq"])
        status = self._statuses.get(table)
        game = status.get("game") if status else None
        if isinstance(game, dict) and (game.get("id"), game.get("started")) == key:
            known.append(int(game.get("seq", -1)))
        if known and seq > max(known) + contract.SEQ_STEP:
            raise contract.ContractError(f"seq {seq} jumps more than {contract.SEQ_STEP} past {max(known)}, "
                                         "the last one known of the game")
        self._last_events[table] = payload
        self._dirty.add(table)
        self.counts["events"] += 1
        self._changed()

    def _changed(self) -> None:
        with self._cond:
            self.version += 1
            self._cond.notify_all()

    def wait_change(self, seen: int, timeout: float) -> int:
        with self._cond:
            self._cond.wait_for(lambda: self.version != seen, timeout=timeout)
            return self.version

    # -- what the page shows --------------------------------------------------------------------
    def _add_result(self, payload: dict[str, Any]) -> None:
        """A newly stored result into the page's results (lock held)."""
        now = time.time()
        if payload["finished"] < now - self.config.hours * 3600:
            return  # stored, but before this evening: not on the page
        row = {k: payload[k] for k in _RESULT_KEYS} | {"received": now}
        if "ended" in payload:
            row["ended"] = payload["ended"]
            self._early.add(_result_key(row))
        bisect.insort(self._results, row, key=_by_finish)
        self._arrived.append((now, _result_key(row)))
        self._results_changed = True

    def _refresh_results(self, now: float) -> None:
        """The leaderboard, the latest results and the games per table, again if they changed (lock held)."""
        since = now - self.config.hours * 3600
        gone = 0
        while gone < len(self._results) and self._results[gone]["finished"] < since:
            gone += 1
        if gone:
            for r in self._results[:gone]:
                self._early.discard(_result_key(r))
            del self._results[:gone]  # the evening's window moved past them
            self._results_changed = True
        while self._arrived and self._arrived[0][0] < now - RECENT_S:
            self._arrived.popleft()
            self._results_changed = True
        if not self._results_changed:
            return
        self._results_changed = False
        played = Counter(r["table"] for r in self._results)
        self._dirty.update(t for t in set(played) | set(self._played) if played[t] != self._played[t])
        self._played = played
        self._board = _encode(leaderboard(self._results))
        self._recent = _encode(recent(self._results, {key for _, key in self._arrived}))

    def _card(self, table: str, now: float) -> bytes:
        """One table's card as JSON (lock held); notes whether it depends on the clock."""
        status = self._statuses[table]
        game = status.get("game")
        event = self._last_events.get(table)
        self._clock_bound.discard(table)
        if game and event and event["game"] == game["id"] and event["started"] == game["started"] \
                and event["seq"] > game.get("seq", -1):
            # A live event newer than the last status: its round and scores are fresher.
            scores = event["scores"]
            last_input = max(game.get("last_input") or 0, game["started"] + event["t"])
            if last_input > now:
                self._clock_bound.add(table)  # encoded again with each state until the clock passes it
            game = {**game, "round": event["round"], "over": event["over"], "seq": event["seq"],
                    "players": [{**p, "score": scores.get(str(p["station"]), p["score"])}
                                for p in game["players"]],
                    # Table time may run ahead of the clock (a scripted table): never after now.
                    "last_input": min(now, last_input)}
        if game and game.get("over") and (table, game["id"], game["started"]) in self._early:
            # Its result says it was ended early: no winner, whatever the status's players say.
            game = {**game, "ended": "early", "players": [{**p, "winner": False} for p in game["players"]]}
        return _encode({
            "table": table, "online": status.get("online", False), "reason": status.get("reason", ""),
            "sent": status.get("sent"), "game": game, "health": status.get("health"),
            "games_played": self._played[table],
        })

    def state(self) -> dict[str, Any]:
        """What the page shows (the JSON of :meth:`snapshot`, read back)."""
        data: dict[str, Any] = json.loads(self.snapshot())
        return data

    def snapshot(self) -> bytes:
        """The state as JSON bytes, made once per version from the parts that changed."""
        version, data = self._snapshot
        if version == self.version:
            return data
        with self._lock:
            version = self.version
            now = time.time()
            self._refresh_results(now)
            for table in (self._dirty | self._clock_bound) & self._statuses.keys():
                self._cards[table] = self._card(table, now)  # (a table with results but no status has no card)
            self._dirty.clear()
            head = _encode({
                "now": now, "hours": self.config.hours, "stale_s": self.config.stale_s,
                "connected": self.connected, "last_dropped": self.last_dropped, "results": len(self._results),
                "missing": self.missing[:20], "missing_count": len(self.missing),
                "counts": dict(self.counts), "version": version,
            })
            data = b"".join((head[:-1], b',"tables":[', b",".join(self._cards[t] for t in self._order),
                             b'],"leaderboard":', self._board, b',"recent":', self._recent, b"}"))
            self._snapshot = (version, data)
        return data


_RESULT_KEYS = ("table", "game", "started", "finished", "engine", "title", "variant", "rounds", "actions", "reason",
                "players")


def neutral_names(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` (a result, or a status with its game) with each player's name that
    :func:`table.common.names.name_problem` refuses replaced by the station's usual name
    ("Station 2"); the same object when every name is fine."""
    holder = payload.get("game") if payload.get("type") == "status" else payload
    if not isinstance(holder, dict):
        return payload
    players = holder.get("players")
    if not isinstance(players, list) or all(name_problem(p.get("name")) is None for p in players):
        return payload
    fixed = [{**p, "name": shown_name(p.get("name"), int(p.get("station", 0)))} for p in players]
    if holder is payload:
        return {**payload, "players": fixed}
    return {**payload, "game": {**holder, "players": fixed}}


def _by_finish(r: dict[str, Any]) -> tuple[Any, ...]:
    return r["finished"], r["table"], r["game"]  # the store's order


def _result_key(r: dict[str, Any]) -> tuple[str, int, float]:
    return r["table"], r["game"], r["started"]


def _encode(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def recent(results: list[dict[str, Any]], arrived: set[tuple[str, int, float]]) -> list[dict[str, Any]]:
    """The latest :data:`RECENT` results and those received recently (``arrived``), latest finished first.

    ``results`` are ordered by finish; at most :data:`RECENT_MAX` are returned.
    """
    out: list[dict[str, Any]] = []
    left = len(arrived)
    for i, r in enumerate(reversed(results)):
        if len(out) >= RECENT_MAX or (i >= RECENT and left == 0):
            break
        new = _result_key(r) in arrived
        left -= new
        if i < RECENT or new:
            out.append(r)
    return out


def leaderboard(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per game: the evening's best scores and who won most.

    A player is a name as entered at a table, at that table ("Ada" at two tables is two
    players). A game ended early from the table menu counts as played, never as won.
    """
    by_engine: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by_engine.setdefault(r["engine"], []).append(r)
    boards = []
    for engine, rs in sorted(by_engine.items(), key=lambda kv: -len(kv[1])):
        entries = [
            {"name": p["name"], "table": r["table"], "score": p["score"],
             "winner": bool(p.get("winner", False)) and r.get("ended") != "early",
             "finished": r["finished"], "game": r["game"]}
            for r in rs for p in r["players"]
        ]
        entries.sort(key=lambda e: (-e["score"], e["finished"], e["table"], e["name"]))
        wins: Counter[tuple[str, str]] = Counter()
        games: Counter[tuple[str, str]] = Counter()
        for e in entries:
            player = (e["name"], e["table"])
            games[player] += 1
            wins[player] += 1 if e["winner"] else 0
        most = sorted(((p, w, games[p]) for p, w in wins.items() if w > 0), key=lambda x: (-x[1], x[2], x[0]))
        boards.append({
            "engine": engine, "title": rs[0]["title"], "games": len(rs),
            "top": entries[:TOP_N],
            "wins": [{"name": n, "table": t, "wins": w, "games": g} for (n, t), w, g in most[:5]],
        })
    return boards


# -- HTTP -------------------------------------------------------------------------------------------
def make_http_server(venue: Venue, limits: WebLimits | None = None) -> VenueWebServer:
    """The page's server, bound (``serve_forever`` in a thread, then ``shutdown``; see :mod:`table.venue.web`)."""
    return VenueWebServer(venue, venue.config.http_host, venue.config.http_port, limits)


def serve(config: VenueConfig, stop: threading.Event, on_ready: Any = None, limits: WebLimits | None = None) -> None:
    """Run the subscriber and the HTTP server until ``stop`` is set."""
    venue = Venue(config)
    httpd = make_http_server(venue, limits)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    venue.start_mqtt()
    host, port = httpd.server_address[:2]
    log.info("venue page on http://%s:%d/", host, port)
    if on_ready is not None:
        on_ready(httpd.server_address)
    try:
        while not stop.wait(1.0):
            venue.watch()
    finally:
        httpd.shutdown()
        httpd.server_close()
        venue.stop()
