"""Opening the daemon's journal so that faults are not mistaken for damage.

:func:`open_daemon_journal` is what ``table run`` and the scripted daemon call. In order:

1. The path must be a regular file or not exist yet; a folder, a device, a FIFO or a
   symbolic link is refused with one sentence and never renamed. A missing folder is
   created only for the table's own default place, never for a ``--journal`` given.
2. One daemon per journal: an advisory lock (``fcntl.flock``) on ``<journal>.lock``
   beside it. A second daemon is refused with one sentence; the kernel drops the lock
   when the holder dies, even by SIGKILL.
3. A regular file that is not an SQLite file is somebody else's: refused, untouched.
4. A ``-wal`` whose header or frames fail their checksums (:func:`check_wal`) is copied
   aside with the main file and the ``-shm`` before SQLite opens (and then ignores) it.
5. SQLite's answers are told apart (:func:`table.play.journal.sqlite_fault`): a lock held by
   another program is waited for, with a message, up to ``wait_s``; a full disk or a
   read-only folder opens the journal read-only so the unfinished game still resumes,
   and writes are held in memory until they can be made (``Journal.fault``); only a
   file that SQLite reports corrupt (``PRAGMA quick_check``, or an open that says
   "malformed"/"not a database" for an SQLite file) is renamed aside, and whatever
   games can still be read from it are copied into the new journal.
   With ``foreign="aside"`` (the daemon's choice), a table journal whose schema holds
   something the table never creates (:class:`table.play.journal.JournalForeign`: a
   trigger, a view, an index or a table of somebody else's) is renamed aside unchanged
   as ``<name>.foreign-<UTC time>`` and a new journal is started: nothing of it is used,
   nothing in it is deleted. ``table play`` keeps the default, ``"refuse"``.
6. The log (and ``Journal.start_report``) says how many games and actions the journal
   holds and what was set aside.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import struct
import time
from collections.abc import Callable
from pathlib import Path

from table.play.journal import (
    FAULT_WORDS,
    Journal,
    JournalBusy,
    JournalError,
    JournalFault,
    JournalForeign,
    _ro_uri,
    check_regular_file,
    fault_sentence,
    sqlite_fault,
)

log = logging.getLogger(__name__)

SQLITE_MAGIC = b"SQLite format 3\0"
WAL_MAGIC = (0x377F0682, 0x377F0683)


# -- the -wal file --------------------------------------------------------------------------
def _wal_checksum(data: bytes, big_endian: bool, s0: int, s1: int) -> tuple[int, int]:
    words = struct.unpack((">" if big_endian else "<") + f"{len(data) // 4}I", data)
    mask = 0xFFFFFFFF
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & mask
        s1 = (s1 + words[i + 1] + s0) & mask
    return s0, s1


def check_wal(path: Path) -> str | None:
    """None if the ``-wal`` at ``path`` is sound, else what is wrong with it.

    Sound means: a valid header (magic, version, checksum), and no frame of the current
    WAL generation (same salts as the header) after the first frame whose checksum
    fails that belongs to a committed transaction. Frames of an older generation (other
    salts) are normal leftovers, and a torn, uncommitted last transaction is what a
    power cut during a write leaves: SQLite drops both, rightly.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not data:
        return None
    if len(data) < 32:
        return f"is {len(data)} bytes long, shorter than a WAL header"
    magic, version, page_size, _, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:32])
    if magic not in WAL_MAGIC or version != 3007000 or page_size < 512 or page_size & (page_size - 1):
        return "has a damaged header"
    big = bool(magic & 1)
    s = _wal_checksum(data[:24], big, 0, 0)
    if s != (c1, c2):
        return "has a damaged header (checksum)"
    frame = 24 + page_size
    offset = 32
    good = True
    valid_commits = lost_commits = 0
    while offset + frame <= len(data):
        head = data[offset: offset + 24]
        _, commit_size, fs1, fs2, fc1, fc2 = struct.unpack(">6I", head)
        same_generation = (fs1, fs2) == (salt1, salt2)
        if good:
            if not same_generation:
                good = False
            else:
                s = _wal_checksum(head[:8], big, *s)
                s = _wal_checksum(data[offset + 24: offset + frame], big, *s)
                if s != (fc1, fc2):
                    good = False
                elif commit_size:
                    valid_commits += 1
        if not good and same_generation and commit_size:
            lost_commits += 1
        offset += frame
    if lost_commits:
        return (f"has {lost_commits} committed transaction(s) after a frame that fails its checksum "
                f"({valid_commits} before it are intact)")
    return None


