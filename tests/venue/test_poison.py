"""Hostile and broken MQTT payloads: the venue reads every one within bounds and stays hearing.

Property tests (hypothesis) throw random JSON, deep nests, huge, infinite and NaN
numbers, times outside the window and sequence jumps at the parser and the venue's
handler: nothing but :class:`ContractError` comes out of the parser, nothing at all
out of the handler, and every bad message is counted. Then rows stored before the
bounds existed are set aside on start, and poison sent through a real Mosquitto,
retained and not, before and after the venue starts, leaves it taking every good
result and saying on its page what it dropped.
"""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.venue import contract
from table.venue.server import Venue, VenueConfig
from venue.helpers import get_json, wait_for

needs_mosquitto = pytest.mark.usefixtures("mosquitto")  # a skip only where it cannot be installed (conftest.py)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STARTED = time.time() - 600  # the game the events belong to


def _result(table: str = "T1", game: int = 1, started: float | None = None, **extra: Any) -> dict[str, Any]:
    started = time.time() - 600 if started is None else started
    return {"v": 1, "type": "result", "table": table, "game": game, "started": started, "finished": started + 300,
            "engine": "ubongo", "title": "Ubongo", "variant": "standard", "actions": 40, "rounds": 9,
            "reason": "nine rounds played",
            "players": [{"station": 0, "name": "Ada", "score": 31, "winner": False},
                        {"station": 1, "name": "Ben", "score": 35, "winner": True}], **extra}


def _event(seq: int, game: int = 1, started: float = STARTED, table: str = "T1") -> dict[str, Any]:
    return {"v": 1, "type": "event", "table": table, "game": game, "started": started, "engine": "ubongo",
            "seq": seq, "t": 1.5, "kind": "press", "station": 0, "round": 1, "scores": {"0": 1}, "over": False,
            "events": []}


def _status(table: str = "T1", sent: float | None = None, **extra: Any) -> dict[str, Any]:
    return {"v": 1, "type": "status", "table": table, "online": True, "sent": time.time() if sent is None else sent,
            **extra}


def _raw(payload: Any) -> bytes:
    """JSON as a careless or hostile sender writes it: NaN and Infinity included."""
    return json.dumps(payload, allow_nan=True).encode("utf-8")


def _venue() -> Venue:
    return Venue(VenueConfig(db=Path(":memory:")))


def _strict_json(data: bytes) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in the page's state")

    return json.loads(data, parse_constant=refuse)


# -- the parser and the handler, property by property --------------------------------------------------
json_leaves = (st.none() | st.booleans() | st.text(max_size=20)
               | st.integers(min_value=-(2**80), max_value=2**80)
               | st.floats(allow_nan=True, allow_infinity=True))
json_values = st.recursive(json_leaves, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=40)


@FAST
@given(json_values)
def test_random_json_raises_nothing_but_contract_errors(value: Any) -> None:
    with contextlib.suppress(contract.ContractError):
        contract.decode(_raw(value), "venue/v1/T1/status", now=time.time())


@FAST
@given(st.binary(max_size=300))
def test_random_bytes_raise_nothing_but_contract_errors(raw: bytes) -> None:
    with contextlib.suppress(contract.ContractError):
        contract.decode(raw, "venue/v1/T1/status", now=time.time())


tricky_text = st.text(alphabet=st.sampled_from('[]{}"\\/ab\u00e9\u2603\U0001f3b2'), max_size=12)
plain_values = st.recursive(
    st.none() | st.booleans() | tricky_text | st.integers(min_value=contract.INT64_MIN, max_value=contract.INT64_MAX)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(tricky_text, inner, max_size=4), max_leaves=30)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@FAST
@given(plain_values, st.booleans())
def test_the_bounded_parser_reads_what_json_reads(value: Any, ascii_only: bool) -> None:
    """Brackets, quotes and backslashes inside strings do not count as nesting."""
    raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")
    if _depth(value) <= contract.MAX_DEPTH and len(raw) <= contract.MAX_PAYLOAD:
        assert contract.parse(raw) == json.loads(raw)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=30_000), st.sampled_from(["[", "{\"a\":"]), st.booleans())
def test_nesting_is_bounded_without_recursion(depth: int, opener: str, closed: bool) -> None:
    closer = "]" if opener == "[" else "}"
    text = opener * depth + ("1" + closer * depth if closed else "")
    raw = text.encode()
    if len(raw) > contract.MAX_PAYLOAD:
        with pytest.raises(contract.ContractError, match="larger"):
            contract.parse(raw)
    elif depth <= contract.MAX_DEPTH and closed:
        contract.parse(raw)
    else:
        with pytest.raises(contract.ContractError, match="nested"):
            contract.parse(raw)


