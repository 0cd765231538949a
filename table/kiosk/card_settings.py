"""The venue's settings on the SD card: from the card's FAT partition to ``/etc/table``.

The card's first partition holds ``table/``, a config folder any computer can edit. At
every boot, before the table starts, :func:`take_card_settings` (``table card-settings``,
run by ``table-card-settings.service``) looks at it:

1. **Scan** (:func:`scan`): every entry is sorted into taken, refused or ignored. Only
   names a config folder can hold are taken: the files the table ships in its own
   config folder, and in the folders it ships, more files with the extensions those
   folders hold (another deck of questions, a taught face model); at the top, the
   venue relay's ``relay.toml`` too. Anything else is refused with one sentence and
   never copied. ``README.txt`` and hidden files (what other computers leave on a
   card, such as ``.DS_Store``) are ignored. Bounds: :data:`FILE_LIMIT` a file,
   :data:`TOTAL_LIMIT` and :data:`MAX_FILES` in all, :data:`MAX_DEPTH` folders deep.
2. **Changed?** A hash of every entry's name and content (:attr:`Scan.digest`) is
   compared with the one taken last (``STATE/settings-taken``): an unchanged folder
   is left alone, so settings edited in ``/etc/table`` by hand stay until the card's
   folder changes.
3. **Stage and check**: the taken files are copied into a new folder beside the live
   one, with the table's own record (``install-state.json``) carried over, and
   checked by ``table check-config`` (the caller's ``check``).
4. **Swap**: only when the check passes, ``/etc/table`` (a symbolic link to
   ``/etc/table.d/<generation>``) is pointed at the new folder by one ``rename``: the
   table sees the old settings or the new, never a mix. The previous generation is
   kept; older ones are removed. A real folder at ``/etc/table`` (a card before this
   scheme) becomes the first generation.
5. **Record**: what was not taken, and why, is written to ``STATE/settings-problem.json``
   (readable by everyone: the table's user shows it on the TV, see
   :func:`read_problem`); a folder taken whole removes it. ``STATE/settings-copied``
   says when a folder was last taken.

A file that a known name cannot be taken from (too large, unreadable, a link, a folder)
keeps the whole folder out, as a failed check does: the table keeps its last good
settings. A refused unknown file leaves the rest to be taken.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.common.checks import TEXT_LIMIT, did_you_mean
from table.common.datafiles import defaults_dir

CARD_FOLDER = Path("/boot/firmware/table")
"""The venue's settings on the card's FAT partition."""
LIVE = Path("/etc/table")
"""The settings the kiosk reads (``table run --config /etc/table``)."""
STATE = Path("/var/lib/table-card")
"""What this service keeps between boots: the hash taken last and the problem record."""
PROBLEM_FILE = "settings-problem.json"
TAKEN_FILE = "settings-taken"
COPIED_FILE = "settings-copied"
"""When the card's folder was last taken (UTC, ISO 8601), for whoever looks."""

FILE_LIMIT = 16 << 20
"""The largest file taken (16 MiB): the largest file the table ships is a face model of
about half a megabyte, and the text files it reads may have at most 1 MiB; the rest is
room for a larger model. A film or a disk image left in the folder is refused."""
TOTAL_LIMIT = 64 << 20
"""The most taken in all (64 MiB, the shipped folder has 1.5 MB): two generations stay on
the root, whose free space (about 1 GB) is the journal's and the logs'."""
MAX_FILES = 1000
"""The most entries looked at (the shipped folder has about 30 files)."""
MAX_DEPTH = 3
"""The deepest a taken file may lie (``FOLDER/SUB/FILE``, e.g. a face model's symbols)."""
KEEP_FILES = ("install-state.json",)
"""The table's own records in ``/etc/table``, carried into each new generation."""
RELAY_FILE = "relay.toml"
"""The venue relay's settings (:mod:`table.venue.settings`), read from ``/etc/table``."""
EXTRA_TOP = (RELAY_FILE,)
"""Top-level files the table reads that it does not ship."""
IGNORED_TOP = ("README.txt",)
"""The card's own explanation of the folder."""

