"""Ubongo Shimo: race to solve your task card; the first call turns the hourglass.

The puzzles stay physical (task cards and pieces); the table keeps the cards won,
the gems, the rounds and the sand. How a round runs here:

1. ``countdown``: a 3-2-1 on the display; presses now are false starts (ignored).
2. ``solving``: cards are turned; the first press is the "Ubongo!" call.
   Standard timing: no sand runs until the call. Variant ``running-sand``: the sand
   runs from the turn of the cards and is flipped each time it runs out until
   someone calls; after the call it is not flipped again.
3. ``racing``: after the call, every other station that finishes presses while the
   sand runs. Presses whose edge times lie within the tie window of the first press
   are a simultaneous call: nobody can be named first.
4. When the sand runs out (a ``tick`` at the deadline), or as soon as every contender
   has pressed (nobody can change the round any more), the round is scored:
   solvers keep their cards; with one caller, the caller takes the lowest-valued gem
   left and the non-solvers' cards; with a tied call, the gem and those cards go to
   the box. Then ``results`` until any station presses for the next round.

After 9 rounds (no gems left) the points are gems plus card points; ties go to the
player with more cards, and players still tied play extra rounds among themselves
until one of them calls alone.

Decisions where the rulebook is silent are listed in ``docs/rules-decisions.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from table.common.i18n import N_
from table.games import timed
from table.games.base import (
    NO_REASON,
    PRESS,
    SKIP_ROUND,
    TICK,
    Action,
    Event,
    GameSetup,
    JSONValue,
    Message,
    Outcome,
    Prompt,
    SetupError,
    StationId,
    message_json,
)
from table.games.contract import GameEngine
from table.games.timed import (
    game_time,
    next_round_press_at,
    on_tick,
    results_held,
    sand_view,
    show_results,
    too_late,
    turn_sand,
)

STANDARD = "standard"
RUNNING_SAND = "running-sand"
ADVANCED = "advanced"
ADVANCED_RUNNING_SAND = "advanced-running-sand"

ROUNDS = 9
GEMS: tuple[int, ...] = (1, 1, 1, 2, 2, 2, 3, 3, 3)
"""The gems in the middle, by value: 3 amber (1), 3 emerald (2), 3 sapphire (3)."""
GEM_NAMES: Mapping[int, str] = {1: "amber", 2: "emerald", 3: "sapphire"}

# Phases
COUNTDOWN = "countdown"
SOLVING = "solving"
RACING = "racing"
RESULTS = timed.RESULTS
OVER = "over"


@dataclass(frozen=True)
class Rules:
    """The numbers of a game, from the setup's options (all have defaults)."""

    sand: float = 60.0
    countdown: float = 3.0
    tie_window: float = 0.002
    card_points: tuple[int, int, int, int] = (1, 2, 3, 4)
    next_round_after: float = 0.0
    """Seconds after which results move on by themselves (0: wait for a press)."""
    results_hold: float = 3.0
    """Presses this soon after the sand ran out are late finishers, not "next round"."""

    @staticmethod
    def from_options(options: Mapping[str, Any]) -> Rules:
        """Read the rules from setup options; raises :class:`SetupError` for bad values."""
        try:
            points = tuple(int(p) for p in options.get("card_points", (1, 2, 3, 4)))
            rules = Rules(
                sand=float(options.get("sand_seconds", 60.0)),
                countdown=float(options.get("countdown_seconds", 3.0)),
                tie_window=float(options.get("tie_window_ms", 2.0)) / 1000.0,
                card_points=points,  # type: ignore[arg-type]
                next_round_after=float(options.get("next_round_after", 0.0)),
                results_hold=float(options.get("results_hold_seconds", 3.0)),
            )
        except (TypeError, ValueError) as exc:
            raise SetupError(f"Ubongo Shimo options are not numbers ({exc})") from None
        if len(points) != 4 or any(p < 0 for p in points):
            raise SetupError("card_points needs four points, for levels 1 to 4")
        if rules.sand <= 0 or rules.countdown < 0 or rules.tie_window < 0 or rules.next_round_after < 0:
            raise SetupError("sand_seconds must be positive; countdown, tie window and delays not negative")
        return rules


