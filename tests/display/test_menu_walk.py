"""Every table-menu choice, from every phase of every game, ends in a screen that says
what happened: the walk goes through the real table loop (scripted station inputs, a
virtual clock) and reads the text the screen actually drew."""

from __future__ import annotations

import os

import pygame
import pytest

from table.display.screens import GameScreen, PausedScreen
from table.display.theme import recording
from table.games import registry
from table.games.base import Action
from table.loop.snapshots import MENU_CHOICES, menu_choice, phase_walk, run_frames, walk_to

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


def _phases() -> list[tuple[str, str]]:
    found = []
    for game, engine in sorted(registry().items()):
        phases = [p for p, _, _ in phase_walk(game, engine.variants[0], seed=3) if not p.endswith("last-seconds")]
        found += [(game, p) for p in phases]
    return found


PHASES = _phases()


def _screen_text(table: object, now: float) -> str:
    with recording() as drawn:
        table.draw(now, force=True)  # type: ignore[attr-defined]
    return " | ".join(d.message for d in drawn)


EXPECT = {
    "continue": ("The game goes on",),
    "pause": ("Game paused", "press a button to continue"),
    "undo": ("Taken back: ", "Nothing to undo"),
    "skip": ("Round skipped", "Nothing to skip"),
}


# Every phase once more with the game paused from the menu first (the menu opened again
# from the paused screen), for the first phase of each game that has a running round.
PAUSED = [(g, p) for g, p in PHASES if p in ("solving", "sand", "guess", "throw")]


CASES = [(g, p, False) for g, p in PHASES] + [(g, p, True) for g, p in PAUSED]


@pytest.mark.parametrize("choice", MENU_CHOICES)
@pytest.mark.parametrize(("game", "phase", "paused"), CASES,
                         ids=[f"{g}-{p}" + ("-paused" if paused else "") for g, p, paused in CASES])
def test_menu_choice_ends_in_a_screen_that_says_what_happened(game: str, phase: str, paused: bool,
                                                              choice: str) -> None:
    pygame.display.init()
    pygame.font.init()
    found = walk_to(game, phase, pygame.Surface((1280, 720)))
    assert found is not None, f"the walk never reached {game} {phase}"
    table, clock, inputs = found
    session = table.session
    assert session is not None
    if paused:
        menu_choice(table, clock, inputs, "pause")
        assert isinstance(table.screens[-1], PausedScreen) and session.paused
    was_over = session.is_over()
    menu_choice(table, clock, inputs, choice)
    text = _screen_text(table, clock.now)
    top = table.screens[-1]
    if was_over:
        assert isinstance(top, GameScreen)
        assert "Press any button for the menu" in text, text
        assert ("Back to the final ranking" if choice == "continue" else "The game is already over") in text, text
        return
    if choice == "end":
        assert isinstance(top, GameScreen) and session.is_over()
        outcome = session.outcome()
        assert outcome is not None
        assert "Ended from the table menu" in text, text
        assert "No winner" in text and "wins!" not in text and "share the win!" not in text, text  # ended early
        for station in session.setup.stations:
            assert session.setup.name_of(station) in text
        assert "Press any button for the menu" in text
        # And the round is gone for good: a minute later the same ranking, no sand running.
        run_frames(table, clock, inputs, [], 60.0, fps=2)
        assert "Ended from the table menu" in _screen_text(table, clock.now)
        assert not table.live
        # A press leaves for the lobby.
        run_frames(table, clock, inputs, [Action("press", 0.1, 1)], 0.5)
        assert table.session is None
        return
    if choice == "pause":
        assert isinstance(top, PausedScreen) and session.paused
    else:
        assert isinstance(top, GameScreen) and not session.paused
    assert any(e in text for e in EXPECT[choice]), f"{choice} from {phase}: {text}"
    assert "Table menu" not in text
