"""A result is one per (table, journal, game), and every name the page shows is readable.

No broker: :meth:`Venue.handle` takes the messages as the MQTT thread would, and the
journal is a real one read by the relay's follower.
"""

from __future__ import annotations

import json
import logging
import random
import time
from pathlib import Path
from typing import Any

import pytest

from table.common.names import name_problem
from table.games import get_engine, lobby_games
from table.games.base import Action, GameSetup
from table.play.journal import Journal
from table.play.session import Session
from table.venue.follow import JournalFollower
from table.venue.server import Venue, VenueConfig
from table.venue.store import VenueStore

FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"
HOSTILE = ["   ", "\u200b\u200b", "Ev\u202eil", "A\x07B"]


def _result(game: int = 1, started: float | None = None, length: float = 300.0, **extra: Any) -> dict[str, Any]:
    started = time.time() - 600 if started is None else started
    return {"v": 1, "type": "result", "table": "T1", "game": game, "started": started, "finished": started + length,
            "engine": "ubongo", "title": "Ubongo", "variant": "standard", "actions": 40, "rounds": 9,
            "reason": "nine rounds played",
            "players": [{"station": 0, "name": "Ada", "score": 31, "winner": False},
                        {"station": 1, "name": "Ben", "score": 35, "winner": True}], **extra}