@dataclass(frozen=True)
class Player:
    """One station's holdings: the levels of the cards it kept or won, and its gems."""

    station: StationId
    level: int
    cards: tuple[int, ...] = ()
    gems: tuple[int, ...] = ()

    def points(self, rules: Rules) -> int:
        return sum(self.gems) + sum(rules.card_points[c - 1] for c in self.cards)


@dataclass(frozen=True)
class ShimoState:
    """The whole game. ``deadline`` is the end of the countdown, or when the sand runs out."""

    setup: GameSetup
    seed: int
    rules: Rules
    players: tuple[Player, ...]
    round: int = 1
    phase: str = COUNTDOWN
    now: float = 0.0
    deadline: float | None = None
    sand_started: float | None = None
    flips: int = 0
    contenders: tuple[StationId, ...] = ()
    callers: tuple[StationId, ...] = ()
    call_t: float | None = None
    solvers: tuple[StationId, ...] = ()
    gems_left: tuple[int, ...] = GEMS
    gems_boxed: tuple[int, ...] = ()
    cards_boxed: int = 0
    extra_rounds: int = 0
    results_at: float | None = None
    winners: tuple[StationId, ...] = ()
    reason: Message | None = None
    events: tuple[Event, ...] = ()

    def player(self, station: StationId) -> Player:
        for p in self.players:
            if p.station == station:
                return p
        raise KeyError(station)

    @property
    def advanced(self) -> bool:
        return self.setup.variant in (ADVANCED, ADVANCED_RUNNING_SAND)

    @property
    def running_sand(self) -> bool:
        return self.setup.variant in (RUNNING_SAND, ADVANCED_RUNNING_SAND)

    def level_of(self, station: StationId) -> int:
        """The level of the card ``station`` plays this round (advanced: 4, 3, 4, ...)."""
        if self.advanced:
            return 4 if self.round % 2 == 1 else 3
        return self.player(station).level


def _all_solved(state: ShimoState) -> bool:
    """Whether the race is on and every contender has pressed: nobody can act in it."""
    return state.phase == RACING and all(s in state.solvers for s in state.contenders)


def _event(state: ShimoState, t: float, kind: str, station: StationId | None = None,
           detail: JSONValue = None) -> tuple[Event, ...]:
    return (*state.events, Event(t, kind, station, detail))