def _first_frame_ok(header: bytes, frame: bytes, page_size: int) -> bool:
    magic, _, _, _, salt1, salt2, c1, c2 = struct.unpack(">8I", header[:32])
    big = bool(magic & 1)
    if len(frame) < 24 + page_size:
        return False
    _, _, fs1, fs2, fc1, fc2 = struct.unpack(">6I", frame[:24])
    if (fs1, fs2) != (salt1, salt2):
        return False
    s = _wal_checksum(frame[:8], big, c1, c2)
    return _wal_checksum(frame[24: 24 + page_size], big, *s) == (fc1, fc2)


def repair_wal_header(path: Path) -> bool:
    """Mend a ``-wal`` header with one wrong byte, in place; True if it was mended.

    SQLite drops the whole WAL when its header fails, though every frame after it may be
    intact. One changed byte is found by trying each position and value until the
    header's checksum matches again *and* the first frame, which chains its checksum
    from the header's, checks out too; a wrong byte in the checksum itself is found by
    recomputing it. Anything else is left alone (the caller keeps a copy either way).
    """
    try:
        data = bytearray(path.read_bytes())
    except OSError:
        return False
    if len(data) < 32:
        return False
    header = bytes(data[:32])
    for candidate in _header_candidates(header):
        page_size = struct.unpack(">I", candidate[8:12])[0]
        if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
            continue
        if _first_frame_ok(candidate, bytes(data[32: 32 + 24 + page_size]), page_size):
            data[:32] = candidate
            with path.open("r+b") as fh:
                fh.write(candidate)
                fh.flush()
                os.fsync(fh.fileno())
            return True
    return False


def _header_candidates(header: bytes) -> list[bytes]:
    out = []
    magic = struct.unpack(">I", header[:4])[0]
    # The checksum bytes themselves were hit: recompute from the first 24 bytes.
    if magic in WAL_MAGIC:
        c = _wal_checksum(header[:24], bool(magic & 1), 0, 0)
        out.append(header[:24] + struct.pack(">II", *c))
    stored = struct.unpack(">II", header[24:32])
    for i in range(24):
        for v in range(256):
            if v == header[i]:
                continue
            cand = header[:i] + bytes([v]) + header[i + 1: 24]
            m = struct.unpack(">I", cand[:4])[0]
            if m not in WAL_MAGIC or struct.unpack(">I", cand[4:8])[0] != 3007000:
                continue
            if _wal_checksum(cand, bool(m & 1), 0, 0) == stored:
                out.append(cand + header[24:32])
    return out


# -- setting a damaged journal aside -----------------------------------------------------------
def _aside_name(p: Path, kind: str = "damaged") -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = p.with_name(f"{p.name}.{kind}-{stamp}")
    n = 1
    while os.path.lexists(aside):
        n += 1
        aside = p.with_name(f"{p.name}.{kind}-{stamp}-{n}")
    return aside


def _companions(p: Path) -> list[tuple[str, Path]]:
    """The journal and its ``-wal``/``-shm`` that exist and are regular files."""
    out = []
    for suffix in ("", "-wal", "-shm"):
        f = Path(str(p) + suffix)
        try:
            check_regular_file(f, "journal", follow=False)
        except JournalError:
            continue
        out.append((suffix, f))
    return out


def copy_aside(p: Path) -> Path:
    """Copy the journal with its ``-wal`` and ``-shm`` to ``<name>.damaged-<UTC time>``."""
    import shutil  # only for a damaged journal: not with every start

    aside = _aside_name(p)
    for suffix, f in _companions(p):
        shutil.copy2(f, Path(str(aside) + suffix))
    return aside


