"""The relay moves its acknowledged position only over messages the broker acknowledged.

A real journal (written by :class:`table.play.journal.Journal`, as the table does)
and a stand-in for paho's client at the network's edge. The stand-in keeps paho
2.x's rules: message ids count up from 1 and wrap after 65535, an id still
outstanding is refused (``MQTT_ERR_QUEUE_SIZE``, nothing sent), ``on_publish`` is
called once per id and only for a message that is outstanding, and a message is
kept (and sent again under the same id) across a reconnection. Its acknowledgements
come when the test says: before ``publish`` returns, in any order, after a
reconnection.

The invariant checked after every pass: every finished game whose result lies
before the relay's acknowledged position had its result acknowledged by the broker.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.games import get_engine, lobby_games
from table.games.base import Action, GameSetup
from table.play.autoplay import next_random_action
from table.play.journal import Journal
from table.play.session import Session
from table.venue.follow import Position
from table.venue.relay import Relay, RelayConfig

QUEUE_SIZE = 15  # paho's MQTT_ERR_QUEUE_SIZE


@dataclass
class Info:
    mid: int
    rc: int = 0


@dataclass
class FakeClient:
    """paho's client as the relay sees it (see the module docstring)."""

    on_publish: Callable[..., None]
    early: bool = False  # acknowledge inside publish(), before it returns
    last_mid: int = 0
    outstanding: dict[int, tuple[str, bytes]] = field(default_factory=dict)
    acked: list[tuple[str, bytes]] = field(default_factory=list)

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> Info:
        assert qos == 1
        self.last_mid = self.last_mid % 65535 + 1
        if self.last_mid in self.outstanding:
            return Info(self.last_mid, QUEUE_SIZE)
        self.outstanding[self.last_mid] = (topic, payload)
        if self.early:
            self.ack(self.last_mid)
        return Info(self.last_mid)

    def ack(self, mid: int) -> None:
        if mid in self.outstanding:  # paho ignores a PUBACK it has no message for
            self.on_publish(self, None, mid, None, None)
            self.acked.append(self.outstanding.pop(mid))

    def ack_all(self, rng: random.Random | None = None) -> None:
        mids = list(self.outstanding)
        if rng is not None:
            rng.shuffle(mids)
        for mid in mids:
            self.ack(mid)


def _relay(tmp: Path, journal: Path, **kw: Any) -> tuple[Relay, FakeClient]:
    relay = Relay(RelayConfig(table="T1", journal=journal, state_dir=tmp / "relay", **kw))
    fake = FakeClient(relay._on_publish)
    relay.client = fake  # type: ignore[assignment]
    relay._connected.set()
    return relay, fake


def _play(journal: Journal, rng: random.Random, finish: bool = True) -> int:
    """One short random game into ``journal``; its id."""
    name = sorted(lobby_games())[0]
    engine = get_engine(name)
    n = engine.min_stations
    setup = GameSetup(game=name, variant=engine.variants[0], stations=tuple(range(n)),
                      names=tuple(f"P{i}" for i in range(n)))
    seed = rng.randrange(1 << 30)
    session = Session.start(name, setup, seed)
    gid = journal.start_game(setup, seed)
    seq = 0

    def record(action: Action) -> None:
        nonlocal seq
        journal.append(gid, seq, action)
        seq += 1

    for _ in range(rng.randint(1, 6)):
        action = next_random_action(session, rng, 4.0, 0.0)
        if action is None or session.is_over():
            break
        session.apply(action, record)
    if finish:
        session.apply(Action("end", session.last_t + 1.0), record)
        journal.finish(gid, session.outcome())
    return gid


def _finished(path: Path) -> dict[int, int]:
    """Finished game -> its number of actions (its result's step)."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT g.id, (SELECT count(*) FROM actions a WHERE a.game = g.id) FROM games g "
                          "WHERE g.finished IS NOT NULL").fetchall()
    finally:
        db.close()
    return {int(g): int(n) for g, n in rows}


def _check(relay: Relay, fake: FakeClient, path: Path) -> None:
    """Every result before the acknowledged position was acknowledged by the broker."""
    acked_topics = {topic for topic, _ in fake.acked}
    if relay._acked is None:
        return
    for game, n in _finished(path).items():
        if Position(game, n) < relay._acked:
            assert f"venue/v1/T1/results/{game}" in acked_topics, (game, relay._acked)


class _GameArrivesMidQuery:
    """The follower's connection, with the table's first game written right after the
    relay's first look for where to start (the table starting just then)."""

    def __init__(self, conn: sqlite3.Connection, write: Callable[[], object]) -> None:
        self._conn, self._write, self.fired = conn, write, False

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        cur = self._conn.execute(sql, params)
        if not self.fired and "min(id)" in sql:
            rows = cur.fetchall()
            self.fired = True
            self._write()
            return _Rows(rows)  # type: ignore[return-value]
        return cur


