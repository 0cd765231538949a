"""The venue page in a real browser: Debian's chromium, headless, driven by Selenium.

A Mosquitto on loopback, ``table venue`` and relays for real tables; two more
tables report by MQTT as their relays would (one with a camera fault, one whose
connection dropped). The page must show every table and the leaderboard, and
must update, without a reload, when a scripted game ends.

Screenshots of both views at 1920x1080 go to the test's directory, and also to
``$VENUE_SCREENS`` when set (``docs/screens/venue/`` is made that way).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from table.venue import contract
from table.venue.broker import LocalBroker, free_port, wait_port
from venue.helpers import finished_scenario, spawn, table_cmd, wait_for

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.usefixtures("mosquitto"),  # a skip only where it cannot be installed (conftest.py)
    pytest.mark.skipif(CHROMIUM is None or DRIVER is None,
                       reason="chromium or chromedriver is not installed (Debian: chromium, chromium-driver)"),
]
SCENARIOS = Path(__file__).resolve().parents[2] / "docs" / "scenarios"


def _driver() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1920,1080", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=str(DRIVER)), options=options)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False})
    return driver


def _publish_as(port: int, user: str, password: str, messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Publish as a table would (its own user, QoS 1, retained)."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-{user}")
    client.username_pw_set(user, password)
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        for topic, payload in messages:
            client.publish(topic, contract.encode(payload), qos=1, retain=True).wait_for_publish(5)
    finally:
        client.disconnect()
        client.loop_stop()


def _status(table: str, online: bool, game: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"v": 1, "type": "status", "table": table, "online": online, "sent": time.time(), **extra}
    if game is not None:
        out["game"] = game
    return out


def _shots(driver: Any, name: str, tmp: Path) -> None:
    targets = [tmp]
    if os.environ.get("VENUE_SCREENS"):
        targets.append(Path(os.environ["VENUE_SCREENS"]))
    for target in targets:
        target.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(target / f"{name}.png"))


@pytest.mark.slow
def test_page_shows_tables_and_leaderboard_and_updates_live(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    users = {"Bar-1": "a", "Bar-2": "b", "Garden": "c", "Window": "d", "venue": "v"}
    broker = LocalBroker(tmp_path / "broker", users)
    for user, password in users.items():
        (tmp_path / f"{user}.pw").write_text(password)
    procs: list[subprocess.Popen[bytes]] = []
    http_port = free_port()
    url = f"http://127.0.0.1:{http_port}"
    db = tmp_path / "venue.db"
    logs = tmp_path / "logs"
    logs.mkdir()
    driver = None
    try:
        # Earlier in the evening: finished games already in the tables' journals.
        ugah = SCENARIOS / "ugah-whole-game.toml"
        shimo = SCENARIOS / "shimo-full-game.toml"
        umtata = finished_scenario(tmp_path, "umtata", "umtata", 9, ["Fay", "Gus", "Hal"])
        ubongo = finished_scenario(tmp_path, "ubongo", "ubongo", 5, ["Dana", "Emil"])
        for table, scenario in (("Bar-1", ugah), ("Bar-1", shimo), ("Bar-2", umtata), ("Bar-2", ubongo)):
            subprocess.run([table_cmd()[0], "-m", "table.kiosk.headless", str(scenario), "--journal",
                            str(tmp_path / f"{table}.db"), "--allow-root"], check=True, capture_output=True)
        broker.start()
        procs.append(spawn(table_cmd("venue", "--db", str(db), "--port", str(broker.port), "--username", "venue",
                                     "--password-file", str(tmp_path / "venue.pw"), "--http-host", "127.0.0.1",
                                     "--http-port", str(http_port)), logs / "venue.log"))
        wait_port(http_port)
        for table in ("Bar-1", "Bar-2"):
            procs.append(spawn(table_cmd("relay", "--table", table, "--journal", str(tmp_path / f"{table}.db"),
                                         "--state-dir", str(tmp_path / f"relay-{table}"), "--port", str(broker.port),
                                         "--password-file", str(tmp_path / f"{table}.pw")), logs / f"{table}.log"))
        now = time.time()
        game = {"id": 3, "started": now - 400, "engine": "ubongo", "title": "Ubongo", "variant": "standard",
                "round": 4, "over": False, "paused": False, "seq": 30, "last_input": now - 5,
                "players": [{"station": 0, "name": "Ines", "score": 14}, {"station": 1, "name": "Jonas", "score": 17},
                            {"station": 2, "name": "Kim", "score": 9}, {"station": 3, "name": "Lea", "score": 11}]}
        _publish_as(broker.port, "Garden", "c", [("venue/v1/Garden/status", _status(
            "Garden", True, game, health={"camera": "fault", "leds": "ok", "stations": "ok"}))])
        old = {**game, "id": 7, "engine": "ugah_ugah", "title": "Ugah Ugah!", "round": 2, "last_input": now - 700,
               "players": [{"station": 0, "name": "Mo", "score": 6}, {"station": 1, "name": "Nele", "score": 8}]}
        _publish_as(broker.port, "Window", "d", [("venue/v1/Window/status", _status(
            "Window", False, old, reason="connection to the table lost"))])

        driver = _driver()
        driver.get(url + "/")
        wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#wall .card")) == 4, 30, "four table cards")
        wait_for(lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-results") == "4", 30,
                 "four results on the page")
        text = driver.find_element(By.ID, "wall").text
        for word in ("Bar-1", "Bar-2", "Garden", "Window", "OFFLINE", "Camera", "Jonas"):
            assert word in text, word
        time.sleep(0.5)
        _shots(driver, "wall", tmp_path)

        driver.get(url + "/leaderboard")
        wait_for(lambda: "Ugah Ugah!" in driver.find_element(By.ID, "board").text, 30, "the leaderboard")
        board = driver.find_element(By.ID, "board").text
        for word in ("Ubongo Shimo", "Wo ist bitte Umtata?", "Cleo", "Fay", "Most wins"):
            assert word in board, word
        before = board

        # A scripted game ends at the table: the open page updates by itself (server-sent events).
        t0 = time.monotonic()
        subprocess.run([table_cmd()[0], "-m", "table.kiosk.headless", str(ugah), "--journal",
                        str(tmp_path / "Bar-2.db"), "--allow-root"], check=True, capture_output=True)
        wait_for(lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-results") == "5", 10,
                 "the new result on the open page")
        took = time.monotonic() - t0
        after = driver.find_element(By.ID, "board").text
        assert after != before and "2 games tonight" in after
        assert took < 10
        time.sleep(0.5)
        _shots(driver, "leaderboard", tmp_path)
    finally:
        if driver is not None:
            driver.quit()
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        broker.kill()


@pytest.mark.slow
def test_the_page_says_what_was_dropped_set_aside_and_restarted(tmp_path: Path) -> None:
    """A poison message, a failure inside the MQTT loop and a stored result outside the bounds:
    the header of the open page says each of them, in words, while the good result shows."""
    import sqlite3
    import threading

    import paho.mqtt.client as mqtt
    from selenium.webdriver.common.by import By

    from table.venue.server import Venue, VenueConfig, make_http_server

    broker = LocalBroker(tmp_path / "broker", {"T1": "one", "venue": "v"})
    db = tmp_path / "venue.db"
    Venue(VenueConfig(db=db)).stop()  # the file with its tables
    now = time.time()
    # Stored before the bounds existed: a game that finished in the year 3000 (set aside on start).
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO results (tbl, game, started, finished, engine, title, variant, rounds, actions, "
                    "reason, players, received) VALUES ('T1', 5, ?, 32503680000.0, 'ubongo', 'Ubongo', 'standard', "
                    "9, 40, 'nine rounds played', '[]', ?)", (now - 900, now))
    con.close()
    http_port = free_port()
    url = f"http://127.0.0.1:{http_port}"
    venue: Venue | None = None
    httpd = None
    driver = None
    publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="T1", protocol=mqtt.MQTTv311)
    try:
        broker.start()
        venue = Venue(VenueConfig(db=db, port=broker.port, username="venue", password="v", http_host="127.0.0.1",
                                  http_port=http_port))
        httpd = make_http_server(venue)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        venue.start_mqtt()
        wait_for(lambda: venue is not None and venue.connected, 10, "the venue connected")
        real = venue.client.on_message
        failed: list[str] = []

        def explode(client: Any, userdata: Any, msg: Any) -> None:  # a failure inside paho's loop, once
            if not failed:
                failed.append(msg.topic)
                raise RuntimeError("a failure inside the MQTT loop")
            real(client, userdata, msg)

        venue.client.on_message = explode
        publisher.username_pw_set("T1", "one")
        publisher.connect("127.0.0.1", broker.port)
        publisher.loop_start()
        good = {"v": 1, "type": "result", "table": "T1", "game": 1, "started": now - 600, "finished": now - 300,
                "engine": "ubongo", "title": "Ubongo", "variant": "standard", "actions": 40, "rounds": 9,
                "reason": "nine rounds played",
                "players": [{"station": 0, "name": "Ada", "score": 31, "winner": False},
                            {"station": 1, "name": "Ben", "score": 35, "winner": True}]}
        for topic, payload in (("venue/v1/T1/status", b"[" * 60_000),
                               ("venue/v1/T1/results/1", contract.encode(good))):
            publisher.publish(topic, payload, qos=1).wait_for_publish(5)
        wait_for(lambda: venue is not None and venue.counts["restarts"] == 1 and venue.counts["invalid"] == 1
                 and venue.counts["results"] == 1, 20, "the restart, the dropped message and the good result")

        driver = _driver()
        driver.get(url + "/")
        header = lambda: driver.find_element(By.TAG_NAME, "header").text  # noqa: E731
        wait_for(lambda: "1 message dropped" in header(), 20, "the dropped message on the page")
        text = header()
        assert "1 link restart" in text and "1 set aside" in text, text
        assert "broker unreachable" not in text  # connected again
        assert "not JSON nested" in str(driver.find_element(By.ID, "dropped").get_attribute("title"))
        assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-results") == "1"
        assert "Ben" in driver.find_element(By.ID, "ticker").text
        _shots(driver, "wall-dropped-restarted-set-aside", tmp_path)
    finally:
        if driver is not None:
            driver.quit()
        publisher.loop_stop()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if venue is not None:
            venue.stop()
        broker.kill()


@pytest.mark.slow
def test_hostile_names_show_as_readable_names(tmp_path: Path) -> None:
    """Names no table would take (blank, zero-width, a right-to-left override, a control
    character), from a journal through the relay and from raw MQTT: the wall and the
    leaderboard show every result, each player by a readable name, the star on its player."""
    import random
    import threading

    from selenium.webdriver.common.by import By

    from table.common.names import name_problem
    from table.games import get_engine, lobby_games
    from table.games.base import Action, GameSetup
    from table.play.journal import Journal
    from table.play.session import Session
    from table.venue.relay import Relay, RelayConfig
    from table.venue.server import Venue, VenueConfig, make_http_server

    hostile = ["   ", "\u200b\u200b", "Ev\u202eil", "A\x07B"]
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"
    broker = LocalBroker(tmp_path / "broker", {"T1": "one", "T2": "two", "venue": "v"})
    # Table T1's journal: a finished game whose setup holds the hostile names.
    name = sorted(lobby_games())[0]
    engine = get_engine(name)
    n = min(engine.max_stations, 4)
    setup = GameSetup(game=name, variant=engine.variants[0], stations=tuple(range(n)), names=tuple(hostile[:n]))
    journal = Journal(tmp_path / "T1.db")
    seed = random.Random(4).randrange(1 << 30)
    session = Session.start(name, setup, seed)
    gid = journal.start_game(setup, seed)
    session.apply(Action("end", 1.0), lambda a: journal.append(gid, 0, a))
    journal.finish(gid, session.outcome())
    journal.close()
    http_port = free_port()
    url = f"http://127.0.0.1:{http_port}"
    venue: Venue | None = None
    httpd = None
    driver = None
    stop = threading.Event()
    try:
        broker.start()
        venue = Venue(VenueConfig(db=tmp_path / "venue.db", port=broker.port, username="venue", password="v",
                                  http_host="127.0.0.1", http_port=http_port))
        httpd = make_http_server(venue)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        venue.start_mqtt()
        relay = Relay(RelayConfig(table="T1", journal=tmp_path / "T1.db", state_dir=tmp_path / "relay",
                                  port=broker.port, username="T1", password="one"))
        threading.Thread(target=relay.run, args=(stop,), daemon=True).start()
        # Table T2 sends the hostile names itself, as a table with a changed relay could.
        now = time.time()
        players = [{"station": i, "name": v, "score": 20 + i, "winner": i == 2} for i, v in enumerate(hostile)]
        players.append({"station": 4, "name": family, "score": 5, "winner": False})
        result = {"v": 1, "type": "result", "table": "T2", "game": 1, "started": now - 600, "finished": now - 300,
                  "engine": "ubongo", "title": "Ubongo", "variant": "standard", "actions": 40, "rounds": 9,
                  "reason": "nine rounds played", "players": players}
        game = {"id": 2, "started": now - 200, "engine": "ubongo", "title": "Ubongo", "variant": "standard",
                "round": 3, "over": False, "paused": False, "seq": 12, "last_input": now - 5,
                "players": [{k: v for k, v in p.items() if k != "winner"} for p in players]}
        _publish_as(broker.port, "T2", "two", [("venue/v1/T2/results/1", result),
                                              ("venue/v1/T2/status", _status("T2", True, game, results=[1, 5]))])

        driver = _driver()
        driver.get(url + "/")
        wait_for(lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-results") == "2", 30,
                 "both results on the page")
        wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#wall .card")) == 2, 30, "two table cards")
        # The page fills its cards as states arrive: wait for both tables' players.
        wait_for(lambda: all(n in driver.find_element(By.TAG_NAME, "body").text for n in ("Station 1", "Station 3")),
                 30, "both tables' players on the wall")
        wall = driver.find_element(By.TAG_NAME, "body").text
        # T2's status says the broker acknowledged game 5's result, which no one sent: missing, and said.
        wait_for(lambda: "1 result missing" in driver.find_element(By.TAG_NAME, "header").text, 30,
                 "the missing result in the header")
        assert "T2 game 5" in str(driver.find_element(By.ID, "missing").get_attribute("title"))
        _shots(driver, "wall-hostile-names", tmp_path)
        driver.get(url + "/leaderboard")
        wait_for(lambda: "Station 3" in driver.find_element(By.ID, "board").text
                 and driver.find_elements(By.CSS_SELECTOR, "#board .who.win"), 30, "the leaderboard and its star")
        board = driver.find_element(By.ID, "board").text
        _shots(driver, "leaderboard-hostile-names", tmp_path)
        for text in (wall, board):
            for bad in ("\u202e", "\u200b", "\x07", "liv"):  # "liv": "Evil" reversed by the override
                assert bad not in text, (bad, text)
        assert "Station 1" in wall and "Station 3" in wall and "Station 3" in board
        # The star stays on the player who won: station 3 at T2, whose name was the override.
        star = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#board .who.win")]
        assert star and all(name_problem(s.strip("★ ").strip()) is None for s in star), star
        names = [p["name"] for r in venue.state()["recent"] for p in r["players"]]
        assert all(name_problem(v) is None for v in names) and family in names, names
    finally:
        stop.set()
        if driver is not None:
            driver.quit()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if venue is not None:
            venue.stop()
        broker.kill()
