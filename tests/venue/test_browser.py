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


# -- An evening: 12 tables and 30 games on one wall ---------------------------------------------------
# Every card, leaderboard column, row and result in the bar lies inside the screen, inside its own box,
# and clear of every other; a table's name keeps to one line. Returns what it found, and what is wrong.
_LAYOUT_JS = """
const W = innerWidth, H = innerHeight, bad = [];
const box = e => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
const inside = (a, o) => a.l >= o.l - 1 && a.t >= o.t - 1 && a.r <= o.r + 1 && a.b <= o.b + 1;
const cross = (a, o) => Math.min(a.r, o.r) - Math.max(a.l, o.l) > 1 && Math.min(a.b, o.b) - Math.max(a.t, o.t) > 1;
const say = (what, e) => what + ": " + (e.textContent || "").trim().slice(0, 60);
const screen = {l: 0, t: 0, r: W, b: H};
const bars = [document.querySelector("header"), document.getElementById("ticker")];
const blocks = Array.from(document.querySelectorAll("#wall .card, #board .bcol")).filter(shown);
const all = bars.concat(blocks);
all.forEach((e, i) => {
  if (!inside(box(e), screen)) bad.push(say("off the screen", e));
  all.slice(i + 1).forEach(o => { if (cross(box(e), box(o))) bad.push(say("overlaps", e) + " / " + say("", o)); });
});
const lines = [];
for (const b of blocks) {
  const sel = ".top, .gameline, .why, .players > span, .foot, h2, .meta, tr, h3, .wins";
  const parts = Array.from(b.querySelectorAll(sel));
  parts.filter(shown).forEach((p, i, ps) => {
    if (!inside(box(p), box(b))) bad.push(say("cut off", p));
    ps.slice(i + 1).forEach(q => { if (!p.contains(q) && !q.contains(p) && cross(box(p), box(q)))
      bad.push(say("overlaps", p) + " / " + say("", q)); });
  });
}
const tk = document.getElementById("ticker");
const results = Array.from(tk.children).filter(shown);
results.forEach((s, i) => {
  if (!inside(box(s), box(tk)) || !inside(box(s), screen)) bad.push(say("result cut off", s));
  results.slice(i + 1).forEach(o => { if (cross(box(s), box(o))) bad.push(say("overlaps", s)); });
});
const names = Array.from(document.querySelectorAll("#wall .card .name"));
for (const n of names) {
  const line = parseFloat(getComputedStyle(n).fontSize) * 1.6;
  if (n.getBoundingClientRect().height > line) bad.push(say("name wraps", n));
  if (n.title !== n.textContent) bad.push(say("no whole name on hover", n));
}
const rows = Array.from(document.querySelectorAll("#board .bcol")).filter(shown).flatMap(c =>
  Array.from(c.querySelectorAll("tr")).filter(shown).map((r, i) => c.querySelector("h2").textContent + "#" + i));
const size = sel => Math.min(...Array.from(document.querySelectorAll(sel)).filter(shown)
  .map(e => parseFloat(getComputedStyle(e).fontSize)));
return {bad: bad, rows: rows, cards: blocks.length, results: results.length - 1, names: names.length,
        cut: names.filter(n => n.scrollWidth > n.clientWidth).length,
        name_px: size("#wall .card .name"), player_px: size("#wall .players > span"), row_px: size("#board td.who"),
        page: document.getElementById("board").dataset.page};
"""
EVENING_TABLES = ["Bar-1", "Bar-2", "Bar-3", "Garden-Window-Long-Corner-Table", "Terrace", "Library",
                  "Courtyard_by_the_fountain_East", "Loft", "Cellar", "Stage-Left", "Stage-Right", "Porch"]
EVENING_GAMES = [("ubongo", "Ubongo"), ("ubongo_shimo", "Ubongo Shimo"), ("ugah_ugah", "Ugah Ugah!"),
                 ("umtata", "Wo ist bitte Umtata?"), ("quiz_night", "Quiz Night"), ("dice_derby", "Dice Derby")]
FIRST = ["Ada", "Ben", "Cleo", "Dev", "Emil", "Fay", "Gus", "Hal", "Ines", "Jonas", "Kim", "Lea", "Mo", "Nele"]


