"""The rules of "Wo ist bitte Umtata?" as a pure engine.

A round: every station either locks a region+colour guess (turn the knob, push it) or
presses the button for "Tataaa!" (the first of the two counts). When every station has
acted, the Tataaa players answer in press order (actions arrive ordered by their edge
time ``t``): each picks a region+colour sector, then a country in it, and pushes. A right
answer scores 3 and ends the answering; a wrong one scores 0 and stays secret. Then the
card is revealed: guessers score 1 for the right region and 1 for the right colour.
The reader role moves one station clockwise per round. A game ends at the end of a
round in which somebody reached the target (16); everyone who reached it shares the win.

Options (``GameSetup.options``): ``target`` (points to win, 16), ``first_reader``
(station reading first; default the first station), ``deck`` (a list of question
objects instead of the shipped deck), ``whole_deck`` (play all cards instead of a
shuffled half, false), ``language`` ("en" or "de": which shipped deck is played, "en").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from table.common.i18n import N_
from table.common.memory import SETUP_MEMOS
from table.games.base import (
    PRESS,
    PUSH,
    SKIP_ROUND,
    TURN,
    Action,
    Event,
    GameSetup,
    JSONValue,
    Message,
    Outcome,
    Prompt,
    SetupError,
    StationId,
    check_setup,
    knob_choice,
    rng_for,
)
from table.games.contract import GameEngine
from table.games.umtata.board import SECTORS, Board, Country, load_board, sector_parts
from table.games.umtata.deck import DEFAULT_LANGUAGE, Question, check_language, deck_from_option, default_deck
from table.games.umtata.state import (
    ANSWER,
    GUESS,
    OVER,
    REVEAL,
    STEP_COUNTRY,
    STEP_SECTOR,
    TARGET,
    TATAAA_POINTS,
    Attempt,
    UmtataState,
)
from table.games.umtata.view import build_view

_DECK_CACHE: dict[int, tuple[Any, tuple[Question, ...]]] = {}


def deck_of(setup: GameSetup) -> tuple[Question, ...]:
    """The question deck a game plays with: the ``deck`` option or the shipped deck in the
    game's ``language``; :class:`SetupError` for a language without a deck."""
    language = setup.options.get("language", DEFAULT_LANGUAGE)
    try:
        check_language(language)
    except ValueError as exc:
        raise SetupError(str(exc)) from None
    raw = setup.options.get("deck")
    if raw is None:
        return default_deck(language)
    hit = _DECK_CACHE.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    deck = deck_from_option(raw, language)
    if len(_DECK_CACHE) > SETUP_MEMOS:  # replays build many setups; keep the memo small
        _DECK_CACHE.clear()
    _DECK_CACHE[id(raw)] = (raw, deck)
    return deck


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