def move_aside(p: Path, kind: str = "damaged") -> Path:
    """Rename the journal (a regular file only) with its ``-wal``/``-shm`` to ``<name>.<kind>-<UTC time>``."""
    aside = _aside_name(p, kind)
    for suffix, f in _companions(p):
        os.replace(f, Path(str(aside) + suffix))
    return aside


def _readable_copy(aside: Path, folder: Path) -> Path | None:
    """A copy of the set-aside file padded with zero pages up to the size its header
    states: a file cut short then reads up to the cut instead of failing as a whole."""
    try:
        data = aside.read_bytes()
    except OSError:
        return None
    if len(data) < 100 or not data.startswith(SQLITE_MAGIC):
        return None
    page_size = struct.unpack(">H", data[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    pages = struct.unpack(">I", data[28:32])[0]
    want = page_size * pages if 0 < pages < (1 << 22) else len(data)
    copy = folder / "salvage.db"
    copy.write_bytes(data + bytes(max(0, want - len(data))))
    return copy


def salvage(aside: Path, into: Journal) -> tuple[int, int]:
    """Copy every game that can still be read from the set-aside file into ``into``;
    returns (games, actions) copied. Rows are read one by one, so an unreadable page
    costs only the rows on it (a gap in a game's actions is then set aside as its
    damaged tail when the game is loaded)."""
    import tempfile  # only for a damaged journal: not with every start

    with tempfile.TemporaryDirectory(prefix="table-salvage-") as tmp:
        copy = _readable_copy(aside, Path(tmp))
        if copy is None:
            return 0, 0
        try:
            src = sqlite3.connect(_ro_uri(copy), uri=True)
        except sqlite3.Error:
            return 0, 0
        try:
            return _salvage_rows(src, into)
        finally:
            src.close()


def _salvage_rows(src: sqlite3.Connection, into: Journal) -> tuple[int, int]:
    games: dict[int, tuple[object, ...]] = {}
    try:
        top = int(src.execute("SELECT coalesce(max(rowid), 0) FROM games").fetchone()[0])
    except sqlite3.Error:
        top = 10_000
    for gid in range(1, top + 1):
        try:
            row = src.execute("SELECT engine, setup, seed, started, finished, outcome FROM games WHERE rowid = ?",
                              (gid,)).fetchone()
        except sqlite3.Error:
            continue
        if row is not None:
            games[gid] = tuple(row)
    rows: list[tuple[int, int, str]] = []
    try:
        pages = int(src.execute("PRAGMA page_count").fetchone()[0])
    except sqlite3.Error:
        pages = 0
    limit, missing, rowid = pages * 200, 0, 0
    while rowid < limit and missing < 5000:
        rowid += 1
        try:
            row = src.execute("SELECT game, seq, action FROM actions WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.Error:
            missing += 1
            continue
        if row is None:
            missing += 1
            continue
        missing = 0
        if row[0] in games:
            rows.append((int(row[0]), int(row[1]), str(row[2])))
    kept_games = 0
    with into._db:
        into._db.execute("BEGIN")
        for gid, g in games.items():
            into._db.execute("INSERT INTO games (id, engine, setup, seed, started, finished, outcome) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)", (gid, *g))
            kept_games += 1
        into._db.executemany("INSERT OR IGNORE INTO actions (game, seq, action) VALUES (?, ?, ?)", rows)
    into._next_id = int(into._db.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0])
    into.checkpoint()
    return kept_games, len(rows)


# -- the lock -------------------------------------------------------------------------------
def lock_journal(p: Path) -> int:
    """Take the one-daemon-per-journal lock; returns the file descriptor holding it.

    The lock lives on ``<journal>.lock``; where that cannot be made (a read-only
    folder) on the journal file itself, so a second daemon is still refused.
    """
    lock_path = Path(str(p) + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return -1  # nothing to lock yet and nowhere to write: nothing can be journaled either
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalBusy(f"another table is already running on the journal {p}; "
                          "stop it first or give this one another --journal") from None
    return fd


# -- opening --------------------------------------------------------------------------------
def _report(journal: Journal, notes: list[str]) -> str:
    try:
        games, finished, actions = journal.counts()
    except sqlite3.Error as exc:
        return f"journal {journal.path}: cannot be counted ({exc})"
    text = f"journal {journal.path}: {games} game(s) ({finished} finished), {actions} action(s)"
    try:
        row = journal._db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        if row is not None:
            n = journal._db.execute("SELECT count(*) FROM actions WHERE game = ?", (row[0],)).fetchone()[0]
            text += f"; game {row[0]} is unfinished with {n} action(s)"
    except sqlite3.Error:
        pass
    if notes:
        text += "; " + "; ".join(notes)
    return text


def _quick_check(journal: Journal) -> str | None:
    try:
        rows = [str(r[0]) for r in journal._db.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as exc:
        if sqlite_fault(exc) == "corrupt":
            return str(exc)
        raise
    return None if rows == ["ok"] else "; ".join(rows[:3])


def _open_degraded(p: Path, kind: str) -> Journal:
    """The journal read-only (the unfinished game still resumes), every write held."""
    journal: Journal
    if p.exists() and p.stat().st_size:
        try:
            journal = Journal(p, readonly=True)
        except JournalError:
            journal = Journal(":memory:")
    else:
        journal = Journal(":memory:")
    journal.path = p
    journal.hold_writes(kind)
    return journal


def check_journal_path(path: str | Path, *, create_folder: bool = False) -> Path:
    """The checks made before anything is opened, locked or created (``table run`` makes
    them first, so a wrong ``--journal`` is the only thing it says): a name, a regular
    file or nothing yet, a folder that exists (unless ``create_folder``), an SQLite file."""
    if not str(path).strip():
        raise JournalError("the journal needs a file name, not an empty one")
    p = Path(path)
    if os.path.lexists(p):
        check_regular_file(p, "journal", follow=False)
    folder = p.parent
    if not folder.is_dir() and (folder.exists() or not create_folder):
        raise JournalError(f"the folder {folder} for the journal does not exist; create it first")
    if p.exists():
        # Read even when the size is 0: a file of /proc or /sys says 0 and still has text.
        with p.open("rb") as fh:
            head = fh.read(16)
        if head and not head.startswith(SQLITE_MAGIC):
            raise JournalError(f"{p} is not a table journal (not an SQLite file); it was left as it is: "
                               "move it away or give another --journal")
    return p


def check_journal_writable(path: str | Path) -> Path:
    """:func:`check_journal_path`, and that the journal can be written: the file, or its
    folder while it does not exist yet (and for the ``-wal`` beside it). For ``table
    play``, which refuses a journal it cannot write before it plays; the daemon plays on
    from memory instead (see the module docstring). Raises :class:`JournalError`."""
    p = check_journal_path(path)
    folder = p.parent
    exists = os.path.lexists(p)
    flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC | (0 if exists else os.O_CREAT | os.O_EXCL)
    try:
        # Opened for writing, nothing written (no O_TRUNC); one made here is removed again.
        os.close(os.open(p, flags, 0o644))
        if not exists:
            os.unlink(p)
    except OSError as exc:
        what = "written" if exists else "created"
        raise JournalError(f"the journal {p} cannot be {what} ({exc.strerror or exc}); "
                           "give another --journal") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise JournalError(f"the journal {p} cannot be written (its folder {folder} is read-only); "
                           "give another --journal")
    return p


def refuse_unwritable(journal: Journal) -> None:
    """Close ``journal`` and raise :class:`JournalError` when SQLite could not open it for
    writing (it was opened degraded, every write held: see :func:`open_daemon_journal`)."""
    if journal.fault_kind is None:
        return
    kind = journal.fault_kind
    journal.close()
    raise JournalError(f"the journal {journal.path} cannot be written ({FAULT_WORDS.get(kind, kind)}); "
                       "give another --journal")


def open_daemon_journal(path: str | Path, *, create_folder: bool = False, wait_s: float = 30.0,
                        on_wait: Callable[[str], object] | None = None, foreign: str = "refuse") -> Journal:
    """Open ``path`` as the daemon's journal (see the module docstring).

    Raises :class:`JournalError` with one sentence for what a person must fix (not a
    file, somebody else's file, a second daemon, a lock that outlasted ``wait_s``, and
    with ``foreign="refuse"`` a journal whose schema holds what the table never creates;
    ``foreign="aside"`` renames that one aside and starts a new journal).
    ``on_wait`` gets each waiting message (the daemon pings systemd's watchdog there).
    """
    if foreign not in ("refuse", "aside"):
        raise ValueError(f"foreign must be 'refuse' or 'aside', not {foreign!r}")
    p = check_journal_path(path, create_folder=create_folder)
    folder = p.parent
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
    lock_fd = lock_journal(p)
    try:
        journal = _open_checked(p, wait_s, on_wait, foreign == "aside")
    except BaseException:
        if lock_fd >= 0:
            os.close(lock_fd)
        raise
    journal._lock_fd = lock_fd if lock_fd >= 0 else None
    return journal


def _open_checked(p: Path, wait_s: float, on_wait: Callable[[str], object] | None,
                  foreign_aside: bool = False) -> Journal:
    notes: list[str] = []
    wal = Path(str(p) + "-wal")
    if wal.exists() and p.exists():
        problem = check_wal(wal)
        if problem is not None:
            aside = copy_aside(p)
            log.warning("journal %s: its -wal %s; a copy of the journal with its -wal and -shm is kept as %s",
                        p, problem, aside)
            notes.append(f"the -wal {problem}, copied aside as {aside.name}")
            if problem.startswith("has a damaged header") and repair_wal_header(wal) and check_wal(wal) is None:
                log.warning("journal %s: the -wal header had one wrong byte and is mended; nothing in it is lost", p)
                notes.append("its header mended")
    deadline = time.monotonic() + wait_s
    while True:
        try:
            journal = Journal(p)
            problem = _quick_check(journal)
            if problem is None:
                break
            journal.close()
            damage: str = f"PRAGMA quick_check: {problem}"
        except JournalFault as exc:
            if exc.kind == "busy":
                if time.monotonic() >= deadline:
                    raise JournalBusy(f"the journal {p} stayed locked by another program for {wait_s:g} s; "
                                      "stop that program and start the table again") from None
                message = f"the journal {p} is locked by another program; waiting for it"
                log.warning("%s", message)
                if on_wait is not None:
                    on_wait(message)
                time.sleep(1.0)
                continue
            log.error("journal %s: %s; the table plays from memory and retries", p, FAULT_WORDS[exc.kind])
            journal = _open_degraded(p, exc.kind)
            journal.start_report = _report(journal, [*notes, fault_sentence(exc.kind)])
            log.warning("%s", journal.start_report)
            return journal
        except JournalForeign as exc:
            if not foreign_aside:
                raise
            # Never used as it is (a trigger could eat every action): kept aside, whole, for a person to look at.
            aside = move_aside(p, "foreign")
            journal = Journal(p)
            log.warning("journal %s is not a journal as the table writes it (%s); it is kept unchanged as %s, "
                        "nothing of it is used, and the table starts a new journal", p, exc.what, aside)
            notes.append(f"set aside as {aside.name}, not a journal as the table writes it ({exc.what})")
            break
        except JournalError as exc:
            text = str(exc)
            if "not a usable table journal" not in text:
                raise  # another program's file, a newer schema: not ours to rename
            damage = text
        # SQLite says the file is damaged: only now is it renamed (a regular file only).
        aside = move_aside(p)
        journal = Journal(p)
        games, actions = salvage(aside, journal)
        log.warning("journal %s is damaged (%s); set aside as %s; %d game(s) with %d action(s) copied "
                    "from it into a new journal", p, damage, aside, games, actions)
        notes.append(f"set aside as {aside.name} ({games} game(s), {actions} action(s) recovered from it)")
        break
    journal.start_report = _report(journal, notes)
    if notes:
        log.warning("%s", journal.start_report)
    else:
        log.info("%s", journal.start_report)
    return journal
