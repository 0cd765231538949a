"""The state of a game of Wo ist bitte Umtata?: its phases, numbers and :class:`UmtataState`.

Below both the rules (:mod:`table.games.umtata.engine`) and the view
(:mod:`table.games.umtata.view`), so that those two import nothing of each other the
other way round.
"""

from __future__ import annotations

from dataclasses import dataclass

from table.games.base import Event, GameSetup

GUESS = "guess"
ANSWER = "answer"
REVEAL = "reveal"
OVER = "over"

STEP_SECTOR = "sector"
STEP_COUNTRY = "country"

TATAAA_POINTS = 3
TARGET = 16


@dataclass(frozen=True)
class Attempt:
    """One Tataaa answer: who (player index), which country id, and whether it was right."""

    player: int
    country: str
    right: bool


@dataclass(frozen=True)
class UmtataState:
    """The whole game. Players are indexed by their position in ``setup.stations``.

    ``cards`` are deck indices of the cards in play, front first; round ``r`` uses
    ``cards[(r - 1) % len(cards)]`` (a used card goes to the back). ``knobs`` are the
    knob cursors (sectors, hidden), ``guesses`` the locked sectors (hidden until the
    reveal), ``tataaa`` the Tataaa players in press order, ``attempts`` their answers
    so far, ``step``/``pick`` where the current answerer is in choosing a country.
    ``round_points`` holds the last scored round's points (shown at the reveal).
    """

    setup: GameSetup
    seed: int
    events: tuple[Event, ...]
    round: int
    phase: str
    target: int
    scores: tuple[int, ...]
    reader: int
    cards: tuple[int, ...]
    knobs: tuple[int, ...]
    guesses: tuple[int | None, ...]
    tataaa: tuple[int, ...]
    attempts: tuple[Attempt, ...] = ()
    step: str = STEP_SECTOR
    pick: int = 0
    round_points: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