def _evening_messages(now: float) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """12 tables' statuses (playing, paused, offline, a fault, ready; 2 to 6 players) and 30 results."""
    out: dict[str, list[tuple[str, dict[str, Any]]]] = {t: [] for t in EVENING_TABLES}
    for k in range(30):
        table = EVENING_TABLES[k % 12]
        engine, title = EVENING_GAMES[k % len(EVENING_GAMES)]
        players = [{"station": i, "name": FIRST[(k + 3 * i) % len(FIRST)], "score": (k * 7 + i * 11) % 40,
                    "winner": i == k % 3} for i in range(2 + k % 3)]
        out[table].append((f"venue/v1/{table}/results/{k + 1}", {
            "v": 1, "type": "result", "table": table, "game": k + 1, "started": now - 7200 + k * 200,
            "finished": now - 7100 + k * 200, "engine": engine, "title": title, "variant": "standard",
            "actions": 40, "rounds": 9, "reason": "nine rounds played", "players": players}))
    for i, table in enumerate(EVENING_TABLES):
        engine, title = EVENING_GAMES[i % len(EVENING_GAMES)]
        game = {"id": 100 + i, "started": now - 300, "engine": engine, "title": title, "variant": "standard",
                "round": 1 + i % 9, "over": False, "paused": i == 4, "seq": 10, "last_input": now - 5,
                "players": [{"station": s, "name": FIRST[(i + s) % len(FIRST)], "score": (i * 5 + s * 3) % 30}
                            for s in range(2 + i % 5)]}
        extra: dict[str, Any] = {}
        if i == 2:
            extra = {"health": {"camera": "fault", "leds": "ok", "stations": "ok"}}
        if i == 7:
            extra = {"reason": "connection to the table lost"}
        out[table].append((f"venue/v1/{table}/status",
                           _status(table, i != 7, None if i == 9 else game, **extra)))
    return out


def _board_page(driver: Any, height: int, seen: set[str], pages: set[str], shot: Path | None) -> set[str]:
    """Check the leaderboard page on the screen now; add its rows and page to ``seen`` and ``pages``."""
    got = driver.execute_script(_LAYOUT_JS)
    assert got["bad"] == [], (height, got["bad"])
    assert got["row_px"] >= (20 if height == 1080 else 14), got
    seen.update(got["rows"])
    if got["page"] == "0" and "0" not in pages and shot is not None:
        _shots(driver, "leaderboard-30-games", shot)
    pages.add(got["page"])
    return seen


def _size(driver: Any, width: int, height: int) -> None:
    driver.set_window_size(width, height)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