class UbongoShimo(GameEngine[ShimoState]):
    """The Ubongo Shimo engine (see the module docstring for the flow)."""

    name = "ubongo_shimo"
    title = "Ubongo Shimo"
    variants = (STANDARD, RUNNING_SAND, ADVANCED, ADVANCED_RUNNING_SAND)
    min_stations = 1
    max_stations = 4
    option_names = frozenset({"levels", "card_points", "sand_seconds", "countdown_seconds", "tie_window_ms",
                              "next_round_after", "results_hold_seconds", "colours"})

    # -- setup ------------------------------------------------------------------------
    def new_game(self, setup: GameSetup, seed: int) -> ShimoState:
        """Start round 1's countdown at time 0.

        Options: ``levels`` (one per station, 1-4, default all 1), ``card_points``,
        ``sand_seconds``, ``countdown_seconds``, ``tie_window_ms``, ``next_round_after``.
        """
        rules = Rules.from_options(setup.options)
        levels = setup.options.get("levels", [1] * len(setup.stations))
        if not isinstance(levels, Sequence) or len(levels) != len(setup.stations):
            raise SetupError(f"levels needs one level per station ({len(setup.stations)})")
        if any(not isinstance(lv, int) or not 1 <= lv <= 4 for lv in levels):
            raise SetupError("every level must be 1, 2, 3 or 4")
        players = tuple(Player(s, int(lv)) for s, lv in zip(setup.stations, levels, strict=True))
        state = ShimoState(setup=setup, seed=seed, rules=rules, players=players)
        return self._start_round(state, 0.0, setup.stations)

    def _start_round(self, state: ShimoState, t: float, contenders: Sequence[StationId]) -> ShimoState:
        state = replace(
            state, phase=COUNTDOWN, now=t, deadline=t + state.rules.countdown, sand_started=None, flips=0,
            contenders=tuple(contenders), callers=(), call_t=None, solvers=(),
        )
        levels = {str(s): state.level_of(s) for s in contenders}
        return replace(state, events=_event(state, t, "round_start", None, {"round": state.round, "levels": levels}))

    # -- the interface ----------------------------------------------------------------
    def legal_actions(self, state: ShimoState) -> list[Action]:
        """Presses that would change the game now (ticks come from ``next_deadline``)."""
        if state.phase in (SOLVING, RACING):
            return [Action(PRESS, state.now, s) for s in state.contenders if s not in state.solvers]
        if state.phase == RESULTS:
            at = next_round_press_at(state, state.rules)
            return [Action(PRESS, at, s) for s in state.setup.stations]
        return []

    def next_deadline(self, state: ShimoState) -> float | None:
        """The state's deadline; once every contender has solved, at once (the moment of
        the last press): nobody can change the round any more, so the sand need not run."""
        if _all_solved(state):
            return state.now
        return state.deadline

    def prompt(self, state: ShimoState) -> Prompt:
        """A round is one question until its results: the first call and the calls
        after it race within it. The countdown and the results' first moments take no
        press yet (a press in the countdown is a false start)."""
        opens_at = None
        if state.phase == COUNTDOWN:
            opens_at = state.deadline
        elif state.phase == RESULTS:
            opens_at = next_round_press_at(state, state.rules)
        return Prompt(key=(state.round, state.phase in (RESULTS, OVER)), opens_at=opens_at)

    def is_over(self, state: ShimoState) -> bool:
        return state.phase == OVER

    def apply(self, state: ShimoState, action: Action) -> ShimoState:
        """Apply one input; inputs that mean nothing now return ``state`` unchanged."""
        if state.phase == OVER:
            return state
        t = game_time(state, action)
        if action.kind == TICK:
            if _all_solved(state) and state.deadline is not None and t < state.deadline:
                # The early end (see ``next_deadline``), scored as the sand running out.
                # A journal from before it ticks at the sand's end and replays as then.
                return self._expire(replace(state, now=t), t)
            return on_tick(state, t, self._expire)
        if action.kind == SKIP_ROUND:
            return self._skip_round(replace(state, now=t), t)
        if action.kind != PRESS or action.station is None:
            return state
        if too_late(state, t):
            return state
        station = action.station
        if state.phase in (COUNTDOWN, SOLVING, RACING) and (
            station not in state.contenders or station in state.solvers
        ):
            return state  # not playing this round, or already done
        if state.phase == COUNTDOWN:
            if station not in state.contenders:
                return state
            return replace(state, now=t, events=_event(state, t, "false_start", station))
        if state.phase == SOLVING:
            return self._call(replace(state, now=t), station, t)
        if state.phase == RACING:
            return self._late_press(replace(state, now=t), station, t)
        if state.phase == RESULTS and station in state.setup.stations:
            if results_held(state, state.rules, t):
                return state
            return self._next_round(replace(state, now=t), t)
        return state

    # -- phases -----------------------------------------------------------------------
    def _expire(self, state: ShimoState, at: float) -> ShimoState:
        if state.phase == COUNTDOWN:
            state = replace(state, phase=SOLVING, deadline=None, sand_started=None)
            if state.running_sand:
                state = turn_sand(state, at, state.rules.sand)
            return replace(state, events=_event(state, at, "cards_turned"))
        if state.phase == SOLVING:  # running sand: nobody has called yet, flip it
            state = turn_sand(replace(state, flips=state.flips + 1), at, state.rules.sand)
            return replace(state, events=_event(state, at, "flip", None, {"flips": state.flips}))
        if state.phase == RACING:
            return self._score_round(state, at)
        if state.phase == RESULTS:
            return self._next_round(state, at)
        return state

    def _call(self, state: ShimoState, station: StationId, t: float) -> ShimoState:
        if station not in state.contenders:
            return state
        state = replace(state, phase=RACING, callers=(station,), call_t=t, solvers=(station,))
        if not state.running_sand:  # (running sand: the sand that runs is not turned again)
            state = turn_sand(state, t, state.rules.sand)
        return replace(state, events=_event(state, t, "ubongo", station))

    def _late_press(self, state: ShimoState, station: StationId, t: float) -> ShimoState:
        if station not in state.contenders or station in state.solvers:
            return state
        assert state.call_t is not None
        # A nanosecond of slack: edge times are whole nanoseconds, floats are not.
        if t - state.call_t <= state.rules.tie_window + 1e-9:
            state = replace(state, callers=(*state.callers, station), solvers=(*state.solvers, station))
            return replace(state, events=_event(state, t, "simultaneous_call", station,
                                                {"callers": list(state.callers)}))
        state = replace(state, solvers=(*state.solvers, station))
        return replace(state, events=_event(state, t, "solved", station))

    def _score_round(self, state: ShimoState, at: float) -> ShimoState:
        events = list(state.events)
        events.append(Event(at, "sand_out"))
        in_extra = state.extra_rounds > 0
        players = {p.station: p for p in state.players}
        gems_left = list(state.gems_left)
        gems_boxed = list(state.gems_boxed)
        cards_boxed = state.cards_boxed
        losers = [s for s in state.contenders if s not in state.solvers]
        if not in_extra:
            for s in state.solvers:
                p = players[s]
                players[s] = replace(p, cards=(*p.cards, state.level_of(s)))
        winner = state.callers[0] if len(state.callers) == 1 else None
        gem = min(gems_left) if gems_left and not in_extra else None
        if winner is not None and not in_extra:
            won = tuple(state.level_of(s) for s in losers)
            p = players[winner]
            players[winner] = replace(p, cards=(*p.cards, *won), gems=(*p.gems, gem) if gem else p.gems)
            if gem is not None:
                gems_left.remove(gem)
                events.append(Event(at, "gem", winner, {"value": gem, "name": GEM_NAMES[gem]}))
            if won:
                events.append(Event(at, "cards_to_winner", winner, {"from": losers, "cards": list(won)}))
        elif not in_extra:
            # Several called at once: nobody is first, so gem and lost cards go to the box.
            if gem is not None:
                gems_left.remove(gem)
                gems_boxed.append(gem)
            cards_boxed += len(losers)
            events.append(Event(at, "to_box", None, {"callers": list(state.callers),
                                                      "gem": gem, "cards": len(losers)}))
        state = replace(state, players=tuple(players[p.station] for p in state.players),
                        gems_left=tuple(gems_left), gems_boxed=tuple(gems_boxed), cards_boxed=cards_boxed,
                        events=tuple(events), deadline=None)
        if in_extra:
            if winner is not None:
                return self._finish(state, at, (winner,), Message(N_("won the extra round")))
            return self._results(state, at)  # a tied call in the extra round: play another
        if state.round >= ROUNDS:
            return self._end_of_game(state, at)
        return self._results(state, at)

    def _results(self, state: ShimoState, at: float) -> ShimoState:
        return show_results(state, at, state.rules)

    def _next_round(self, state: ShimoState, t: float) -> ShimoState:
        state = replace(state, round=state.round + 1)
        if state.extra_rounds > 0:
            state = replace(state, extra_rounds=state.extra_rounds + 1)
        return self._start_round(state, t, state.contenders if state.extra_rounds else state.setup.stations)

    def _end_of_game(self, state: ShimoState, at: float) -> ShimoState:
        rules = state.rules
        best = max(p.points(rules) for p in state.players)
        top = [p for p in state.players if p.points(rules) == best]
        if len(top) == 1:
            return self._finish(state, at, (top[0].station,), Message(N_("most points")))
        most_cards = max(len(p.cards) for p in top)
        top = [p for p in top if len(p.cards) == most_cards]
        if len(top) == 1:
            return self._finish(state, at, (top[0].station,), Message(N_("tied on points, more cards")))
        tied = tuple(p.station for p in top)
        state = replace(state, extra_rounds=1, contenders=tied,
                        events=_event(state, at, "extra_round", None, {"players": list(tied)}))
        return self._results(state, at)

    def _finish(self, state: ShimoState, at: float, winners: tuple[StationId, ...], reason: Message) -> ShimoState:
        state = replace(state, phase=OVER, deadline=None, winners=winners, reason=reason)
        return replace(state, events=_event(state, at, "game_over", None,
                                            {"winners": list(winners), "reason": reason.english()}))

    def _skip_round(self, state: ShimoState, t: float) -> ShimoState:
        """Abandon the round (table menu): its gem goes to the box, nobody scores."""
        if state.phase == RESULTS:
            return state
        gems_left = list(state.gems_left)
        gems_boxed = list(state.gems_boxed)
        if gems_left and not state.extra_rounds:
            gem = min(gems_left)
            gems_left.remove(gem)
            gems_boxed.append(gem)
        state = replace(state, gems_left=tuple(gems_left), gems_boxed=tuple(gems_boxed), deadline=None,
                        callers=(), solvers=(), events=_event(state, t, "round_skipped", None,
                                                              {"round": state.round}))
        if not state.extra_rounds and state.round >= ROUNDS:
            return self._end_of_game(state, t)
        return self._results(state, t)

    # -- results ----------------------------------------------------------------------
    def scores(self, state: ShimoState) -> dict[StationId, int]:
        return {p.station: p.points(state.rules) for p in state.players}

    def standing(self, state: ShimoState, station: StationId, scores: Mapping[StationId, int]) -> tuple[int, ...]:
        """The rulebook's order: the most points, then (tied on points) the more cards,
        then the extra round's win (which only the game's own end knows of). A game
        ended early is ranked by the first two; players equal on both share a place."""
        player = next(p for p in state.players if p.station == station)
        return (int(scores.get(station, player.points(state.rules))), len(player.cards),
                int(station in state.winners))

    def outcome(self, state: ShimoState) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome(scores=self.scores(state), winners=state.winners, reason=state.reason or NO_REASON)

    def view(self, state: ShimoState, station: StationId | None) -> dict[str, JSONValue]:
        """Everything is public in Ubongo Shimo; the view adds each station's next step."""
        rules = state.rules
        players = []
        for p in state.players:
            s = p.station
            playing = s in state.contenders
            if state.phase == OVER:
                status, prompt = (N_("winner") if s in state.winners else N_("done")), ""
            elif not playing:
                status, prompt = N_("watching"), N_("Watching the extra round")
            elif state.phase == COUNTDOWN:
                status, prompt = N_("ready"), N_("Get ready")
            elif state.phase == SOLVING:
                status, prompt = N_("solving"), N_("Press when solved")
            elif state.phase == RACING:
                if s in state.callers:
                    status, prompt = N_("called"), N_("Ubongo!") if len(state.callers) == 1 else N_("Called together")
                elif s in state.solvers:
                    status, prompt = N_("solved"), N_("Solved")
                else:
                    status, prompt = N_("solving"), N_("Press when solved")
            else:
                status = N_("solved") if s in state.solvers else N_("not solved")
                prompt = N_("Press for the next round")
            players.append({
                "station": s,
                "name": state.setup.name_of(s),
                "level": p.level,
                "round_level": state.level_of(s),
                "cards": len(p.cards),
                "card_points": sum(rules.card_points[c - 1] for c in p.cards),
                "gems": list(p.gems),
                "points": p.points(rules),
                "status": status,
                "prompt": prompt,
                "playing": playing,
            })
        return {
            "game": self.name,
            "variant": state.setup.variant,
            "phase": state.phase,
            "round": state.round,
            "rounds": ROUNDS,
            "extra_round": state.extra_rounds > 0,
            "now": state.now,
            "deadline": state.deadline,
            "sand_seconds": rules.sand,
            "sand_started": state.sand_started,
            "sand": sand_view(state, rules.sand),
            "flips": state.flips,
            "callers": list(state.callers),
            "solvers": list(state.solvers),
            "gems_left": list(state.gems_left),
            "gems_boxed": list(state.gems_boxed),
            "players": players,
            "scores": {str(p.station): p.points(rules) for p in state.players},
            "winners": list(state.winners),
            "reason": message_json(state.reason),
            "may_act": [a.station for a in self.legal_actions(state)],
        }


ENGINE = UbongoShimo()
