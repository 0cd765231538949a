"""The venue's own SQLite file: the evening's results and every table's last status.

A result's identity is its table, its game number and its journal (the ``journal``
field: the start time of the journal's first game, which names the journal however
a game's own times are stamped). A second delivery of a result (QoS 1 after a
reconnect, the relay's republish, a retained copy, an import from the table's
journal) changes nothing, and neither does the same game with other times (a result
re-stamped): :meth:`VenueStore.take_result` says which of the two it was. A result
without ``journal`` (from an older relay) is the same game as a stored one of its
table and number whose play overlaps it, each play taken as at least
:data:`SAME_PLAY_S` long: a table plays one game at a time, and a journal started
afresh begins after a restart of the table, which takes longer than that.

Rows that break the contract's bounds (stored before they existed, or written by
something else) are moved to ``set_aside`` by :meth:`VenueStore.set_aside`, with
the reason, and never served. The file can always be rebuilt: delete it
and start ``table venue`` (the broker's retained results come back), or import the
tables' journals with ``table venue --import TABLE=JOURNAL``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SAME_PLAY_S = 1.0
"""Without a journal identity, results of one table and number whose plays come this
close (in seconds) are one game: a re-stamped copy of a game shorter than the shift."""

AGAIN = "a second delivery of a result the venue holds"
RESTAMPED = "a result the venue holds, stamped with other times (the same table, journal and game)"

# Says why a stored payload may not be served (None: it may).
Problem = Callable[[dict[str, Any]], "str | None"]

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
    ended TEXT NOT NULL DEFAULT '',
    journal REAL,
    PRIMARY KEY (tbl, game, started)
);
CREATE TABLE IF NOT EXISTS tables (
    tbl TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    received REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS set_aside (
    kind TEXT NOT NULL,
    tbl TEXT,
    body TEXT NOT NULL,
    reason TEXT NOT NULL,
    at REAL NOT NULL
);
"""

_RESULT_COLUMNS = ("tbl, game, started, finished, engine, title, variant, rounds, actions, reason, players, "
                   "received, ended, journal")


