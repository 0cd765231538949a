"""Ubongo: solve your puzzle board within the minute, then move your figure and take gems.

The puzzle boards and pieces stay physical; the table keeps the gem board, the
figures, the die (rolled here or read from the tray), the hourglass and everyone's
gems. How a game runs:

1. ``place``: every station turns its knob to choose the row (figure field) its
   figure starts on, and pushes to place it. The game starts when all are placed.
2. Each round: ``roll`` (only with a dice reader: wait for the tray, or for the
   start player to set the die with the knob and push), then ``countdown`` (the symbol
   and the row it selects are shown for a few seconds), then ``sand`` (60 s).
3. During ``sand`` a press means "done". Finishing places follow the presses'
   edge timestamps; place 1/2/3/4 may move the figure up to 3/2/1/0 rows. A finisher
   turns the knob to choose a row within reach and pushes to take the two front gems
   of that row (fewer if fewer are left). Whoever pushes first takes first.
4. When the sand runs out nothing more can be taken. If nobody finished during the
   first hourglass it is turned once more; if nobody finishes during the second
   either, the round's boards are used up. The round also ends as soon as every
   station has taken its gems (the sand could change nothing more).
5. ``results`` until a press (or ``next_round_after`` seconds); after round 9 (all
   18/27/36 boards played) the game is ``over``: most gems of one colour wins, ties
   compared on the second-best colour and so on; a complete tie is a shared win.

Decisions where the rulebook is silent are listed in ``docs/rules-decisions.md``
(section "Ubongo").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from table.common.i18n import N_, N_plural
from table.games.base import (
    DICE,
    NO_REASON,
    PRESS,
    PUSH,
    SKIP_ROUND,
    TICK,
    TURN,
    Action,
    Event,
    GameSetup,
    JSONValue,
    Message,
    MessageParam,
    Outcome,
    Prompt,
    SetupError,
    StationId,
    counted,
    knob_choice,
    rng_for,
    turn_delta,
    turn_sector,
)
from table.games.contract import GameEngine
from table.games.timed import game_time, next_round_press_at, on_tick, results_held, show_results, too_late, turn_sand
from table.games.ubongo.die import die_from_options
from table.games.ubongo.state import (
    COLOURS,
    COUNTDOWN,
    EASY,
    GEMS_PER_COLOUR,
    GEMS_PER_ROW,
    HARD,
    HOURGLASSES,
    OVER,
    PLACE,
    RESULTS,
    ROLL,
    ROUNDS,
    ROWS,
    SAND,
    TAKE,
    Rules,
    UbongoState,
)
from table.games.ubongo.view import public_view


def deal_board(seed: int) -> tuple[tuple[str, ...], ...]:
    """The 72 gems laid at random from the game's seed: 6 rows of 12, front gem first."""
    gems = [c for c in COLOURS for _ in range(GEMS_PER_COLOUR)]
    rng_for(seed, "gem board").shuffle(gems)
    return tuple(tuple(gems[r * GEMS_PER_ROW : (r + 1) * GEMS_PER_ROW]) for r in range(ROWS))


def _with_event(
    state: UbongoState, t: float, kind: str, station: StationId | None = None, detail: JSONValue = None
) -> UbongoState:
    return replace(state, events=(*state.events, Event(t, kind, station, detail)))


def _set(items: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*items[:i], value, *items[i + 1 :])