_PLAIN_NAME = re.compile(r"[\w.+-]+")


@dataclass
class Scan:
    """The card's folder sorted: what would be taken, refused or keeps it out."""

    taken: dict[str, str] = field(default_factory=dict)
    """Relative path -> its content's SHA-256, for every file to copy."""
    refused: list[str] = field(default_factory=list)
    """One sentence per unknown entry not copied (the rest is taken)."""
    blocking: list[str] = field(default_factory=list)
    """One sentence per problem that keeps the whole folder out."""
    ignored: list[str] = field(default_factory=list)
    total: int = 0
    digest: str = ""
    """Names and contents of everything seen, hashed: the folder changed when this did."""


@dataclass(frozen=True)
class Outcome:
    """What one run did: ``state`` is ``taken``, ``unchanged``, ``refused`` or ``absent``."""

    state: str
    lines: tuple[str, ...]


def _shown(rel: str) -> str:
    """A path as the venue sees it on the card (``table/...``), with odd characters
    written out so that a name cannot disturb the notice or the log."""
    return "table/" + rel.encode("unicode_escape").decode("ascii").replace("\\\\", "\\")


def _either(names: list[str]) -> str:
    """``a, b or c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


_BOM = b"\xef\xbb\xbf"


def with_hint(card: Path, problem: str) -> str:
    """``problem`` made plainer for the venue: the line of the key it names
    (:func:`with_line`), and for a file a text editor saved in the wrong form, the form
    to save it in."""
    problem = with_line(card, problem)
    match = re.match(r"(?:the [\w ]+ )?table/([\w./-]+)", problem)
    if match is None:
        return problem
    try:
        with open(card / match.group(1), "rb") as f:
            start = f.read(len(_BOM))
    except OSError:
        return problem
    if start == _BOM and "not valid TOML" in problem:
        return (f"{problem}: the file begins with an invisible byte-order mark (some Windows editors write "
                "it): save it as \"UTF-8\", not \"UTF-8 with BOM\"")
    if "is not UTF-8 text" in problem:
        return f"{problem}: save it as \"UTF-8\" text (special letters such as ü are then kept)"
    return problem


def with_line(card: Path, problem: str) -> str:
    """``problem`` with the line of the key it names in the card's file, where it names
    one (``table/table.toml: table.stations: ...`` -> ``table/table.toml: line 3:
    table.stations: ...``): the venue finds the place to change at once."""
    match = re.match(r"table/([\w./-]+\.toml): ([\w-]+(?:\.[\w-]+)*): ", problem)
    if match is None:
        return problem
    try:
        with open(card / match.group(1), encoding="utf-8", errors="replace") as f:
            text = f.read(TEXT_LIMIT)
    except OSError:
        return problem
    wanted = match.group(2)
    station = re.fullmatch(r"S(\d+)\.([\w-]+)", wanted)
    if station is not None:
        # A station's key (hardware.toml's S2.button): in the station's own [[station]].
        wanted = f"station#{station.group(1)}.{station.group(2)}"
    stations = 0
    section = ""
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        header = re.fullmatch(r"\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?", line)
        if header:
            section = header.group(1).replace(" ", "").replace('"', "")
            if section == "station" and line.startswith("[["):
                stations += 1
                section = f"station#{stations}"
            if section == wanted:
                return f"table/{match.group(1)}: line {number}: {problem[match.end(1) + 2:]}"
            continue
        key = re.match(r"([\w.\"-]+)\s*=", line)
        if key and ".".join(filter(None, (section, key.group(1).replace('"', "")))) == wanted:
            return f"table/{match.group(1)}: line {number}: {problem[match.end(1) + 2:]}"
    return problem


def known_files() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """The names a config folder can hold, from the shipped config folder: its files
    (relative paths) and, by top-level folder, the extensions that folder's files have."""
    root = defaults_dir()
    files: set[str] = set(EXTRA_TOP)
    suffixes: dict[str, set[str]] = {}
    for path in root.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            rel = path.relative_to(root).as_posix()
            files.add(rel)
            if "/" in rel:
                suffixes.setdefault(rel.split("/")[0], set()).add(path.suffix)
    return frozenset(files), {k: frozenset(v) for k, v in suffixes.items()}


