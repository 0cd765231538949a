"""The SQLite journal: every action is written (and fsynced) before it takes effect.

One file holds many games. A game row stores what is needed to rebuild it (engine
name, setup, seed); action rows store each input in table time, in arrival order.
Resuming after a crash or a pulled plug is ``Session.replay`` over those rows.

Durability: WAL mode with ``synchronous=FULL`` makes each committed append survive
power loss. A damaged tail (an action row that does not decode, or one of a kind the
game does not know or from a station its setup does not have, as a torn write or a
hand-edited file could leave) is moved to the ``damaged`` table and logged; the game
resumes from the last good action instead of refusing to start.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from table.common.checks import load_json
from table.common.errors import TableError
from table.common.repeats import RepeatedLog
from table.games.base import Action, GameSetup, Outcome

log = logging.getLogger(__name__)
# A disk that fills and frees again, or a reader that keeps a checkpoint from running,
# would say so at every retry or every few dozen appends: said once a minute, counted.
_faults = RepeatedLog(log)

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


def _own_objects() -> dict[str, tuple[str, str | None]]:
    """What the table's schema puts in ``sqlite_master``: name -> (type, SQL as SQLite
    keeps it, whitespace folded), the indexes SQLite makes for the primary keys included."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        return {str(name): (str(kind), _folded(sql)) for kind, name, sql in
                db.execute("SELECT type, name, sql FROM sqlite_master")}
    finally:
        db.close()


def _folded(sql: object) -> str | None:
    return " ".join(str(sql).split()) if sql is not None else None


_OWN_OBJECTS = _own_objects()
_STATISTICS = frozenset({"sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4"})
"""Tables SQLite itself makes when somebody runs ``ANALYZE``: figures for its query
planner, never rows of games, so a journal may hold them."""


class JournalError(TableError):
    """The journal file cannot be used (not a journal, unreadable, wrong version, in use)."""


class JournalForeign(JournalError):
    """A table journal whose schema holds something the table never creates (a trigger,
    a view, an index or a table of somebody else's, or one of its own defined otherwise).

    Never used as it is: ``table replay`` and ``table play`` refuse it, the daemon sets it
    aside unchanged and starts a new journal (:mod:`table.play.journal_open`). ``what``
    says what it holds, without the file's name.
    """

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(f"{path} is not a journal as the table writes it ({what}), so it is not used; "
                         "it was not changed")
        self.what = what


class JournalBusy(JournalError):
    """Another table daemon holds the journal's lock, or another program keeps it locked."""


# SQLite's primary result codes that the journal tells apart (sqlite3.h).
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26


