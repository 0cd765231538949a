"""Venue figures: 50 simulated tables -> relays -> Mosquitto -> ``table venue`` -> the page's event stream.

Every table is a thread that plays random legal games into its own journal (committed
with synchronous=FULL, as the table does) at ``--rate`` inputs per second, and ends
each game from the table menu after 6 to 20 inputs, so results come far more often
than at a real event (a real game lasts 10-20 minutes). Every table has its own
:class:`table.venue.relay.Relay` (in this process), publishing to a Mosquitto on
127.0.0.1 with the shipped users, ACL and a 10 s autosave. ``table venue`` runs as
its own process; a reader follows its ``/events`` stream like the page does.

Figures: result-to-page latency (journal commit of the finish -> the result in a
server-sent event), median and p99; the baseline is the broker's own QoS 1
round trip measured in the same run (a probe client publishing to itself), and the
ratio of the two; CPU of Mosquitto and of ``table venue`` (share of one core).

Run: python bench/bench_venue.py [--tables 50] [--seconds 60] [--rate 0.5] [--screenshot FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, median, pct

from table.games import get_engine
from table.games.base import Action, GameSetup
from table.play.autoplay import next_random_action
from table.play.journal import Journal
from table.play.session import Session
from table.venue.broker import LocalBroker, free_port, wait_port
from table.venue.relay import Relay, RelayConfig

GAMES = ("ubongo_shimo", "ubongo", "umtata", "ugah_ugah")
NAMES = ("Ada", "Ben", "Cleo", "Dana", "Emil", "Fay", "Gus", "Hal", "Ines", "Jonas", "Kim", "Lea", "Mo", "Nele")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TableSim(threading.Thread):
    """One table: random legal games into its journal at ``rate`` inputs per second."""

    def __init__(self, table: str, journal: Path, rate: float, seed: int, stop: threading.Event,
                 finished: dict[tuple[str, int], float]) -> None:
        super().__init__(daemon=True)
        self.table, self.path, self.rate, self.stop, self.finished = table, journal, rate, stop, finished
        self.rng = random.Random(seed)
        self.actions = 0

    def run(self) -> None:
        journal = Journal(self.path)
        try:
            while not self.stop.is_set():
                self._one_game(journal)
        finally:
            journal.close()

    def _one_game(self, journal: Journal) -> None:
        game = self.rng.choice(GAMES)
        engine = get_engine(game)
        n = self.rng.randint(engine.min_stations, min(4, engine.max_stations))
        setup = GameSetup(game=game, variant=engine.variants[0], stations=tuple(range(n)),
                          names=tuple(self.rng.sample(NAMES, n)))
        seed = self.rng.randrange(1 << 30)
        session = Session.start(game, setup, seed)
        gid = journal.start_game(setup, seed)
        seq = 0

        def record(action: Action) -> None:
            nonlocal seq
            journal.append(gid, seq, action)
            seq += 1

        target = self.rng.randint(6, 20)
        while seq < target and not session.is_over():
            if self.stop.wait(self.rng.expovariate(self.rate)):
                return
            action = next_random_action(session, self.rng, 4.0, 0.0)
            if action is None:
                break
            session.apply(action, record)
            self.actions += 1
        session.apply(Action("end", session.last_t + 1.0), record)
        journal.finish(gid, session.outcome())
        self.finished[(self.table, gid)] = time.time()


class PageReader(threading.Thread):
    """Follows ``/events`` as the page does; notes when each result first shows."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.seen: dict[tuple[str, int], float] = {}
        self.events = 0

    def run(self) -> None:
        with urllib.request.urlopen(self.url + "/events", timeout=30) as resp:
            for raw in resp:
                line = raw.decode("utf-8").rstrip("\n")
                if not line.startswith("data: "):
                    continue
                now = time.time()
                self.events += 1
                state = json.loads(line[6:])
                for r in state["recent"]:
                    self.seen.setdefault((r["table"], r["game"]), now)


