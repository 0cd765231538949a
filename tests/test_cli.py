"""The command line: bad input is one sentence and exit status 2, a closed pipe is no
mistake, the run command starts headless (the scenarios and journals it plays:
``tests/play``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from table.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# -- bad input: one sentence, exit 2, no traceback ---------------------------------------------

BAD_SCENARIOS = {
    "not-toml.toml": "game = \n",
    "unknown-game.toml": 'game = "chess"\n',
    "unknown-variant.toml": 'game = "ubongo_shimo"\nvariant = "turbo"\n',
    "bad-input.toml": 'game = "ubongo_shimo"\n[[input]]\nkind = "press"\nt = "soon"\n',
    "bad-station.toml": 'game = "ubongo_shimo"\n[[input]]\nkind = "press"\nt = 1\n',
    "bad-levels.toml": 'game = "ubongo_shimo"\nstations = [0, 1]\n[options]\nlevels = [1, 9]\n',
    "too-many-stations.toml": 'game = "ubongo_shimo"\nstations = [0, 1, 2, 3, 4]\n',
    "unknown-key.toml": 'game = "ubongo_shimo"\nplayers = 3\n',
}


@pytest.mark.parametrize("name", sorted(BAD_SCENARIOS))
def test_bad_scenarios_give_one_sentence_and_exit_2(name: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    path.write_text(BAD_SCENARIOS[name])
    code, _, err = run_cli(capsys, "play", str(path))
    assert code == 2
    assert err.startswith("table: ") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_missing_scenario_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "play", "/nonexistent/x.toml")
    assert code == 2 and "no scenario file" in err


@pytest.mark.parametrize("content", [b"this is not a database at all, not even close", b"SQLite format 3\x00garbage"])
def test_bad_journals(content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    path.write_bytes(content)
    code, _, err = run_cli(capsys, "replay", str(path))
    assert code == 2 and err.startswith("table: ") and "Traceback" not in err


def test_missing_journal(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "replay", "/nonexistent/j.db")
    assert code == 2 and "no journal file" in err


def test_bad_config_lists_every_problem_with_a_suggestion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "table.toml").write_text('[table]\nstatons = 4\n[display]\nfps = "fast"\n')
    code, _, err = run_cli(capsys, "check-config", str(tmp_path))
    assert code == 2
    assert "table.statons: unknown key (did you mean 'stations'?)" in err
    assert "display.fps: must be a whole number" in err


@pytest.mark.parametrize("content", ["[table\n", "[table]\nstations = 9\n", "[hourglas]\n"])
def test_the_table_refuses_to_start_on_a_bad_config(content: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "table.toml").write_text(content)
    code, _, err = run_cli(capsys, "run", "--config", str(tmp_path), "--headless", "--seconds", "0")
    assert code == 2 and err.count("table: ") >= 1 and "Traceback" not in err


@pytest.mark.parametrize(("argv", "said"), [
    (["run", "--headless", "--seconds", "0.2", "--config", ""], "--config names no folder"),
    (["sim", "--headless", "--seconds", "0.2", "--config", " "], "--config names no folder"),
    (["check-config", ""], "the config directory to check names no folder"),
    (["dice", "read", "tray.png", "--config", ""], "--config names no folder"),
    (["selftest", "--config", ""], "--config names no config directory or hardware.toml"),
    (["wiring", "--config", ""], "--config names no config directory or hardware.toml"),
    (["venue", "--config", ""], "--config names no settings file"),
    (["relay", "--config", ""], "--config names no settings file"),
])
def test_an_empty_config_path_is_refused(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty path would mean the current folder to some commands and the shipped
    defaults to others: it names nothing, so every command that takes one refuses it."""
    assert run_cli(capsys, *argv) == (2, "", f"table: {said}\n")