OUTCOMES = ("results", "statuses", "events", "duplicates", "stale", "invalid")


def _valid(kind: str) -> tuple[str, dict[str, Any]]:
    if kind == "result":
        return "venue/v1/T1/results/1", _result()
    if kind == "event":
        return "venue/v1/T1/games/1/events", _event(3)
    game = {"id": 1, "started": STARTED, "engine": "ubongo", "title": "Ubongo", "variant": "standard", "round": 1,
            "over": False, "paused": False, "seq": 2, "players": [{"station": 0, "name": "Ada", "score": 1}],
            "last_input": STARTED}
    return "venue/v1/T1/status", _status(game=game, health={"camera": "ok", "leds": "ok", "stations": "ok"})


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a payload a value sits (keys of objects, indexes of lists)."""
    out = [prefix] if prefix else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, inner in items:
        out += _paths(inner, (*prefix, key))
    return out


@FAST
@given(st.lists(st.tuples(st.sampled_from(["result", "event", "status"]), st.integers(min_value=0),
                          json_values), min_size=1, max_size=8))
def test_a_valid_payload_with_any_value_anywhere_never_breaks_the_venue(changes: list[tuple[str, int, Any]]) -> None:
    """Every message is accounted for once: taken, a duplicate, stale or counted invalid."""
    venue = _venue()
    try:
        for kind, where, value in changes:
            topic, payload = _valid(kind)
            paths = _paths(payload)
            path = paths[where % len(paths)]
            target = payload
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
            venue.handle(topic, _raw(payload))
        assert sum(venue.counts[k] for k in OUTCOMES) == venue.counts["received"] == len(changes)
        assert venue.counts.get("errors", 0) == 0
        _strict_json(venue.snapshot())
    finally:
        venue.stop()


BAD_NUMBERS = [math.inf, -math.inf, math.nan, 2**64, 2**63, -(2**63) - 1, 10**30, -(10**18), 10**400]


@FAST
@given(st.sampled_from(["game", "started", "finished", "actions", "rounds", "score"]),
       st.sampled_from(BAD_NUMBERS))
def test_numbers_that_are_not_values_are_counted_and_dropped(field: str, number: Any) -> None:
    payload = _result()
    if field == "score":
        payload["players"][0]["score"] = number
    else:
        payload[field] = number
    venue = _venue()
    try:
        venue.handle("venue/v1/T1/results/1", _raw(payload))
        assert venue.counts["invalid"] == 1 and venue.counts["results"] == 0
        _strict_json(venue.snapshot())
    finally:
        venue.stop()


@FAST
@given(st.floats(min_value=-400 * 86400, max_value=400 * 86400), st.sampled_from(["sent", "finished", "started"]))
def test_times_are_taken_within_the_window_only(offset: float, field: str) -> None:
    now = time.time()
    if field == "sent":
        payload, topic = _status(sent=now + offset), "venue/v1/T1/status"
        inside = -contract.BEHIND_S <= offset <= contract.AHEAD_S
    else:
        # A five-minute game that finished (or started) ``offset`` from now.
        finished = now + offset if field == "finished" else now + offset + 300
        payload, topic = _result(started=finished - 300), "venue/v1/T1/results/1"
        inside = -contract.BEHIND_S <= finished - now <= contract.AHEAD_S
    if abs(abs(offset) - contract.AHEAD_S) < 1 or abs(abs(offset) - contract.BEHIND_S) < 400:
        return  # too near an edge for a clock that moves while the test runs
    venue = _venue()
    try:
        venue.handle(topic, _raw(payload))
        assert venue.counts["invalid"] == (0 if inside else 1), (offset, field)
    finally:
        venue.stop()


def test_a_game_that_ends_before_it_starts_or_lasts_days_is_dropped() -> None:
    venue = _venue()
    try:
        started = time.time() - 3 * 86400
        venue.handle("venue/v1/T1/results/1", _raw({**_result(started=started), "finished": started - 1}))
        venue.handle("venue/v1/T1/results/2", _raw({**_result(game=2, started=started), "finished": time.time()}))
        assert venue.counts["invalid"] == 2
        assert venue.state()["results"] == 0
    finally:
        venue.stop()


def test_a_re_stamped_game_is_the_same_game() -> None:
    venue = _venue()
    try:
        good = _result()
        venue.handle("venue/v1/T1/results/1", _raw(good))
        venue.handle("venue/v1/T1/results/1", _raw({**good, "started": good["started"] + 0.001,
                                                     "finished": good["finished"] + 0.001}))
        # The journal set aside and started afresh: game 1 again, after the first one finished.
        venue.handle("venue/v1/T1/results/1", _raw(_result(started=good["finished"] + 60)))
        assert venue.counts["results"] == 2 and venue.counts["duplicates"] == 1
    finally:
        venue.stop()


@FAST
@given(st.lists(st.integers(min_value=-3, max_value=3 * contract.SEQ_STEP), min_size=1, max_size=30))
def test_sequence_numbers_move_forward_by_a_plausible_step_only(jumps: list[int]) -> None:
    """Whatever a table sends, the kept seq never jumps further than SEQ_STEP, and real events still count."""
    venue = _venue()
    try:
        venue.handle("venue/v1/T1/games/1/events", _raw(_event(0)))
        kept = 0
        for jump in jumps:
            venue.handle("venue/v1/T1/games/1/events", _raw(_event(max(0, kept + jump))))
            now_kept = venue._last_events["T1"]["seq"]
            assert kept <= now_kept <= kept + contract.SEQ_STEP
            kept = now_kept
        venue.handle("venue/v1/T1/games/1/events", _raw(_event(2**62)))  # out of every bound
        venue.handle("venue/v1/T1/games/1/events", _raw(_event(kept + 1)))  # the table's real next one
        assert venue._last_events["T1"]["seq"] == kept + 1
        counted = sum(venue.counts[k] for k in ("events", "duplicates", "invalid"))
        assert counted == venue.counts["received"]
    finally:
        venue.stop()


def test_the_status_sets_aside_an_event_far_ahead_of_it() -> None:
    venue = _venue()
    try:
        started = time.time() - 60
        game = {"id": 1, "started": started, "engine": "ubongo", "title": "Ubongo", "variant": "standard",
                "round": 1, "over": False, "paused": False, "seq": 10,
                "players": [{"station": 0, "name": "Ada", "score": 1}], "last_input": started}
        # Before any status, the venue knows nothing of the game: a far seq is taken...
        venue.handle("venue/v1/T1/games/1/events", _raw(_event(9_000_000, started=started)))
        assert venue._last_events["T1"]["seq"] == 9_000_000
        # ...until the table's status says where the game is: then the event is set aside.
        venue.handle("venue/v1/T1/status", _raw(_status(game=game)))
        assert "T1" not in venue._last_events and venue.counts["set_aside"] == 1
        venue.handle("venue/v1/T1/games/1/events", _raw(_event(11, started=started)))
        assert venue._last_events["T1"]["seq"] == 11
    finally:
        venue.stop()


def test_a_clock_far_ahead_cannot_freeze_a_card() -> None:
    venue = _venue()
    try:
        venue.handle("venue/v1/T1/status", _raw(_status(sent=time.time() + 86400)))
        venue.handle("venue/v1/T1/status", _raw({**_status(), "online": False, "reason": "gone"}))
        venue.handle("venue/v1/T1/status", _raw(_status()))
        assert venue.counts["invalid"] == 1 and venue.counts.get("stale", 0) == 0
        assert venue.state()["tables"][0]["online"] is True
    finally:
        venue.stop()


def test_a_handler_failure_is_counted_and_the_message_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    venue = _venue()
    try:
        def broken(payload: dict[str, Any]) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(venue, "_take", broken)
        venue.handle("venue/v1/T1/results/1", _raw(_result()))
        assert venue.counts["errors"] == 1 and venue.counts["invalid"] == 1
        assert "disk is full" in venue.state()["last_dropped"]["reason"]
    finally:
        venue.stop()


# -- rows stored before the bounds existed ---------------------------------------------------------------
def test_stored_rows_that_break_the_bounds_are_set_aside_on_start(tmp_path: Path) -> None:
    db = tmp_path / "venue.db"
    Venue(VenueConfig(db=db)).stop()  # the file with its tables
    now = time.time()
    good = _result(started=now - 900)
    con = sqlite3.connect(db)

    def row(r: dict[str, Any], **over: Any) -> None:
        r = {**r, **over}
        con.execute("INSERT INTO results (tbl, game, started, finished, engine, title, variant, rounds, actions, "
                    "reason, players, received) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (r["table"], r["game"], r["started"], r["finished"], r["engine"], r["title"], r["variant"],
                     r["rounds"], r["actions"], r["reason"], over.get("players_text", json.dumps(r["players"])),
                     now))

    row(good)
    row(good, game=2, finished=math.inf)
    row(good, game=3, finished="soon")  # SQLite keeps text in a REAL column (it stores NaN as NULL)
    row(good, game=4, finished=32503680000.0)  # the year 3000
    row(good, game=5, finished=good["started"] - 1)
    row(good, game=6, players_text='[{"station": 0, "name": "Ada", "score": 1e30, "winner": true}]')
    row(good, game=7, players_text="[{")
    row(good, started=good["started"] + 0.001, finished=good["finished"] + 0.001)  # re-stamped game 1
    con.execute("INSERT INTO tables VALUES ('T9', ?, ?)", (json.dumps(_status("T9", sent=now + 86400)), now))
    con.execute("INSERT INTO tables VALUES ('T8', ?, ?)", (json.dumps(_status("T8")), now))
    con.execute("INSERT INTO tables VALUES ('venue', ?, ?)", (json.dumps(_status("venue")), now))
    con.commit()
    con.close()

    venue = Venue(VenueConfig(db=db))
    try:
        state = _strict_json(venue.snapshot())
        assert state["results"] == 1 and state["counts"]["set_aside"] == 9
        assert [t["table"] for t in state["tables"]] == ["T8"]
        reasons = [r["reason"] for r in venue.store.set_aside_rows()]
        assert any("re-stamped" in r for r in reasons) and len(reasons) == 9
    finally:
        venue.stop()
    again = Venue(VenueConfig(db=db))  # what was set aside stays aside; the good result stays
    try:
        assert again.counts.get("set_aside", 0) == 0 and again.state()["results"] == 1
    finally:
        again.stop()


# -- through a real broker -----------------------------------------------------------------------------------
def _poison(now: float) -> list[tuple[str, bytes]]:
    """One message of each kind of trouble, each on a topic the table may write."""
    good = _result(started=now - 900)
    return [
        ("venue/v1/T1/status", b"[" * 60_000),
        ("venue/v1/T1/results/90", _raw({**good, "game": 2**64})),
        ("venue/v1/T1/results/91", _raw({**good, "game": 91, "finished": math.inf})),
        ("venue/v1/T1/results/92", _raw({**good, "game": 92, "players": [
            {"station": 0, "name": "Ada", "score": 10**30, "winner": True}]})),
        ("venue/v1/T1/results/93", _raw({**good, "game": 93, "finished": 32503680000.0})),
        ("venue/v1/T1/games/1/events", _raw(_event(2**62, started=now - 60))),
        ("venue/v1/T1/status", b"\xff\xfe not even text"),
    ]


class _Publisher:
    """T1's one connection (ids are bound to users: a second would throw the first off)."""

    def __init__(self, port: int) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="T1", protocol=mqtt.MQTTv311)
        self.client.username_pw_set("T1", "one")
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def send(self, messages: list[tuple[str, bytes]], retain: bool) -> None:
        for topic, payload in messages:
            self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class _RunningVenue:
    """``serve()`` in a thread, as ``table venue`` runs it."""

    def __init__(self, db: Path, port: int) -> None:
        from table.venue.broker import free_port
        from table.venue.server import serve

        self.stop = threading.Event()
        ready = threading.Event()
        self.config = VenueConfig(db=db, port=port, username="venue", password="v", http_host="127.0.0.1",
                                  http_port=free_port())
        self.thread = threading.Thread(target=serve, args=(self.config, self.stop),
                                       kwargs={"on_ready": lambda a: ready.set()}, daemon=True)
        self.thread.start()
        assert ready.wait(10)
        self.url = f"http://127.0.0.1:{self.config.http_port}/api/state"

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = get_json(self.url)
        return state

    def close(self) -> None:
        self.stop.set()
        self.thread.join(15)