def _hash_file(path: Path, limit: int) -> str:
    """The SHA-256 of a regular file, read without following a link and at most ``limit``
    bytes (a file grown meanwhile raises ``OSError``)."""
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise OSError("not a regular file")
        read = 0
        while chunk := f.read(1 << 20):
            read += len(chunk)
            if read > limit:
                raise OSError(f"it grew past {limit:,} bytes while being read")
            digest.update(chunk)
    return digest.hexdigest()


def scan(folder: Path) -> Scan:
    """Sort ``folder``'s entries (see the module's docstring); reads the files it takes."""
    files, suffixes = known_files()
    folders = set(suffixes)
    out = Scan()
    seen: list[str] = []
    count = 0

    def known(rel: str) -> bool:
        if rel in files:
            return True
        top = rel.split("/")[0]
        return "/" in rel and top in suffixes and Path(rel).suffix in suffixes[top]

    def walk(directory: Path, prefix: str, depth: int) -> None:
        nonlocal count
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            out.blocking.append(f"{_shown(prefix or '.')}: the folder cannot be read ({exc.strerror})")
            return
        for entry in entries:
            rel = prefix + entry.name
            if entry.name.startswith(".") or (not prefix and entry.name in IGNORED_TOP):
                out.ignored.append(rel)
                continue
            count += 1
            if count > MAX_FILES:
                out.blocking.append(f"table/: more than {MAX_FILES} files and folders, more than a settings "
                                    "folder has: take out what is not the table's")
                return
            shown = _shown(rel)
            if not _PLAIN_NAME.fullmatch(entry.name):
                seen.append(f"refused {rel}")
                out.refused.append(f"{shown}: not taken: the name has characters the table's files never "
                                   "have (spaces, brackets, control characters)")
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError as exc:
                out.blocking.append(f"{shown}: cannot be looked at ({exc.strerror})")
                continue
            if stat.S_ISDIR(info.st_mode):
                if rel in files:
                    out.blocking.append(f"{shown}: is a folder, but the table reads a file of this name: "
                                        "put the file there")
                elif prefix == "" and entry.name not in folders:
                    seen.append(f"refused {rel}/")
                    out.refused.append(f"{shown}/: not taken: a folder the table does not read"
                                       f"{did_you_mean(entry.name, sorted(folders))}")
                elif depth + 1 >= MAX_DEPTH:
                    seen.append(f"refused {rel}/")
                    out.refused.append(f"{shown}/: not taken: deeper than the {MAX_DEPTH} levels of folders "
                                       "the table reads")
                else:
                    walk(Path(entry.path), rel + "/", depth + 1)
                continue
            if not known(rel):
                seen.append(f"refused {rel} {info.st_size}")
                if prefix:
                    hint = did_you_mean(entry.name, [f.rsplit("/", 1)[-1] for f in files if f.startswith(prefix)])
                    what = f"the table reads only {_either(sorted(suffixes[rel.split('/')[0]]))} files here"
                else:
                    top = sorted(f for f in files if "/" not in f)
                    hint = did_you_mean(entry.name, top)
                    what = f"the table reads only {_either(top)} here"
                out.refused.append(f"{shown}: not taken: {what}{hint}")
                continue
            if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
                kind = "a link" if stat.S_ISLNK(info.st_mode) else "not a plain file"
                out.blocking.append(f"{shown}: is {kind}: put the file itself there")
                continue
            if info.st_size > FILE_LIMIT:
                out.blocking.append(f"{shown}: {info.st_size:,} bytes, more than the {FILE_LIMIT >> 20} MiB a "
                                    "settings file may have: it is not a settings file, or a damaged one")
                continue
            out.total += info.st_size
            if out.total > TOTAL_LIMIT:
                out.blocking.append(f"table/: more than {TOTAL_LIMIT >> 20} MiB of settings (the shipped ones are "
                                    "1.5 MB): take out what is not the table's")
                return
            try:
                out.taken[rel] = _hash_file(Path(entry.path), FILE_LIMIT)
            except OSError as exc:
                out.blocking.append(f"{shown}: cannot be read ({exc.strerror or exc}): write it to the card again")
                continue
            seen.append(f"file {rel} {out.taken[rel]}")

    walk(folder, "", 0)
    seen += [f"problem {line}" for line in out.blocking]
    out.digest = hashlib.sha256("\n".join(["card-settings 1", *sorted(seen)]).encode()).hexdigest()
    return out