@pytest.mark.slow
def test_an_evening_of_12_tables_and_30_games_fits_the_wall(tmp_path: Path) -> None:
    """At 1920x1080 and 1280x720: every table's card and every leaderboard row shows, whole,
    clear of the others and of the bars (the leaderboard pages through its games); names stay
    on one line. Screenshots of the 1920x1080 views go to docs/screens/venue/ (VENUE_SCREENS)."""
    import threading

    from selenium.webdriver.common.by import By

    from table.venue.server import Venue, VenueConfig, make_http_server

    users = {t: f"pw-{i}" for i, t in enumerate(EVENING_TABLES)}
    broker = LocalBroker(tmp_path / "broker", {**users, "venue": "v"})
    http_port = free_port()
    url = f"http://127.0.0.1:{http_port}"
    venue: Venue | None = None
    httpd = None
    driver = None
    try:
        broker.start()
        venue = Venue(VenueConfig(db=tmp_path / "venue.db", port=broker.port, username="venue", password="v",
                                  http_host="127.0.0.1", http_port=http_port))
        httpd = make_http_server(venue)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        venue.start_mqtt()
        wait_for(lambda: venue is not None and venue.connected, 10, "the venue connected")
        for table, messages in _evening_messages(time.time()).items():
            _publish_as(broker.port, table, users[table], messages)
        wait_for(lambda: venue is not None and venue.state()["results"] == 30
                 and len(venue.state()["tables"]) == 12, 30, "30 results and 12 tables at the venue")
        boards = venue.state()["leaderboard"]
        every_row = {f"{b['title']}#{i}" for b in boards for i in range(len(b["top"]))}
        assert len(boards) == 6 and len(every_row) == 60

        driver = _driver()
        for width, height in ((1920, 1080), (1280, 720)):
            _size(driver, width, height)
            driver.get(url + "/")
            wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#wall .card")) == 12
                     and driver.find_element(By.TAG_NAME, "body").get_attribute("data-results") == "30", 30,
                     "12 cards and 30 results on the page")
            time.sleep(1.5)  # a second render (the page draws again every second)
            wall = driver.execute_script(_LAYOUT_JS)
            assert wall["bad"] == [], (width, wall["bad"])
            assert wall["cards"] == 12 and wall["names"] == 12 and wall["results"] >= 1, wall
            assert wall["cut"] >= 1, "the long names were meant to need an ellipsis"
            assert wall["name_px"] >= (24 if height == 1080 else 16), wall
            assert wall["player_px"] >= (18 if height == 1080 else 12), wall
            text = driver.find_element(By.ID, "wall").text
            for word in ("Bar-1", "OFFLINE", "PAUSED", "Porch"):
                assert word in text, word
            if width == 1920:
                _shots(driver, "wall-12-tables", tmp_path)
            else:
                driver.save_screenshot(str(tmp_path / "wall-12-tables-720p.png"))

            # The leaderboard pages through its games (every 2 s here): every row shows, whole, in turn.
            driver.get(url + "/leaderboard?page_s=2")
            wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#board .bcol tr"), 30, "the leaderboard")
            seen: set[str] = set()
            pages: set[str] = set()
            shot = tmp_path if width == 1920 else None
            wait_for(lambda: _board_page(driver, height, seen, pages, shot) >= every_row, 30,  # noqa: B023
                     "every leaderboard row in turn", step=0.5)
            assert seen == every_row and len(pages) >= 2, (sorted(every_row - seen), pages)
            if width == 1280:
                driver.save_screenshot(str(tmp_path / "leaderboard-30-games-720p.png"))
    finally:
        if driver is not None:
            driver.quit()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if venue is not None:
            venue.stop()
        broker.kill()


@pytest.mark.slow
def test_the_page_waits_calmly_for_its_first_state(tmp_path: Path) -> None:
    """No state yet: a calm "waiting" (not the red alarm). The venue still reaching the broker:
    calm too. Once it had the broker and lost it: the red "broker unreachable"."""
    import threading

    from selenium.webdriver.common.by import By

    from table.venue.server import Venue, VenueConfig, make_http_server

    broker = LocalBroker(tmp_path / "broker", {"venue": "v"})
    http_port = free_port()
    url = f"http://127.0.0.1:{http_port}"
    venue: Venue | None = None
    httpd = None
    driver = None
    red = "255, 93, 93"
    try:
        broker.start()
        venue = Venue(VenueConfig(db=tmp_path / "venue.db", port=broker.port, username="venue", password="v",
                                  http_host="127.0.0.1", http_port=http_port))
        httpd = make_http_server(venue)  # serving, but not yet listening to the broker
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        driver = _driver()
        conn = lambda: driver.find_element(By.ID, "conn")  # noqa: E731
        colour = lambda: conn().value_of_css_property("background-color")  # noqa: E731

        # The state cannot arrive (the browser refuses those addresses): the page waits, calmly.
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/state*", "*/events*"]})
        driver.get(url + "/")
        time.sleep(1.0)
        assert conn().text == "waiting for the first state…", conn().text
        assert red not in colour() and driver.find_element(By.TAG_NAME, "body").get_attribute("data-version") is None
        assert "unreachable" not in driver.find_element(By.TAG_NAME, "header").text

        # The state comes, and the venue has not reached the broker yet: still calm.
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        driver.get(url + "/")
        wait_for(lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-version") is not None, 20,
                 "the first state")
        assert conn().text == "connecting to the broker…" and red not in colour(), conn().text

        venue.start_mqtt()
        wait_for(lambda: not conn().is_displayed(), 20, "the note gone once the venue has the broker")

        broker.kill()  # had it, lost it: the alarm
        wait_for(lambda: conn().is_displayed() and conn().text == "broker unreachable", 20, "the red alarm")
        assert red in colour(), colour()
    finally:
        if driver is not None:
            driver.quit()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if venue is not None:
            venue.stop()
        broker.kill()


