"""Three tables, their relays, a real Mosquitto and ``table venue``, with things going wrong.

The test starts Mosquitto (Debian's package) on 127.0.0.1 with per-table users and
the ACL, three scripted headless tables (each plays two games of different kinds in
scaled real time), a relay per table (the third through a proxy that the test cuts
like a Wi-Fi drop) and ``table venue``. Mid-game it kills the broker (SIGKILL) and
starts it again, SIGKILLs one relay and restarts it later, and cuts the third table
off for a while. At the end the venue's results must equal the journals' games as
``table replay`` reports them: every finished game once, nothing else.
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from table.venue.broker import LocalBroker, free_port, wait_port
from venue.helpers import (
    CutProxy,
    finished_scenario,
    get_json,
    last_input_time,
    replay_report,
    spawn,
    table_cmd,
    wait_for,
)

pytestmark = pytest.mark.usefixtures("mosquitto")  # a skip only where it cannot be installed (conftest.py)

SCENARIOS = Path(__file__).resolve().parents[2] / "docs" / "scenarios"
GAME_SECONDS = 7.0  # wall-clock length of each scripted game


def _games(tmp: Path) -> dict[str, list[Path]]:
    from table.play.scenario import load_scenario

    ugah = tmp / "ugah.toml"
    shimo = tmp / "shimo.toml"
    # The shipped whole games (copied, so the test never writes next to them).
    shutil.copy(SCENARIOS / "ugah-whole-game.toml", ugah)
    shutil.copy(SCENARIOS / "shimo-full-game.toml", shimo)
    assert load_scenario(ugah).setup.game == "ugah_ugah"
    ubongo = finished_scenario(tmp, "ubongo", "ubongo", 5, ["Dana", "Emil"])
    umtata = finished_scenario(tmp, "umtata", "umtata", 9, ["Fay", "Gus", "Hal"])
    return {"T1": [ugah, umtata], "T2": [shimo, ubongo], "T3": [umtata, ugah]}


def _play_table(journal: Path, scenarios: list[Path], log: Path) -> list[subprocess.Popen[bytes]]:
    """Start the table's first game; the caller starts the second when the first ends."""
    return [spawn([*_headless(s, journal)], log) for s in scenarios[:1]]


def _headless(scenario: Path, journal: Path) -> list[str]:
    speed = max(1.0, last_input_time(scenario) / GAME_SECONDS)
    return [table_cmd()[0], "-m", "table.kiosk.headless", str(scenario), "--journal", str(journal),
            "--speed", f"{speed:.2f}", "--allow-root"]


def _journal_games(journal: Path) -> list[tuple[int, float]]:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return [(int(i), float(s)) for i, s in db.execute(
            "SELECT id, started FROM games WHERE finished IS NOT NULL ORDER BY id")]
    finally:
        db.close()


def _venue_results(db: Path) -> list[dict[str, Any]]:
    from table.venue.store import VenueStore

    store = VenueStore(db)
    try:
        return store.results()
    finally:
        store.close()


def _table_state(url: str, table: str) -> dict[str, Any] | None:
    for t in get_json(url + "/api/state")["tables"]:
        if t["table"] == table:
            return dict(t)
    return None


