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
ratio of the two; CPU of Mosquitto, of ``table venue`` and of the simulated tables
with their relays, each apart (share of one core). On a shared machine the latency
follows the load (the load average is printed at the start and the end), so the
venue's own CPU time per message taken is printed too, beside a same-run baseline
that does not depend on the load: one JSON round trip (``json.loads`` and
``json.dumps``) of a typical event, timed on this process's thread clock.

With ``--attack``, a second process (its CPU counted apart) holds 1,000 idle
connections, 500 event-stream readers and 200 slow senders (half drip a request's
headers, half a body, a byte a second) against the same ``table venue``, each opening
again whenever the venue closes it; a prober fetches ``/api/state`` every 0.1 s and
``/`` every second, timed, first for 3 s before the attack (the baseline) and then
throughout. The venue's memory (RSS) and threads are sampled every 0.5 s.
``--server threads`` runs the venue with the other candidate, the standard library's
threaded server fixed (bench/_venue_threads.py), to compare the two.

All traffic goes to 127.0.0.1; everything stops by itself after ``--seconds``.

Beyond ``--group`` (50) tables, each group of tables and their relays runs in a
process of its own (paho waits on select(), which takes no descriptor past 1024).

With ``--handle``, no broker and no processes: the venue's own work per message and per
state, on this thread's CPU clock (so the machine's load does not count), for the
messages of ``--tables`` tables that each play two whole games: a message read and
checked (``contract.decode``), the same checked by a generic JSON Schema validator
(``jsonschema``, when installed) for comparison, ``Venue.handle`` (read, checked,
taken, stored), and a page state made after five events and after a new result; each
beside the same-run baseline of one JSON round trip of the same messages.

Run: python bench/bench_venue.py [--tables 50] [--seconds 60] [--rate 0.5] [--screenshot FILE]
     [--attack] [--server asyncio|threads] [--group 50]
     python bench/bench_venue.py --handle [--tables 200]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
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
from table.venue import contract
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
                 finished: dict[tuple[str, int], float], inputs: tuple[int, int] = (6, 20)) -> None:
        super().__init__(daemon=True)
        self.table, self.path, self.rate, self.stop, self.finished = table, journal, rate, stop, finished
        self.inputs = inputs  # a game is ended from the table menu after this many inputs (at random)
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

        target = self.rng.randint(*self.inputs)
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


class Prober(threading.Thread):
    """Fetches the state every 0.1 s and the page every second, as a wall screen's reloads would."""

    def __init__(self, url: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.stop = url, stop
        self.phase = "baseline"
        self.samples: dict[str, list[float]] = {"baseline": [], "attack": []}
        self.failures: Counter[str] = Counter()

    def run(self) -> None:
        n = 0
        while not self.stop.wait(0.1):
            path = "/" if n % 10 == 0 else "/api/state"
            n += 1
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url + path, timeout=5) as resp:
                    resp.read()
                self.samples[self.phase].append((time.perf_counter() - t0) * 1000)
            except Exception as exc:  # a refusal or a timeout is a figure, not a crash
                self.failures[f"{self.phase}: {type(exc).__name__} {str(exc)[:60]}"] += 1


def proc_sample(pid: int) -> tuple[int, int, int]:
    """A process's resident memory (KiB), open file descriptors and threads, from /proc."""
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), len(os.listdir(f"/proc/{pid}/fd")), int(fields["Threads"])