def generations_dir(live: Path) -> Path:
    """Where the generations of ``live`` are kept: ``/etc/table.d`` for ``/etc/table``."""
    return live.with_name(live.name + ".d")


def _generations(gens: Path) -> list[Path]:
    """The generations in ``gens``, oldest first (their names begin with a count)."""
    if not gens.is_dir():
        return []
    return sorted((p for p in gens.iterdir() if p.is_dir() and re.match(r"\d{6}-", p.name)),
                  key=lambda p: int(p.name[:6]))


def _new_generation(gens: Path, tag: str) -> Path:
    """The name of the next generation: its count, the time (UTC) and ``tag``."""
    known = _generations(gens)
    count = int(known[-1].name[:6]) + 1 if known else 1
    return gens / f"{count:06d}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{tag}"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, text: str) -> None:
    """``text`` in ``path``, readable by everyone, all or nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o755)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _link_to(live: Path, target: Path) -> None:
    """Point the link ``live`` at ``target`` in one ``rename`` (replacing a link there)."""
    tmp = live.with_name(f".{live.name}.new")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    os.symlink(os.path.relpath(target, live.parent), tmp)
    os.replace(tmp, live)
    _fsync_dir(live.parent)


def adopt_live(live: Path) -> None:
    """Make ``live`` a link into its generations folder: a real folder there (the card
    as built, or a card before generations) becomes the first generation; a missing one
    (a cut between the two steps) or a link to nothing points at the newest generation
    again."""
    gens = generations_dir(live)
    if live.is_symlink() and live.exists():
        return
    if live.is_dir() and not live.is_symlink():
        gens.mkdir(mode=0o755, exist_ok=True)
        first = _new_generation(gens, "installed")
        os.rename(live, first)
        _fsync_dir(live.parent)
        _link_to(live, first)
        return
    # Missing, or a link to a generation that is gone.
    known = _generations(gens)
    if known:
        _link_to(live, known[-1])


def _stage(card: Path, result: Scan, live: Path) -> Path:
    """The taken files copied into a new hidden folder beside the generations (the
    table's own records carried over); raises ``OSError`` on any failure, leaving
    nothing behind."""
    gens = generations_dir(live)
    gens.mkdir(mode=0o755, exist_ok=True)
    staged = Path(tempfile.mkdtemp(dir=gens, prefix=".staged-"))
    try:
        os.chmod(staged, 0o755)
        for rel, digest in sorted(result.taken.items()):
            dest = staged / rel
            for parent in reversed(dest.relative_to(staged).parents[:-1]):
                (staged / parent).mkdir(mode=0o755, exist_ok=True)
            if _copy(card / rel, dest) != digest:
                raise OSError(f"{_shown(rel)} changed while it was copied")
        for name in KEEP_FILES:
            if (live / name).is_file():
                shutil.copy2(live / name, staged / name)
        _fsync_dir(staged)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return staged


def _copy(src: Path, dest: Path) -> str:
    """Copy one file (mode 0644, synced to the disk); its content's SHA-256."""
    digest = hashlib.sha256()
    fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f, open(dest, "wb") as out:
        read = 0
        while chunk := f.read(1 << 20):
            read += len(chunk)
            if read > FILE_LIMIT:
                raise OSError(f"{src} grew while it was copied")
            digest.update(chunk)
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    os.chmod(dest, 0o644)
    return digest.hexdigest()


def _prune(gens: Path, keep: set[Path]) -> None:
    """Remove generations other than ``keep`` and staged folders left by a cut."""
    for path in gens.iterdir():
        if path.resolve() not in keep and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)