class Ubongo(GameEngine[UbongoState]):
    """The Ubongo engine (see the module docstring for the flow)."""

    name = "ubongo"
    title = "Ubongo"
    variants = (EASY, HARD)
    min_stations = 2
    max_stations = 4
    option_names = frozenset({"sand_seconds", "reveal_seconds", "next_round_after", "results_hold_seconds",
                              "dice_reader", "start_player", "die", "colours"})

    # -- setup ------------------------------------------------------------------------
    def new_game(self, setup: GameSetup, seed: int) -> UbongoState:
        """Lay the gems and wait for the figures.

        Variant ``easy`` plays the 3-piece side of the puzzle boards, ``hard`` the
        4-piece side. Options: ``sand_seconds`` (60), ``reveal_seconds`` (3),
        ``next_round_after`` (0 = wait for a press), ``dice_reader`` (false: the table
        rolls), ``start_player`` (seat index, 0), ``die`` (see ``die.py``).
        """
        n = len(setup.stations)
        if not self.min_stations <= n <= self.max_stations:
            raise SetupError(f"Ubongo is played by 2 to 4 stations, not {n}")
        rules = Rules.from_options(setup.options, n)
        die = die_from_options(setup.options.get("die"))
        return UbongoState(
            setup=setup,
            seed=seed,
            rules=rules,
            die=die,
            board=deal_board(seed),
            figures=(None,) * n,
            cursors=(0,) * n,
            collections=((),) * n,
        )

    # -- the interface ----------------------------------------------------------------
    def legal_actions(self, state: UbongoState) -> list[Action]:
        """Inputs that would change the game now (ticks come from ``next_deadline``)."""
        now = state.now
        out: list[Action] = []
        if state.phase == PLACE:
            for i, s in enumerate(state.setup.stations):
                if state.figures[i] is None:
                    out += [
                        Action(TURN, now, s, {"delta": 1}),
                        Action(TURN, now, s, {"delta": -1}),
                        Action(PUSH, now, s),
                    ]
        elif state.phase == ROLL:
            s = state.start_player
            out += [
                Action(TURN, now, s, {"delta": 1}),
                Action(TURN, now, s, {"delta": -1}),
                Action(PUSH, now, s),
            ]
            out += [Action(DICE, now, None, {"faces": [pips]}) for pips in range(1, 7)]
        elif state.phase == SAND:
            for i, s in enumerate(state.setup.stations):
                if s not in state.finishers:
                    out.append(Action(PRESS, now, s))
                elif s not in state.takers:
                    lo, hi = state.reach(s)
                    if state.cursors[i] < hi:
                        out.append(Action(TURN, now, s, {"delta": 1}))
                    if state.cursors[i] > lo:
                        out.append(Action(TURN, now, s, {"delta": -1}))
                    out.append(Action(PUSH, now, s))
        elif state.phase == RESULTS:
            at = next_round_press_at(state, state.rules)
            out += [Action(PRESS, at, s) for s in state.setup.stations]
        return out

    def next_deadline(self, state: UbongoState) -> float | None:
        return state.deadline

    def prompt(self, state: UbongoState) -> Prompt:
        """Each phase of a round is a question of its own; the die's reveal and the
        results' first moments take no input yet."""
        opens_at = None
        if state.phase == COUNTDOWN:
            opens_at = state.deadline
        elif state.phase == RESULTS:
            opens_at = next_round_press_at(state, state.rules)
        return Prompt(key=(state.phase, state.round), opens_at=opens_at)

    def is_over(self, state: UbongoState) -> bool:
        return state.phase == OVER

    def apply(self, state: UbongoState, action: Action) -> UbongoState:
        """Apply one input; inputs that mean nothing now return ``state`` unchanged."""
        if state.phase == OVER:
            return state
        t = game_time(state, action)
        if action.kind == TICK:
            return on_tick(state, t, self._expire)
        if action.kind == SKIP_ROUND:
            if state.phase in (ROLL, COUNTDOWN, SAND):
                return self._skip_round(replace(state, now=t), t)
            return state
        if too_late(state, t):
            return state
        if action.kind == DICE:
            return self._dice(state, action, t)
        station = action.station
        if station is None or station not in state.setup.stations:
            return state
        if action.kind == TURN:
            return self._turn(state, station, action, t)
        if action.kind == PUSH:
            return self._push(state, station, t)
        if action.kind == PRESS:
            if state.phase == SAND and station not in state.finishers:
                return self._finish_puzzle(state, station, t)
            if state.phase == RESULTS:
                if results_held(state, state.rules, t):
                    return state
                return self._next_round(replace(state, now=t), t)
        return state

    # -- inputs -----------------------------------------------------------------------
    def _turn(self, state: UbongoState, station: StationId, action: Action, t: float) -> UbongoState:
        i = state.seat(station)
        if state.phase == PLACE and state.figures[i] is None:
            row = knob_choice(state.cursors[i], action, ROWS)  # choosing, not moving: wraps
        elif state.phase == ROLL and station == state.start_player:
            cursor = knob_choice(state.die_cursor, action, len(state.die.symbols))
            if cursor == state.die_cursor:
                return state
            return replace(state, now=t, die_cursor=cursor)
        elif state.phase == SAND and station in state.finishers and station not in state.takers:
            lo, hi = state.reach(station)
            row = _move_within(state.cursors[i], action, lo, hi)
        else:
            return state
        if row == state.cursors[i]:
            return state
        return replace(state, now=t, cursors=_set(state.cursors, i, row))

    def _push(self, state: UbongoState, station: StationId, t: float) -> UbongoState:
        i = state.seat(station)
        if state.phase == PLACE and state.figures[i] is None:
            row = state.cursors[i]
            state = replace(state, now=t, figures=_set(state.figures, i, row))
            state = _with_event(state, t, "figure_placed", station, {"row": row})
            if all(f is not None for f in state.figures):
                return self._start_round(state, t)
            return state
        if state.phase == ROLL and station == state.start_player:
            return self._die_known(replace(state, now=t), state.die_cursor, "knob", t)
        if state.phase == SAND and station in state.finishers and station not in state.takers:
            return self._take_gems(replace(state, now=t), station, t)
        return state

    def _dice(self, state: UbongoState, action: Action, t: float) -> UbongoState:
        if state.phase != ROLL or not isinstance(action.value, Mapping):
            return state
        faces = action.value.get("faces")
        if not isinstance(faces, list | tuple) or len(faces) != 1:
            return state
        symbol = state.die.symbol_for_face(faces[0])
        if symbol is None:
            return state
        return self._die_known(replace(state, now=t), symbol, "tray", t)

    # -- the round --------------------------------------------------------------------
    def _start_round(self, state: UbongoState, t: float) -> UbongoState:
        state = replace(state, finishers=(), takers=(), symbol=None, hourglass=0, sand_started=None, deadline=None)
        state = _with_event(
            state,
            t,
            "round_start",
            state.start_player,
            {"round": state.round, "boards_left": state.boards_total - state.boards_played},
        )
        if state.rules.dice_reader:
            return replace(state, phase=ROLL, die_cursor=0)
        symbol = rng_for(state.seed, state.round).randrange(len(state.die.symbols))
        return self._die_known(state, symbol, "table", t)

    def _die_known(self, state: UbongoState, symbol: int, source: str, t: float) -> UbongoState:
        face = state.die.symbols[symbol]
        state = replace(state, phase=COUNTDOWN, symbol=symbol, deadline=t + state.rules.reveal)
        return _with_event(
            state, t, "die", state.start_player, {"symbol": face.name, "row": face.row, "source": source}
        )

    def _turn_hourglass(self, state: UbongoState, at: float) -> UbongoState:
        state = turn_sand(replace(state, phase=SAND, hourglass=state.hourglass + 1), at, state.rules.sand)
        return _with_event(state, at, "sand_start", None, {"hourglass": state.hourglass})

    def _finish_puzzle(self, state: UbongoState, station: StationId, t: float) -> UbongoState:
        state = replace(state, now=t, finishers=(*state.finishers, station))
        i = state.seat(station)
        figure = state.figures[i]
        assert figure is not None
        state = replace(state, cursors=_set(state.cursors, i, figure))
        place = len(state.finishers)
        detail = {"place": place, "allowance": state.allowance(station)}
        return _with_event(state, t, "finished", station, detail)

    def _take_gems(self, state: UbongoState, station: StationId, t: float) -> UbongoState:
        i = state.seat(station)
        row = state.cursors[i]
        start = state.figures[i]
        taken = state.board[row][:TAKE]
        state = replace(
            state,
            figures=_set(state.figures, i, row),
            board=_set(state.board, row, state.board[row][len(taken) :]),
            collections=_set(state.collections, i, (*state.collections[i], *taken)),
            takers=(*state.takers, station),
        )
        state = _with_event(
            state,
            t,
            "gems_taken",
            station,
            {
                "row": row,
                "from_row": start,
                "gems": list(taken),
                "place": state.finishers.index(station) + 1,
                "left": len(state.board[row]),
            },
        )
        if len(state.takers) == len(state.setup.stations):
            # Everyone has taken: the sand cannot change anything any more.
            return self._end_round(state, t, "everyone has taken")
        return state

    def _expire(self, state: UbongoState, at: float) -> UbongoState:
        if state.phase == COUNTDOWN:
            return self._turn_hourglass(state, at)
        if state.phase == SAND:
            state = _with_event(state, at, "sand_out", None, {"hourglass": state.hourglass})
            if not state.finishers:
                if state.hourglass < HOURGLASSES:
                    return self._turn_hourglass(state, at)
                state = _with_event(state, at, "boards_used_up", None, {"round": state.round})
                return self._end_round(state, at, "nobody finished")
            for s in state.finishers:
                if s not in state.takers:
                    state = _with_event(state, at, "too_late", s)
            return self._end_round(state, at, "sand ran out")
        if state.phase == RESULTS:
            return self._next_round(state, at)
        return state

    def _end_round(self, state: UbongoState, at: float, why: str) -> UbongoState:
        state = replace(state, boards_played=state.boards_played + len(state.setup.stations), deadline=None)
        state = _with_event(state, at, "round_end", None, {"round": state.round, "why": why})
        if state.round >= ROUNDS:
            return self._end_of_game(state, at)
        return show_results(state, at, state.rules)

    def _next_round(self, state: UbongoState, t: float) -> UbongoState:
        return self._start_round(replace(state, round=state.round + 1), t)

    def _skip_round(self, state: UbongoState, t: float) -> UbongoState:
        """Abandon the round (table menu): its boards are used up; gems taken stay taken."""
        state = _with_event(state, t, "round_skipped", None, {"round": state.round})
        return self._end_round(state, t, "skipped")

    # -- the end ----------------------------------------------------------------------
    def _end_of_game(self, state: UbongoState, at: float) -> UbongoState:
        keys = {s: state.ranking_key(s) for s in state.setup.stations}
        best = max(keys.values())
        winners = tuple(s for s in state.setup.stations if keys[s] == best)
        reason = explain_win(state, winners)
        state = replace(state, phase=OVER, deadline=None, winners=winners, reason=reason)
        return _with_event(state, at, "game_over", None, {"winners": list(winners), "reason": reason.english()})

    # -- results ----------------------------------------------------------------------
    def scores(self, state: UbongoState) -> dict[StationId, int]:
        """The score shown and reported: the most gems of one colour."""
        return {s: state.ranking_key(s)[0] for s in state.setup.stations}

    def standing(self, state: UbongoState, station: StationId, scores: Mapping[StationId, int]) -> tuple[int, ...]:
        """What ranks a player in a game ended early: the same colour-by-colour comparison
        as the game's own end (most of one colour, ties broken by the next colour)."""
        return state.ranking_key(station)

    def outcome(self, state: UbongoState) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome(scores=self.scores(state), winners=state.winners, reason=state.reason or NO_REASON)

    def view(self, state: UbongoState, station: StationId | None) -> dict[str, JSONValue]:
        """Everything in Ubongo is public; the view adds each station's next step."""
        return public_view(self, state)


