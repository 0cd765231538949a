"""The venue's own SQLite file: the evening's results and every table's last status.

Results are keyed by ``(table, game, started)``: a second delivery of the same
result (QoS 1 after a reconnect, the relay's republish, a retained copy, an import
from the table's journal) changes nothing. The file can always be rebuilt: delete it
and start ``table venue`` (the broker's retained results come back), or import the
tables' journals with ``table venue --import TABLE=JOURNAL``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    tbl TEXT NOT NULL,
    game INTEGER NOT NULL,
    started REAL NOT NULL,
    finished REAL NOT NULL,
    engine TEXT NOT NULL,
    title TEXT NOT NULL,
    variant TEXT NOT NULL,
    rounds INTEGER NOT NULL,
    actions INTEGER NOT NULL,
    reason TEXT NOT NULL,
    players TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (tbl, game, started)
);
CREATE TABLE IF NOT EXISTS tables (
    tbl TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    received REAL NOT NULL
);
"""


class VenueStore:
    """Thread-safe access to the venue's SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add_result(self, r: dict[str, Any]) -> bool:
        """Store a result payload; False if it was already there (a duplicate)."""
        with self._lock:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r["table"], r["game"], r["started"], r["finished"], r["engine"], r["title"], r["variant"],
                 r["rounds"], r["actions"], r["reason"], json.dumps(r["players"], sort_keys=True), time.time()),
            )
            return cur.rowcount == 1

    def set_status(self, table: str, status: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO tables VALUES (?, ?, ?) ON CONFLICT(tbl) DO UPDATE SET status = excluded.status, "
                "received = excluded.received",
                (table, json.dumps(status, sort_keys=True), time.time()),
            )

    def status(self, table: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT status FROM tables WHERE tbl = ?", (table,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def statuses(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT tbl, status FROM tables ORDER BY tbl").fetchall()
        return {str(t): json.loads(s) for t, s in rows}

    def results(self, since: float = 0.0) -> list[dict[str, Any]]:
        """Results finished at or after ``since``, oldest first, as result payloads."""
        with self._lock:
            rows = self._db.execute(
                "SELECT tbl, game, started, finished, engine, title, variant, rounds, actions, reason, players, "
                "received FROM results WHERE finished >= ? ORDER BY finished, tbl, game",
                (since,),
            ).fetchall()
        return [
            {"table": r[0], "game": r[1], "started": r[2], "finished": r[3], "engine": r[4], "title": r[5],
             "variant": r[6], "rounds": r[7], "actions": r[8], "reason": r[9], "players": json.loads(r[10]),
             "received": r[11]}
            for r in rows
        ]