class Sampler(threading.Thread):
    """The venue's resident memory, file descriptors and threads, every ``every`` seconds."""

    def __init__(self, pid: int, stop: threading.Event, every: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.pid, self.stop, self.every = pid, stop, every
        self.rss_kib: list[int] = []
        self.fds: list[int] = []
        self.threads: list[int] = []

    def run(self) -> None:
        while not self.stop.wait(self.every):
            try:
                rss, fds, threads = proc_sample(self.pid)
            except OSError:
                return
            self.rss_kib.append(rss)
            self.fds.append(fds)
            self.threads.append(threads)


def json_round_trip_us(n: int = 3000) -> float:
    """The baseline of a message's cost: one JSON round trip of a typical event, in
    microseconds of this thread's CPU time (so other processes' load does not count)."""
    raw = contract.encode({"v": 1, "type": "event", "table": "T01", "game": 12, "started": time.time() - 300,
                           "engine": "ubongo", "seq": 41, "t": 187.25, "kind": "press", "station": 2, "round": 5,
                           "scores": {"0": 12, "1": 9, "2": 14, "3": 7}, "over": False,
                           "events": [{"t": 187.25, "kind": "solved", "station": 2}]})
    t0 = time.thread_time()
    for _ in range(n):
        json.dumps(json.loads(raw))
    return (time.thread_time() - t0) / n * 1e6


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


async def _attack(port: int, seconds: float, idle: int, streams: int, slow: int) -> dict[str, Any]:
    """Hold the connections until ``seconds`` have passed; each opens again when the venue closes it."""
    import asyncio

    stats: Counter[str] = Counter()
    cut_after: list[float] = []
    deadline = time.monotonic() + seconds

    async def connect() -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:
            return await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            stats["connect failed"] += 1
            await asyncio.sleep(0.5)
            return None

    def left() -> float:
        return max(0.0, deadline - time.monotonic())

    async def hold_idle() -> None:
        while left() > 0:
            pair = await connect()
            if pair is None:
                continue
            reader, writer = pair
            stats["idle connections"] += 1
            t0 = time.monotonic()
            try:
                data = await asyncio.wait_for(reader.read(4096), timeout=left())
                if data.startswith(b"HTTP/1.1 503"):
                    stats["refused (503)"] += 1
                else:
                    stats["idle cut"] += 1
                    cut_after.append(time.monotonic() - t0)
            except (TimeoutError, OSError):
                pass
            writer.close()
            await asyncio.sleep(0.2)

    async def read_stream() -> None:
        while left() > 0:
            pair = await connect()
            if pair is None:
                continue
            reader, writer = pair
            stats["stream connections"] += 1
            writer.write(b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n")
            try:
                while left() > 0:
                    data = await asyncio.wait_for(reader.read(65536), timeout=left())
                    if not data:
                        stats["stream closed by the venue"] += 1
                        break
                    stats["stream bytes"] += len(data)
                    stats["stream events"] += data.count(b"event: state")
            except (TimeoutError, OSError):
                pass
            writer.close()
            await asyncio.sleep(0.2)

    async def drip(body: bool) -> None:
        while left() > 0:
            pair = await connect()
            if pair is None:
                continue
            reader, writer = pair
            stats["slow connections"] += 1
            t0 = time.monotonic()
            head = b"POST /api/state HTTP/1.1\r\nHost: bench\r\nContent-Length: 60000\r\n\r\n" if body \
                else b"GET /api/state HTTP/1.1\r\nHost: bench\r\n"
            answer = asyncio.ensure_future(reader.read(4096))
            try:
                writer.write(head)
                while left() > 0 and not answer.done():
                    await asyncio.wait([answer], timeout=min(1.0, left()))
                    if not answer.done():
                        writer.write(b"b" if body else b"X-Slow: 1\r\n")
                        await writer.drain()
                if answer.done():
                    stats["slow cut"] += 1
                    cut_after.append(time.monotonic() - t0)
            except OSError:
                stats["slow cut"] += 1
                cut_after.append(time.monotonic() - t0)
            answer.cancel()
            writer.close()
            await asyncio.sleep(0.2)

    tasks = []
    kinds = [read_stream] * streams + [hold_idle] * idle
    for i, kind in enumerate(kinds + [lambda: drip(False)] * (slow // 2) + [lambda: drip(True)] * (slow - slow // 2)):
        tasks.append(asyncio.ensure_future(kind()))
        if i % 50 == 0:
            await asyncio.sleep(0.05)  # a ramp of a few seconds, not one burst
    await asyncio.wait(tasks, timeout=seconds + 10)
    for t in tasks:
        t.cancel()
    result: dict[str, Any] = dict(stats)
    if cut_after:
        result["cut after (s): median"] = round(median(cut_after), 1)
        result["cut after (s): max"] = round(max(cut_after), 1)
    return result


def attacker_main(port: int, seconds: float, idle: int, streams: int, slow: int) -> None:
    import asyncio

    raise_fd_limit()
    print(json.dumps(asyncio.run(_attack(port, seconds, idle, streams, slow))), flush=True)


def start_relays(tables: list[str], tmp: Path, port: int, stop: threading.Event) -> list[Relay]:
    relays = []
    for t in tables:
        relay = Relay(RelayConfig(table=t, journal=tmp / f"{t}.db", state_dir=tmp / f"relay-{t}",
                                  port=port, username=t, password=t))
        threading.Thread(target=relay.run, args=(stop,), daemon=True).start()
        relays.append(relay)
    return relays


def worker_main(a: int, b: int, tmp: Path, port: int, seconds: float, rate: float) -> None:
    """Tables a..b-1 and their relays in this process: ready, wait for go, play ``seconds``, report."""
    tables = [f"T{i:02d}" for i in range(a + 1, b + 1)]
    stop, relay_stop = threading.Event(), threading.Event()
    finished: dict[tuple[str, int], float] = {}
    start_relays(tables, tmp, port, relay_stop)
    time.sleep(2.0)
    print("ready", flush=True)
    sys.stdin.readline()
    sims = [TableSim(t, tmp / f"{t}.db", rate, a + i, stop, finished) for i, t in enumerate(tables)]
    for s in sims:
        s.start()
    time.sleep(seconds)
    stop.set()
    for s in sims:
        s.join(5)
    report = {"actions": sum(s.actions for s in sims), "finished": [[t, g, at] for (t, g), at in finished.items()]}
    print(json.dumps(report), flush=True)
    time.sleep(4.0)  # the relays send what is left
    relay_stop.set()
    time.sleep(0.5)


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


def _cpu_us(work: Any, items: list[Any]) -> float:
    """Microseconds of this thread's CPU time per item of ``work``."""
    t0 = time.thread_time()
    for item in items:
        work(item)
    return (time.thread_time() - t0) / len(items) * 1e6


def handle_main(tables: int) -> None:
    """The venue's work per message and per state, in-process (see the module docstring)."""
    from table.play.scenario import load_scenario, run_scenario
    from table.venue.follow import JournalFollower, Position
    from table.venue.server import Venue, VenueConfig

    scenarios = Path(__file__).resolve().parent.parent / "docs" / "scenarios"
    print(f"machine: {machine()}; {time.strftime('%Y-%m-%d %H:%M:%S')}, {load()}")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        with Journal(tmp / "journal.db") as journal:
            for name in ("ugah-whole-game.toml", "shimo-full-game.toml"):
                run_scenario(load_scenario(scenarios / name), journal)
        now = time.time()
        messages: list[tuple[str, bytes]] = []
        for i in range(tables):
            follower = JournalFollower(tmp / "journal.db", f"T{i:03d}")
            out, _ = follower.messages_after(Position(1, 0), 100_000)
            for m in out:  # re-dated to now: inside the venue's window
                payload = {**m.payload, "started": now - 600}
                if payload["type"] == "result":
                    payload["finished"] = now - 1
                messages.append((m.topic, contract.encode(payload)))
            game = follower.live_game()
            assert game is not None
            status = {"v": 1, "type": "status", "table": f"T{i:03d}", "online": True, "sent": now,
                      "game": {**game, "started": now - 600, "last_input": now - 5},
                      "health": {"camera": "ok", "leds": "ok", "stations": "ok"}}
            messages.insert(len(messages) - len(out), (contract.status_topic(f"T{i:03d}"), contract.encode(status)))
            follower.close()
        raw = [r for _, r in messages]
        base = _cpu_us(lambda r: json.dumps(json.loads(r)), raw)
        print(f"{tables} tables, {len(messages)} messages ({sum(map(len, raw)) / len(raw):.0f} bytes on average); "
              f"baseline, one JSON round trip: {base:.1f} us a message")
        decode = _cpu_us(lambda m: contract.decode(m[1], m[0], now=time.time()), messages)
        print(f"contract.decode (bounds, compiled schema check): {decode:.0f} us a message (x{decode / base:.1f})")
        try:
            from jsonschema import Draft202012Validator
        except ImportError:
            print("jsonschema is not installed: no comparison with a generic validator")
        else:
            whole = contract.schema()
            generic = {kind: Draft202012Validator({"$schema": whole["$schema"], "$defs": whole["$defs"],
                                                   "$ref": f"#/$defs/{kind}"})
                       for kind in ("status", "event", "result")}
            sample = [json.loads(r) for r in raw[:: max(1, len(raw) // 3000)]]
            slow = _cpu_us(lambda p: list(generic[p["type"]].iter_errors(p)), sample)
            fast = _cpu_us(contract.validate, sample)
            print(f"the schema check alone: compiled {fast:.0f} us, jsonschema {slow:.0f} us a message "
                  f"(x{slow / fast:.0f}; baseline ratios x{fast / base:.1f} and x{slow / base:.1f})")
        venue = Venue(VenueConfig(db=tmp / "venue.db"))
        try:
            handle = _cpu_us(lambda m: venue.handle(*m), messages)
            print(f"Venue.handle: {handle:.0f} us a message (x{handle / base:.1f}); {dict(venue.counts)}")
            events = [m for m in messages if b'"type":"event"' in m[1]]
            rng = random.Random(1)

            def state_after(new_result: bool) -> None:
                for topic, _ in rng.sample(events, 5):  # five tables' cards changed
                    venue._dirty.add(topic.split("/")[2])
                venue._results_changed = new_result
                venue._changed()
                venue.snapshot()

            few = _cpu_us(lambda _: state_after(False), list(range(200)))
            result = _cpu_us(lambda _: state_after(True), list(range(50)))
            size = len(venue.snapshot())
            print(f"a page state ({size / 1024:.0f} KiB, {venue.counts['results']} results) after five events: "
                  f"{few / 1000:.2f} ms (x{few / base:.0f}); after a new result: {result / 1000:.2f} ms "
                  f"(x{result / base:.0f})")
            # What the page keeps in memory for each of the evening's results (the leaderboard needs them).
            import tracemalloc

            template = json.loads(next(r for r in raw if b'"type":"result"' in r))
            more = [{**template, "table": f"T{k % tables:03d}", "game": 100_000 + k} for k in range(800)]
            tracemalloc.start()
            before = tracemalloc.take_snapshot()
            for r in more:
                venue.handle(contract.result_topic(r["table"], r["game"]), contract.encode(r))
            venue.snapshot()
            grown = sum(d.size_diff for d in tracemalloc.take_snapshot().compare_to(before, "filename"))
            tracemalloc.stop()
            print(f"memory kept per result of the evening: {grown / len(more) / 1024:.2f} KiB of Python objects "
                  f"({len(more)} results more; {venue.counts['results']} in all)")
        finally:
            venue.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=0.5, help="inputs per second per table")
    parser.add_argument("--screenshot", type=Path, help="also save the wall view at 1920x1080 here")
    parser.add_argument("--attack", action="store_true",
                        help="also 1,000 idle connections, 500 event streams and 200 slow senders")
    parser.add_argument("--server", choices=("asyncio", "threads"), default="asyncio",
                        help="the venue's web server: the shipped one, or the threaded candidate")
    parser.add_argument("--group", type=int, default=50, help="tables per process beyond this many")
    parser.add_argument("--handle", action="store_true",
                        help="the venue's own work per message and per state, in-process, no broker")
    parser.add_argument("--attacker", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--broker-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--idle", type=int, default=1000, help=argparse.SUPPRESS)
    parser.add_argument("--streams", type=int, default=500, help=argparse.SUPPRESS)
    parser.add_argument("--slow", type=int, default=200, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.handle:
        handle_main(args.tables)
        return
    if args.attacker:
        attacker_main(args.attacker, args.seconds, args.idle, args.streams, args.slow)
        return
    if args.worker:
        a, b = (int(x) for x in args.worker.split(":"))
        worker_main(a, b, args.dir, args.broker_port, args.seconds, args.rate)
        return
    fds = raise_fd_limit()
    print(f"machine: {machine()}, file descriptors {fds}")
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')}, at the start: {load()}")
    print(f"{args.tables} tables, {args.rate} inputs/s each, {args.seconds:.0f} s, server {args.server}"
          + (f", attack: {args.idle} idle, {args.streams} streams, {args.slow} slow" if args.attack else ""))
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        tables = [f"T{i:02d}" for i in range(1, args.tables + 1)]
        users = {t: t for t in tables} | {"venue": "venue", "probe": "probe"}
        broker = LocalBroker(tmp / "broker", users, autosave_s=10, extra_acl="user probe\ntopic readwrite bench/#\n")
        broker.start()
        (tmp / "venue.pw").write_text("venue")
        http_port = free_port()
        url = f"http://127.0.0.1:{http_port}"
        runner = [str(Path(__file__).resolve().parent / "_venue_threads.py")] if args.server == "threads" \
            else ["-m", "table"]
        venue = subprocess.Popen(
            [sys.executable, *runner, "venue", "--db", str(tmp / "venue.db"), "--port", str(broker.port),
             "--username", "venue", "--password-file", str(tmp / "venue.pw"), "--http-host", "127.0.0.1",
             "--http-port", str(http_port)], stderr=subprocess.DEVNULL)
        stop = threading.Event()
        relay_stop = threading.Event()
        finished: dict[tuple[str, int], float] = {}
        attacker: subprocess.Popen[str] | None = None
        workers = []
        try:
            wait_port(http_port)
            relays: list[Relay] = []
            workers: list[subprocess.Popen[str]] = []
            if args.tables <= args.group:
                relays = start_relays(tables, tmp, broker.port, relay_stop)
            else:
                # paho waits on select(), which takes no descriptor past 1024: a few hundred
                # tables' sockets and journals need several processes.
                for a in range(0, args.tables, args.group):
                    workers.append(subprocess.Popen(
                        [sys.executable, __file__, "--worker", f"{a}:{min(args.tables, a + args.group)}",
                         "--tables", str(args.tables), "--dir", str(tmp), "--broker-port", str(broker.port),
                         "--seconds", str(args.seconds), "--rate", str(args.rate)],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
                for w in workers:
                    assert w.stdout is not None and w.stdout.readline().strip() == "ready"
            reader = PageReader(url)
            reader.start()
            probe = Probe(broker.port)
            prober = Prober(url, stop)
            sampler = Sampler(venue.pid, stop)
            prober.start()
            sampler.start()
            time.sleep(3.0)
            if args.attack:
                attacker = subprocess.Popen(
                    [sys.executable, __file__, "--attacker", str(http_port), "--seconds", str(args.seconds + 8),
                     "--idle", str(args.idle), "--streams", str(args.streams), "--slow", str(args.slow)],
                    stdout=subprocess.PIPE, text=True)
                time.sleep(8.0)  # the ramp: every connection open before the figures start
            prober.phase = "attack"
            sims = [TableSim(t, tmp / f"{t}.db", args.rate, i, stop, finished) for i, t in enumerate(tables)] \
                if not workers else []
            procs = {"broker": broker.pid or 0, "venue": venue.pid, "tables+relays": os.getpid()}
            procs |= {f"tables+relays {i + 1}": w.pid for i, w in enumerate(workers)}
            if attacker is not None:
                procs["attacker"] = attacker.pid
            cpu0 = {name: cpu_seconds(pid) for name, pid in procs.items()}
            received0 = json.loads(urllib.request.urlopen(url + "/api/state", timeout=10).read())["counts"]
            t0 = time.monotonic()
            for s in sims:
                s.start()
            for w in workers:
                assert w.stdin is not None
                w.stdin.write("go\n")
                w.stdin.flush()
            while time.monotonic() - t0 < args.seconds:
                probe.ping()
                time.sleep(0.2)
            stop.set()
            t_end = time.time()
            wall = time.monotonic() - t0
            cpu1 = {name: cpu_seconds(pid) for name, pid in procs.items()}
            received1 = json.loads(urllib.request.urlopen(url + "/api/state", timeout=10).read())["counts"]
            load_end = load()
            for s in sims:
                s.join(5)
            actions = sum(s.actions for s in sims)
            for w in workers:
                out, _ = w.communicate(timeout=60)
                report = json.loads(out.strip().splitlines()[-1])
                actions += report["actions"]
                finished.update({(t, g): at for t, g, at in report["finished"]})
            time.sleep(3.0)  # the last results reach the page
            if args.screenshot:
                screenshot(url, args.screenshot)
            lat = [(reader.seen[k] - t) * 1000 for k, t in finished.items() if k in reader.seen]
            missing = [k for k in finished if k not in reader.seen]
            state = json.loads(urllib.request.urlopen(url + "/api/state", timeout=10).read())
            print(f"inputs journaled: {actions} ({actions / wall:.1f}/s), results: {len(finished)} "
                  f"({len(finished) / wall * 60:.0f}/min), stored by the venue: {state['results']}, "
                  f"page updates: {reader.events}; the venue's counts: {state['counts']}")
            if missing:
                stored = {(r["table"], r["game"]) for r in state["recent"]}
                ends = [f"{t_end - finished[k]:.1f}" for k in missing[:5]]
                print(f"results not seen in the page's stream: {len(missing)}: {missing[:5]}; "
                      f"in the latest results now: {[k in stored for k in missing[:5]]}; finished "
                      f"{', '.join(ends)} s before the tables stopped")
                for k in missing[:3] if relays else []:
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
            for name in procs:
                share = (cpu1[name] - cpu0[name]) / wall * 100
                print(f"cpu {name}: {share:.1f}% of one core")
            taken = received1.get("received", 0) - received0.get("received", 0)
            if taken:
                per = (cpu1["venue"] - cpu0["venue"]) / taken * 1e6
                json_us = json_round_trip_us()
                print(f"venue CPU per message received: {per:.0f} us ({taken} messages, {taken / wall:.0f}/s; "
                      f"serving the page included); baseline, one JSON round trip of an event: {json_us:.1f} us; "
                      f"ratio x{per / json_us:.0f}")
            print(f"at the end of the run: {load_end}")
            pb, pa = prober.samples["baseline"], prober.samples["attack"]
            if pb and pa:
                print(f"page fetch (state every 0.1 s, page every 1 s): before: median {median(pb):.1f} ms, "
                      f"p99 {pct(pb, 99):.1f} ms ({len(pb)}); during: median {median(pa):.1f} ms, "
                      f"p99 {pct(pa, 99):.1f} ms, max {max(pa):.0f} ms ({len(pa)}); p99 ratio "
                      f"x{pct(pa, 99) / pct(pb, 99):.1f}")
            print(f"page fetch failures: {dict(prober.failures) or 'none'}")
            if sampler.rss_kib:
                rss = [k / 1024 for k in sampler.rss_kib]
                print(f"venue RSS: start {rss[0]:.0f} MiB, max {max(rss):.0f} MiB, "
                      f"end {sampler.rss_kib[-1] / 1024:.0f} MiB; threads max {max(sampler.threads)}; "
                      f"file descriptors max {max(sampler.fds)}")
            if attacker is not None:
                out, _ = attacker.communicate(timeout=60)
                print(f"attacker: {out.strip()}")
            probe.close()
        finally:
            stop.set()
            relay_stop.set()
            for p in [attacker, *workers]:
                if p is not None and p.poll() is None:
                    p.kill()
            time.sleep(0.5)
            venue.send_signal(signal.SIGTERM)
            venue.wait(10)
            broker.stop()


if __name__ == "__main__":
    main()
