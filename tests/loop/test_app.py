"""The table loop headless: lobby to game, the table menu, attract mode, resume after a crash."""

from __future__ import annotations

import os
from pathlib import Path

import pygame
import pytest

from loop.scripted import run as run_frames
from table.common.config import TableConfig, TimingConfig, load_config
from table.display.screens import AttractScreen, GameScreen, LobbyScreen, PausedScreen, TableMenuScreen
from table.games.base import Action
from table.loop.app import ScriptedInputs, Table
from table.play.clock import VirtualClock
from table.play.journal import Journal

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


def make_table(tmp_path: Path, attract_after: float = 120.0) -> tuple[Table, VirtualClock, ScriptedInputs]:
    config = TableConfig(stations=4, timing=TimingConfig(attract_after_s=attract_after))
    clock = VirtualClock(1000.0)
    inputs = ScriptedInputs()
    table = Table(config, clock, pygame.Surface((1280, 720)), Journal(tmp_path / "j.db"), inputs=[inputs],
                  seed_source=lambda: 42)
    return table, clock, inputs


def run(table: Table, clock: VirtualClock, inputs: ScriptedInputs, *actions: Action, until: float) -> None:
    """:func:`loop.scripted.run` at 60 Hz, the display's rate."""
    run_frames(table, clock, inputs, *actions, until=until, fps=60)


def start_shimo(table: Table, clock: VirtualClock, inputs: ScriptedInputs, players: tuple[int, ...] = (0, 1)) -> None:
    presses = [Action("press", 0.1 * (i + 1), s) for i, s in enumerate(players)]
    # Cursor to "start" (the last line: an absolute knob's last sector), push.
    run(table, clock, inputs, *presses, Action("turn", 1.0, 0, {"sector": 15, "sectors": 16}), Action("push", 1.2, 0),
        until=1.5)