def sqlite_fault(exc: BaseException) -> str:
    """What kind of answer an SQLite error is: ``busy`` (another connection holds a
    lock: wait and retry), ``full`` (no space), ``readonly`` (file or folder not
    writable, or the file cannot be opened), ``io`` (the disk failed a read or write),
    ``corrupt`` (the file is damaged or not a database) or ``other``.

    Only ``corrupt`` is damage; the others are faults of the moment that clear.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        primary = code & 0xFF
        if primary in (_BUSY, _LOCKED):
            return "busy"
        if primary == _FULL:
            return "full"
        if primary in (_READONLY, _CANTOPEN):
            return "readonly"
        if primary == _IOERR:
            return "io"
        if primary in (_CORRUPT, _NOTADB):
            return "corrupt"
    text = str(exc).lower()
    for needle, kind in (("locked", "busy"), ("busy", "busy"), ("full", "full"), ("readonly", "readonly"),
                         ("read-only", "readonly"), ("unable to open", "readonly"), ("disk i/o", "io"),
                         ("malformed", "corrupt"), ("not a database", "corrupt")):
        if needle in text:
            return kind
    return "other"


FAULT_WORDS = {
    "busy": "another program keeps it locked",
    "full": "the disk is full",
    "readonly": "its folder or file is read-only",
    "io": "the disk reports an input/output error",
    "corrupt": "SQLite reports it damaged",
    "other": "SQLite refused the write",
}


def fault_sentence(kind: str) -> str:
    """The warning the display shows while the journal cannot be written."""
    return (f"the journal cannot be written ({FAULT_WORDS.get(kind, kind)}): "
            "this game will not survive a power cut")


@dataclass(frozen=True)
class GameRecord:
    """One journaled game: enough to rebuild it exactly."""

    id: int
    engine: str
    setup: GameSetup
    seed: int
    actions: tuple[Action, ...]
    finished: bool


def _ro_uri(path: Path) -> str:
    """A read-only SQLite URI for ``path`` (absolute, with URI characters quoted).

    A WAL journal read with plain ``mode=ro`` still gets ``-wal``/``-shm`` files made
    beside it. When they are not both there already (no daemon has it open), the file
    is read as ``immutable``: nothing at all is created or changed."""
    live = Path(str(path) + "-wal").exists() and Path(str(path) + "-shm").exists()
    return "file:" + quote(str(path.absolute())) + ("?mode=ro" if live else "?mode=ro&immutable=1")


class Journal:
    """An append-only journal in one SQLite file.

    ``append`` returns only after the row is committed with ``synchronous=FULL``,
    so the caller may then let the action take effect.

    A write that SQLite refuses for a reason of the moment (disk full, folder
    read-only, a lock held by another program, an I/O error) does not raise: the row
    is held in memory, ``fault`` says why (one sentence for the display), and every
    later write first retries the held rows (at most every ``retry_s`` seconds), in
    order. Once they are written the fault clears and the log says so. Rows still held
    at ``close`` are lost, and the log says how many.

    ``readonly=True`` opens the file with a ``mode=ro`` URI: nothing is ever written
    (``table replay``); the file must already be a table journal.
    """

    retry_s = 2.0
    checkpoint_every = 64  # appends between checkpoints: a lost -wal costs at most this many

    def __init__(self, path: str | Path, *, readonly: bool = False, busy_timeout_s: float = 0.2) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.fault: str | None = None
        self.fault_kind: str | None = None
        self._pending: list[tuple[str, tuple[object, ...]]] = []
        self._retry_at = 0.0
        self._since_checkpoint = 0
        self._lock_fd: int | None = None
        self._busy_timeout_s = busy_timeout_s
        self.start_report = ""  # what the daemon's opener found (games, actions, set aside)
        self._reconnect = False  # opened read-only for a fault: reconnect read-write to write
        try:
            if readonly:
                self._db = sqlite3.connect(_ro_uri(self.path), uri=True, isolation_level=None,
                                           check_same_thread=False, timeout=busy_timeout_s)
                try:
                    self._check_schema(create=False)
                except BaseException:
                    self._db.close()
                    raise
            else:
                if str(path) != ":memory:":
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = self._connect_rw()
            self._next_id = int(self._db.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            kind = sqlite_fault(exc)
            if kind in ("busy", "full", "readonly", "io"):
                raise JournalFault(kind, f"the journal {path} cannot be opened: {FAULT_WORDS[kind]} ({exc})") from None
            raise JournalError(f"{path} is not a usable table journal ({exc})") from None
        except OSError as exc:
            raise JournalError(f"cannot open the journal {path} ({exc.strerror or exc})") from None

    def _connect_rw(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                             timeout=self._busy_timeout_s)
        old = getattr(self, "_db", None)
        try:
            self._db = db
            self._check_schema(create=True)
        except BaseException:
            db.close()
            if old is not None:
                self._db = old
            raise
        return db

    def hold_writes(self, kind: str) -> None:
        """Switch to holding writes (the connection is read-only or in memory because of
        fault ``kind``); each retry first reconnects read-write."""
        self.readonly = False
        self._reconnect = True
        self.fault_kind = kind
        self.fault = fault_sentence(kind)
        self._retry_at = time.monotonic() + self.retry_s

    def _check_schema(self, create: bool) -> None:
        """Refuse another program's SQLite file or a newer schema *before* writing anything."""
        tables = {str(r[0]) for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "meta" not in tables:
            raise JournalError(f"{self.path} is another program's SQLite file, not a table journal "
                               f"(it has no 'meta' table); it was not changed")
        if "meta" in tables:
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is not None and row[0] != str(SCHEMA_VERSION):
                raise JournalError(f"{self.path} is a journal of schema {row[0]}, this table reads "
                                   f"{SCHEMA_VERSION}; it was not changed")
        objects = dict(self._db.execute("SELECT name, type FROM sqlite_master"))
        odd = [n for n in ("meta", "games", "actions", "damaged") if objects.get(n, "table") != "table"]
        if odd:
            if "meta" in tables:  # the table's own file with something else in its place
                raise JournalForeign(self.path, f"'{odd[0]}' is a {objects[odd[0]]}, not a table")
            raise JournalError(f"{self.path} is not a table journal ('{odd[0]}' is a {objects[odd[0]]}, "
                               "not a table); it was not changed")
        self._check_objects()
        if not create:
            if "games" not in tables:
                raise JournalError(f"{self.path} is not a table journal (it holds no games table)")
            self._check_columns()
            return
        mode = self._db.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        if not {"meta", "games", "actions", "damaged"} <= tables:
            self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        self._check_columns()

    def _check_objects(self) -> None:
        """Refuse a journal whose schema holds anything the table did not create.

        A trigger could delete each action as it is appended (a whole game journaled as
        nothing), a view or an index of somebody else's could change what is read: so
        every object in ``sqlite_master`` must be one of the table's own, with the SQL
        the table gives it. Objects the table would still create may be missing.
        """
        rows = self._db.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
        for kind, name, sql in rows:
            if str(name) in _STATISTICS:
                continue
            own = _OWN_OBJECTS.get(str(name))
            if own is None:
                raise JournalForeign(self.path, f"it holds the {kind} '{name}', which the table never creates")
            if own != (str(kind), _folded(sql)):
                raise JournalForeign(self.path, f"its {kind} '{name}' is not defined the way the table defines it")

    def _check_columns(self) -> None:
        try:
            self._db.execute("SELECT id, engine, setup, seed, started, finished, outcome FROM games LIMIT 0")
            self._db.execute("SELECT game, seq, action FROM actions LIMIT 0")
        except sqlite3.OperationalError as exc:
            if sqlite_fault(exc) != "other":
                raise
            raise JournalError(f"{self.path} is not a table journal (its tables differ: {exc})") from None

    @classmethod
    def open_readonly(cls, path: str | Path) -> Journal:
        """Open an existing journal for reading only (``mode=ro``): a regular file that
        is a table journal, or a one-sentence :class:`JournalError`."""
        p = Path(path)
        check_regular_file(p, "journal")
        with p.open("rb") as fh:
            head = fh.read(16)
        if not head:
            raise JournalError(f"{p} is empty, not a table journal")
        if not head.startswith(b"SQLite format 3\0"):
            raise JournalError(f"{p} is not a table journal (not an SQLite file)")
        return cls(p, readonly=True)

    def close(self) -> None:
        """Write what is held if the fault has cleared, checkpoint the WAL into the
        main file (so the ``-wal`` holds nothing a reader needs), close, unlock."""
        if not self.readonly:
            self._flush(force=True)
            if self._pending:
                log.error("journal %s: %d write(s) could not be made (%s) and are lost with this stop",
                          self.path, len(self._pending), FAULT_WORDS.get(self.fault_kind or "other"))
            self.checkpoint()
        self._db.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ----------------------------------------------------------------------
    @property
    def held(self) -> int:
        """How many writes are held in memory because the journal cannot be written."""
        return len(self._pending)

    def _write(self, sql: str, params: tuple[object, ...]) -> None:
        if self.readonly:
            raise JournalError(f"{self.path} is open read-only")
        self._pending.append((sql, params))
        self._flush()

    def _flush(self, force: bool = False) -> bool:
        """Write the held rows in one transaction; False (and ``fault`` set) if SQLite refuses."""
        if not self._pending:
            return True
        if self.fault is not None and not force and time.monotonic() < self._retry_at:
            return False
        try:
            if self._reconnect:
                old = self._db
                self._db = self._connect_rw()
                old.close()
                self._reconnect = False
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in self._pending:
                    self._db.execute(sql, params)
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        except (sqlite3.Error, JournalError) as exc:
            kind = sqlite_fault(exc) if isinstance(exc, sqlite3.Error) else getattr(exc, "kind", "other")
            self._retry_at = time.monotonic() + self.retry_s
            if self.fault_kind != kind:
                _faults.error("journal %s: %s (%s); the game goes on from memory and the write is retried",
                              self.path, fault_sentence(kind), exc, key=(str(self.path), "fault", kind))
            self.fault_kind = kind
            self.fault = fault_sentence(kind)
            return False
        written = len(self._pending)
        self._pending.clear()
        if self.fault is not None:
            _faults.warning("journal %s is written again: %d held write(s) saved", self.path, written,
                            key=(str(self.path), "written again"))
            self.fault = self.fault_kind = None
        return True

    def retry(self) -> bool:
        """Try the held writes again (at most every ``retry_s``); True when none are held."""
        return self._flush()

    def checkpoint(self) -> bool:
        """Copy the WAL into the main file and empty it (``wal_checkpoint(TRUNCATE)``).

        After this, deleting or damaging the ``-wal`` loses nothing written so far.
        Called when a game ends, when one starts, every ``checkpoint_every`` appends and
        on close. False (logged) when it could not run to the end, e.g. on a full disk.
        """
        if self.readonly or self._pending or self._reconnect:
            return False
        self._since_checkpoint = 0
        try:
            busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as exc:
            _faults.warning("journal %s: the checkpoint failed (%s); the games stay in the -wal for now", self.path,
                            exc, key=(str(self.path), "checkpoint"))
            return False
        return not (busy and busy[0])

    def start_game(self, setup: GameSetup, seed: int, wall_time: float | None = None) -> int:
        """Record a new game and return its id (numbered here, so a held write keeps it)."""
        game = self._next_id
        self._next_id += 1
        self._write(
            "INSERT INTO games (id, engine, setup, seed, started) VALUES (?, ?, ?, ?, ?)",
            (game, setup.game, json.dumps(setup.to_json()), seed,
             wall_time if wall_time is not None else time.time()),
        )
        self.checkpoint()
        return game

    def append(self, game: int, seq: int, action: Action) -> None:
        """Durably store ``action`` as number ``seq`` of ``game`` (0-based, no gaps);
        held in memory instead while the journal cannot be written (see ``fault``)."""
        self._write(
            "INSERT INTO actions (game, seq, action) VALUES (?, ?, ?)",
            (game, seq, json.dumps(action.to_json(), separators=(",", ":"))),
        )
        self._since_checkpoint += 1
        if self._since_checkpoint >= self.checkpoint_every:
            self.checkpoint()

    def finish(self, game: int, outcome: Outcome | None, wall_time: float | None = None) -> None:
        """Mark ``game`` as finished so it is not resumed, and checkpoint: a finished game
        lives in the main file, not only in the ``-wal``."""
        self._write(
            "UPDATE games SET finished = ?, outcome = ? WHERE id = ?",
            (
                wall_time if wall_time is not None else time.time(),
                json.dumps(outcome.to_json()) if outcome else None,
                game,
            ),
        )
        self.checkpoint()

    def counts(self) -> tuple[int, int, int]:
        """(games, finished games, actions) in the file."""
        g, f = self._db.execute("SELECT count(*), count(finished) FROM games").fetchone()
        a = self._db.execute("SELECT count(*) FROM actions").fetchone()[0]
        return int(g), int(f), int(a)

    # -- reading ----------------------------------------------------------------------
    def unfinished_id(self) -> int | None:
        """The number of the most recent unfinished game, without reading it."""
        row = self._db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else int(row[0])

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
        """Read one game; a damaged tail is set aside (and logged), never fatal. Opened
        read-only, rows that decode are all returned: ``Session.replay`` refuses one
        the game cannot have (``table replay`` says which)."""
        row = self._db.execute(
            "SELECT engine, setup, seed, finished FROM games WHERE id = ?", (game,)
        ).fetchone()
        if row is None:
            raise JournalError(f"{self.path} has no game number {game}")
        try:
            setup = GameSetup.from_json(load_json(str(row[1])))  # bounded: no nest exhausts the parser
            seed = int(row[2])
        except (ValueError, TypeError) as exc:
            raise JournalError(f"{self.path}: game {game} has an unreadable setup ({exc})") from None
        actions: list[Action] = []
        bad_from: int | None = None
        why = ""
        # Writing (the daemon): a row the game cannot have is damage like a row that does not
        # decode. Read-only (``table replay``) it is kept, and the replay refuses it by name.
        check = None if self.readonly else _row_check(str(row[0]), setup)
        for expected, (seq, text) in enumerate(self._rows(game)):
            if seq != expected:
                bad_from = expected
                break
            try:
                action = Action.from_json(load_json(text))
            except (ValueError, TypeError):
                bad_from = seq
                break
            problem = check(action) if check is not None else None
            if problem is not None:
                bad_from, why = seq, problem
                break
            actions.append(action)
        if bad_from is not None:
            self._set_aside(game, bad_from, why)
        return GameRecord(game, str(row[0]), setup, seed, tuple(actions), row[3] is not None)

    def _rows(self, game: int) -> Iterator[tuple[int, str]]:
        for seq, text in self._db.execute("SELECT seq, action FROM actions WHERE game = ? ORDER BY seq", (game,)):
            yield int(seq), str(text) if text is not None else ""

    def _set_aside(self, game: int, from_seq: int, why: str = "") -> None:
        because = f" ({why})" if why else ""
        if self.readonly or self._pending or self._reconnect:
            log.warning("journal %s: game %d has a damaged tail from action %d%s (left as it is)",
                        self.path, game, from_seq, because)
            return
        now = time.time()
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO damaged SELECT game, seq, action, ? FROM actions WHERE game = ? AND seq >= ?",
                (now, game, from_seq),
            )
            n = self._db.execute("DELETE FROM actions WHERE game = ? AND seq >= ?", (game, from_seq)).rowcount
        log.warning(
            "journal %s: game %d had a damaged tail from action %d%s; %d row(s) set aside in table 'damaged'",
            self.path, game, from_seq, because, n,
        )