class UmtataEngine(GameEngine[UmtataState]):
    """The engine registered as ``umtata``; see the module docstring for the rules."""

    name = "umtata"
    title = "Wo ist bitte Umtata?"
    variants = ("standard",)
    min_stations = 2
    max_stations = 5
    option_names = frozenset({"target", "first_reader", "deck", "whole_deck", "colours", "language"})

    # -- queries -----------------------------------------------------------------

    @staticmethod
    def board() -> Board:
        return load_board()

    def question(self, state: UmtataState) -> Question:
        """This round's card."""
        deck = deck_of(state.setup)
        return deck[state.cards[(state.round - 1) % len(state.cards)]]

    def answerer(self, state: UmtataState) -> int | None:
        """The player index whose Tataaa answer is due, or ``None``."""
        if state.phase != ANSWER:
            return None
        return state.tataaa[len(state.attempts)]

    def choices(self, state: UmtataState) -> tuple[Country, ...]:
        """The countries offered in the answerer's country step (a "back" entry follows)."""
        who = self.answerer(state)
        if who is None:
            return ()
        return self.board().in_sector(state.knobs[who])

    # -- the engine interface ------------------------------------------------------

    def new_game(self, setup: GameSetup, seed: int) -> UmtataState:
        check_setup(self, setup)
        deck = deck_of(setup)
        if not deck:
            raise SetupError("the Umtata question deck is empty")
        target = setup.options.get("target", TARGET)
        if not isinstance(target, int) or isinstance(target, bool) or target < 1:
            raise SetupError("the Umtata target must be a whole number of points, at least 1")
        first = setup.options.get("first_reader", setup.stations[0])
        if first not in setup.stations:
            raise SetupError(f"the first reader {first!r} is not one of the playing stations")
        order = list(range(len(deck)))
        rng_for(seed, "umtata", "deck").shuffle(order)
        if not setup.options.get("whole_deck", False):
            # The box says: put roughly half of the shuffled cards in the holder.
            order = order[: max(1, (len(order) + 1) // 2)]
        n = len(setup.stations)
        state = UmtataState(
            setup=setup,
            seed=seed,
            events=(),
            round=1,
            phase=GUESS,
            target=target,
            scores=(0,) * n,
            reader=setup.stations.index(first),
            cards=tuple(order),
            knobs=(0,) * n,
            guesses=(None,) * n,
            tataaa=(),
        )
        return self._start_round(state, 0.0)

    def legal_actions(self, state: UmtataState) -> Sequence[Action]:
        stations = state.setup.stations
        out: list[Action] = []
        if state.phase == GUESS:
            for p, s in enumerate(stations):
                if self._acted(state, p):
                    continue
                out += [
                    Action(PRESS, 0.0, s),
                    Action(PUSH, 0.0, s),
                    Action(TURN, 0.0, s, {"delta": 1}),
                    Action(TURN, 0.0, s, {"delta": -1}),
                ]
        elif state.phase == ANSWER:
            who = self.answerer(state)
            assert who is not None
            s = stations[who]
            out.append(Action(PUSH, 0.0, s))
            options = SECTORS if state.step == STEP_SECTOR else len(self.choices(state)) + 1
            if options > 1:
                out += [Action(TURN, 0.0, s, {"delta": 1}), Action(TURN, 0.0, s, {"delta": -1})]
        elif state.phase == REVEAL:
            for s in stations:
                out += [Action(PUSH, 0.0, s), Action(PRESS, 0.0, s)]
        return out

    def apply(self, state: UmtataState, action: Action) -> UmtataState:
        if state.phase == OVER:
            return state
        if action.kind == SKIP_ROUND:
            return self._skip(state, action.t)
        if action.station not in state.setup.stations:
            return state
        player = state.setup.stations.index(action.station)
        if state.phase == GUESS:
            return self._guess_input(state, player, action)
        if state.phase == ANSWER:
            return self._answer_input(state, player, action)
        if state.phase == REVEAL and action.kind in (PUSH, PRESS):
            return self._next_round(state, action.t)
        return state

    def next_deadline(self, state: UmtataState) -> float | None:
        return None  # Umtata has no timer: a round waits for every station.

    def prompt(self, state: UmtataState) -> Prompt:
        """Each step of a round is a question of its own: the guesses, the Tataaa
        answers, the card turned over (which any button ends)."""
        return Prompt(key=(state.phase, state.round))

    def is_over(self, state: UmtataState) -> bool:
        return state.phase == OVER

    def standing(self, state: UmtataState, station: StationId, scores: Mapping[StationId, int]) -> tuple[int, ...]:
        """The points, up to the target: everybody who reaches it shares the win however
        far past it (the rulebook's "polycracy"), so they share first place too. A game
        ended early (nobody at the target yet) is ranked by the points alone."""
        return (min(int(scores.get(station, 0)), state.target),)

    def outcome(self, state: UmtataState) -> Outcome | None:
        if state.phase != OVER:
            return None
        stations = state.setup.stations
        return Outcome(
            scores={s: state.scores[p] for p, s in enumerate(stations)},
            winners=tuple(stations[p] for p in state.winners),
            reason=Message(N_("reached {target} points"), {"target": state.target}),
        )

    def view(self, state: UmtataState, station: StationId | None) -> dict[str, JSONValue]:
        return build_view(self, state, station)

    # -- the guessing step ---------------------------------------------------------

    @staticmethod
    def _acted(state: UmtataState, player: int) -> bool:
        return state.guesses[player] is not None or player in state.tataaa

    def _guess_input(self, state: UmtataState, player: int, action: Action) -> UmtataState:
        if self._acted(state, player):
            return state  # the first action counts; later presses and turns mean nothing
        station = state.setup.stations[player]
        if action.kind == TURN:
            knob = knob_choice(state.knobs[player], action, SECTORS)
            if knob == state.knobs[player]:
                return state
            return replace(state, knobs=_set(state.knobs, player, knob))
        if action.kind == PUSH:
            state = replace(
                state,
                guesses=_set(state.guesses, player, state.knobs[player]),
                events=(*state.events, Event(action.t, "locked", station)),
            )
        elif action.kind == PRESS:
            state = replace(
                state,
                tataaa=(*state.tataaa, player),
                events=(*state.events, Event(action.t, "tataaa", station, {"rank": len(state.tataaa) + 1})),
            )
        else:
            return state
        if all(self._acted(state, p) for p in range(len(state.setup.stations))):
            if state.tataaa:
                return replace(state, phase=ANSWER, step=STEP_SECTOR, pick=0)
            return self._reveal(state, action.t)
        return state

    # -- the Tataaa answers ----------------------------------------------------------

    def _answer_input(self, state: UmtataState, player: int, action: Action) -> UmtataState:
        if player != self.answerer(state):
            return state
        if action.kind == TURN:
            if state.step == STEP_SECTOR:
                knob = knob_choice(state.knobs[player], action, SECTORS)
                return (
                    state
                    if knob == state.knobs[player]
                    else replace(state, knobs=_set(state.knobs, player, knob))
                )
            pick = knob_choice(state.pick, action, len(self.choices(state)) + 1)
            return state if pick == state.pick else replace(state, pick=pick)
        if action.kind != PUSH:
            return state
        if state.step == STEP_SECTOR:
            return replace(state, step=STEP_COUNTRY, pick=0)
        options = self.choices(state)
        if state.pick >= len(options):  # the "back" entry: choose the sector again
            return replace(state, step=STEP_SECTOR, pick=0)
        country = options[state.pick].id
        right = country == self.question(state).country
        station = state.setup.stations[player]
        state = replace(
            state,
            attempts=(*state.attempts, Attempt(player, country, right)),
            events=(
                *state.events,
                Event(action.t, "answer_right" if right else "answer_wrong", station, {"country": country}),
            ),
            step=STEP_SECTOR,
            pick=0,
        )
        if right or len(state.attempts) == len(state.tataaa):
            return self._reveal(state, action.t)
        return state

    # -- scoring, rounds ---------------------------------------------------------------

    def _reveal(self, state: UmtataState, t: float) -> UmtataState:
        """Turn the card over: score the round, then end the game or wait to go on."""
        card = self.board().get(self.question(state).country)
        points = []
        for p in range(len(state.setup.stations)):
            guess = state.guesses[p]
            if guess is not None:
                region, colour = sector_parts(guess)
                points.append(int(region == card.region) + int(colour == card.colour))
            else:
                right = any(a.player == p and a.right for a in state.attempts)
                points.append(TATAAA_POINTS if right else 0)
        scores = tuple(s + g for s, g in zip(state.scores, points, strict=True))
        stations = state.setup.stations
        detail = {
            "country": card.id,
            "points": {str(stations[p]): g for p, g in enumerate(points)},
            "guesses": {
                str(stations[p]): list(sector_parts(g)) for p, g in enumerate(state.guesses) if g is not None
            },
        }
        state = replace(
            state,
            phase=REVEAL,
            scores=scores,
            round_points=tuple(points),
            events=(*state.events, Event(t, "revealed", None, detail)),
        )
        # The game ends at the end of a round; everybody at or past the target shares the win.
        winners = tuple(p for p, s in enumerate(scores) if s >= state.target)
        if winners:
            state = replace(
                state,
                phase=OVER,
                winners=winners,
                events=(
                    *state.events,
                    Event(t, "game_over", None, {"winners": [stations[p] for p in winners]}),
                ),
            )
        return state

    def _skip(self, state: UmtataState, t: float) -> UmtataState:
        """The table menu abandoned the round: nobody scores, the card goes to the back."""
        if state.phase == REVEAL:
            return self._next_round(state, t)
        state = replace(
            state, events=(*state.events, Event(t, "round_skipped", None, {"round": state.round}))
        )
        return self._next_round(state, t)

    def _next_round(self, state: UmtataState, t: float) -> UmtataState:
        n = len(state.setup.stations)
        state = replace(state, round=state.round + 1, reader=(state.reader + 1) % n)
        return self._start_round(state, t)

    def _start_round(self, state: UmtataState, t: float) -> UmtataState:
        n = len(state.setup.stations)
        return replace(
            state,
            phase=GUESS,
            guesses=(None,) * n,
            tataaa=(),
            attempts=(),
            step=STEP_SECTOR,
            pick=0,
            round_points=(),
            events=(
                *state.events,
                Event(t, "round_started", state.setup.stations[state.reader], {"round": state.round}),
            ),
        )


ENGINE = UmtataEngine()
