"""The public view of an Ubongo game: JSON-compatible data for the display and LEDs.

Nothing in Ubongo is secret, so one view serves every station. Besides the board
and holdings it says, per station, what that station is expected to do next (``status``,
a word for the screen's logic, and ``prompt``, a message for the players).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from table.common.i18n import N_, N_plural
from table.games.base import Action, JSONValue, Message, StationId, counted, message_json
from table.games.timed import sand_view
from table.games.ubongo.state import (
    COLOURS,
    COUNTDOWN,
    OVER,
    PIECES,
    PLACE,
    RESULTS,
    ROLL,
    ROUNDS,
    SAND,
    UbongoState,
)

RECENT_EVENTS = 40


class Engine(Protocol):
    """What the view asks the engine: the game's name, the scores, who may act now."""

    @property
    def name(self) -> str: ...

    def scores(self, state: UbongoState) -> Mapping[StationId, int]: ...

    def legal_actions(self, state: UbongoState) -> Sequence[Action]: ...


def _prompt(state: UbongoState, station: StationId) -> tuple[str, Message | None]:
    """(status, what to do next) for one station."""
    i = state.seat(station)
    phase = state.phase
    if phase == PLACE:
        if state.figures[i] is None:
            return "placing", Message(N_("Turn to choose your start row, push to place"))
        return "placed", Message(N_("Figure placed - waiting for the others"))
    if phase == ROLL:
        if station == state.start_player:
            return "rolling", Message(N_("Throw the die into the tray (or turn to set it, push)"))
        return "waiting", Message(N_("Take a puzzle board; the die is being thrown"))
    if phase == COUNTDOWN:
        row = state.die.symbols[state.symbol].row if state.symbol is not None else 0
        return "ready", Message(N_("Take a board and look at row {row}: the sand starts"), {"row": row})
    if phase == SAND:
        if station not in state.finishers:
            return "solving", Message(N_("Press when your puzzle is done"))
        if station in state.takers:
            return "took", Message(N_("Gems taken - done this round"))
        allowance = state.allowance(station)
        if allowance == 0:
            return "taking", Message(N_("Push to take the 2 front gems of your row"))
        return "moving", counted(N_plural("Turn: move up to {n} row, push to take 2",
                                          "Turn: move up to {n} rows, push to take 2"), allowance, n=allowance)
    if phase == RESULTS:
        return "results", Message(N_("Press for the next round"))
    if phase == OVER:
        if station in state.winners:
            return "winner", Message(N_("Winner!"))
        better = sum(1 for s in state.setup.stations if state.ranking_key(s) > state.ranking_key(station))
        return "done", Message(N_("Place {place}"), {"place": better + 1})
    return "", None


def public_view(engine: Engine, state: UbongoState) -> dict[str, JSONValue]:
    """The view described in the module docstring (see ``docs/screens/ubongo/``)."""
    round_taken: dict[StationId, list[str]] = {}
    round_start = 0
    for n, e in enumerate(state.events):
        if e.kind == "round_start":
            round_start = n
    round_end: JSONValue = None
    for e in state.events[round_start:]:
        if e.kind == "gems_taken" and e.station is not None and isinstance(e.detail, dict):
            round_taken[e.station] = list(e.detail["gems"])
        if e.kind == "round_end" and isinstance(e.detail, dict):
            round_end = e.detail.get("why")
    chosen = state.setup.options.get("colours")
    players: list[JSONValue] = []
    for i, s in enumerate(state.setup.stations):
        colour = s  # the lobby may have given a player another station colour
        if isinstance(chosen, list | tuple) and i < len(chosen) and isinstance(chosen[i], int):
            colour = chosen[i]
        status, prompt = _prompt(state, s)
        finished = s in state.finishers
        counts = state.counts(s)
        entry: dict[str, JSONValue] = {
            "station": s,
            "name": state.setup.name_of(s),
            "figure": state.figures[i],
            "cursor": state.cursors[i],
            "status": status,
            "prompt": message_json(prompt),
            "place": state.finishers.index(s) + 1 if finished else None,
            "allowance": state.allowance(s) if finished else None,
            "reach": list(state.reach(s)) if finished and state.phase == SAND else None,
            "took": round_taken.get(s),
            "collection": counts,
            "ranking_key": list(state.ranking_key(s)),
            "gems": len(state.collections[i]),
            "start_player": s == state.start_player,
            "colour": colour,
        }
        players.append(entry)
    ranking = sorted(state.setup.stations, key=lambda s: state.ranking_key(s), reverse=True)
    ranks: list[JSONValue] = []
    for s in ranking:
        better = sum(1 for o in state.setup.stations if state.ranking_key(o) > state.ranking_key(s))
        ranks.append({"station": s, "rank": better + 1, "ranking_key": list(state.ranking_key(s))})
    tiebreak: JSONValue = None
    if state.phase == OVER and len(state.winners) < len(state.setup.stations):
        keys = {s: state.ranking_key(s) for s in state.setup.stations}
        best = keys[state.winners[0]]
        runner = max(k for s, k in keys.items() if s not in state.winners)
        depth = next(i for i in range(len(best)) if best[i] != runner[i])
        if depth > 0:  # the best colour alone did not decide: say which colour rank did
            tiebreak = {
                "rank": depth,
                "stations": [s for s in state.setup.stations if keys[s] in (best, runner)],
            }
    die: JSONValue = None
    if state.symbol is not None:
        face = state.die.symbols[state.symbol]
        die = {"index": state.symbol, "name": face.name, "picture": face.picture, "row": face.row}
    return {
        "game": engine.name,
        "variant": state.setup.variant,
        "pieces": PIECES.get(state.setup.variant, 3),
        "phase": state.phase,
        "round": state.round,
        "rounds": ROUNDS,
        "now": state.now,
        "deadline": state.deadline,
        "sand_seconds": state.rules.sand,
        "reveal_seconds": state.rules.reveal,
        "sand_started": state.sand_started,
        "hourglass": state.hourglass,
        "sand": sand_view(state, state.rules.sand),
        "dice_reader": state.rules.dice_reader,
        # The tray camera reads the one die while the round waits for it.
        "expects_dice": 1 if state.phase == ROLL and state.rules.dice_reader else None,
        "die": die,
        "die_cursor": state.die_cursor if state.phase == ROLL else None,
        "die_symbols": state.die.to_json()["symbols"],
        "colours": list(COLOURS),
        "board": [list(row) for row in state.board],
        "start_player": state.start_player,
        "boards_total": state.boards_total,
        "boards_left": state.boards_total - state.boards_played,
        "finishers": list(state.finishers),
        # Why this round ended, once it has ("sand ran out", "everyone has taken", "nobody finished").
        "round_end": round_end,
        "takers": list(state.takers),
        "players": players,
        "ranking": ranks,
        "tiebreak": tiebreak,
        "scores": {str(s): v for s, v in engine.scores(state).items()},
        "winners": list(state.winners),
        "reason": message_json(state.reason),
        "events": [e.to_json() for e in state.events[-RECENT_EVENTS:]],
        "may_act": sorted({a.station for a in engine.legal_actions(state) if a.station is not None}),
    }
