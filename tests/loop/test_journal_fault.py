"""The table loop while the journal cannot be written: the game goes on, the display
says so, and the held writes reach the journal once the fault clears."""

from __future__ import annotations

import os
from pathlib import Path

import pygame
import pytest

from loop.scripted import run
from table.common.config import TableConfig
from table.display.theme import BAD
from table.games.base import Action
from table.loop.app import ScriptedInputs, Table
from table.play.clock import VirtualClock
from table.play.journal import Journal
from table.play.journal_open import open_daemon_journal

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()




def test_a_journal_fault_mid_game_shows_a_warning_and_loses_nothing(tmp_path: Path) -> None:
    """Another program takes the journal's write lock mid-game (SQLite answers "database
    is locked"): the game goes on from memory under a red band, and all of it is
    written once the lock goes."""
    import sqlite3

    path = tmp_path / "journal.db"
    journal = open_daemon_journal(path)
    clock = VirtualClock(1000.0)
    inputs = ScriptedInputs()
    surface = pygame.Surface((1280, 720))
    table = Table(TableConfig(stations=4), clock, surface, journal, inputs=[inputs], seed_source=lambda: 42)
    run(table, clock, inputs, Action("press", 0.1, 0), Action("press", 0.2, 1),
        Action("turn", 1.0, 0, {"sector": 15, "sectors": 16}), Action("push", 1.2, 0), until=1.5)
    assert table.session is not None and table.game_id is not None
    game = table.game_id  # rounds end once both have solved: the game may be over by the end
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    presses = [Action("press", 2.0 + i * 7.0, i % 2) for i in range(40)]
    run(table, clock, inputs, *presses, until=300.0)
    assert journal.fault is not None and "cannot be written" in journal.fault and journal.held > 0
    table.draw(clock.now, force=True)
    pygame.image.save(surface, str(tmp_path / "journal-locked.png"))
    bottom = surface.get_at((5, surface.get_height() - 5))
    assert tuple(bottom)[:3] == BAD, "the warning band is drawn over the picture"
    played = table.seq
    other.execute("COMMIT")
    other.close()
    journal._retry_at = 0.0
    table.step(clock.now + 0.1)
    assert journal.fault is None and journal.held == 0
    table.draw(clock.now, force=True)
    assert tuple(surface.get_at((5, surface.get_height() - 5)))[:3] != BAD
    table.close()
    with Journal.open_readonly(path) as again:
        assert len(again.load(game).actions) == played, "every action played from memory was written"
