"""The table as a venue installs it: the built wheel in a fresh venv, run from ``/``.

The wheel is built from this checkout and installed into a new virtual environment in a
temporary folder; every command of the README's table then runs with ``/`` as its
current directory and a bare environment, so nothing can reach the checkout. The arm64
half of the target check (``scripts/target-check``, Debian 13 arm64 under qemu-user)
runs the same way from ``test_arm64.py``.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
SCENARIOS = CHECKOUT / "docs" / "scenarios"
PHOTO = CHECKOUT / "docs" / "images" / "dice" / "photo-002.jpg"


class Installed:
    """A venv holding the installed wheel; ``table(...)`` runs its command from ``/``."""

    def __init__(self, venv: Path, home: Path) -> None:
        self.venv = venv
        self.home = home

    def table(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        env = {"PATH": f"{self.venv / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(self.home),
               "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "LANG": "C.UTF-8"}
        return subprocess.run([str(self.venv / "bin" / "table"), *args], cwd="/", env=env,
                              capture_output=True, text=True, timeout=timeout, check=False)

    def site(self) -> Path:
        return next((self.venv / "lib").glob("python3*/site-packages"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("installed")
    dist = base / "dist"
    # Built from a copy: setuptools writes build/ and *.egg-info into the source tree, and
    # those in the checkout would confuse the checkout's own editable install.
    source = base / "source"
    shutil.copytree(CHECKOUT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
                   check=True, capture_output=True, cwd=base, timeout=600)
    wheel = next(dist.glob("game_table-*.whl"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, cwd=base, timeout=300)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], check=True, capture_output=True,
                   cwd=base, timeout=900)
    home = base / "home"
    home.mkdir()
    yield Installed(venv, home)


def test_the_installed_table_is_not_the_checkout(installed: Installed) -> None:
    site = installed.site()
    assert (site / "table" / "defaults" / "umtata" / "board.toml").is_file()
    assert (site / "table" / "defaults" / "umtata" / "europe.json").is_file()
    assert (site / "table" / "defaults" / "dice" / "faces.npz").is_file()
    assert (site / "table" / "firmware" / "bridge_logic.py").is_file()  # the Pico's files, for mpremote
    assert (site / "table" / "system" / "table.service").is_file()
    done = subprocess.run([str(installed.venv / "bin" / "python"), "-c",
                           "import table, table.common.datafiles as d; print(table.__file__); print(d.defaults_dir())"],
                          cwd="/", capture_output=True, text=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(installed.home)})
    module, defaults = done.stdout.split()
    assert module.startswith(str(site)) and defaults.startswith(str(site))


def test_check_config_defaults_and_an_owner_directory(installed: Installed, tmp_path: Path) -> None:
    done = installed.table("check-config")
    assert done.returncode == 0, done.stderr
    # An owner's directory overrides file by file: a board of their own is the one read.
    owner = tmp_path / "etc-table"
    (owner / "umtata").mkdir(parents=True)
    (owner / "umtata" / "board.toml").write_text("this is not toml [")
    done = installed.table("check-config", str(owner))
    assert done.returncode == 2 and str(owner / "umtata" / "board.toml") in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_every_scripted_game_plays_headless_through_run(installed: Installed, tmp_path: Path) -> None:
    journal = tmp_path / "journal.db"
    for name in ("shimo-basic", "ubongo-two-players", "ugah-knob-dice"):
        done = installed.table("run", "--headless", "--script", str(SCENARIOS / f"{name}.toml"), "--speed", "50",
                               "--journal", str(journal))
        assert done.returncode == 0, done.stderr
    umtata = CHECKOUT / "tests" / "games" / "umtata" / "scenarios" / "world-cup-2006.toml"
    done = installed.table("run", "--headless", "--script", str(umtata), "--speed", "50", "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    assert db.execute("select count(*) from games").fetchone()[0] == 4
    db.close()
    done = installed.table("replay", str(journal), "--json")
    assert done.returncode == 0, done.stderr


def test_play_replay_and_the_home_journal(installed: Installed, tmp_path: Path) -> None:
    journal = tmp_path / "played.db"
    done = installed.table("play", str(SCENARIOS / "shimo-full-game.toml"), "--json", "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report
    done = installed.table("replay", str(journal), "--json")
    assert done.returncode == 0, done.stderr
    # Without --journal the table keeps its journal in the user's state folder, never in the cwd.
    done = installed.table("run", "--headless", "--seconds", "1")
    assert done.returncode == 0, done.stderr
    assert (installed.home / ".local" / "state" / "table" / "journal.db").is_file()


def test_sim_screens_wiring_selftest(installed: Installed, tmp_path: Path) -> None:
    done = installed.table("sim", "--headless", "--seconds", "1", "--screenshot", str(tmp_path / "sim.png"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "sim.png").stat().st_size > 10_000
    done = installed.table("screens", str(tmp_path / "screens"))
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "screens").rglob("*.png"))) >= 5
    # The German set, from the catalogue the wheel build compiled (no .po is read at run time).
    assert (installed.site() / "table" / "common" / "locale" / "de.mo").is_file()
    done = installed.table("screens", "--lang", "de", str(tmp_path / "screens-de"))
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "screens-de").rglob("*.png"))) >= 5
    probe = subprocess.run([str(installed.venv / "bin" / "python"), "-c",
                            "import table.common.i18n as i; i.set_language('de'); import gettext;"
                            "assert isinstance(i.translations('de'), gettext.GNUTranslations);"
                            "print(i._('Paused'))"], cwd="/", capture_output=True, text=True, timeout=120)
    assert probe.stdout.strip() == "Pause", probe.stderr
    done = installed.table("wiring", "--png", str(tmp_path / "wiring.png"))
    assert done.returncode == 0, done.stderr
    assert "GPIO" in done.stdout and (tmp_path / "wiring.png").is_file()
    done = installed.table("selftest", "--skip", "stations,leds,display", "--camera", str(PHOTO),
                           "--out", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


def test_deck_and_dice(installed: Installed, tmp_path: Path) -> None:
    done = installed.table("deck", "check")
    assert done.returncode == 0, done.stderr
    assert "the deck is good" in done.stdout
    done = installed.table("dice", "read", str(PHOTO), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["dice"]
    done = installed.table("dice", "watch", "--camera", str(PHOTO), "--out", str(tmp_path / "watch"),
                           "--frames", "1")
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "watch").glob("*"))


def test_dice_calibrate_keeps_taught_dice_in_the_config_directory(installed: Installed, tmp_path: Path) -> None:
    pictures = tmp_path / "faces"
    script = (
        "import sys, cv2, numpy as np\n"
        "from pathlib import Path\n"
        "from table.dice.synth import SYMBOLS, render_tray\n"
        "rng = np.random.default_rng(3); out = Path(sys.argv[1]); out.mkdir()\n"
        "for s in SYMBOLS:\n"
        "    for k in range(2):\n"
        "        cv2.imwrite(str(out / f'{s}-{k}.png'), render_tray(rng, 1, (s,))[0])\n"
        "print(' '.join(SYMBOLS))\n"
    )
    done = subprocess.run([str(installed.venv / "bin" / "python"), "-c", script, str(pictures)], cwd="/",
                          capture_output=True, text=True, check=True, env={"PATH": "/usr/bin:/bin"})
    args = ["dice", "calibrate", "--dice", "ugah", "--config", str(tmp_path / "config")]
    (tmp_path / "config").mkdir()
    for symbol in done.stdout.split():
        args += ["--face", symbol, *(str(p) for p in sorted(pictures.glob(f"{symbol}-*.png")))]
    done = installed.table(*args)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "config" / "dice" / "symbols" / "ugah.npz").is_file()


def test_install_dry_run_from_the_wheel(installed: Installed) -> None:
    done = installed.table("install", "--dry-run")
    # Not from /opt/table/venv and no --wheel: one sentence saying how, or a dry run.
    assert done.returncode in (0, 2), done.stderr
    assert "Traceback" not in done.stderr
    if done.returncode == 2:
        assert done.stderr.startswith("table: ") and "--wheel" in done.stderr
    done = installed.table("uninstall", "--dry-run")
    assert done.returncode == 0, done.stderr


def test_a_missing_data_file_is_one_sentence(installed: Installed, tmp_path: Path) -> None:
    """A broken install (a data file deleted from the package) says which file, no traceback."""
    board = installed.site() / "table" / "defaults" / "umtata" / "board.toml"
    kept = tmp_path / "board.toml"
    shutil.move(board, kept)
    try:
        done = installed.table("check-config")
        assert done.returncode == 2
        assert "board.toml" in done.stderr and "Traceback" not in done.stderr
        assert done.stderr.startswith("table: ")
    finally:
        shutil.move(kept, board)


def test_venue_page_and_import_from_the_wheel(installed: Installed, tmp_path: Path) -> None:
    """The venue's page and schema are package data: served and used from the installed wheel."""
    import socket
    import time
    import urllib.request

    journal = tmp_path / "bar.db"
    done = installed.table("play", str(SCENARIOS / "ugah-whole-game.toml"), "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    db = tmp_path / "venue.db"
    done = installed.table("venue", "--db", str(db), "--import", f"Bar-1={journal}")
    assert done.returncode == 0, done.stderr
    assert "1 new result(s)" in done.stdout
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": f"{installed.venv / 'bin'}:/usr/bin:/bin", "HOME": str(installed.home)}
    # No broker on port 9 (discard): the page still serves what the file holds.
    proc = subprocess.Popen([str(installed.venv / "bin" / "table"), "venue", "--db", str(db), "--port", "9",
                             "--http-host", "127.0.0.1", "--http-port", str(port)], cwd="/", env=env,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read().decode()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert "EventSource" in page
        state = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5).read())
        assert state["results"] == 1 and state["leaderboard"][0]["title"] == "Ugah Ugah!"
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_plugin_type_checks_against_the_installed_table(installed: Installed, tmp_path: Path) -> None:
    """The wheel marks the table typed (``py.typed``), so a game in a distribution of its
    own is checked with ``mypy --strict`` against the installed table: the example
    plugin, copied away from the checkout, with the venv's packages as its site."""
    assert (installed.site() / "table" / "py.typed").is_file()
    plugin = tmp_path / "plugin"
    shutil.copytree(CHECKOUT / "tests" / "games" / "buzzer_race" / "buzzer_race", plugin / "buzzer_race",
                    ignore=shutil.ignore_patterns("__pycache__"))
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", "",
               "--python-executable", str(installed.venv / "bin" / "python"), "-p", "buzzer_race"]
    done = subprocess.run(command, cwd=plugin, capture_output=True, text=True, timeout=600, check=False,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(installed.home)})
    assert done.returncode == 0, done.stdout + done.stderr
    # The check can fail: a wrong use of the contract is found through the installed types.
    (plugin / "buzzer_race" / "wrong.py").write_text(
        "from table.games.base import Action\n\nWRONG: int = Action(\"press\", 1.0)\n")
    done = subprocess.run(command, cwd=plugin, capture_output=True, text=True, timeout=600, check=False,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(installed.home)})
    assert done.returncode == 1 and "wrong.py:3: error: Incompatible types" in done.stdout, done.stdout
