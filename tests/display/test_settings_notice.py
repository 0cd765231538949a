"""The lobby's settings notice (settings the table did not take): over the lobby until a
station's push or press, then the first problem in the footer; in the table's language."""

from __future__ import annotations

import pygame
import pytest

from table.common.config import TableConfig
from table.common.i18n import set_language
from table.display.screens import NOTICE_PROBLEMS, NOTICE_WORDS, SettingsNotice, notice_lines
from table.games.base import Action
from table.loop.app import ScriptedInputs, Table
from table.play.clock import VirtualClock

PROBLEMS = ("table/table.toml: line 3: table.stations: must be from 1 to 5, not 9",
            "table/tabel.toml: not taken: the table reads only hardware.toml, relay.toml or table.toml here")


@pytest.fixture(autouse=True)
def _pygame() -> object:
    pygame.display.init()
    pygame.font.init()
    yield
    set_language("en")


def _table(notice: SettingsNotice | None) -> tuple[Table, VirtualClock, ScriptedInputs]:
    clock = VirtualClock(10.0)
    inputs = ScriptedInputs()
    table = Table(TableConfig(), clock, pygame.Surface((1280, 720)), None, inputs=[inputs], attract=False)
    table.lobby.notice = notice
    return table, clock, inputs


def _step(table: Table, clock: VirtualClock, inputs: ScriptedInputs, *actions: Action) -> None:
    inputs.add(*(Action(a.kind, clock.now + 0.01, a.station, a.value) for a in actions))
    for _ in range(5):
        clock.advance(0.02)
        table.step(clock.now)


def _names(table: Table) -> set[str]:
    return {part.name for part in table.frame_parts((1280, 720), table.clock())}


def test_the_notice_covers_the_lobby_until_a_push_then_stays_in_the_footer() -> None:
    table, clock, inputs = _table(SettingsNotice("card", PROBLEMS))
    _step(table, clock, inputs)
    assert {"lobby:notice", "lobby:notice-veil"} <= _names(table)
    cursor = table.lobby.cursor
    _step(table, clock, inputs, Action("turn", 0, 1, {"delta": 2}))  # a turn is not an answer
    assert table.lobby.notice_open and table.lobby.cursor == cursor
    _step(table, clock, inputs, Action("push", 0, 2))
    assert not table.lobby.notice_open and "lobby:notice" not in _names(table)
    assert table.lobby.settings.joined == []  # the push only put the notice aside
    footer = next(p for p in table.frame_parts((1280, 720), clock.now) if p.name == "lobby:footer")
    assert PROBLEMS[0] in str(footer.key)
    _step(table, clock, inputs, Action("press", 0, 0))
    assert table.lobby.settings.joined == [0]  # then the lobby answers as ever


def test_a_press_puts_it_aside_too_and_no_notice_is_no_veil() -> None:
    table, clock, inputs = _table(SettingsNotice("config", PROBLEMS))
    _step(table, clock, inputs, Action("press", 0, 3))
    assert not table.lobby.notice_open and table.lobby.settings.joined == []
    plain, clock, inputs = _table(None)
    _step(plain, clock, inputs)
    assert "lobby:notice" not in _names(plain)


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("where", sorted(NOTICE_WORDS))
def test_the_words_are_the_languages_own_and_the_problems_are_counted(language: str, where: str) -> None:
    set_language(language)
    many = tuple(f"table/table.toml: problem {i}" for i in range(NOTICE_PROBLEMS + 2))
    heading, problems, runs, fix = notice_lines(SettingsNotice(where, many))
    assert problems[:NOTICE_PROBLEMS] == list(many[:NOTICE_PROBLEMS])
    assert problems[-1] == ("and 2 more problems" if language == "en" else "und 2 weitere Fehler")
    english = NOTICE_WORDS[where]
    assert (heading == english[0]) is (language == "en") and (runs == english[1]) is (language == "en")
    assert fix and ("table" in fix or "/etc/table" in fix)