def test_lobby_joins_players_and_starts_a_journaled_game(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    assert isinstance(table.screens[-1], LobbyScreen)
    start_shimo(table, clock, inputs)
    assert isinstance(table.screens[-1], GameScreen)
    session = table.session
    assert session is not None and session.setup.stations == (0, 1)
    run(table, clock, inputs, Action("press", 10.0, 1), until=12.0)
    assert session.view()["callers"] == [1]
    # The screen draws at the game's own time (the clock reads 1000 s and more here).
    screen = table.screens[-1]
    assert isinstance(screen, GameScreen)
    deadline = session.view()["deadline"]
    assert deadline - screen._render_now(clock.now) == pytest.approx(58.0, abs=0.1)
    record = table.journal.unfinished() if table.journal else None
    assert record is not None and [a.kind for a in record.actions] == ["tick", "press"]


def test_lobby_refuses_to_start_without_enough_players(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    run(table, clock, inputs, Action("turn", 0.1, 2, {"delta": -1}), Action("push", 0.2, 2), until=0.5)
    assert isinstance(table.screens[-1], LobbyScreen)
    assert "needs 1 to 4 players" in table.lobby.message


def test_absolute_knob_moves_the_lobby_cursor(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    run(table, clock, inputs, Action("turn", 0.1, 3, {"sector": 15, "sectors": 16}), until=0.2)
    assert table.lobby.cursor == len(table.lobby._lines()) - 1


def test_a_restart_resumes_the_same_game_at_the_same_moment(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    start_shimo(table, clock, inputs)
    run(table, clock, inputs, Action("press", 10.0, 0), until=20.0)
    before = table.session
    assert before is not None
    # Crash: no close, nothing else written. A new table on the same journal resumes.
    config = TableConfig(stations=4)
    clock2 = VirtualClock(5.0)
    again = Table(config, clock2, pygame.Surface((1280, 720)), Journal(tmp_path / "j.db"))
    assert again.resume_unfinished()
    assert again.session is not None and again.session.state == before.state
    # The sand continues from where it stood: 60 s after the call (made ~10 s into the game).
    deadline = again.session.deadline()
    assert deadline is not None
    assert again.game_time(clock2.now) == pytest.approx(before.last_t)


def test_a_game_that_stopped_paused_resumes_paused_and_a_push_continues(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    start_shimo(table, clock, inputs)
    run(table, clock, inputs, Action("long_push", 5.0, 0), until=6.0)
    assert table.session is not None and table.session.paused
    clock2 = VirtualClock(0.0)
    inputs2 = ScriptedInputs()
    again = Table(TableConfig(stations=4), clock2, pygame.Surface((640, 360)), Journal(tmp_path / "j.db"),
                  inputs=[inputs2])
    assert again.resume_unfinished()
    assert isinstance(again.screens[-1], PausedScreen)
    run(again, clock2, inputs2, Action("push", 0.5, 3), until=1.0)
    assert again.session is not None and not again.session.paused


def _lobby_text(table: Table, now: float) -> set[str]:
    from table.display.theme import recording

    with recording() as drawn:
        table.draw(now, force=True)
    return {d.message for d in drawn}


def test_the_party_survives_a_crash_through_to_the_next_game(tmp_path: Path) -> None:
    """Three players join, one spells BEN, another takes a new colour; the game starts and
    the table dies (kill -9: nothing closed, nothing more written). The restarted table
    resumes the game with its party: once that game is over, the lobby has the same
    seats, names and colours, and the next game starts with them."""
    from table.loop.snapshots import menu_choice

    table, clock, inputs = make_table(tmp_path)
    lines = table.lobby._lines()
    name, colour, start = lines.index("name"), lines.index("colour"), lines.index("start")
    run(table, clock, inputs, Action("press", 0.1, 0), Action("press", 0.2, 2), Action("press", 0.3, 3),
        Action("turn", 0.4, 0, {"delta": name}), Action("push", 0.5, 2),
        Action("turn", 0.6, 2, {"delta": 1}), Action("push", 0.7, 2),  # B
        Action("turn", 0.8, 2, {"delta": 4}), Action("push", 0.9, 2),  # E
        Action("turn", 1.0, 2, {"delta": 13}), Action("push", 1.1, 2),  # N
        Action("turn", 1.2, 0, {"delta": colour - name}), Action("push", 1.3, 3),
        Action("turn", 1.4, 0, {"delta": start - colour}), Action("push", 1.5, 0), until=2.0)
    party = table.lobby.settings
    assert party.joined == [0, 2, 3] and party.names == {2: "BEN"} and party.colours[3] == 4
    first = table.session
    assert first is not None and first.setup.names == ("Station 1", "BEN", "Station 4")
    assert first.setup.options["colours"] == [0, 2, 4]
    run(table, clock, inputs, Action("press", 8.0, 2), until=10.0)

    # kill -9: the old table is dropped as it stands; a new process opens the same journal.
    clock2, inputs2 = VirtualClock(7.0), ScriptedInputs()
    again = Table(TableConfig(stations=4), clock2, pygame.Surface((1280, 720)), Journal(tmp_path / "j.db"),
                  inputs=[inputs2], seed_source=lambda: 43)
    assert again.resume_unfinished()
    assert again.session is not None and again.session.state == first.state
    menu_choice(again, clock2, inputs2, "end")
    assert again.session.is_over()
    run(again, clock2, inputs2, Action("press", 2.0, 0), until=2.5)
    assert again.session is None and again.screens[-1] is again.lobby
    back = again.lobby.settings
    assert (back.joined, back.names, back.colours) == ([0, 2, 3], {2: "BEN"}, {0: 0, 1: 1, 2: 2, 3: 4})
    assert back.game == first.setup.game and back.variant == first.setup.variant
    shown = _lobby_text(again, clock2.now)
    assert {"Station 1", "Station 2", "Station 3 · BEN", "Station 4"} <= shown, shown
    # The next game: the same players in the same seats, names and colours.
    lobby = again.lobby
    run(again, clock2, inputs2, Action("turn", 0.5, 1, {"delta": lobby._lines().index("start") - lobby.cursor}),
        Action("push", 0.7, 1), until=1.5)
    second = again.session
    assert second is not None and again.game_id != first and second is not first
    assert second.setup.stations == (0, 2, 3) and second.setup.names == ("Station 1", "BEN", "Station 4")
    assert second.setup.options["colours"] == [0, 2, 4]
    record = again.journal.latest() if again.journal else None
    assert record is not None and not record.finished and record.setup == second.setup


def test_long_push_opens_the_table_menu_which_pauses_and_undoes(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    start_shimo(table, clock, inputs)
    run(table, clock, inputs, Action("press", 10.0, 0), Action("long_push", 12.0, 1), until=13.0)
    assert isinstance(table.screens[-1], TableMenuScreen)
    session = table.session
    assert session is not None and session.paused
    # Down to "Undo", push twice (confirmation), the call is taken back and the game runs on.
    run(table, clock, inputs, Action("turn", 0.1, 1, {"delta": 2}), Action("push", 0.2, 1), Action("push", 0.3, 1),
        until=0.5)
    assert isinstance(table.screens[-1], GameScreen)
    assert not session.paused and session.view()["callers"] == []


def test_table_menu_pause_keeps_the_game_paused_until_a_push(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    start_shimo(table, clock, inputs)
    run(table, clock, inputs, Action("long_push", 5.0, 0), Action("turn", 5.8, 0, {"delta": 1}),
        Action("push", 6.0, 0), until=30.0)
    assert isinstance(table.screens[-1], PausedScreen)
    session = table.session
    assert session is not None and session.paused
    run(table, clock, inputs, Action("push", 0.1, 3), until=0.2)
    assert not session.paused and isinstance(table.screens[-1], GameScreen)


def test_table_menu_end_game_and_back_to_the_lobby(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    start_shimo(table, clock, inputs)
    run(table, clock, inputs, Action("long_push", 5.0, 0), Action("turn", 5.8, 0, {"delta": 4}),
        Action("push", 6.0, 0), Action("push", 6.2, 0), until=7.0)
    session = table.session
    assert session is not None and session.is_over()
    assert table.journal is not None and table.journal.unfinished() is None
    run(table, clock, inputs, Action("press", 3.0, 2), until=3.5)
    assert table.screens == [table.lobby]


def test_attract_mode_after_idle_and_any_input_returns_to_the_menu(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path, attract_after=30.0)
    run(table, clock, inputs, until=31.0)
    screen = table.screens[-1]
    assert isinstance(screen, AttractScreen)
    run(table, clock, inputs, until=120.0)
    assert screen.demo is not None and screen.demo.applied > 0  # the demo plays by itself
    assert screen.rounds_played >= 1  # whole rounds, at four times real speed
    run(table, clock, inputs, Action("press", 0.5, 2), until=1.0)
    assert table.screens == [table.lobby]


def test_static_screens_are_not_redrawn(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    run(table, clock, inputs, until=0.1)
    drawn = table.frames_drawn
    run(table, clock, inputs, until=5.0)
    assert table.frames_drawn == drawn
    run(table, clock, inputs, Action("turn", 0.1, 0, {"delta": 1}), until=0.2)
    assert table.frames_drawn == drawn + 1
    # A press joins and flashes its station for a moment (a frame per step of the fade), then all rests.
    run(table, clock, inputs, Action("press", 0.1, 0), until=0.5)
    drawn = table.frames_drawn
    run(table, clock, inputs, until=2.0)
    assert table.frames_drawn == drawn and not table.live


def test_shipped_config_loads() -> None:
    config = load_config()
    assert config.stations == 4 and config.display.width == 1920


def test_the_starting_push_is_shown_at_once_and_inputs_during_the_start_are_dropped(tmp_path: Path) -> None:
    table, clock, inputs = make_table(tmp_path)
    run(table, clock, inputs, Action("press", 0.1, 0), Action("press", 0.2, 1),
        Action("turn", 0.3, 0, {"sector": 15, "sectors": 16}), until=0.5)
    # The push on "Start the game", and in the same frame a second turn and push aimed at the lobby.
    t = clock.now + 0.01
    inputs.add(Action("push", t, 0), Action("turn", t + 0.001, 1, {"delta": 1}), Action("press", t + 0.002, 1))
    clock.advance(1 / 60)
    table.step(clock.now)
    # The very next frame answers: the lobby's start line says so, and no game is built yet.
    assert table.session is None and table.lobby.starting
    assert isinstance(table.screens[-1], LobbyScreen)
    # In title type across the middle of the screen, readable from the far end of the table.
    from table.display.theme import TextDrawn, record_text

    drawn: list[TextDrawn] = []
    with record_text(drawn.append):
        table.draw(clock.now, force=True)
    banner = [d for d in drawn if d.message.endswith("starts…")]
    assert banner and banner[0].size == "title" and banner[0].scale > 0.9
    assert banner[0].ink.height >= table.theme.px(4)
    # A press arrives while the game is being set up (before its first frame is shown).
    inputs.add(Action("press", clock.now + 0.005, 1))
    clock.advance(1 / 60)
    table.step(clock.now)
    session = table.session
    assert session is not None and isinstance(table.screens[-1], GameScreen)
    state = session.state
    run(table, clock, inputs, until=0.1)
    assert session.state is state and session.view()["callers"] == []
    record = table.journal.unfinished() if table.journal else None
    assert record is not None and [a.kind for a in record.actions if a.kind != "tick"] == []
    # Once the game's first frame has shown, presses count again.
    run(table, clock, inputs, Action("press", 5.0, 1), until=5.5)
    assert session.view()["callers"] == [1]