def test_a_bad_speech_setting_is_refused_by_the_config_check(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """(``table run`` leaves a game's own files to the game's start, which refuses the
    file and plays without reading aloud: ``tests/loop/test_outputs.py``.)"""
    (tmp_path / "umtata").mkdir()
    (tmp_path / "umtata" / "speech.toml").write_text('speed = "fast"\n')
    code, _, err = run_cli(capsys, "check-config", str(tmp_path))
    assert code == 2
    assert err == (f"table: the config has a problem: {tmp_path}/umtata/speech.toml: speed: must be a whole "
                   "number from 80 to 450\n")


def test_missing_config_directory(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "check-config", "/nonexistent/dir")
    assert code == 2 and "no config directory" in err


def test_unknown_option_and_command_exit_2_in_one_line() -> None:
    for args in (["--bogus"], ["play", "--what", "x"], ["frobnicate"]):
        proc = subprocess.run([sys.executable, "-m", "table", *args], capture_output=True, text=True, cwd="/",
                              check=False)
        assert proc.returncode == 2
        assert proc.stderr.startswith("table: ") and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_a_reader_that_stops_reading_is_no_mistake() -> None:
    # ``table deck review | head``: the pipe's reader is gone before the table has written all.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "table", "deck", "review"], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, cwd="/", check=False, timeout=60)
    finally:
        os.close(write_end)
    assert proc.stderr == ""
    assert proc.returncode == 141  # what a shell reports for a program stopped by SIGPIPE


@pytest.mark.heavy
def test_the_run_command_plays_attract_mode_headless(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "table", "run", "--seconds", "3", "--journal", str(tmp_path / "j.db"),
         "--screenshot", str(tmp_path / "shot.png")],
        capture_output=True, text=True, cwd="/", check=False, timeout=120,
        env={"PATH": "/usr/bin:/bin", "SDL_AUDIODRIVER": "dummy", "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "headless in attract mode (stop it with Ctrl-C)" in proc.stderr
    assert (tmp_path / "shot.png").stat().st_size > 10_000


def test_game_options_in_the_config_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "table.toml").write_text(
        '[games.ubongo_shimo]\ncard_ponts = [1, 2, 3, 4]\n[games.ubongo]\nsand_seconds = -5\n'
    )
    code, _, err = run_cli(capsys, "check-config", str(tmp_path))
    assert code == 2
    assert "games.ubongo_shimo.card_ponts: unknown option (did you mean 'card_points'?)" in err
    assert "games.ubongo:" in err and "Traceback" not in err


def test_a_games_section_must_name_a_registered_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Checked with the other problems, by the registered games' names (the config's own
    layer knows no games); a game's own data file problems come with them."""
    (tmp_path / "table.toml").write_text('[games.ubongo_shimoo]\nsand_seconds = 10\n[tabel]\n')
    (tmp_path / "umtata").mkdir()
    (tmp_path / "umtata" / "speech.toml").write_text("speak_question = true\n")
    code, _, err = run_cli(capsys, "check-config", str(tmp_path))
    assert code == 2 and "3 problems" in err
    assert "games.ubongo_shimoo: unknown game (did you mean 'ubongo_shimo'?)" in err
    assert "tabel: unknown section (did you mean 'table'?)" in err
    assert "speak_question: unknown key (did you mean 'speak_questions'?)" in err
    code, _, err = run_cli(capsys, "run", "--config", str(tmp_path), "--headless", "--seconds", "0")
    assert code == 2 and "games.ubongo_shimoo: unknown game" in err


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["run", "--help"], ["play", "--help"]])
def test_the_command_line_imports_only_what_the_command_uses(args: list[str]) -> None:
    """Parsing the arguments loads no pygame, numpy or OpenCV, and --help and --version
    no game either: a command costs its own imports, not every command's."""
    probe = ("import sys, runpy\n"
             f"sys.argv = ['table', *{args!r}]\n"
             "try:\n    runpy.run_module('table', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "heavy = ('pygame', 'numpy', 'cv2', 'onnxruntime', 'importlib.metadata', 'table.games.base')\n"
             "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd="/", check=True,
                          timeout=60)
    loaded = done.stderr.strip().splitlines()[-1]
    if args[0].startswith("--"):
        assert loaded == "[]"
    else:
        assert "pygame" not in loaded and "numpy" not in loaded and "cv2" not in loaded


