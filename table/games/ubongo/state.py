"""The state of an Ubongo game: its numbers, phases, rules and :class:`UbongoState`.

Below both the rules (:mod:`table.games.ubongo.engine`) and the public view
(:mod:`table.games.ubongo.view`), which read the state and import nothing of each other
the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from table.games import timed
from table.games.base import (
    Event,
    GameSetup,
    Message,
    SetupError,
    StationId,
)
from table.games.ubongo.die import Die

EASY = "easy"
HARD = "hard"
PIECES = {EASY: 3, HARD: 4}

ROUNDS = 9
ROWS = 6
GEMS_PER_ROW = 12
COLOURS: tuple[str, ...] = ("red", "green", "brown", "violet", "yellow", "blue")
GEMS_PER_COLOUR = 12
TAKE = 2
ALLOWANCE: tuple[int, ...] = (3, 2, 1, 0)
"""Rows a finisher may move the figure, by finishing place (1st, 2nd, 3rd, 4th)."""
HOURGLASSES = 2  # the sand is turned once more when nobody finished

# Phases
PLACE = "place"
ROLL = "roll"
COUNTDOWN = "countdown"  # the die is shown; the sand starts when this runs out
SAND = "sand"
RESULTS = timed.RESULTS
OVER = "over"


@dataclass(frozen=True)
class Rules:
    """The numbers of a game, from the setup's options (all have defaults)."""

    sand: float = 60.0
    reveal: float = 3.0
    next_round_after: float = 0.0
    """Seconds after which results move on by themselves (0: wait for a press)."""
    results_hold: float = 3.0
    """Presses this soon after a round ended do not start the next (a late "done" press
    must not skip the results)."""
    dice_reader: bool = False
    """True: the die is thrown physically and read from the tray (or set with the knob)."""
    start_index: int = 0
    """Index into the setup's stations of round 1's start player."""

    @staticmethod
    def from_options(options: Mapping[str, Any], stations: int) -> Rules:
        """Read the rules from setup options; raises :class:`SetupError` for bad values."""
        try:
            rules = Rules(
                sand=float(options.get("sand_seconds", 60.0)),
                reveal=float(options.get("reveal_seconds", 3.0)),
                next_round_after=float(options.get("next_round_after", 0.0)),
                results_hold=float(options.get("results_hold_seconds", 3.0)),
                dice_reader=bool(options.get("dice_reader", False)),
                start_index=int(options.get("start_player", 0)),
            )
        except (TypeError, ValueError) as exc:
            raise SetupError(f"Ubongo options are not numbers ({exc})") from None
        if rules.sand <= 0 or min(rules.reveal, rules.next_round_after, rules.results_hold) < 0:
            raise SetupError(
                "sand_seconds must be positive; reveal_seconds, next_round_after and results_hold_seconds "
                "must not be negative"
            )
        if not isinstance(options.get("dice_reader", False), bool):
            raise SetupError("dice_reader must be true or false")
        if not 0 <= rules.start_index < stations:
            raise SetupError(f"start_player must be a seat from 0 to {stations - 1}")
        return rules


@dataclass(frozen=True)
class UbongoState:
    """The whole game. Per-station tuples follow ``setup.stations`` order.

    ``board[r]`` is row ``r`` (0 = top) with its front gem first. ``figures[i]`` is the
    row of station i's figure (None until placed); ``cursors[i]`` is the row its knob
    points at. ``finishers`` are this round's stations in finishing order, ``takers``
    those that have taken their gems, in the order they pushed.
    """

    setup: GameSetup
    seed: int
    rules: Rules
    die: Die
    board: tuple[tuple[str, ...], ...]
    figures: tuple[int | None, ...]
    cursors: tuple[int, ...]
    collections: tuple[tuple[str, ...], ...]
    round: int = 1
    phase: str = PLACE
    now: float = 0.0
    deadline: float | None = None
    sand_started: float | None = None
    hourglass: int = 0
    symbol: int | None = None
    die_cursor: int = 0
    finishers: tuple[StationId, ...] = ()
    takers: tuple[StationId, ...] = ()
    boards_played: int = 0
    results_at: float | None = None
    winners: tuple[StationId, ...] = ()
    reason: Message | None = None
    events: tuple[Event, ...] = ()

    def seat(self, station: StationId) -> int:
        return self.setup.stations.index(station)

    @property
    def start_player(self) -> StationId:
        """Round r's start player: round 1's, moved clockwise once per round."""
        n = len(self.setup.stations)
        return self.setup.stations[(self.rules.start_index + self.round - 1) % n]

    @property
    def boards_total(self) -> int:
        return ROUNDS * len(self.setup.stations)

    def allowance(self, station: StationId) -> int:
        return ALLOWANCE[min(self.finishers.index(station), len(ALLOWANCE) - 1)]

    def reach(self, station: StationId) -> tuple[int, int]:
        """The lowest and highest row a finisher's figure may end on this round."""
        row = self.figures[self.seat(station)]
        assert row is not None
        a = self.allowance(station)
        return max(0, row - a), min(ROWS - 1, row + a)

    def counts(self, station: StationId) -> dict[str, int]:
        gems = self.collections[self.seat(station)]
        return {c: gems.count(c) for c in COLOURS}

    def ranking_key(self, station: StationId) -> tuple[int, ...]:
        """Colour counts, best colour first: compared left to right for the win."""
        return tuple(sorted(self.counts(station).values(), reverse=True))
