"""What the display (and each station) may see of an Umtata game.

The public view never contains a guess or a knob position, and it contains the
answer country only from the reveal on. A wrong Tataaa answer shows as "wrong" until
the reveal. A station's own view adds that station's knob cursor and locked guess,
for a display at the station (the shared screen must not show them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from table.common.i18n import N_
from table.games.base import Action, JSONValue, StationId
from table.games.umtata.board import Board, Country, sector_parts
from table.games.umtata.deck import Question
from table.games.umtata.state import ANSWER, GUESS, OVER, REVEAL, STEP_SECTOR, UmtataState


class Engine(Protocol):
    """What the view asks the engine: the board, this round's card, who answers, the
    countries offered, who may act now, and the game's name."""

    @property
    def name(self) -> str: ...

    def board(self) -> Board: ...

    def question(self, state: UmtataState) -> Question: ...

    def answerer(self, state: UmtataState) -> int | None: ...

    def choices(self, state: UmtataState) -> Sequence[Country]: ...

    def legal_actions(self, state: UmtataState) -> Sequence[Action]: ...


def _next_step(engine: Engine, state: UmtataState, player: int) -> str:
    """One short line: what this player is expected to do now."""
    if state.phase == GUESS:
        if state.guesses[player] is not None:
            return N_("locked - wait")
        if player in state.tataaa:
            return N_("Tataaa! - wait")
        return N_("turn + push, or Tataaa!")
    if state.phase == ANSWER:
        who = engine.answerer(state)
        if who == player:
            return N_("pick region+colour, push") if state.step == STEP_SECTOR else N_("pick the country, push")
        return N_("wait")
    if state.phase == REVEAL:
        return N_("push for next round")
    if state.phase == OVER:
        return N_("winner!") if player in state.winners else N_("game over")
    return ""


def build_view(engine: Engine, state: UmtataState, station: StationId | None) -> dict[str, JSONValue]:
    board = engine.board()
    stations = state.setup.stations
    question = engine.question(state)
    revealed = state.phase in (REVEAL, OVER)
    results = {a.player: ("right" if a.right else "wrong") for a in state.attempts}
    players: list[JSONValue] = []
    for p, s in enumerate(stations):
        if p in state.tataaa:
            status = "tataaa"
        elif state.guesses[p] is not None:
            status = "locked"
        else:
            status = "thinking"
        entry: dict[str, JSONValue] = {
            "station": s,
            "name": state.setup.name_of(s),
            "score": state.scores[p],
            "reader": p == state.reader,
            "status": status,
            "tataaa_rank": state.tataaa.index(p) + 1 if p in state.tataaa else None,
            "result": results.get(p),
            "next": _next_step(engine, state, p),
            "round_points": state.round_points[p] if revealed and state.round_points else None,
            "winner": p in state.winners,
        }
        players.append(entry)
    view: dict[str, JSONValue] = {
        "game": engine.name,
        "phase": state.phase,
        "round": state.round,
        "target": state.target,
        "reader": stations[state.reader],
        "question": {"text": question.text, "topic": question.topic},
        "players": players,
        "scores": {str(s): state.scores[p] for p, s in enumerate(stations)},
        # Stations whose button LED is lit: those that may act now.
        "may_act": sorted({a.station for a in engine.legal_actions(state) if a.station is not None}),
        "tataaa_order": [stations[p] for p in state.tataaa],
        "attempts": [
            {"station": stations[a.player], "result": "right" if a.right else "wrong"} for a in state.attempts
        ],
        "answering": None,
        "reveal": None,
        "winners": [stations[p] for p in state.winners],
    }
    who = engine.answerer(state)
    if state.phase == ANSWER and who is not None:
        # The Tataaa player answers in the open, as at the real table; guesses are locked already.
        region, colour = sector_parts(state.knobs[who])
        view["answering"] = {
            "station": stations[who],
            "name": state.setup.name_of(stations[who]),
            "step": state.step,
            "region": region,
            "colour": colour,
            "options": [c.id for c in engine.choices(state)] + ["back"],
            "choice": None if state.step == STEP_SECTOR else state.pick,
        }
    if revealed:
        card = board.get(question.country)
        guesses: list[JSONValue] = []
        for p, g in enumerate(state.guesses):
            if g is not None:
                region, colour = sector_parts(g)
                guesses.append({"station": stations[p], "region": region, "colour": colour})
        view["reveal"] = {
            "country": card.id,
            "name": card.name,
            "region": card.region,
            "colour": card.colour,
            "explain": question.explain,
            "guesses": guesses,
            "attempts": [
                {"station": stations[a.player], "country": a.country, "right": a.right}
                for a in state.attempts
            ],
        }
    if station is not None and station in stations:
        p = stations.index(station)
        knob_region, knob_colour = sector_parts(state.knobs[p])
        mine = state.guesses[p]
        view["you"] = {
            "station": station,
            "knob": {"region": knob_region, "colour": knob_colour},
            "guess": None
            if mine is None
            else dict(zip(("region", "colour"), sector_parts(mine), strict=True)),
        }
    return view
