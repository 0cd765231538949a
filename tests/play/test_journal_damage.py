"""The journal under faults and damage: what is kept, and that the game goes on.

One journal is written the way the daemon writes it: two finished games and a third
stopped by a "power cut" (the journal's files copied while the daemon still holds them
open, so the ``-wal`` is as a pulled plug leaves it). Each case then damages that
state or adds a fault, starts the daemon's opener and the scripted daemon on it, and
checks and prints, per case, the games and actions kept versus written, whether the
finished games survived, and whether the unfinished game resumed and ended exactly as
an uninterrupted run does. ``docs/kiosk.md`` records these figures.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from table.games.base import Action
from table.kiosk.headless import run_headless
from table.play.clock import VirtualClock
from table.play.journal import Journal, JournalBusy, JournalError
from table.play.journal_open import check_wal, open_daemon_journal
from table.play.scenario import Scenario, parse_scenario
from table.play.scenario_writer import random_script, scenario_toml
from table.play.session import canonical

# Each case plays hundreds of journaled inputs again, and some wait for locks in real time.
pytestmark = pytest.mark.heavy

GAMES = (("ubongo_shimo", 1), ("ubongo", 1), ("ugah_ugah", 1))
CUT_AT = 230  # actions of the third game journaled when the power goes


def scenario(game: str, seed: int) -> Scenario:
    return parse_scenario(tomllib.loads(scenario_toml(random_script(game, seed=seed))))


@dataclass
class Written:
    """The journal's files at the power cut, and what they held."""

    folder: Path
    actions: dict[int, int]  # game id -> actions written
    reports: dict[int, str]  # game id -> the report an uninterrupted run ends with
    scenarios: dict[int, Scenario]


def _files(path: Path) -> list[Path]:
    return [Path(str(path) + s) for s in ("", "-wal", "-shm")]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Written:
    work = tmp_path_factory.mktemp("written")
    journal = work / "live" / "journal.db"
    journal.parent.mkdir()
    cut = work / "cut"
    cut.mkdir()
    actions: dict[int, int] = {}
    reports: dict[int, str] = {}
    scenarios: dict[int, Scenario] = {}
    for number, (game, seed) in enumerate(GAMES, start=1):
        sc = scenarios[number] = scenario(game, seed)
        reference = run_headless(work / f"reference-{number}.db", sc, VirtualClock())
        reports[number] = canonical(reference.session.report())
        stop = threading.Event()
        count = 0

        def on_action(action: Action, last: bool = number == len(GAMES), stop: threading.Event = stop) -> None:
            nonlocal count
            count += 1
            if last and count == CUT_AT:
                for f in _files(journal):  # the power goes: the files as they are on disk now
                    if f.exists():
                        shutil.copy(f, cut / f.name)
                stop.set()

        result = run_headless(journal, sc, VirtualClock(), stop=stop, on_action=on_action)
        actions[result.game_id] = result.session.applied
    assert (cut / "journal.db-wal").stat().st_size > 0, "the cut must leave actions in the -wal"
    assert actions[3] == CUT_AT
    return Written(cut, actions, reports, scenarios)


@dataclass
class Kept:
    games: int
    finished: int
    actions: int
    per_game: dict[int, int]


def kept(path: Path) -> Kept:
    """What the journal at ``path`` holds, read without writing."""
    with Journal.open_readonly(path) as journal:
        per_game = {gid: len(journal.load(gid).actions) for gid in journal.game_ids()}
        games, finished, _ = journal.counts()
    return Kept(games, finished, sum(per_game.values()), per_game)


def restart(written: Written, path: Path) -> tuple[bool, int]:
    """Start the scripted daemon on ``path`` for the unfinished game: (its report is the
    uninterrupted one, actions it resumed from)."""
    result = run_headless(path, written.scenarios[3], VirtualClock())
    return canonical(result.session.report()) == written.reports[3], result.resumed_from


@pytest.fixture(autouse=True)
def _shown(capsys: pytest.CaptureFixture[str]) -> Iterator[None]:
    global _capsys
    _capsys = capsys
    yield


_capsys: pytest.CaptureFixture[str] | None = None


def show(case: str, written: Written, k: Kept, resumed: bool | None, note: str = "",
         third: int | None = None, finished: int = 2) -> None:
    """One line per case on the terminal, also when pytest captures output (CI logs it).
    ``third``: actions of the third game written (or played, for a case that plays on)."""
    third = written.actions[3] if third is None else third
    total = written.actions[1] + written.actions[2] + third
    line = (f"journal damage: {case:<30} games kept {k.games}/3 (finished {k.finished}/{finished}), "
            f"actions kept {k.actions}/{total} (third game {k.per_game.get(3, 0)}/{third}), "
            f"unfinished game resumed to the same end: {'-' if resumed is None else 'yes' if resumed else 'NO'}")
    assert _capsys is not None
    with _capsys.disabled():
        print("\n" + line + (f"; {note}" if note else ""), flush=True)