@pytest.mark.slow
def test_venue_results_equal_the_journals_through_failures(tmp_path: Path) -> None:
    users = {"T1": "pw-one", "T2": "pw-two", "T3": "pw-three", "venue": "pw-venue"}
    broker = LocalBroker(tmp_path / "broker", users)
    for user, password in users.items():
        (tmp_path / f"{user}.pw").write_text(password)
    games = _games(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    procs: list[subprocess.Popen[bytes]] = []
    proxy: CutProxy | None = None
    http_port = free_port()
    url = f"http://127.0.0.1:{http_port}"

    def relay(table: str, port: int) -> subprocess.Popen[bytes]:
        p = spawn(table_cmd("-v", "relay", "--table", table, "--journal", str(tmp_path / f"{table}.db"),
                            "--state-dir", str(tmp_path / f"relay-{table}"), "--broker", "127.0.0.1",
                            "--port", str(port), "--password-file", str(tmp_path / f"{table}.pw")),
                  logs / f"relay-{table}.log")
        procs.append(p)
        return p

    try:
        broker.start()
        proxy = CutProxy(broker.port)
        venue = spawn(table_cmd("-v", "venue", "--db", str(tmp_path / "venue.db"), "--port", str(broker.port),
                                "--username", "venue", "--password-file", str(tmp_path / "venue.pw"),
                                "--http-host", "127.0.0.1", "--http-port", str(http_port)), logs / "venue.log")
        procs.append(venue)
        wait_port(http_port)
        relays = {"T1": relay("T1", broker.port), "T2": relay("T2", broker.port), "T3": relay("T3", proxy.port)}
        tables: dict[str, subprocess.Popen[bytes]] = {}
        second_started: set[str] = set()
        for table, scenarios in games.items():
            tables[table] = spawn(_headless(scenarios[0], tmp_path / f"{table}.db"), logs / f"table-{table}.log")
            procs.append(tables[table])
        wait_for(lambda: len(get_json(url + "/api/state")["tables"]) == 3, 20, "three tables on the venue page")

        def keep_tables_playing() -> bool:
            """Start each table's second game when its first ends; True when all are done."""
            done = True
            for table, proc in tables.items():
                if proc.poll() is None:
                    done = False
                    continue
                assert proc.returncode == 0, (logs / f"table-{table}.log").read_text()[-2000:]
                if table not in second_started:
                    second_started.add(table)
                    tables[table] = spawn(_headless(games[table][1], tmp_path / f"{table}.db"),
                                          logs / f"table-{table}.log")
                    procs.append(tables[table])
                    done = False
            return done

        def sleep_playing(seconds: float) -> None:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                keep_tables_playing()
                time.sleep(0.1)

        # 1. The broker dies mid-game (SIGKILL: no goodbye, no final save) and comes back.
        sleep_playing(2.5)
        broker.kill(signal.SIGKILL)
        sleep_playing(2.0)
        broker.start()
        # 2. A relay crashes; the table plays on; the relay is started again later.
        sleep_playing(1.5)
        relays["T2"].kill()
        relays["T2"].wait(10)
        wait_for(lambda: (_table_state(url, "T2") or {}).get("online") is False, 10,
                 "the last will marking T2 offline")
        sleep_playing(3.0)
        relays["T2"] = relay("T2", broker.port)
        # 3. The third table loses its network for a while (connections dropped, none accepted).
        sleep_playing(1.0)
        proxy.cut()
        wait_for(lambda: (_table_state(url, "T3") or {}).get("online") is False, 10, "T3 shown offline")
        sleep_playing(4.0)
        proxy.restore()
        # Let every table finish both of its games.
        wait_for(keep_tables_playing, 120, "the tables to finish their games", step=0.2)

        expected = {
            (table, game, started)
            for table in games
            for game, started in _journal_games(tmp_path / f"{table}.db")
        }
        assert len(expected) == 6, expected
        wait_for(lambda: len(_venue_results(tmp_path / "venue.db")) >= 6, 60, "six results at the venue")
        time.sleep(1.5)  # anything sent twice would arrive now
        results = _venue_results(tmp_path / "venue.db")
        got = [(r["table"], r["game"], r["started"]) for r in results]
        assert sorted(got) == sorted(expected), "the venue's results are not the journals' games"
        assert len(got) == len(set(got))
        for r in results:
            report = replay_report(tmp_path / f"{r['table']}.db", r["game"])
            assert report["over"] is True
            assert r["engine"] == report["game"]
            assert r["rounds"] == report["rounds"]
            assert r["actions"] == report["actions"]
            assert r["reason"] == report["reason"]
            assert {str(p["station"]): p["score"] for p in r["players"]} == report["scores"]
            assert sorted(p["station"] for p in r["players"] if p["winner"]) == sorted(report["winners"])
        names = {p["name"] for r in results for p in r["players"]}
        assert {"Ada", "Ben", "Cleo", "Dana", "Fay"} <= names

        state = get_json(url + "/api/state")
        assert state["results"] == 6
        assert all(t["online"] for t in state["tables"])
        assert state["counts"].get("invalid", 0) == 0
        # The page is read-only.
        import urllib.error
        import urllib.request

        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(url + "/api/state", data=b"{}", method="POST"), timeout=5)
        assert refused.value.code == 405
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        if proxy is not None:
            proxy.close()
        broker.kill()