@needs_mosquitto
def test_poison_retained_and_not_before_and_after_start_leaves_the_venue_hearing(tmp_path: Path) -> None:
    from table.venue.broker import LocalBroker

    broker = LocalBroker(tmp_path / "broker", {"T1": "one", "venue": "v"})
    broker.start()
    db = tmp_path / "venue.db"
    publisher: _Publisher | None = None
    venue: _RunningVenue | None = None
    now = time.time()
    goods = [(f"venue/v1/T1/results/{g}", _raw(_result(game=g, started=now - 4000 + 400 * g))) for g in range(1, 7)]
    poison = _poison(now)
    try:
        # A first start makes the venue's persistent session; it is away when the trouble starts.
        venue = _RunningVenue(db, broker.port)
        wait_for(lambda: venue and venue.state()["connected"], 10, "the venue connected")
        venue.close()
        publisher = _Publisher(broker.port)
        publisher.send(poison + goods[:1], retain=True)
        publisher.send(poison + goods[1:2], retain=False)  # queued for the venue's session

        venue = _RunningVenue(db, broker.port)
        wait_for(lambda: venue and venue.state()["results"] == 2, 15, "the two results sent before the start")
        publisher.send(poison + goods[2:3], retain=True)
        publisher.send(poison + goods[3:4], retain=False)
        state = wait_for(lambda: venue and (s := venue.state())["results"] == 4 and s, 15, "the results after it")
        time.sleep(0.5)
        state = venue.state()
        assert state["connected"] is True
        # Each poison at least once per batch (the broker also sends the retained ones again when the
        # venue subscribes anew); what was not acknowledged would come back at the next start, below.
        assert state["counts"]["invalid"] >= 4 * len(poison), state["counts"]
        assert state["counts"].get("restarts", 0) == 0 and state["counts"].get("errors", 0) == 0
        assert state["last_dropped"]["reason"]
        with urllib.request.urlopen(venue.url.replace("/api/state", "/"), timeout=5) as resp:
            assert b'id="dropped"' in resp.read()

        # Every fresh start: the retained poison comes again (it is the broker's), the queued one not
        # (it was acknowledged), and the venue goes on hearing.
        venue.close()
        venue = _RunningVenue(db, broker.port)
        publisher.send(goods[4:], retain=False)
        state = wait_for(lambda: venue and (s := venue.state())["results"] == 6 and s, 15, "every good result")
        time.sleep(0.5)
        state = venue.state()
        retained_topics = {topic for topic, _ in poison}  # the status topic's last poison is the retained one
        assert state["counts"]["invalid"] == len(retained_topics), state["counts"]
        assert state["connected"] is True
    finally:
        if venue is not None:
            venue.close()
        if publisher is not None:
            publisher.close()
        broker.kill()