def read_problem(state: Path = STATE, name: str = PROBLEM_FILE) -> dict[str, Any] | None:
    """The problem record the last run left (``None``: there is none, or it cannot be read)."""
    try:
        with open(state / name, encoding="utf-8") as f:
            record = json.loads(f.read(1 << 20))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("problems"), list):
        return None
    return record


def _record(state: Path, *, taken: bool, problems: list[str], card: Path) -> None:
    record = {"taken": taken, "problems": problems, "card": str(card),
              "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    _write_atomic(state / PROBLEM_FILE, json.dumps(record, indent=1, ensure_ascii=False) + "\n")


def take_card_settings(card: Path, live: Path, state: Path,
                       check: Callable[[Path], list[str]]) -> Outcome:
    """One boot's look at the card's settings (the module's docstring says what it does).

    ``check(folder)`` is the table's config check of a staged folder: its problems, one
    sentence each, naming the folder's files by their path. Never raises for anything
    the card holds; an ``OSError`` of ``/etc`` or ``state`` itself does."""
    state.mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o755)
    adopt_live(live)
    if not card.is_dir():
        with contextlib.suppress(FileNotFoundError):
            (state / PROBLEM_FILE).unlink()
        return Outcome("absent", (f"table-card: there is no settings folder {card} on the card; "
                                  f"the table keeps the settings in {live}",))
    result = scan(card)
    taken_file = state / TAKEN_FILE
    try:
        last = taken_file.read_text(encoding="ascii").strip()
    except OSError:
        last = ""
    if last == result.digest and live.is_dir():
        return Outcome("unchanged", (f"table-card: the settings in {card} are as when last looked at; "
                                     f"{live} is left as it is",))
    lines = [f"table-card: refused {line}" for line in result.refused]
    problems = list(result.blocking)
    staged = None
    if not problems:
        try:
            staged = _stage(card, result, live)
        except OSError as exc:
            problems.append(f"the settings could not be copied to {generations_dir(live)} ({exc}); "
                            "the card may be failing")
    checked = False
    if staged is not None:
        found = check(staged)
        checked = True
        if found:
            # The check names the staged copy; the venue knows the file on the card.
            # (a path as the check shows it: whole, or relative to where it ran).
            named = re.compile(rf"[^\s'\"]*{re.escape(staged.name)}(/|\b)")
            problems += [with_hint(card, named.sub("table/", line)) for line in found]
            shutil.rmtree(staged, ignore_errors=True)
            staged = None
    if staged is not None:
        previous = live.resolve() if os.path.lexists(live) else None
        final = _new_generation(generations_dir(live), result.digest[:12])
        os.rename(staged, final)
        _link_to(live, final)
        _prune(generations_dir(live), {final.resolve()} | ({previous} if previous else set()))
        if result.refused:
            _record(state, taken=True, problems=result.refused, card=card)
        else:
            with contextlib.suppress(FileNotFoundError):
                (state / PROBLEM_FILE).unlink()
        _write_atomic(taken_file, result.digest + "\n")
        _write_atomic(state / COPIED_FILE, time.strftime("%Y-%m-%dT%H:%M:%SZ\n", time.gmtime()))
        lines.append(f"table-card: the settings in {card} are now in {live} ({len(result.taken)} files, "
                     f"checked by check-config)")
        return Outcome("taken", tuple(lines))
    _record(state, taken=False, problems=problems + result.refused, card=card)
    if checked:
        # A folder the check refused is not checked again until it changes; one that
        # could not be read or copied is tried again at the next boot.
        _write_atomic(taken_file, result.digest + "\n")
    lines += [f"table-card: {line}" for line in problems]
    lines.append(f"table-card: the settings in {card} were not taken; the table keeps the last good ones "
                 f"in {live} and shows the problem on the screen")
    return Outcome("refused", tuple(lines))
