"""A game ended early from the table menu has no winner anywhere, and is ranked by the
rulebook's tie-breaks: for every game, players equal on points with different
tie-break counts are ordered by the tie-break on the table's final ranking, which says
"No winner"; the journal's result and status (what the relay sends) name no winner, and
the venue's cards, ticker rows and leaderboard show none."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from table.common.i18n import _, language, set_language
from table.display import final
from table.display.theme import Theme, recording
from table.games import registry
from table.games.base import Action, GameSetup
from table.play.autoplay import next_random_action
from table.play.journal import Journal
from table.play.session import END, Session
from table.venue import contract
from table.venue.follow import JournalFollower
from table.venue.server import Venue, VenueConfig

SIZE = (1920, 1080)
NAMES = ("Ada", "Ben", "Cleo")


def _ubongo() -> tuple[Session, list[list[int]]]:
    # Equal on the best colour (2 gems); the rulebook counts the second colour next.
    session = Session.start("ubongo", GameSetup("ubongo", "easy", (0, 1, 2), NAMES), 7)
    collections = (("red", "red"), ("green", "green", "blue"), ("brown", "brown"))
    session.state = dataclasses.replace(session.state, collections=collections)
    return session, [[1], [0, 2]]


def _shimo() -> tuple[Session, list[list[int]]]:
    # Equal on points (4 each, or 3 + 1); the rulebook gives the tie to the more cards.
    session = Session.start("ubongo_shimo", GameSetup("ubongo_shimo", "standard", (0, 1, 2), NAMES), 7)
    holdings = {0: ((2, 2), ()), 1: ((1, 1, 1, 1), ()), 2: ((3,), (1,))}
    players = tuple(dataclasses.replace(p, cards=holdings[p.station][0], gems=holdings[p.station][1])
                    for p in session.state.players)
    session.state = dataclasses.replace(session.state, players=players)
    assert len(set(session.scores().values())) == 1
    return session, [[1], [0], [2]]  # 4 cards, 2 cards, 1 card


def _umtata() -> tuple[Session, list[list[int]]]:
    # No tie-break in the rulebook (a shared target is a shared win): equal points share a place.
    session = Session.start("umtata", GameSetup("umtata", registry()["umtata"].variants[0], (0, 1, 2), NAMES), 7)
    session.state = dataclasses.replace(session.state, scores=(5, 3, 5))
    return session, [[0, 2], [1]]


def _ugah() -> tuple[Session, list[list[int]]]:
    # No tie-break in the rulebook either: random play up to a moment when the two best tie
    # on their (partly hidden) points, which the end counts.
    engine = registry()["ugah_ugah"]
    for seed in range(40):
        session = Session.start("ugah_ugah", GameSetup("ugah_ugah", "standard", (0, 1, 2), NAMES), seed)
        rng = random.Random(seed)
        for _step in range(400):
            action = next_random_action(session, rng)
            if action is None or session.is_over():
                break
            session.apply(action)
            if session.is_over():
                break
            points = dict(engine.final_scores(session.state) or {})
            top = max(points.values())
            if top > 0 and sorted(points.values())[-2] == top and min(points.values()) < top:
                tied = [s for s, v in points.items() if v == top]
                return session, [tied, [s for s in points if s not in tied]]
    raise AssertionError("no tie on points in random play of Ugah Ugah!")


TIES: dict[str, Callable[[], tuple[Session, list[list[int]]]]] = {
    "ubongo": _ubongo, "ubongo_shimo": _shimo, "umtata": _umtata, "ugah_ugah": _ugah}
"""Each game's tie on points, and the places the rulebook gives: groups best first."""


def _lines(session: Session) -> list[str]:
    pygame.display.init()
    pygame.font.init()
    surface = pygame.Surface(SIZE)
    with recording() as drawn:
        for part in final.final_parts(session, Theme(*SIZE), SIZE):
            part.paint(surface, 0.0)
    return [entry.message for entry in drawn]


def _no_winner_said(lines: list[str]) -> None:
    assert _("No winner") in lines and _("Ended early") in lines, lines
    assert not any("wins!" in line or "share the win" in line or "gewinnt" in line or "teilen" in line
                   for line in lines), lines