@needs_mosquitto
def test_a_dead_mqtt_loop_is_started_again_and_the_page_says_so_meanwhile(tmp_path: Path) -> None:
    from table.venue.broker import LocalBroker

    broker = LocalBroker(tmp_path / "broker", {"T1": "one", "venue": "v"})
    broker.start()
    venue = Venue(VenueConfig(db=tmp_path / "venue.db", port=broker.port, username="venue", password="v"))
    publisher: _Publisher | None = None
    try:
        venue.start_mqtt()
        wait_for(lambda: venue.connected, 10, "the venue connected")
        # Something inside paho's loop fails (not the handler, which never raises).
        real = venue.client.on_message
        failures: list[str] = []

        def explode(client: Any, userdata: Any, msg: Any) -> None:
            if not failures:
                failures.append(msg.topic)
                raise RuntimeError("a failure inside the MQTT loop")
            real(client, userdata, msg)

        venue.client.on_message = explode
        seen: list[bool] = []

        def watch_page() -> None:
            for _ in range(60):
                seen.append(venue.state()["connected"])
                time.sleep(0.05)

        watcher = threading.Thread(target=watch_page, daemon=True)
        watcher.start()
        publisher = _Publisher(broker.port)
        publisher.send([("venue/v1/T1/results/1", _raw(_result()))], retain=False)
        # The loop is started again; the broker resends the unacknowledged result.
        wait_for(lambda: venue.state()["results"] == 1, 15, "the result after the restart")
        watcher.join(5)
        assert venue.counts["restarts"] == 1 and failures
        assert False in seen, "the page said connected while the loop was down"
        assert venue.state()["connected"] is True
        # A loop thread that is gone altogether is noticed by the watch and started again.
        venue._stopping.set()
        venue.client.disconnect()
        assert venue._loop is not None
        venue._loop.join(5)
        venue._stopping.clear()
        assert venue.state()["connected"] is False
        venue.watch()
        wait_for(lambda: venue.connected, 10, "the venue connected again")
    finally:
        if publisher is not None:
            publisher.close()
        venue.stop()
        broker.kill()


def test_the_schema_writes_down_the_bounds_the_venue_checks() -> None:
    bounds = contract.schema()["x-bounds"]
    assert (bounds["max_bytes"], bounds["max_depth"], bounds["seq_step"]) == (
        contract.MAX_PAYLOAD, contract.MAX_DEPTH, contract.SEQ_STEP)
    assert (bounds["ahead_s"], bounds["behind_s"], bounds["max_game_s"]) == (
        contract.AHEAD_S, contract.BEHIND_S, contract.MAX_GAME_S)
    defs = contract.schema()["$defs"]
    assert defs["table_time"]["maximum"] == contract.MAX_GAME_S