@pytest.mark.slow
def test_a_game_ended_early_has_no_winner_on_the_wall(tmp_path: Path) -> None:
    """Three finished games: one played to its end (its winner starred), one ended early
    by an older table that still named its leader, one ended early by this version (no
    winner in its players, its result not here yet). Only the first card stars anyone;
    the cards of the others say "ended early", and so does the ticker's row."""
    import threading

    from selenium.webdriver.common.by import By

    from table.venue.server import Venue, VenueConfig, make_http_server

    http_port = free_port()
    url = f"http://127.0.0.1:{http_port}"
    venue = Venue(VenueConfig(db=tmp_path / "venue.db", http_host="127.0.0.1", http_port=http_port))
    httpd = make_http_server(venue)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    driver = None
    now = time.time()

    def players(names: dict[str, int], winner: str | None) -> list[dict[str, Any]]:
        return [{"station": i, "name": n, "score": s, "winner": n == winner} for i, (n, s) in enumerate(names.items())]

    def game(gid: int, title: str, engine: str, ps: list[dict[str, Any]]) -> dict[str, Any]:
        return {"id": gid, "started": now - 900 + gid, "engine": engine, "title": title, "variant": "standard",
                "round": 5, "over": True, "paused": False, "seq": 40, "last_input": now - 60, "players": ps}

    def result(table: str, g: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"v": 1, "type": "result", "table": table, "game": g["id"], "started": g["started"],
                "finished": now - 60, "engine": g["engine"], "title": g["title"], "variant": "standard",
                "actions": 40, "rounds": 5, "reason": "ended from the table menu", "players": g["players"], **extra}

    played = game(1, "Ubongo", "ubongo", players({"Ada": 7, "Ben": 9}, "Ben"))
    older = game(2, "Ubongo Shimo", "ubongo_shimo", players({"Cleo": 12, "Dan": 12}, "Dan"))
    newer = game(3, "Ugah Ugah!", "ugah_ugah", players({"Eva": 4, "Finn": 9}, None))
    messages = [("Played", _status("Played", True, played)), ("Played", {**result("Played", played),
                                                                        "reason": "nine rounds played"}),
                ("Older", _status("Older", True, older)), ("Older", result("Older", older, ended="early")),
                ("Newer", _status("Newer", True, newer))]
    try:
        for table, payload in messages:
            topic = (contract.status_topic(table) if payload["type"] == "status"
                     else contract.result_topic(table, payload["game"]))
            venue.handle(topic, contract.encode(payload))
        driver = _driver()
        driver.get(url + "/")
        wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#wall .card")) == 3, 30, "three table cards")
        wait_for(lambda: "Latest results" in driver.find_element(By.ID, "ticker").text
                 and "Older" in driver.find_element(By.ID, "ticker").text, 30, "the results in the bar")
        cards = {c.find_element(By.CSS_SELECTOR, ".name").text: c
                 for c in driver.find_elements(By.CSS_SELECTOR, "#wall .card")}
        starred = {t: [e.text for e in c.find_elements(By.CSS_SELECTOR, ".pn.lead")] for t, c in cards.items()}
        assert starred == {"Played": ["Ben"], "Older": [], "Newer": []}, starred  # (the star is the CSS's)
        assert "ended early" in cards["Older"].text.lower() and "final" in cards["Played"].text
        ticker = driver.find_element(By.ID, "ticker").text
        assert "Ubongo Shimo: ended early" in ticker and "Ubongo: Ben" in ticker, ticker
        assert "Dan" not in ticker, ticker
        time.sleep(0.3)
        driver.save_screenshot(str(tmp_path / "wall-ended-early.png"))  # (to look at; not a docs picture)
    finally:
        if driver is not None:
            driver.quit()
        httpd.shutdown()
        httpd.server_close()
        venue.stop()
