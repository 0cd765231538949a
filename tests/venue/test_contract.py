"""The venue's contract and its parts without a broker: follower, outbox, venue state."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from table.cli import main
from table.play.journal import Journal
from table.play.scenario import load_scenario, run_scenario
from table.venue import contract
from table.venue.follow import JournalFollower, Position, read_health
from table.venue.server import Venue, VenueConfig, leaderboard
from venue.helpers import drain, publish_into_a_list

SCENARIOS = Path(__file__).resolve().parents[2] / "docs" / "scenarios"


def _journal(tmp: Path, *names: str) -> Path:
    path = tmp / "journal.db"
    with Journal(path) as journal:
        for name in names:
            run_scenario(load_scenario(SCENARIOS / name), journal)
    return path


def _all(follower: JournalFollower, start: Position | None = None) -> list[Any]:
    out = []
    pos = start or Position(1, 0)
    while True:
        msgs, pos = follower.messages_after(pos, 37)
        if not msgs:
            return out
        out += msgs


def test_every_message_of_a_journal_follows_the_schema(tmp_path: Path) -> None:
    path = _journal(tmp_path, "ugah-whole-game.toml", "shimo-basic.toml")
    follower = JournalFollower(path, "T-1")
    msgs = _all(follower)
    for m in msgs:
        contract.validate(m.payload)
        assert contract.decode(contract.encode(m.payload), m.topic) == m.payload
    events = [m for m in msgs if m.payload["type"] == "event"]
    results = [m for m in msgs if m.payload["type"] == "result"]
    # Game 1 is finished: all its actions then its result; game 2 is still going: actions only.
    assert [m.payload["seq"] for m in events if m.payload["game"] == 1] == list(range(105))
    assert len(results) == 1 and results[0].retain and results[0].topic == "venue/v1/T-1/results/1"
    result = results[0].payload
    assert {p["name"]: p["score"] for p in result["players"]} == {"Ada": 11, "Ben": 19, "Cleo": 21}
    assert [p["name"] for p in result["players"] if p["winner"]] == ["Cleo"]
    assert events[-1].payload["game"] == 2
    live = follower.live_game()
    assert live is not None and live["id"] == 2 and not live["over"]
    contract.validate({"v": 1, "type": "status", "table": "T-1", "online": True, "sent": time.time(),
                       "game": live, "health": read_health(tmp_path / "none.json")})


def test_messages_are_the_same_however_often_they_are_derived(tmp_path: Path) -> None:
    """A restarted relay resends a position: the payload must be identical (a true duplicate)."""
    path = _journal(tmp_path, "ugah-whole-game.toml")
    first = _all(JournalFollower(path, "T1"))
    again = _all(JournalFollower(path, "T1"), Position(1, 50))
    assert [m.payload for m in first[50:]] == [m.payload for m in again]


def test_the_schema_refuses_what_does_not_belong(tmp_path: Path) -> None:
    good = {"v": 1, "type": "status", "table": "T1", "online": False, "sent": 1.0}
    contract.validate(good)
    for bad in ({**good, "v": 2}, {**good, "table": "a/b"}, {**good, "extra": 1}, {**good, "online": "yes"}):
        with pytest.raises(contract.ContractError):
            contract.validate(bad)
    with pytest.raises(contract.ContractError, match="arrived on"):
        contract.decode(contract.encode(good), "venue/v1/T2/status")
    with pytest.raises(contract.ContractError, match="not JSON"):
        contract.decode(b"\xff", "venue/v1/T1/status")
    with pytest.raises(contract.ContractError, match="larger"):
        contract.decode(b" " * (contract.MAX_PAYLOAD + 1), "venue/v1/T1/status")
    with pytest.raises(contract.ContractError):
        contract.check_table_id("table one")


def test_venue_keeps_each_result_once_and_counts_junk(tmp_path: Path) -> None:
    path = _journal(tmp_path, "ugah-whole-game.toml", "shimo-full-game.toml")
    msgs = _all(JournalFollower(path, "T1"))
    venue = Venue(VenueConfig(db=tmp_path / "venue.db"))
    try:
        for m in msgs + msgs[-40:]:  # the tail twice, as after a reconnect
            venue.handle(m.topic, contract.encode(m.payload))
        venue.handle("venue/v1/T1/status", b"{not json")
        venue.handle("venue/v1/T2/results/1", contract.encode(msgs[-1].payload))  # wrong table
        assert venue.counts["results"] == 2
        assert venue.counts["duplicates"] >= 40
        assert venue.counts["invalid"] == 2
        state = venue.state()
        assert state["results"] == 2
        assert {b["engine"] for b in state["leaderboard"]} == {"ugah_ugah", "ubongo_shimo"}
        json.loads(venue.snapshot())
    finally:
        venue.stop()


def test_offline_status_keeps_the_last_game(tmp_path: Path) -> None:
    venue = Venue(VenueConfig(db=tmp_path / "venue.db"))
    now = time.time()  # an online status must lie within the venue's window of its clock
    try:
        game = {"id": 1, "started": now - 99, "engine": "ubongo", "title": "Ubongo", "variant": "standard",
                "round": 2, "over": False, "paused": False, "seq": 4,
                "players": [{"station": 0, "name": "Ada", "score": 3}], "last_input": now - 98}
        online = {"v": 1, "type": "status", "table": "T1", "online": True, "sent": now, "game": game,
                  "health": {"camera": "fault", "leds": "ok", "stations": "ok"}}
        will = {"v": 1, "type": "status", "table": "T1", "online": False, "sent": now - 50,
                "reason": "connection to the table lost"}
        venue.handle("venue/v1/T1/status", contract.encode(online))
        venue.handle("venue/v1/T1/status", contract.encode(will))  # the will carries its connect time
        (table,) = venue.state()["tables"]
        assert table["online"] is False and table["game"]["round"] == 2 and table["health"]["camera"] == "fault"
    finally:
        venue.stop()


def test_leaderboard_ranks_scores_per_game() -> None:
    def result(table: str, scores: dict[str, int], winner: str, t: float) -> dict[str, Any]:
        return {"table": table, "engine": "ubongo", "title": "Ubongo", "finished": t, "game": 1,
                "players": [{"name": n, "score": s, "winner": n == winner, "station": i}
                            for i, (n, s) in enumerate(scores.items())]}

    board = leaderboard([result("T1", {"Ada": 10, "Ben": 4}, "Ada", 1.0),
                         result("T2", {"Cy": 12, "Ada": 3}, "Cy", 2.0)])
    (ubongo,) = board
    assert [(e["name"], e["score"]) for e in ubongo["top"]] == [("Cy", 12), ("Ada", 10), ("Ben", 4), ("Ada", 3)]
    # A player is a name at a table: Ada of T1 won her only game, Ada of T2 none.
    assert ubongo["wins"] == [{"name": "Ada", "table": "T1", "wins": 1, "games": 1},
                              {"name": "Cy", "table": "T2", "wins": 1, "games": 1}]
    # Equal wins: the better rate first (Cy won one of two games at T2, Ada both of hers at T1).
    board = leaderboard([result("T1", {"Ada": 10, "Ben": 4}, "Ada", 1.0),
                         result("T2", {"Cy": 12, "Dee": 3}, "Cy", 2.0),
                         result("T2", {"Cy": 1, "Dee": 3}, "Dee", 3.0),
                         result("T1", {"Ada": 9, "Ben": 4}, "Ada", 4.0)])
    assert [(w["name"], w["wins"], w["games"]) for w in board[0]["wins"]] == [("Ada", 2, 2), ("Cy", 1, 2),
                                                                            ("Dee", 1, 2)]


def test_a_game_ended_early_counts_as_played_and_never_as_won() -> None:
    def result(scores: dict[str, int], winner: str, t: float, **extra: str) -> dict[str, Any]:
        return {"table": "T1", "engine": "ubongo", "title": "Ubongo", "finished": t, "game": int(t),
                "players": [{"name": n, "score": s, "winner": n == winner, "station": i}
                            for i, (n, s) in enumerate(scores.items())], **extra}

    (board,) = leaderboard([result({"Ada": 10, "Ben": 4}, "Ada", 1.0),
                            result({"Ada": 2, "Ben": 7}, "Ben", 2.0, ended="early"),
                            result({"Ada": 1, "Ben": 3}, "Ben", 3.0, ended="early")])
    assert board["games"] == 3
    assert board["wins"] == [{"name": "Ada", "table": "T1", "wins": 1, "games": 3}]
    assert not any(e["winner"] for e in board["top"] if e["game"] > 1)


def test_outbox_moves_only_over_acknowledged_runs(tmp_path: Path) -> None:
    """PUBACKs out of order must not let the remembered position skip a message."""
    from table.venue.relay import Relay, RelayConfig

    relay = Relay(RelayConfig(table="T1", journal=tmp_path / "j.db", state_dir=tmp_path / "state"))
    try:
        for mid, step in ((1, 1), (2, 2), (3, 3)):
            relay._inflight[mid] = (Position(1, step), False)
        relay._acked = Position(1, 0)
        relay._on_publish(None, None, 2, None, None)
        assert relay._acked == Position(1, 0)
        relay._on_publish(None, None, 1, None, None)
        assert relay._acked == Position(1, 2)
        relay._on_publish(None, None, 3, None, None)
        assert relay._acked == Position(1, 3)
        relay._save()
        assert relay.outbox.load() == (Position(1, 3), "")
        status = json.loads((tmp_path / "state" / "relay-status.json").read_text())
        assert status["acked"] == [1, 3] and status["connected"] is False
    finally:
        relay.outbox.close()


def test_import_adds_a_journals_results_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _journal(tmp_path, "ugah-whole-game.toml", "shimo-full-game.toml")
    db = tmp_path / "venue.db"
    assert main(["venue", "--db", str(db), "--import", f"T1={path}"]) == 0
    assert main(["venue", "--db", str(db), "--import", f"T1={path}"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"T1: 2 new result(s) of 2 finished game(s) from {path}",
                   f"T1: 0 new result(s) of 2 finished game(s) from {path}"]


@pytest.mark.parametrize("argv, words", [
    (["venue", "--import", "T1"], "TABLE=JOURNAL"),
    (["venue", "--import", "T1=/nonexistent/journal.db"], "no journal file"),
    (["relay", "--journal", "x.db"], "needs the table's id"),
    (["relay", "--table", "T1", "--password-file", "/nonexistent/pw"], "cannot read the password file"),
    (["relay", "--config", "/nonexistent/relay.toml"], "there is no settings file at /nonexistent/relay.toml"),
])
def test_bad_input_is_one_sentence(argv: list[str], words: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_settings_file_refuses_unknown_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "relay.toml"
    cfg.write_text('[relay]\ntable = "T1"\nbrokr = "10.0.0.2"\n')
    assert main(["relay", "--config", str(cfg), "--unit-dropin"]) == 2
    assert "no setting 'brokr'" in capsys.readouterr().err


def test_selftest_reports_whether_the_relay_reaches_the_broker(tmp_path: Path) -> None:
    from table.kiosk.selftest import relay_check

    assert relay_check(tmp_path).status == "skip"
    status = tmp_path / "relay-status.json"
    base = {"table": "T1", "broker": "192.168.40.2:1883", "in_flight": 0}
    status.write_text(json.dumps({**base, "connected": True, "written": time.time()}))
    assert relay_check(tmp_path).status == "pass"
    status.write_text(json.dumps({**base, "connected": False, "error": "the broker refused the connection "
                                  "(Not authorized)", "written": time.time()}))
    result = relay_check(tmp_path)
    assert result.status == "fail" and "Not authorized" in result.detail
    status.write_text(json.dumps({**base, "connected": True, "written": time.time() - 600}))
    result = relay_check(tmp_path)
    assert result.status == "fail" and "not running" in result.detail


def test_relay_follows_a_journal_that_was_set_aside_and_started_afresh(tmp_path: Path) -> None:
    """The table renames a damaged journal and starts a new one whose games count from 1 again."""
    import os

    from table.venue.relay import Relay, RelayConfig

    journal = _journal(tmp_path, "ugah-whole-game.toml")
    relay = Relay(RelayConfig(table="T1", journal=journal, state_dir=tmp_path / "state"))
    sent = publish_into_a_list(relay)
    try:
        drain(relay, sent)
        first = [m.payload for m in sent if m.payload["type"] == "result"]
        assert len(first) == 1
        for suffix in ("", "-wal", "-shm"):
            if Path(str(journal) + suffix).exists():
                os.replace(str(journal) + suffix, str(journal) + ".damaged" + suffix)
        time.sleep(0.01)
        with Journal(journal) as fresh:
            run_scenario(load_scenario(SCENARIOS / "shimo-full-game.toml"), fresh)
        drain(relay, sent)
        results = [m.payload for m in sent if m.payload["type"] == "result"]
        assert [(r["game"], r["engine"]) for r in results] == [(1, "ugah_ugah"), (1, "ubongo_shimo")]
        assert results[0]["started"] != results[1]["started"]
        new_events = [m.payload["seq"] for m in sent if m.payload["type"] == "event"
                      and m.payload["engine"] == "ubongo_shimo"]
        assert new_events == list(range(len(new_events))) and new_events
    finally:
        relay.outbox.close()
        relay.follower.close()