def same_game(a: tuple[float, float, float | None], b: tuple[float, float, float | None]) -> bool:
    """Whether two results of one table and game number, as ``(started, finished, journal)``,
    are one game (see the module docstring)."""
    if a[2] is not None and b[2] is not None:
        return bool(a[2] == b[2])
    return a[0] <= b[1] + SAME_PLAY_S and b[0] <= a[1] + SAME_PLAY_S


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
        columns = {str(row[1]) for row in self._db.execute("PRAGMA table_info(results)")}
        if "ended" not in columns:
            # A file from before games could end early: every result in it was played out.
            self._db.execute("ALTER TABLE results ADD COLUMN ended TEXT NOT NULL DEFAULT ''")
        if "journal" not in columns:
            # A file from before results named their journal: those are matched by their play.
            self._db.execute("ALTER TABLE results ADD COLUMN journal REAL")
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add_result(self, r: dict[str, Any]) -> bool:
        """Store a result payload; False if it was already there (see :meth:`take_result`)."""
        return self.take_result(r) is None

    def take_result(self, r: dict[str, Any]) -> str | None:
        """Store a result payload; or say why not: :data:`AGAIN` or :data:`RESTAMPED`
        (the same game, see the module docstring)."""
        new = (float(r["started"]), float(r["finished"]), r.get("journal"))
        with self._lock:
            for started, finished, journal in self._db.execute(
                    "SELECT started, finished, journal FROM results WHERE tbl = ? AND game = ?",
                    (r["table"], r["game"])).fetchall():
                if same_game((started, finished, journal), new):
                    return AGAIN if (started, finished) == new[:2] else RESTAMPED
            cur = self._db.execute(
                f"INSERT OR IGNORE INTO results ({_RESULT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r["table"], r["game"], r["started"], r["finished"], r["engine"], r["title"], r["variant"],
                 r["rounds"], r["actions"], r["reason"], json.dumps(r["players"], sort_keys=True), time.time(),
                 r.get("ended", ""), r.get("journal")),
            )
            return None if cur.rowcount == 1 else AGAIN

    def held_games(self, table: str, games: list[int], journal: float | None) -> set[int]:
        """Which of ``games`` the file holds a result of, for ``table`` and ``journal``
        (results that name no journal count for every journal)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT DISTINCT game FROM results WHERE tbl = ? AND game IN ({','.join('?' * len(games))}) "
                "AND (journal IS NULL OR ? IS NULL OR journal = ?)", (table, *games, journal, journal)).fetchall()
        return {int(r[0]) for r in rows}

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
                f"SELECT {_RESULT_COLUMNS} FROM results WHERE finished >= ? ORDER BY finished, tbl, game",
                (since,),
            ).fetchall()
        return [_result(r) for r in rows]

    def set_aside(self, result_problem: Problem, status_problem: Problem) -> int:
        """Move the stored results and statuses that may not be served to ``set_aside``.

        A result is set aside when ``result_problem`` names a reason (its payload as a
        table sent it, rebuilt from the row) or when it repeats an earlier-received
        result of the same game (overlapping play); a status when ``status_problem``
        does. Returns how many rows were moved.
        """
        moved = 0
        now = time.time()
        with self._lock:
            rows = self._db.execute(
                f"SELECT rowid, {_RESULT_COLUMNS} FROM results ORDER BY received, rowid").fetchall()
            kept: dict[tuple[Any, Any], list[tuple[float, float, float | None]]] = {}
            for row in rows:
                reason = _stored_result_problem(row[1:], result_problem)
                if reason is None:
                    plays = kept.setdefault((row[1], row[2]), [])
                    play = (float(row[3]), float(row[4]), None if row[14] is None else float(row[14]))
                    if any(same_game(p, play) for p in plays):
                        reason = "the same game as a result received before it (re-stamped)"
                    else:
                        plays.append(play)
                if reason is not None:
                    body = json.dumps([_text(v) for v in row[1:]])
                    self._db.execute("INSERT INTO set_aside VALUES ('result', ?, ?, ?, ?)",
                                     (_text(row[1]), body, reason, now))
                    self._db.execute("DELETE FROM results WHERE rowid = ?", (row[0],))
                    moved += 1
            for tbl, text in self._db.execute("SELECT tbl, status FROM tables").fetchall():
                try:
                    status = json.loads(text)
                    reason = status_problem(status) if isinstance(status, dict) else "not a JSON object"
                except ValueError as exc:
                    reason = f"not JSON ({exc})"
                if reason is not None:
                    self._db.execute("INSERT INTO set_aside VALUES ('status', ?, ?, ?, ?)",
                                     (_text(tbl), _text(text), reason, now))
                    self._db.execute("DELETE FROM tables WHERE tbl = ?", (tbl,))
                    moved += 1
        return moved

    def set_aside_rows(self) -> list[dict[str, Any]]:
        """What :meth:`set_aside` moved, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT kind, tbl, body, reason, at FROM set_aside ORDER BY rowid").fetchall()
        return [{"kind": k, "table": t, "body": b, "reason": r, "at": a} for k, t, b, r, a in rows]


def _result(r: tuple[Any, ...]) -> dict[str, Any]:
    out = {"table": r[0], "game": r[1], "started": r[2], "finished": r[3], "engine": r[4], "title": r[5],
           "variant": r[6], "rounds": r[7], "actions": r[8], "reason": r[9], "players": json.loads(r[10]),
           "received": r[11]}
    if r[12]:
        out["ended"] = r[12]  # only when the game was ended early, as the table sent it
    if r[13] is not None:
        out["journal"] = r[13]
    return out


def _stored_result_problem(row: tuple[Any, ...], problem: Problem) -> str | None:
    """Why a stored result row may not be served: unreadable, or ``problem`` of its payload."""
    try:
        r = _result(row)
    except (ValueError, TypeError) as exc:
        return f"its players are not JSON ({exc})"
    payload = {k: v for k, v in r.items() if k != "received"}
    payload = {"v": 1, "type": "result", **payload}
    try:
        return problem(payload)
    except Exception as exc:  # a row that breaks the check itself is set aside too
        return f"cannot be checked ({type(exc).__name__}: {exc})"


def _text(value: object) -> str:
    """A stored value as text for ``set_aside`` (bytes and other odd types included)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)