def _move_within(current: int, action: Action, lo: int, hi: int) -> int:
    """Where a knob input moves a finisher's figure, kept within rows ``lo..hi``.

    An encoder steps the figure and it stops at the end of its reach (no wrapping: the
    column of fields has two ends). An absolute knob points at one of the six rows and
    the figure goes as far towards it as its allowance lets.
    """
    delta = turn_delta(action)
    if delta is not None:
        return min(hi, max(lo, current + delta))
    if turn_sector(action) is not None:
        return min(hi, max(lo, knob_choice(current, action, ROWS)))
    return current


def explain_win(state: UbongoState, winners: tuple[StationId, ...]) -> Message:
    """Why the winners won, naming the tie-break colour rank when one was needed."""
    keys = {s: state.ranking_key(s) for s in state.setup.stations}
    best = keys[winners[0]]
    others = [keys[s] for s in state.setup.stations if s not in winners]
    names = join_names([state.setup.name_of(s) for s in winners])
    if not others:
        return Message(N_("complete tie: {names} share the win"), {"names": names})
    runner = max(others)
    depth = next(i for i in range(len(best)) if best[i] != runner[i])
    if depth == 0:
        if len(winners) > 1:
            return Message(N_("most gems of one colour ({n}); {names} are tied on every colour and share the win"),
                           {"n": best[0], "names": names})
        return Message(N_("most gems of one colour: {n}"), {"n": best[0]})
    tied_names = join_names([state.setup.name_of(s) for s in state.setup.stations if keys[s] in (best, runner)])
    if len(winners) > 1:
        forms = N_plural("{tied_names} tied on the best colour ({tied}); the {which} colour decided {a} to {b}: "
                         "{names} share the win (tied on every colour)",
                         "{tied_names} tied on the best {depth} colours ({tied}); the {which} colour decided "
                         "{a} to {b}: {names} share the win (tied on every colour)")
    else:
        forms = N_plural("{tied_names} tied on the best colour ({tied}); the {which} colour decided {a} to {b}: "
                         "{names} wins",
                         "{tied_names} tied on the best {depth} colours ({tied}); the {which} colour decided "
                         "{a} to {b}: {names} wins")
    return counted(forms, depth, tied_names=tied_names, tied=", ".join(str(best[i]) for i in range(depth)),
                   which=ordinal(depth + 1), a=best[depth], b=runner[depth], names=names, depth=depth)


def ordinal(n: int) -> Message:
    """``2nd``, ``3rd``, ``4th``, ... as a message."""
    if n == 2:
        return Message(N_("2nd"))
    if n == 3:
        return Message(N_("3rd"))
    return Message(N_("{n}th"), {"n": n})


def join_names(names: Sequence[str]) -> MessageParam:
    """``A``, ``A and B``, ``A, B and C`` (the last ``and`` in the language shown)."""
    if len(names) == 1:
        return names[0]
    return Message(N_("{names} and {last}"), {"names": ", ".join(names[:-1]), "last": names[-1]})


ENGINE = Ubongo()
