"""The SD card's settings service (``packaging/card/table-card-settings``, which runs
``table card-settings``) and the kiosk's answer to what it refused.

Each broken folder is made in the test on a copy of the card's tree (its FAT folder,
``/etc/table`` as the image builds it, the service's state folder), then:

1. the card's own script runs (the real one, pointed at the tree), as at a boot: the
   folder is taken, or refused with the last good settings left whole;
2. ``table run --headless --fallback-settings`` (as the kiosk runs it) comes up on
   what is live, exit status 0, and its log says what the lobby's notice shows;
3. the corrected folder is taken at the "next boot" (the script again), and the table
   then starts without a notice.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from table.commands.card_settings import check_problems
from table.commands.run import DEFAULT_PROBLEM_RECORD
from table.common.datafiles import defaults_dir
from table.kiosk.card_settings import (
    FILE_LIMIT,
    PROBLEM_FILE,
    STATE,
    TOTAL_LIMIT,
    generations_dir,
    read_problem,
    scan,
)

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "packaging" / "card" / "table-card-settings"
CORPUS = REPO / "tests" / "badinput"
TABLE = Path(sys.executable).parent / "table"
NOTICE = "the lobby shows a settings notice"


@dataclass
class Card:
    """A card's tree: the FAT folder, ``/etc/table`` and the service's state."""

    root: Path

    @property
    def folder(self) -> Path:
        return self.root / "boot" / "firmware" / "table"

    @property
    def live(self) -> Path:
        return self.root / "etc" / "table"

    @property
    def state(self) -> Path:
        return self.root / "var" / "lib" / "table-card"

    def boot(self, *, drop_dac: bool = False) -> str:
        """The card's service at a boot; what it printed. ``drop_dac``: without root's
        power to read any file (as a file the card's reader cannot read)."""
        command = [str(SCRIPT), "--card", str(self.folder), "--live", str(self.live), "--state", str(self.state)]
        if drop_dac:
            command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all", *command]
        done = subprocess.run(command, env={**os.environ, "TABLE_COMMAND": str(TABLE)}, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        return done.stdout

    def run_table(self, shot: Path) -> str:
        """``table run`` as the kiosk runs it, for 2 s, headless; its log."""
        env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        done = subprocess.run([str(TABLE), "run", "--headless", "--config", str(self.live), "--seconds", "2",
                               "--screenshot", str(shot), "--journal", str(self.root / "journal.db"),
                               "--fallback-settings", "--settings-problem", str(self.state / PROBLEM_FILE)],
                              env=env, capture_output=True, text=True, timeout=120, check=False, cwd=self.root)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        assert shot.is_file()
        return done.stderr

    def record(self) -> dict[str, Any] | None:
        return read_problem(self.state)

    def correct(self) -> None:
        """The folder as shipped again, with a change of the venue's own (a new name)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        good_folder(self.folder, "Corrected")


def good_folder(folder: Path, name: str) -> None:
    """The card's settings as the image puts them there (the shipped config folder and
    the README), with the venue's player ``name`` added to ``table.toml``."""
    shutil.copytree(defaults_dir(), folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "packaging" / "card" / "README.txt", folder / "README.txt")
    table = folder / "table.toml"
    text = table.read_text(encoding="utf-8")
    assert "\nnames = []" in text
    table.write_text(text.replace("\nnames = []", f"\nnames = [\"{name}\"]", 1), encoding="utf-8")


@pytest.fixture
def card(tmp_path: Path) -> Card:
    """A card after its first boot: ``/etc/table`` as the image builds it (a folder with
    the install's record), then the venue's folder taken."""
    c = Card(tmp_path / "card")
    good_folder(c.folder, "Good")
    shutil.copytree(defaults_dir(), c.live, ignore=shutil.ignore_patterns("__pycache__"))
    (c.live / "install-state.json").write_text('{"installed": true}\n')
    out = c.boot()
    assert "are now in" in out, out
    assert c.live.is_symlink() and c.record() is None
    assert (c.state / "settings-copied").read_text().startswith("20")  # when (the boot test shows it)
    assert '"Good"' in (c.live / "table.toml").read_text()
    return c


def tree(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` (through the link) and its bytes."""
    real = path.resolve()
    return {p.relative_to(real).as_posix(): p.read_bytes() for p in sorted(real.rglob("*")) if p.is_file()}


# -- the broken folders ---------------------------------------------------------------------

def _set_table(text: str | bytes) -> Callable[[Path], None]:
    def put(folder: Path) -> None:
        data = text.encode() if isinstance(text, str) else text
        (folder / "table.toml").write_bytes(data)
    return put


def _binary(folder: Path) -> None:
    (folder / "table.toml").write_bytes(bytes(range(256)) * 64)


def _sparse(name: str, size: int) -> Callable[[Path], None]:
    def put(folder: Path) -> None:
        with open(folder / name, "wb") as f:
            f.truncate(size)  # sparse: the size without writing it
    return put


def _bom(folder: Path) -> None:
    path = folder / "table.toml"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())


def _second_button(text: str) -> int:
    """The index of the second station's ``button = N`` line in a wiring's text."""
    return [i for i, line in enumerate(text.splitlines()) if re.match(r"button = \d+\b", line)][1]


def _pin_twice(folder: Path) -> None:
    path = folder / "hardware.toml"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[_second_button("\n".join(lines))] != "button = 2"
    lines[_second_button("\n".join(lines))] = "button = 2"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


SECOND_BUTTON = 1 + _second_button((defaults_dir() / "hardware.toml").read_text(encoding="utf-8"))
"""The line of the second station's button in the shipped wiring (where the case changes it)."""


def _corpus(source: str, name: str) -> Callable[[Path], None]:
    def put(folder: Path) -> None:
        shutil.copy(CORPUS / source, folder / name)
    return put


def _unknown_folder(folder: Path) -> None:
    (folder / "photos").mkdir()
    (folder / "photos" / "party.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 1000)


def _link(folder: Path) -> None:
    (folder / "table.toml").unlink()
    (folder / "table.toml").symlink_to("/etc/hostname")


def _unreadable(folder: Path) -> None:
    (folder / "hardware.toml").chmod(0)


def _folder_for_file(folder: Path) -> None:
    (folder / "table.toml").unlink()
    (folder / "table.toml").mkdir()
    (folder / "table.toml" / "table.toml").write_text("[table]\n")


def _odd_name(folder: Path) -> None:
    (folder / "table (2).toml").write_text("[table]\nstations = 2\n")
    (folder / "dice" / "reader\x1b[2J.toml").write_text("[reader]\n")


def _missing(folder: Path) -> None:
    shutil.rmtree(folder)


@dataclass(frozen=True)
class Case:
    make: Callable[[Path], None]
    says: tuple[str, ...]
    """What the notice (and the service's log) says, each part."""
    taken: bool = False
    """The rest of the folder is taken (only unknown entries refused)."""
    notice: bool = True


CASES: dict[str, Case] = {
    "binary-junk": Case(_binary, ("table/table.toml is not UTF-8 text (byte 128)",)),
    "60-MB-file": Case(_sparse("table.toml", 60_000_000),
                       ("table/table.toml: 60,000,000 bytes, more than the 16 MiB",)),
    "latin-1": Case(_set_table('[table]\nnames = ["J\u00fcrgen"]\n'.encode("latin-1")),
                    ("table/table.toml is not UTF-8 text (byte 19)", 'save it as "UTF-8" text')),
    "byte-order-mark": Case(_bom, ("table/table.toml: not valid TOML", 'not "UTF-8 with BOM"')),
    "toml-syntax-error": Case(_corpus("configs/not-toml.toml", "table.toml"), ("table/table.toml: not valid TOML",)),
    "duplicate-key": Case(_set_table("[table]\nstations = 4\nstations = 3\n"),
                          ("table/table.toml: not valid TOML (Cannot overwrite a value (at line 3",)),
    "stations-9": Case(_set_table("# the venue's\n[table]\nstations = 9\n"),
                       ("table/table.toml: line 3: table.stations: must be from 1 to 5, not 9",)),
    "pin-used-twice": Case(_pin_twice, (f"table/hardware.toml: line {SECOND_BUTTON}: S2.button: GPIO 2 is already "
                                        "used by S1.button",)),
    "nested-20000-deep": Case(_corpus("configs/nested-20000-deep.toml", "table.toml"),
                              ("nests tables and arrays more than 64 deep",)),
    "bad-relay-settings": Case(_corpus("settings/misspelt-key.toml", "relay.toml"),
                               ("table/relay.toml: [relay] has no setting 'brokr'",)),
    "unknown-file": Case(_corpus("configs/two-problems.toml", "tabel.toml"),
                         ("table/tabel.toml: not taken", "(did you mean 'table.toml'?)"), taken=True),
    "200-MB-stray-file": Case(_sparse("film.mp4", 200_000_000), ("table/film.mp4: not taken",), taken=True),
    "unknown-folder": Case(_unknown_folder, ("table/photos/: not taken: a folder the table does not read",),
                           taken=True),
    "odd-name": Case(_odd_name, ("table/table (2).toml: not taken: the name has characters",
                                 "table/dice/reader\\x1b[2J.toml: not taken"), taken=True),
    "symlink": Case(_link, ("table/table.toml: is a link: put the file itself there",)),
    "unreadable-file": Case(_unreadable, ("table/hardware.toml: cannot be read (Permission denied)",)),
    "folder-for-a-file": Case(_folder_for_file, ("table/table.toml: is a folder, but the table reads a file",)),
    "folder-missing": Case(_missing, (), notice=False),
}


def test_there_are_18_cases_and_each_says_something_of_its_own() -> None:
    assert len(CASES) == 18
    assert len({case.says for case in CASES.values()}) == len(CASES)


@pytest.mark.parametrize("name", list(CASES))
def test_a_broken_folder_leaves_the_table_up_saying_why_until_corrected(name: str, card: Card,
                                                                        tmp_path: Path) -> None:
    case = CASES[name]
    before = tree(card.live)
    case.make(card.folder)
    out = card.boot(drop_dac=name == "unreadable-file")
    for words in case.says:
        assert words in out, out
    if case.taken:
        # The rest is taken; what was refused is nowhere under /etc/table.
        assert "are now in" in out
        after = tree(card.live)
        assert all(data == (card.folder / rel).read_bytes() for rel, data in after.items()
                   if rel != "install-state.json")
        assert not any(k.startswith(("tabel", "film", "photos", "table (")) or "\x1b" in k for k in after)
        assert '"Good"' in after["table.toml"].decode()
    else:
        # The last good settings, whole and untouched.
        assert tree(card.live) == before
    record = card.record()
    if case.notice:
        assert record is not None and record["taken"] is case.taken
        assert all(any(words in str(p) for p in record["problems"]) for words in case.says)
    else:
        assert record is None
    log = card.run_table(tmp_path / f"{name}.png")
    if case.notice:
        assert NOTICE in log, log
        assert f"({'card-partly' if case.taken else 'card'})" in log
        notice_line = next(line for line in log.splitlines() if NOTICE in line)
        for words in case.says:
            assert words in notice_line
    else:
        assert NOTICE not in log
    # The next boot with the folder corrected takes it, and the notice is gone.
    card.correct()
    out = card.boot()
    assert "are now in" in out, out
    assert card.record() is None
    assert '"Corrected"' in (card.live / "table.toml").read_text()
    assert tree(card.live)["install-state.json"] == b'{"installed": true}\n'
    log = card.run_table(tmp_path / f"{name}-corrected.png")
    assert NOTICE not in log, log


# -- the bounds, the swap, the hash ---------------------------------------------------------

def test_the_bounds_are_said_with_their_numbers(card: Card) -> None:
    """One file over FILE_LIMIT, or files over TOTAL_LIMIT together, keep the folder out."""
    assert FILE_LIMIT == 16 << 20 and TOTAL_LIMIT == 64 << 20
    before = tree(card.live)
    for i in range(5):  # five face models just under the file bound: over the total
        _sparse(f"dice/model-{i}.npz", FILE_LIMIT - 1)(card.folder)
    out = card.boot()
    assert "table/: more than 64 MiB of settings" in out
    assert tree(card.live) == before
    assert not [p for p in generations_dir(card.live).iterdir() if p.name.startswith(".")], "no staged copy left"
    for i in range(1, 5):
        (card.folder / f"dice/model-{i}.npz").unlink()
    out = card.boot()  # one model alone is within the bounds: taken (its check refuses what is not a model)
    assert "more than 64 MiB" not in out


def test_an_unknown_file_is_never_read_nor_copied(card: Card) -> None:
    _sparse("film.mp4", 200_000_000)(card.folder)
    (card.folder / "film.mp4").chmod(0)  # were it opened, the scan as a plain reader would fail on it
    result = scan(card.folder)
    assert "film.mp4" not in result.taken and not result.blocking
    assert any(line.startswith("table/film.mp4: not taken") for line in result.refused)
    out = card.boot(drop_dac=True)
    assert "are now in" in out and not (card.live / "film.mp4").exists()


def test_a_failure_while_staging_leaves_the_last_good_settings_whole(card: Card) -> None:
    """The new generation cannot be written (its folder refuses it): nothing changes."""
    before = tree(card.live)
    link = os.readlink(card.live)
    (card.folder / "table.toml").write_text("[table]\nstations = 3\n")
    generations_dir(card.live).chmod(0o555)
    try:
        out = card.boot(drop_dac=True)
    finally:
        generations_dir(card.live).chmod(0o755)
    assert "could not be copied" in out and "were not taken" in out
    assert os.readlink(card.live) == link and tree(card.live) == before
    record = card.record()
    assert record is not None and not record["taken"]
    # Not a problem of the folder: it is tried again at the next boot, and taken.
    out = card.boot()
    assert "are now in" in out and "stations = 3" in (card.live / "table.toml").read_text()


def test_an_unchanged_folder_is_left_alone_and_hand_edits_stay(card: Card) -> None:
    link = os.readlink(card.live)
    (card.live / "table.toml").write_text("[table]\nstations = 2\n")  # edited by hand on the card's root
    out = card.boot()
    assert "left as it is" in out
    assert os.readlink(card.live) == link and "stations = 2" in (card.live / "table.toml").read_text()
    (card.folder / "umtata" / "questions-mine.toml").write_bytes(
        (card.folder / "umtata" / "questions-people.toml").read_bytes())
    out = card.boot()  # a deck added on the card: the folder changed, taken whole
    assert "are now in" in out
    assert (card.live / "umtata" / "questions-mine.toml").is_file()
    assert '"Good"' in (card.live / "table.toml").read_text()


def test_only_the_last_two_generations_are_kept(card: Card) -> None:
    for name in ("One", "Two", "Three"):
        shutil.rmtree(card.folder)
        good_folder(card.folder, name)
        card.boot()
    kept = sorted(p.name for p in generations_dir(card.live).iterdir())
    assert len(kept) == 2 and card.live.resolve().name in kept
    assert '"Three"' in (card.live / "table.toml").read_text()


def test_a_cut_between_the_two_steps_of_the_first_swap_is_mended(card: Card) -> None:
    """``/etc/table`` gone with generations kept (power lost after the rename of the
    folder, before the link): the next boot links the newest generation."""
    newest = card.live.resolve()
    card.live.unlink()
    out = card.boot()
    assert card.live.resolve() == newest and "left as it is" in out
    # A link to a generation that is gone (removed by hand): the newest one left.
    card.live.unlink()
    card.live.symlink_to(generations_dir(card.live) / "gone")
    out = card.boot()
    assert card.live.resolve() == newest and "left as it is" in out


# -- the kiosk's fallback -----------------------------------------------------------------------

def test_a_hand_broken_config_runs_the_kiosk_on_the_shipped_settings(card: Card, tmp_path: Path) -> None:
    target = card.live.resolve() / "table.toml"
    target.write_text("[table]\nstations = 9\n")
    log = card.run_table(tmp_path / "shot.png")
    assert f"{NOTICE} (config)" in log and "table.stations: must be from 1 to 5, not 9" in log
    assert "the table runs on its shipped settings" in log
    # By hand (no --fallback-settings) the same config is one sentence and exit status 2.
    done = subprocess.run([str(TABLE), "run", "--headless", "--config", str(card.live), "--seconds", "1",
                           "--journal", str(tmp_path / "j.db")], capture_output=True, text=True, timeout=60,
                          check=False, env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and done.stderr.startswith("table: ")


def test_the_kiosk_reads_the_record_where_the_service_writes_it() -> None:
    assert DEFAULT_PROBLEM_RECORD == STATE / PROBLEM_FILE
    unit = (REPO / "packaging" / "card" / "table-card-settings.service").read_text()
    assert "ConditionPathExists=!" not in unit, "the service runs at every boot"
    assert "ExecStart=/usr/local/sbin/table-card-settings" in unit


def test_a_record_that_cannot_be_read_is_no_notice(tmp_path: Path) -> None:
    (tmp_path / PROBLEM_FILE).write_text("{not json")
    assert read_problem(tmp_path) is None
    (tmp_path / PROBLEM_FILE).write_text(json.dumps({"problems": "one"}))
    assert read_problem(tmp_path) is None


@pytest.mark.parametrize(("stderr", "problems"), [
    ("table: the config has a problem: a/table.toml: x\n", ["a/table.toml: x"]),
    ("table: the config has 2 problems:\n  a: x\n  b: y\n", ["a: x", "b: y"]),
    ("table: the table's shipped data is incomplete\n", ["the table's shipped data is incomplete"]),
    ("Traceback (most recent call last):\n  ...\nRecursionError: too deep\n",
     ["table/: the settings' check failed: RecursionError: too deep"]),
])
def test_the_checks_sentences_are_read_one_by_one(stderr: str, problems: list[str]) -> None:
    assert check_problems(stderr) == problems


def test_a_problem_names_the_line_of_its_key(tmp_path: Path) -> None:
    from table.kiosk.card_settings import with_line

    (tmp_path / "table.toml").write_text("# venue\n[table]\nstations = 9\n\n[display]\nwidth = 1\n")
    (tmp_path / "hardware.toml").write_text("[[station]]\nbutton = 2\n\n[[station]] # S2\nknob = \"x\"\nbutton = 2\n")
    assert with_line(tmp_path, "table/table.toml: table.stations: no") == "table/table.toml: line 3: table.stations: no"
    assert with_line(tmp_path, "table/table.toml: display.width: no").startswith("table/table.toml: line 6: ")
    assert with_line(tmp_path, "table/hardware.toml: S2.button: no") == "table/hardware.toml: line 6: S2.button: no"
    # A key the file does not hold (the problem is its absence), or no key: as it was.
    assert with_line(tmp_path, "table/table.toml: sound.volume: no") == "table/table.toml: sound.volume: no"
    assert with_line(tmp_path, "table/table.toml: not valid TOML") == "table/table.toml: not valid TOML"