def cut_copy(written: Written, tmp_path: Path) -> Path:
    for f in written.folder.iterdir():
        shutil.copy(f, tmp_path / f.name)
    return tmp_path / "journal.db"


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x5A
    path.write_bytes(bytes(data))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "power cut only": lambda p: None,
    "-wal deleted": lambda p: Path(str(p) + "-wal").unlink(),
    "-wal header flipped": lambda p: flip(Path(str(p) + "-wal"), 12),
    "-wal header checksum flipped": lambda p: flip(Path(str(p) + "-wal"), 27),
    "-wal header salt flipped": lambda p: flip(Path(str(p) + "-wal"), 17),
    "-wal middle flipped": lambda p: flip(Path(str(p) + "-wal"), Path(str(p) + "-wal").stat().st_size // 2),
    "-shm deleted": lambda p: Path(str(p) + "-shm").unlink(),
    "-wal truncated mid-page": lambda p: os.truncate(Path(str(p) + "-wal"),
                                                     Path(str(p) + "-wal").stat().st_size - 2000),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_damaged_wal(case: str, written: Written, tmp_path: Path) -> None:
    path = cut_copy(written, tmp_path)
    DAMAGE[case](path)
    wal = Path(str(path) + "-wal")
    wal_problem = check_wal(wal) if wal.exists() else None
    journal = open_daemon_journal(path)
    journal.close()
    k = kept(path)
    # Finished games are checkpointed into the main file: no -wal damage can lose them.
    assert k.finished == 2 and k.per_game[1] == written.actions[1] and k.per_game[2] == written.actions[2]
    # At most the actions since the last checkpoint (every 64 appends) can go with the -wal.
    assert k.per_game.get(3, 0) >= written.actions[3] - Journal.checkpoint_every
    if case in ("power cut only", "-shm deleted") or case.startswith("-wal header"):
        assert k.per_game[3] == written.actions[3]  # a header with one wrong byte is mended
    if case == "-wal truncated mid-page":  # a torn last frame: only its transaction (one action) goes
        assert k.per_game[3] == written.actions[3] - 1 and wal_problem is None
    if wal_problem is not None:
        aside = list(tmp_path.glob("journal.db.damaged-*-wal"))
        assert aside, "a -wal that fails its checks is copied aside before SQLite drops it"
    resumed, _ = restart(written, path)
    assert resumed
    show(case, written, k, resumed, f"-wal copied aside ({wal_problem})" if wal_problem else "")


def test_truncated_mid_page(written: Written, tmp_path: Path) -> None:
    path = cut_copy(written, tmp_path)
    for f in _files(path)[1:]:
        f.unlink()  # the main file alone, as after a clean stop, then cut in the middle of a page
    with Journal(tmp_path / "check.db"):
        pass
    data = path.read_bytes()
    path.write_bytes(data[: (len(data) * 3 // 4) // 4096 * 4096 + 1000])
    journal = open_daemon_journal(path)
    report = journal.start_report
    journal.close()
    assert list(tmp_path.glob("journal.db.damaged-*")), "a journal SQLite reports damaged is renamed aside"
    k = kept(path)
    resumed, _ = restart(written, path)
    assert resumed
    show("truncated mid-page", written, k, resumed, "set aside, readable games copied over")
    assert "recovered" in report


def test_locked_by_another_program(written: Written, tmp_path: Path) -> None:
    """Another program holds the write lock: the daemon starts, holds its writes in
    memory with the warning, and writes them when the lock goes."""
    path = cut_copy(written, tmp_path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    journal = open_daemon_journal(path, wait_s=2)
    record = journal.unfinished()
    assert record is not None and record.id == 3 and len(record.actions) == written.actions[3]
    journal.append(3, len(record.actions), Action("pause", record.actions[-1].t + 1.0))
    assert journal.fault is not None and "cannot be written" in journal.fault and journal.held == 1
    other.execute("COMMIT")
    other.close()
    journal._retry_at = 0.0
    assert journal.retry() and journal.fault is None
    journal.close()
    k = kept(path)
    assert k.per_game[3] == written.actions[3] + 1 and k.finished == 2
    show("locked by another program", written, k, None, "1 write held while locked, written when it was released",
         third=written.actions[3] + 1)


def test_full_disk(written: Written, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's own "database or disk is full" (the page limit fixed at the file's size):
    the game plays on from memory, then the held writes go in once there is room."""
    path = cut_copy(written, tmp_path)
    journals: list[Journal] = []
    import table.kiosk.headless as headless

    real = headless.open_journal_resilient

    def opener(p: str | Path, **kw: object) -> Journal:
        journal = real(p, **kw)  # type: ignore[arg-type]
        pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
        journal._db.execute(f"PRAGMA max_page_count = {pages}")
        journals.append(journal)
        return journal

    monkeypatch.setattr(headless, "open_journal_resilient", opener)
    faults: list[str] = []
    count = 0

    def on_action(action: Action) -> None:
        nonlocal count
        count += 1
        journal = journals[0]
        if journal.fault:
            faults.append(journal.fault)
        if count == 300:  # room again
            journal._db.execute("PRAGMA max_page_count = 1000000")
            journal._retry_at = 0.0

    result = run_headless(path, written.scenarios[3], VirtualClock(), on_action=on_action)
    assert faults and "disk is full" in faults[0]
    assert canonical(result.session.report()) == written.reports[3]
    k = kept(path)
    assert k.finished == 3, "the game that went on through the full disk is journaled once there was room"
    show("full disk (page limit)", written, k, True, f"{len(faults)} action(s) played while the disk was full",
         third=result.session.applied, finished=3)


def test_full_disk_to_the_stop(written: Written, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk stays full until the daemon stops: what it held is lost, what was written
    before is kept, and the next start resumes the game from there."""
    path = cut_copy(written, tmp_path)
    import table.kiosk.headless as headless

    real = headless.open_journal_resilient

    def opener(p: str | Path, **kw: object) -> Journal:
        journal = real(p, **kw)  # type: ignore[arg-type]
        journal._db.execute("PRAGMA max_page_count = {}".format(journal._db.execute("PRAGMA page_count").fetchone()[0]))
        return journal

    monkeypatch.setattr(headless, "open_journal_resilient", opener)
    stop = threading.Event()
    n = 0

    def on_action(action: Action) -> None:
        nonlocal n
        n += 1
        if n == 200:
            stop.set()

    run_headless(path, written.scenarios[3], VirtualClock(), stop=stop, on_action=on_action)
    monkeypatch.setattr(headless, "open_journal_resilient", real)
    k = kept(path)
    assert k.finished == 2 and k.per_game[3] >= written.actions[3]
    resumed, _ = restart(written, path)
    assert resumed
    show("full disk until the stop", written, k, resumed,
         f"{written.actions[3] + n - k.per_game[3]} action(s) held in memory lost at the stop; the game resumed",
         third=written.actions[3] + n)




# Run before the daemon, in a fresh process (no fork of this one, which may hold threads):
# drop the capabilities that let root write where the permissions say no
# (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER), then become the daemon, so a
# read-only folder is read-only for it too.
WITHOUT_DAC_OVERRIDE = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for cap in (1, 2, 3):
    if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""


def test_read_only_folder(written: Written, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The daemon in a folder it cannot write: it starts, resumes the unfinished game from
    the file, plays on from memory with the warning, and exits 0; once the folder is
    writable again the next start resumes the game from what the file held."""
    folder = Path(tmp_path_factory.mktemp("ro"))
    for f in written.folder.iterdir():
        shutil.copy(f, folder / f.name)
    path = folder / "journal.db"
    script = folder.parent / "ro-script.toml"
    script.write_text(scenario_toml(random_script(*GAMES[2])))
    folder.chmod(0o555)
    for f in folder.iterdir():
        f.chmod(0o444)
    launcher = ["-c", WITHOUT_DAC_OVERRIDE] if os.geteuid() == 0 else []
    done = subprocess.run([sys.executable, *launcher, "-m", "table.kiosk.headless", str(script), "--journal", str(path),
                           "--allow-root"], cwd="/", capture_output=True, text=True, timeout=120)
    folder.chmod(0o755)
    for f in folder.iterdir():
        f.chmod(0o644)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "cannot be written" in done.stderr and "read-only" in done.stderr
    k = kept(path)
    assert k.per_game[3] == written.actions[3] and k.finished == 2
    resumed, _ = restart(written, path)
    assert resumed
    show("read-only folder", written, k, resumed, "played from memory, nothing written, resumed later")


def test_second_daemon(written: Written, tmp_path: Path) -> None:
    path = cut_copy(written, tmp_path)
    first = open_daemon_journal(path)
    try:
        with pytest.raises(JournalBusy) as refused:
            open_daemon_journal(path)
        assert "\n" not in str(refused.value) and "already running" in str(refused.value)
        script = tmp_path / "script.toml"
        script.write_text(scenario_toml(random_script(*GAMES[2])))
        done = subprocess.run([sys.executable, "-m", "table.kiosk.headless", str(script), "--journal", str(path),
                               "--allow-root"], cwd="/", capture_output=True, text=True, timeout=120)
        assert done.returncode == 2
        lines = [line for line in done.stderr.splitlines() if line.startswith("table: ")]
        assert len(lines) == 1 and "already running" in lines[0], done.stderr
    finally:
        first.close()
    k = kept(path)
    assert k.per_game[3] == written.actions[3]
    show("second daemon", written, k, None, "refused in one sentence, exit 2")


@pytest.mark.parametrize("kind", ["folder", "fifo", "symlink", "device", "missing folder", "empty name",
                                  "text file"])
def test_never_renames_what_is_not_a_journal(kind: str, tmp_path: Path) -> None:
    target = tmp_path / "target"
    if kind == "folder":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        (tmp_path / "real.db").write_bytes(b"")
        target.symlink_to(tmp_path / "real.db")
    elif kind == "device":
        target = Path("/dev/null")
    elif kind == "missing folder":
        target = tmp_path / "no" / "such" / "j.db"
    elif kind == "text file":
        target.write_text("# README\nnot a journal\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(JournalError) as refused:
        open_daemon_journal("" if kind == "empty name" else target)
    assert "\n" not in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "nothing renamed, created or written"