class Probe:
    """The baseline: a QoS 1 message through the same broker to a subscriber, timed."""

    def __init__(self, port: int) -> None:
        import paho.mqtt.client as mqtt

        self.samples: list[float] = []
        self.sent: dict[int, float] = {}
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-probe")
        self.client.username_pw_set("probe", "probe")
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *a: c.subscribe("bench/probe", 1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.n = 0

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        i = int(msg.payload)
        if i in self.sent:
            self.samples.append((time.perf_counter() - self.sent.pop(i)) * 1000)

    def ping(self) -> None:
        self.n += 1
        self.sent[self.n] = time.perf_counter()
        self.client.publish("bench/probe", str(self.n), qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def screenshot(url: str, path: Path) -> None:
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1920,1080", "--hide-scrollbars"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver") or "chromedriver"),
                              options=options)
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False})
        driver.get(url + "/")
        time.sleep(2.0)
        path.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(path))
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=0.5, help="inputs per second per table")
    parser.add_argument("--screenshot", type=Path, help="also save the wall view at 1920x1080 here")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"{args.tables} tables, {args.rate} inputs/s each, {args.seconds:.0f} s")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        tables = [f"T{i:02d}" for i in range(1, args.tables + 1)]
        users = {t: t for t in tables} | {"venue": "venue", "probe": "probe"}
        broker = LocalBroker(tmp / "broker", users, autosave_s=10, extra_acl="user probe\ntopic readwrite bench/#\n")
        broker.start()
        (tmp / "venue.pw").write_text("venue")
        http_port = free_port()
        url = f"http://127.0.0.1:{http_port}"
        venue = subprocess.Popen(
            [sys.executable, "-m", "table", "venue", "--db", str(tmp / "venue.db"), "--port", str(broker.port),
             "--username", "venue", "--password-file", str(tmp / "venue.pw"), "--http-host", "127.0.0.1",
             "--http-port", str(http_port)], stderr=subprocess.DEVNULL)
        stop = threading.Event()
        relay_stop = threading.Event()
        finished: dict[tuple[str, int], float] = {}
        try:
            wait_port(http_port)
            relays = []
            for t in tables:
                (tmp / f"{t}.pw").write_text(t)
                relay = Relay(RelayConfig(table=t, journal=tmp / f"{t}.db", state_dir=tmp / f"relay-{t}",
                                          port=broker.port, username=t, password=t))
                th = threading.Thread(target=relay.run, args=(relay_stop,), daemon=True)
                th.start()
                relays.append(relay)
            reader = PageReader(url)
            reader.start()
            probe = Probe(broker.port)
            time.sleep(2.0)
            sims = [TableSim(t, tmp / f"{t}.db", args.rate, i, stop, finished) for i, t in enumerate(tables)]
            cpu0 = {"broker": cpu_seconds(broker.pid or 0), "venue": cpu_seconds(venue.pid),
                    "tables+relays": cpu_seconds(os.getpid())}
            t0 = time.monotonic()
            for s in sims:
                s.start()
            while time.monotonic() - t0 < args.seconds:
                probe.ping()
                time.sleep(0.2)
            stop.set()
            wall = time.monotonic() - t0
            cpu1 = {"broker": cpu_seconds(broker.pid or 0), "venue": cpu_seconds(venue.pid),
                    "tables+relays": cpu_seconds(os.getpid())}
            for s in sims:
                s.join(5)
            time.sleep(3.0)  # the last results reach the page
            if args.screenshot:
                screenshot(url, args.screenshot)
            lat = [(reader.seen[k] - t) * 1000 for k, t in finished.items() if k in reader.seen]
            missing = [k for k in finished if k not in reader.seen]
            state = json.loads(urllib.request.urlopen(url + "/api/state", timeout=10).read())
            actions = sum(s.actions for s in sims)
            print(f"inputs journaled: {actions} ({actions / wall:.1f}/s), results: {len(finished)} "
                  f"({len(finished) / wall * 60:.0f}/min), stored by the venue: {state['results']}, "
                  f"page updates: {reader.events}")
            if missing:
                stored = {(r["table"], r["game"]) for r in state["recent"]}
                print(f"results not seen in the page's stream: {len(missing)}: {missing[:5]}; "
                      f"in the latest results now: {[k in stored for k in missing[:5]]}")
                for k in missing[:3]:
                    r = relays[tables.index(k[0])]
                    print(f"  relay {k[0]}: acked {r._acked}, sent {r._sent}, in flight {len(r._inflight)}, "
                          f"connected {r._connected.is_set()}")
            base = probe.samples
            if not lat or not base:
                print("no results reached the page: run longer (--seconds) or faster (--rate)")
                return
            print(f"baseline MQTT QoS 1 round trip: median {median(base):.1f} ms, p99 {pct(base, 99):.1f} ms "
                  f"({len(base)} probes)")
            print(f"result-to-page latency: median {median(lat):.0f} ms, p99 {pct(lat, 99):.0f} ms, "
                  f"max {max(lat):.0f} ms ({len(lat)} results)")
            print(f"ratio to the baseline: median x{median(lat) / median(base):.0f}, "
                  f"p99 x{pct(lat, 99) / pct(base, 99):.0f}")
            for name in ("broker", "venue", "tables+relays"):
                share = (cpu1[name] - cpu0[name]) / wall * 100
                print(f"cpu {name}: {share:.1f}% of one core")
            probe.close()
        finally:
            stop.set()
            relay_stop.set()
            time.sleep(0.5)
            venue.send_signal(signal.SIGTERM)
            venue.wait(10)
            broker.stop()


if __name__ == "__main__":
    main()