def _row_check(engine: str, setup: GameSetup) -> Callable[[Action], str | None] | None:
    """What is wrong with a row of a game of ``engine`` (see
    :func:`table.play.session.action_problem`); None when the game or its setup is not
    this build's: replaying it fails as a whole then, and says so."""
    from table.games import get_engine
    from table.games.base import GameError, check_setup
    from table.play.session import action_problem

    try:
        found = get_engine(engine)
        check_setup(found, setup)
    except GameError:
        return None
    return lambda action: action_problem(found, setup, action)


def open_existing(path: str | Path) -> Journal:
    """Open a journal that must already exist, read-only (for ``table replay``)."""
    return Journal.open_readonly(path)


class JournalFault(JournalError):
    """SQLite cannot use the journal for a reason of the moment (``kind``: busy, full,
    readonly, io); not damage."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFIFO: "a named pipe (FIFO)", stat.S_IFSOCK: "a socket", stat.S_IFLNK: "a symbolic link"}


def check_regular_file(path: Path, what: str, *, follow: bool = True) -> os.stat_result:
    """The file's status if ``path`` is an existing regular file, else a one-sentence
    :class:`JournalError` (``follow=False``: a symbolic link is refused too)."""
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        raise JournalError(f"there is no {what} file at {path}") from None
    except OSError as exc:
        raise JournalError(f"cannot read the {what} {path} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
        raise JournalError(f"{path} is {kind}, not a {what} file")
    return st