class _Rows:
    def __init__(self, rows: list[Any]) -> None:
        self._rows = rows

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Any]:
        return self._rows


def test_a_first_game_that_starts_while_the_relay_looks_is_published(tmp_path: Path) -> None:
    """The tester's loss: the table's game 1 began between the relay's two questions of
    where to start, so the relay started after it and never published it."""
    path = tmp_path / "journal.db"
    journal = Journal(path)
    rng = random.Random(1)
    try:
        relay, fake = _relay(tmp_path, path)
        real = relay.follower._conn()
        hook = _GameArrivesMidQuery(real, lambda: _play(journal, rng))
        relay.follower._conn = lambda: hook  # type: ignore[assignment,return-value,method-assign]
        for _ in range(3):
            relay.step()
            fake.ack_all()
            _check(relay, fake, path)
        assert hook.fired
        _play(journal, rng)
        for _ in range(3):
            relay.step()
            fake.ack_all()
            _check(relay, fake, path)
        topics = {t for t, _ in fake.acked}
        assert {"venue/v1/T1/results/1", "venue/v1/T1/results/2"} <= topics
        assert relay._acked == Position(3, 0)
    finally:
        journal.close()


def test_acks_early_late_out_of_order_and_after_a_reconnection(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    journal = Journal(path)
    rng = random.Random(7)
    try:
        relay, fake = _relay(tmp_path, path, window=7)
        for round_ in range(40):
            if rng.random() < 0.5:
                _play(journal, rng, finish=rng.random() < 0.9)
            fake.early = rng.random() < 0.3
            relay.step()
            _check(relay, fake, path)
            # Some acknowledgements now, in any order; the rest wait (a link down) and come
            # after a reconnection, when paho sends them again under the same ids.
            for mid in rng.sample(sorted(fake.outstanding), k=len(fake.outstanding) // 2):
                fake.ack(mid)
                _check(relay, fake, path)
            if round_ % 5 == 4:
                relay._on_disconnect(fake, None, None, "test", None)
                relay._on_connect(fake, None, None, _Ok(), None)
                fake.ack_all(rng)
                _check(relay, fake, path)
        for _ in range(30):
            relay.step()
            fake.ack_all(rng)
            _check(relay, fake, path)
        finished = _finished(path)
        topics = {t for t, _ in fake.acked}
        assert all(f"venue/v1/T1/results/{g}" in topics for g in finished)
        assert relay._inflight == {} and relay._early_acks == set()
    finally:
        journal.close()


def test_message_ids_wrap_without_crediting_the_wrong_message(tmp_path: Path) -> None:
    """Ids wrap after 65535: an ack for a reused id belongs to the message that holds it now."""
    path = tmp_path / "journal.db"
    journal = Journal(path)
    rng = random.Random(3)
    try:
        relay, fake = _relay(tmp_path, path, window=5)
        fake.last_mid = 65530
        for _ in range(12):
            _play(journal, rng)
            relay.step()
            _check(relay, fake, path)
            fake.ack_all(rng)
            _check(relay, fake, path)
        for _ in range(10):
            relay.step()
            fake.ack_all(rng)
        assert fake.last_mid < 100  # wrapped
        topics = {t for t, _ in fake.acked}
        assert all(f"venue/v1/T1/results/{g}" in topics for g in _finished(path))
    finally:
        journal.close()


def test_a_message_paho_refuses_is_sent_again_not_waited_for(tmp_path: Path) -> None:
    """paho refuses a message whose id is still outstanding (MQTT_ERR_QUEUE_SIZE) and keeps
    nothing: the relay must neither count it acknowledged nor wait for it for ever."""
    path = tmp_path / "journal.db"
    journal = Journal(path)
    rng = random.Random(9)
    try:
        relay, fake = _relay(tmp_path, path)
        fake.last_mid = 100
        fake.outstanding[103] = ("elsewhere", b"")  # an id the next publishes will run into
        _play(journal, rng)
        relay.step()  # refused on its third message: the pass fails, logged once
        _check(relay, fake, path)
        fake.ack_all()
        del fake.acked[:]
        for _ in range(3):
            relay.step()
            fake.ack_all()
            _check(relay, fake, path)
        assert "venue/v1/T1/results/1" in {t for t, _ in fake.acked}
        assert relay._acked == Position(2, 0)
    finally:
        journal.close()


class _Ok:
    is_failure = False
