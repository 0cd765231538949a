"""The SQLite journal: every action is written (and fsynced) before it takes effect.

One file holds many games. A game row stores what is needed to rebuild it (engine
name, setup, seed); action rows store each input in table time, in arrival order.
Resuming after a crash or a pulled plug is ``Session.replay`` over those rows.

Durability: WAL mode with ``synchronous=FULL`` makes each committed append survive
power loss. A damaged tail (an action row that does not decode, as a torn write or
a hand-edited file could leave) is moved to the ``damaged`` table and logged; the
game resumes from the last good action instead of refusing to start.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from table.errors import TableError
from table.games.base import Action, GameSetup, Outcome

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    engine TEXT NOT NULL,
    setup TEXT NOT NULL,
    seed INTEGER NOT NULL,
    started REAL NOT NULL,
    finished REAL,
    outcome TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    game INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE TABLE IF NOT EXISTS damaged (
    game INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    action TEXT,
    set_aside REAL NOT NULL
);
"""


class JournalError(TableError):
    """The journal file cannot be used (not a journal, unreadable, wrong version)."""


@dataclass(frozen=True)
class GameRecord:
    """One journaled game: enough to rebuild it exactly."""

    id: int
    engine: str
    setup: GameSetup
    seed: int
    actions: tuple[Action, ...]
    finished: bool


class Journal:
    """An append-only journal in one SQLite file.

    ``append`` returns only after the row is committed with ``synchronous=FULL``,
    so the caller may then let the action take effect.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise JournalError(f"{path} is a journal of schema {row[0]}, this table reads {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{path} is not a usable table journal ({exc})") from None
        except OSError as exc:
            raise JournalError(f"cannot open the journal {path} ({exc.strerror or exc})") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ----------------------------------------------------------------------
    def start_game(self, setup: GameSetup, seed: int, wall_time: float | None = None) -> int:
        """Record a new game and return its id."""
        cur = self._db.execute(
            "INSERT INTO games (engine, setup, seed, started) VALUES (?, ?, ?, ?)",
            (setup.game, json.dumps(setup.to_json()), seed, wall_time if wall_time is not None else time.time()),
        )
        assert cur.lastrowid is not None
        return int(cur.lastrowid)

    def append(self, game: int, seq: int, action: Action) -> None:
        """Durably store ``action`` as number ``seq`` of ``game`` (0-based, no gaps)."""
        self._db.execute(
            "INSERT INTO actions (game, seq, action) VALUES (?, ?, ?)",
            (game, seq, json.dumps(action.to_json(), separators=(",", ":"))),
        )

    def finish(self, game: int, outcome: Outcome | None, wall_time: float | None = None) -> None:
        """Mark ``game`` as finished so it is not resumed."""
        self._db.execute(
            "UPDATE games SET finished = ?, outcome = ? WHERE id = ?",
            (
                wall_time if wall_time is not None else time.time(),
                json.dumps(outcome.to_json()) if outcome else None,
                game,
            ),
        )

    # -- reading ----------------------------------------------------------------------
    def game_ids(self) -> list[int]:
        return [int(r[0]) for r in self._db.execute("SELECT id FROM games ORDER BY id")]

    def unfinished(self) -> GameRecord | None:
        """The most recent game not marked finished, if any (what a restart resumes)."""
        row = self._db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else self.load(int(row[0]))

    def latest(self) -> GameRecord | None:
        row = self._db.execute("SELECT id FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else self.load(int(row[0]))

    def load(self, game: int) -> GameRecord:
        """Read one game; a damaged tail is set aside (and logged), never fatal."""
        row = self._db.execute(
            "SELECT engine, setup, seed, finished FROM games WHERE id = ?", (game,)
        ).fetchone()
        if row is None:
            raise JournalError(f"{self.path} has no game number {game}")
        try:
            setup = GameSetup.from_json(json.loads(row[1]))
            seed = int(row[2])
        except (ValueError, TypeError) as exc:
            raise JournalError(f"{self.path}: game {game} has an unreadable setup ({exc})") from None
        actions: list[Action] = []
        bad_from: int | None = None
        for expected, (seq, text) in enumerate(self._rows(game)):
            if seq != expected:
                bad_from = expected
                break
            try:
                actions.append(Action.from_json(json.loads(text)))
            except (ValueError, TypeError):
                bad_from = seq
                break
        if bad_from is not None:
            self._set_aside(game, bad_from)
        return GameRecord(game, str(row[0]), setup, seed, tuple(actions), row[3] is not None)

    def _rows(self, game: int) -> Iterator[tuple[int, str]]:
        for seq, text in self._db.execute("SELECT seq, action FROM actions WHERE game = ? ORDER BY seq", (game,)):
            yield int(seq), str(text) if text is not None else ""

    def _set_aside(self, game: int, from_seq: int) -> None:
        now = time.time()
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO damaged SELECT game, seq, action, ? FROM actions WHERE game = ? AND seq >= ?",
                (now, game, from_seq),
            )
            n = self._db.execute("DELETE FROM actions WHERE game = ? AND seq >= ?", (game, from_seq)).rowcount
        log.warning(
            "journal %s: game %d had a damaged tail from action %d; %d row(s) set aside in table 'damaged'",
            self.path, game, from_seq, n,
        )


def open_existing(path: str | Path) -> Journal:
    """Open a journal that must already exist (for ``table replay``)."""
    p = Path(path)
    if not p.is_file():
        raise JournalError(f"there is no journal file at {p}")
    with p.open("rb") as fh:
        head = fh.read(16)
    if head and not head.startswith(b"SQLite format 3"):
        raise JournalError(f"{p} is not a table journal (not an SQLite file)")
    return Journal(p)