def _raw(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode("utf-8")


@pytest.fixture
def venue() -> Any:
    v = Venue(VenueConfig(db=Path(":memory:")))
    yield v
    v.stop()


def _restamped(r: dict[str, Any], by: float = 0.001) -> dict[str, Any]:
    return {**r, "started": r["started"] + by, "finished": r["finished"] + by}


def test_a_game_re_stamped_a_millisecond_later_is_one_result(venue: Venue, caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="table.venue.server")
    now = time.time()
    instant = _result(started=now - 60, length=0.0)  # a game closed at once: its play has no length
    journaled = _result(game=2, started=now - 500, journal=now - 900.0)
    for payload in (instant, _restamped(instant), _restamped(instant, 0.002), instant,
                    journaled, _restamped(journaled, 400.0), journaled):
        venue.handle(f"venue/v1/T1/results/{payload['game']}", _raw(payload))
    assert venue.counts["results"] == 2
    assert venue.counts["duplicates"] == 5 and venue.counts["restamped"] == 3
    assert venue.counts["invalid"] == 0
    assert venue.state()["results"] == 2
    said = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert len(said) == 2 and any("other times" in s for s in said), said  # one line per kind


def test_a_journal_started_afresh_numbers_its_games_again(venue: Venue) -> None:
    now = time.time()
    old = _result(started=now - 900, length=0.0, journal=now - 900)
    fresh = _result(started=now - 900.5, length=0.0, journal=now - 100)  # another journal: another game 1
    older_relay = _result(started=now - 300, length=0.0)  # no journal named; its play is apart from both
    for payload in (old, fresh, older_relay, _restamped(older_relay)):
        venue.handle("venue/v1/T1/results/1", _raw(payload))
    assert venue.counts["results"] == 3 and venue.counts["duplicates"] == 1


def test_stored_re_stamped_copies_are_set_aside_on_start(tmp_path: Path) -> None:
    db = tmp_path / "venue.db"
    store = VenueStore(db)
    now = time.time()
    r = _result(started=now - 60, length=0.0, journal=now - 600)
    assert store.add_result(r) and not store.add_result(_restamped(r))
    # A re-stamped copy written by something else, past the check:
    store._db.execute("UPDATE results SET game = 2")
    assert store.add_result(_restamped(r))
    store._db.execute("UPDATE results SET game = 1")
    store.close()
    venue = Venue(VenueConfig(db=db))
    try:
        assert venue.counts["set_aside"] == 1 and venue.state()["results"] == 1
    finally:
        venue.stop()


def test_hostile_names_over_mqtt_show_as_the_station(venue: Venue, caplog: Any) -> None:
    now = time.time()
    players = [{"station": i, "name": n, "score": 10 + i, "winner": i == 2} for i, n in enumerate(HOSTILE)]
    players.append({"station": 4, "name": FAMILY, "score": 1, "winner": False})
    venue.handle("venue/v1/T1/results/1", _raw({**_result(), "players": players}))
    game = {"id": 2, "started": now - 60, "engine": "ubongo", "title": "Ubongo", "variant": "standard", "round": 1,
            "over": False, "paused": False, "seq": 3, "last_input": now - 5,
            "players": [{k: v for k, v in p.items() if k != "winner"} for p in players]}
    venue.handle("venue/v1/T1/status", _raw({"v": 1, "type": "status", "table": "T1", "online": True, "sent": now,
                                             "game": game}))
    assert venue.counts["invalid"] == 0 and venue.counts["renamed"] == 2
    state = venue.state()
    shown = [e["name"] for b in state["leaderboard"] for e in b["top"]]
    shown += [p["name"] for r in state["recent"] for p in r["players"]]
    shown += [p["name"] for t in state["tables"] for p in t["game"]["players"]]
    assert all(name_problem(n) is None for n in shown), shown
    assert {"Station 1", "Station 2", "Station 3", "Station 4", FAMILY} <= set(shown)
    assert [b["wins"][0]["name"] for b in state["leaderboard"]] == ["Station 3"]  # the star stays on its player
    assert sum("refuse" in r.getMessage() for r in caplog.records) == 1  # said once per table


def test_hostile_names_in_a_journal_leave_the_relay_as_the_station(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    journal = Journal(path)
    name = sorted(lobby_games())[0]
    engine = get_engine(name)
    n = min(engine.max_stations, len(HOSTILE) + 1)
    names = [*HOSTILE, FAMILY][:n]
    setup = GameSetup(game=name, variant=engine.variants[0], stations=tuple(range(n)), names=tuple(names))
    seed = random.Random(2).randrange(1 << 30)
    session = Session.start(name, setup, seed)
    gid = journal.start_game(setup, seed)
    session.apply(Action("end", 1.0), lambda a: journal.append(gid, 0, a))
    journal.finish(gid, session.outcome())
    journal.close()
    follower = JournalFollower(path, "T1")
    try:
        players = follower.result_message(gid).payload["players"]
        live = follower.live_game()
    finally:
        follower.close()
    assert live is not None
    for shown in (players, live["players"]):
        got = [p["name"] for p in shown]
        assert all(name_problem(g) is None for g in got), got
        assert got == [names[i] if name_problem(names[i]) is None else f"Station {i + 1}" for i in range(n)]


class _Subscriber:
    """paho's subscribe and unsubscribe as the venue uses them, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def subscribe(self, topic: str, qos: int = 0) -> None:
        self.calls.append(("subscribe", topic))

    def unsubscribe(self, topic: str) -> None:
        self.calls.append(("unsubscribe", topic))

    def disconnect(self) -> None:
        self.calls.append(("disconnect", ""))


def test_the_venue_asks_the_broker_for_a_result_a_status_says_it_lacks(venue: Venue, caplog: Any) -> None:
    client = _Subscriber()
    venue.client = client
    now = time.time()
    journal = now - 900
    venue.handle("venue/v1/T1/results/2", _raw(_result(game=2, journal=journal)))
    status = {"v": 1, "type": "status", "table": "T1", "online": True, "sent": now, "results": [1, 2],
              "journal": journal}
    venue.handle("venue/v1/T1/status", _raw(status))
    venue.handle("venue/v1/T1/status", _raw({**status, "sent": now + 1}))  # asked once, not per status
    assert client.calls == [("subscribe", "venue/v1/T1/results/1")]
    state = venue.state()
    assert state["missing"] == ["T1 game 1"] and state["missing_count"] == 1
    assert sum("does not hold" in r.getMessage() for r in caplog.records) == 1
    venue.handle("venue/v1/T1/results/1", _raw(_result(game=1, started=now - 1200, journal=journal)))
    assert client.calls[-1] == ("unsubscribe", "venue/v1/T1/results/1")
    assert venue.state()["missing_count"] == 0
    # Another journal's game 1 is not the one the file holds.
    venue.handle("venue/v1/T1/status", _raw({**status, "sent": now + 2, "results": [1], "journal": now - 50}))
    assert venue.state()["missing"] == ["T1 game 1"]