@pytest.mark.parametrize("game", sorted(TIES))
def test_equal_points_are_ranked_by_the_rulebooks_tie_break_and_nobody_wins(game: str) -> None:
    session, places = TIES[game]()
    assert not session.is_over()
    session.apply(Action(END, session.last_t + 1.0, 0))
    assert session.ended_early
    outcome = session.outcome()
    assert outcome is not None and outcome.winners == ()
    report = session.report()
    assert report["winners"] == [] and report["ended"] == "early"

    rows = final.final_rows(session)
    assert not any(r.won for r in rows)
    expected, rank = [], 1
    for group in places:
        expected += [(s, rank) for s in sorted(group)]
        rank += len(group)
    assert sorted((r.station, r.rank) for r in rows) == sorted(expected)
    assert [r.rank for r in rows] == sorted(r.rank for r in rows)  # drawn best first
    was = language()
    try:
        for code in ("en", "de"):
            set_language(code)
            _no_winner_said(_lines(session))
    finally:
        set_language(was)


@pytest.mark.parametrize("game", sorted(TIES))
def test_the_relay_and_the_venue_show_no_winner_for_a_game_ended_early(game: str, tmp_path: Path) -> None:
    """Played through a journal: the result and the status the relay reads from it name
    no winner; the venue's card says ended early, its ticker row too, and the
    leaderboard counts no win."""
    engine = registry()[game]
    setup = GameSetup(game, engine.variants[0], (0, 1, 2), NAMES)
    path = tmp_path / "journal.db"
    with Journal(path) as journal:
        gid = journal.start_game(setup, 3)
        session = Session.start(game, setup, 3)
        rng = random.Random(3)
        seq = 0

        def record(action: Action) -> None:
            nonlocal seq
            journal.append(gid, seq, action)
            seq += 1

        for _step in range(15):
            action = next_random_action(session, rng)
            if action is None:
                break
            session.apply(action, record)
            if session.is_over():
                pytest.skip(f"{game} ended by itself within 15 random actions")
        session.apply(Action(END, session.last_t + 1.0), record)
        journal.finish(gid, session.outcome())

    follower = JournalFollower(path, "T1")
    result = follower.result_message(gid).payload
    contract.validate(result)
    assert result["ended"] == "early" and not any(p["winner"] for p in result["players"])
    live = follower.live_game()
    assert live is not None and live["over"] and not any(p.get("winner") for p in live["players"])
    status = {"v": 1, "type": "status", "table": "T1", "online": True, "sent": time.time(), "game": live}
    contract.validate(status)

    venue = Venue(VenueConfig(db=Path(":memory:")))
    try:
        # An older table named the leaders of a game ended early: the venue honours `ended` all the same.
        older = {**result, "players": [{**p, "winner": True} for p in result["players"]]}
        older_status = {**status, "game": {**live, "players": [{**p, "winner": True} for p in live["players"]]}}
        for payload in (older_status, older):
            venue.handle(contract.status_topic("T1") if payload["type"] == "status"
                         else contract.result_topic("T1", gid), json.dumps(payload).encode())
        state = venue.state()
    finally:
        venue.stop()
    card = state["tables"][0]["game"]
    assert card["ended"] == "early" and not any(p["winner"] for p in card["players"])
    assert [r.get("ended") for r in state["recent"]] == ["early"]
    assert not any(e["winner"] for board in state["leaderboard"] for e in board["top"])
    assert all(not board["wins"] for board in state["leaderboard"])


def test_a_natural_end_still_names_its_winner(tmp_path: Path) -> None:
    """The other side: a game played to its end keeps its winner on the final ranking."""
    session = Session.start("umtata", GameSetup("umtata", registry()["umtata"].variants[0], (0, 1), NAMES[:2]), 7)
    session.state = dataclasses.replace(session.state, scores=(30, 3), winners=(0,), phase="over")
    assert session.is_over() and not session.ended_early
    lines = _lines(session)
    assert _("{name} wins!").format(name="Ada") in lines and _("Ended early") not in lines
