"""Ubongo through the real table loop: inputs journaled, screen drawn, a restart resumes."""

from __future__ import annotations

import os
from pathlib import Path

import pygame
import pytest
from loop.scripted import run

from table.common.config import TableConfig
from table.display.screens import GameScreen
from table.games.base import Action, GameSetup
from table.loop.app import ScriptedInputs, Table
from table.play.clock import VirtualClock
from table.play.journal import Journal

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


def make_table(path: Path) -> tuple[Table, VirtualClock, ScriptedInputs]:
    clock = VirtualClock(500.0)
    inputs = ScriptedInputs()
    table = Table(
        TableConfig(stations=4),
        clock,
        pygame.Surface((1280, 720)),
        Journal(path),
        inputs=[inputs],
        seed_source=lambda: 9,
        attract=False,
    )
    return table, clock, inputs




def test_a_round_through_the_table_loop_and_a_resume(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path / "j.db")
    table.start_game(GameSetup("ubongo", "hard", (0, 1, 2), ("Ada", "Ben", "Cleo")))
    assert isinstance(table.screens[-1], GameScreen)
    run(
        table,
        clock,
        inputs,
        Action("push", 0.1, 0),
        Action("turn", 0.2, 1, {"delta": 2}),
        Action("push", 0.3, 1),
        Action("push", 0.4, 2),
        until=4.0,
    )
    session = table.session
    assert session is not None and session.view()["phase"] == "sand"
    run(
        table,
        clock,
        inputs,
        Action("press", 5.0, 2),
        Action("turn", 6.0, 2, {"delta": 3}),
        Action("push", 7.0, 2),
        until=8.0,
    )
    assert len(session.state.collections[2]) == 2
    assert table.frames_drawn > 10
    before = session.state
    table.close()

    again, _, _ = make_table(tmp_path / "j.db")
    assert again.resume_unfinished()
    assert again.session is not None and again.session.state == before