def test_a_games_own_command_is_found_when_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["deck", "--help"])
    assert done.value.code == 0 and "check" in capsys.readouterr().out


def test_the_games_are_found_as_the_standard_library_finds_them() -> None:
    """The same entry points, whatever else is installed. Their order is not compared:
    the table reads each folder of ``sys.path`` in name order, the standard library in
    the order the file system lists it, and ``games()`` sorts by name anyway."""
    import importlib.metadata

    from table.games.contract import ENTRY_POINTS, entry_points

    assert sorted(entry_points(ENTRY_POINTS)) == sorted((p.name, p.value)
                                                        for p in importlib.metadata.entry_points(group=ENTRY_POINTS))


# -- table new-game: a new game's distribution --------------------------------------------------

def test_new_game_writes_a_whole_distribution_that_names_no_other_game(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The files are there, filled in (no placeholder left), the catalogues parse, the
    sources compile, and nothing names a registered game: the template is no copy of one."""
    import re

    from table.common.pofile import read_po
    from table.games import games

    code, out, err = run_cli(capsys, "new-game", "dice_duel", "--dir", str(tmp_path))
    assert code == 0 and err == "" and "dice_duel" in out
    root = tmp_path / "table-dice-duel"
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert files == ["README.md", "dice_duel/__init__.py", "dice_duel/engine.py", "dice_duel/locale/de.po",
                     "dice_duel/locale/en.po", "dice_duel/py.typed", "dice_duel_screen/__init__.py",
                     "dice_duel_screen/py.typed", "dice_duel_screen/screen.toml", "pyproject.toml",
                     "scenarios/first-game.toml", "tests/test_dice_duel.py", "tools/update_catalogues.py"]
    shipped = re.compile("|".join(re.escape(name) for name in games()), re.IGNORECASE)
    for path in root.rglob("*"):
        if path.is_file() and path.suffix != ".typed":
            text = path.read_text(encoding="utf-8")
            assert "$" not in text and "NAME" not in path.as_posix(), path
            assert not shipped.search(text), (path, shipped.search(text))
            if path.suffix == ".py":
                compile(text, str(path), "exec")
    assert '"table.games"]\ndice_duel = "dice_duel:GAME"' in (root / "pyproject.toml").read_text()
    assert 'title="Dice duel"' in (root / "dice_duel" / "__init__.py").read_text()
    for lang in ("en", "de"):
        entries = read_po(root / "dice_duel" / "locale" / f"{lang}.po")
        assert len(entries) > 10 and all(e.translated for e in entries)
    assert not list(tmp_path.glob(".dice_duel-*"))  # the work folder was renamed into place


@pytest.mark.parametrize("args, words", [
    (["new-game", "My-Game"], "'My-Game' cannot name a game"),
    (["new-game", "2fast"], "'2fast' cannot name a game"),
    (["new-game", "class"], "'class' cannot name a game"),
    (["new-game", "a" * 41], "cannot name a game"),
    (["new-game", "json"], "a Python module called 'json' is installed already"),
    (["new-game", "my_game", "--dir", "/nonexistent/games"], "is not a folder"),
    (["new-game", "my_game", "--dir", ""], "--dir names no folder"),
])
def test_new_game_refuses_a_bad_name_or_folder_in_one_sentence(args: list[str], words: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and err.startswith("table: ") and words in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not any(tmp_path.iterdir())


def test_new_game_refuses_an_installed_games_name_and_an_existing_folder(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from table.games import games

    installed = next(iter(games()))
    code, _, err = run_cli(capsys, "new-game", installed, "--dir", str(tmp_path))
    assert code == 2 and f"there is a game called '{installed}' installed already" in err
    (tmp_path / "table-my-game").mkdir()
    (tmp_path / "table-my-game" / "keep.txt").write_text("mine")
    code, _, err = run_cli(capsys, "new-game", "my_game", "--dir", str(tmp_path))
    assert code == 2 and "exists already" in err and len(err.strip().splitlines()) == 1
    assert [p.name for p in (tmp_path / "table-my-game").iterdir()] == ["keep.txt"]
