"""docs/writing-a-game.md as its reader follows it: every ``sh`` block of the guide, in
order, run by one shell from an empty folder, in a fresh virtual environment that holds
the table's built wheel (the table as an author installs it, never this checkout). What
the steps make must work: the game's own tests and the contract, ``mypy --strict``
against the installed table, its pictures in both languages, a wheel of it, and the
table's own conformance test and registry with the game beside the shipped ones.

The environment takes the table's dependencies (pygame, numpy, pytest, mypy, ...) from
the development environment through a path file, so nothing but the game's build
requirements is downloaded."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
GUIDE = CHECKOUT / "docs" / "writing-a-game.md"
NAME = "my_game"


def sh_blocks(text: str) -> list[str]:
    """The bodies of the guide's fenced blocks marked ``sh``, in order."""
    return [m.group(1) for m in re.finditer(r"^```sh\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)]


def test_the_guide_marks_its_commands_and_shows_the_others_apart() -> None:
    blocks = sh_blocks(GUIDE.read_text(encoding="utf-8"))
    commands = [line for block in blocks for line in block.splitlines() if line.strip()]
    assert commands[0] == f"table new-game {NAME}"
    assert any(c.startswith("mypy --strict") for c in commands) and any(c.startswith("pip wheel") for c in commands)
    # What needs a checkout or a Pi is shown, never run: not in an sh block.
    assert not [c for c in commands if "sudo" in c or "scripts/" in c]


def _shipped() -> set[str]:
    data = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["project"]["entry-points"]["table.games"])


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the table's wheel installed (built from a copy of
    the checkout: setuptools writes into the tree it builds)."""
    base = tmp_path_factory.mktemp("author")
    source = base / "source"
    shutil.copytree(CHECKOUT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(base / "dist"), str(source)],
                   check=True, capture_output=True, cwd=base, timeout=600)
    wheel = next((base / "dist").glob("game_table-*.whl"))
    env = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, capture_output=True, timeout=300)
    site = next((env / "lib").glob("python3*/site-packages"))
    # The dependencies from the development environment, after the venv's own packages:
    # the table itself is the wheel's (its distribution comes first on the path).
    (site / "zz-table-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(env / "bin" / "pip"), "install", "-q", "--no-deps", str(wheel)], check=True,
                   capture_output=True, timeout=600)
    # The author's mypy command (the dependencies' console scripts stay in their environment).
    mypy = env / "bin" / "mypy"
    mypy.write_text(f'#!/bin/sh\nexec "{env / "bin" / "python"}" -m mypy "$@"\n')
    mypy.chmod(0o755)
    return env


def _env(venv: Path, home: Path) -> dict[str, str]:
    return {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "VIRTUAL_ENV": str(venv),
            "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "LANG": "C.UTF-8",
            **{k: v for k, v in os.environ.items() if k.startswith(("PIP_", "http", "HTTP", "no_proxy", "NO_PROXY"))}}


@pytest.mark.heavy  # builds two wheels, installs them, and runs the guide's every step
def test_following_the_guide_makes_a_game_the_table_plays(venv: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    home = tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = _env(venv, home)
    script = "set -eux\n" + "\n".join(sh_blocks(GUIDE.read_text(encoding="utf-8")))
    done = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=900,
                          check=False)
    log = done.stdout[-6000:] + done.stderr[-6000:]
    assert done.returncode == 0, log
    game = work / "table-my-game"
    # The game's own tests ran and passed (pytest's last line), mypy found nothing.
    assert re.search(r"\d+ passed", done.stdout) and "failed" not in done.stdout, log
    assert "Success: no issues found" in done.stdout, log
    # Every phase, its card and the menu's flows, in English and German.
    for folder in ("pictures", "pictures-de"):
        pictures = {p.name for p in (game / folder / NAME).glob("*.png")}
        assert {"how-to-play.png", "menu-paused.png", "standard-01-play.png"} <= pictures, (folder, pictures)
    assert list((game / "dist").glob("table_my_game-0.1.0-py3-none-any.whl"))

    # The table's registry from anywhere: the new game beside the shipped ones.
    found = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import json; from table.games import lobby_games; print(json.dumps(lobby_games()))"],
                           cwd=home, env=env, capture_output=True, text=True, timeout=120, check=True)
    listed = json.loads(found.stdout)
    assert NAME in listed and _shipped() <= set(listed), listed

    # The table's own conformance test, on the installed table, for the new game.
    conformance = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pytest", "-c", str(CHECKOUT / "pyproject.toml"), "--rootdir",
         str(CHECKOUT), "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "conformance"),
         str(CHECKOUT / "tests" / "games" / "test_conformance.py"), "--game", NAME],
        cwd=home, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert conformance.returncode == 0, conformance.stdout[-4000:] + conformance.stderr[-2000:]
    assert re.search(r"\d+ passed", conformance.stdout) and " failed" not in conformance.stdout
