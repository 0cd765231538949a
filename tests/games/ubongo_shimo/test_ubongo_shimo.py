"""Scenario tests for every Ubongo Shimo rule (rulebook and TABLE.md)."""

from __future__ import annotations

from typing import Any

import pytest

from table.games.base import Action, GameSetup, SetupError, UnknownVariantError
from table.play.session import Session, run_until_idle

COUNTDOWN = 3.0
SAND = 60.0


def new(stations: int = 3, variant: str = "standard", **options: Any) -> Session:
    setup = GameSetup("ubongo_shimo", variant, tuple(range(stations)), options=options)
    return Session.start("ubongo_shimo", setup, seed=1)


def feed(session: Session, *actions: Action) -> None:
    """Apply actions in time order, delivering every deadline that passes first."""
    for action in sorted(actions, key=lambda a: a.t):
        run_until_idle(session, until=action.t)
        session.apply(action)


def press(t: float, station: int) -> Action:
    return Action("press", t, station)


def play_round(session: Session, presses: list[tuple[float, int]], start: float | None = None) -> float:
    """Play one round: ``presses`` are (seconds after the cards turn, station).

    Starts from the round's count-down at ``start`` (default: now); returns the time
    the round's results appear.
    """
    t0 = session.last_t if start is None else start
    turned = t0 + COUNTDOWN
    feed(session, *(press(turned + dt, s) for dt, s in presses))
    run_until_idle(session)
    return session.last_t


def next_round(session: Session, station: int = 0) -> None:
    session.apply(press(session.last_t + 5.0, station))


def player(session: Session, station: int) -> dict[str, Any]:
    return next(p for p in session.view()["players"] if p["station"] == station)


# -- a round ---------------------------------------------------------------------------

def test_countdown_then_cards_turn_and_presses_during_countdown_are_false_starts() -> None:
    s = new()
    assert s.view()["phase"] == "countdown"
    feed(s, press(1.0, 0))
    assert s.view()["phase"] == "countdown"
    assert [e.kind for e in s.state.events][-1] == "false_start"
    run_until_idle(s, until=COUNTDOWN)
    assert s.view()["phase"] == "solving"
    assert s.view()["deadline"] is None  # standard timing: no sand until somebody calls


def test_first_press_is_ubongo_and_turns_the_sixty_second_sand() -> None:
    s = new()
    feed(s, press(COUNTDOWN + 12.5, 1))
    v = s.view()
    assert v["phase"] == "racing" and v["callers"] == [1]
    assert v["deadline"] == pytest.approx(COUNTDOWN + 12.5 + SAND)


def test_solvers_keep_cards_non_solvers_hand_cards_to_the_winner_who_takes_the_gem() -> None:
    s = new(3, levels=[1, 2, 3])
    play_round(s, [(10, 1), (30, 0)])
    assert player(s, 1)["gems"] == [1]
    assert player(s, 1)["cards"] == 2  # own card + station 2's card
    assert player(s, 1)["points"] == 1 + 2 + 3
    assert player(s, 0)["cards"] == 1 and player(s, 0)["points"] == 1
    assert player(s, 2)["cards"] == 0 and player(s, 2)["points"] == 0


def test_a_press_after_the_sand_ran_out_does_not_count() -> None:
    s = new(2)
    feed(s, press(COUNTDOWN + 5, 0), press(COUNTDOWN + 5 + SAND + 0.001, 1))
    # Nor does it skip the results: a late finisher's press is not "next round".
    assert s.view()["phase"] == "results"
    assert s.view()["solvers"] == [0]
    assert player(s, 1)["cards"] == 0 and player(s, 0)["cards"] == 2


def test_a_press_just_before_the_sand_runs_out_counts() -> None:
    s = new(2)
    feed(s, press(COUNTDOWN + 5, 0), press(COUNTDOWN + 5 + SAND - 0.001, 1))
    run_until_idle(s)
    assert s.view()["solvers"] == [0, 1]


@pytest.mark.parametrize(("gap_ms", "tie"), [(0.0, True), (1.0, True), (2.0, True), (2.5, False), (10.0, False)])
def test_first_presses_within_the_tie_window_are_a_tie(gap_ms: float, tie: bool) -> None:
    s = new(3, levels=[1, 1, 1])
    play_round(s, [(10, 0), (10 + gap_ms / 1000, 2)])
    if tie:
        # Nobody was first: no gem, the non-solver's card goes to the box; callers keep their own.
        assert s.view()["callers"] == [0, 2]
        assert s.view()["gems_boxed"] == [1]
        assert player(s, 0)["gems"] == [] and player(s, 2)["gems"] == []
        assert player(s, 0)["cards"] == 1 and player(s, 2)["cards"] == 1
        assert player(s, 1)["cards"] == 0
    else:
        assert s.view()["callers"] == [0]
        assert player(s, 0)["gems"] == [1] and player(s, 0)["cards"] == 2


def test_the_tie_window_comes_from_the_config() -> None:
    s = new(2, tie_window_ms=20.0)
    play_round(s, [(10, 0), (10.015, 1)])
    assert s.view()["callers"] == [0, 1]


def test_gems_by_round_amber_then_emerald_then_sapphire() -> None:
    s = new(2)
    won = []
    for _ in range(9):
        play_round(s, [(5, 0)])
        won.append(player(s, 0)["gems"][-1])
        if not s.is_over():
            next_round(s)
    assert won == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert s.is_over()
    assert s.view()["gems_left"] == []


def test_a_tied_round_sends_its_gem_to_the_box_and_later_rounds_keep_their_gem() -> None:
    s = new(2)
    gems = []
    for r in range(9):
        presses = [(5, 0), (5.001, 1)] if r == 1 else [(5, r % 2)]
        play_round(s, presses)
        gems.append((list(player(s, 0)["gems"]), list(player(s, 1)["gems"])))
        if not s.is_over():
            next_round(s)
    assert s.view()["gems_boxed"] == [1]
    assert sorted(player(s, 0)["gems"] + player(s, 1)["gems"]) == [1, 1, 2, 2, 2, 3, 3, 3]


# -- levels and card points ---------------------------------------------------------------

def test_levels_may_differ_and_a_card_of_level_l_is_worth_l_points() -> None:
    s = new(4, levels=[1, 2, 3, 4])
    play_round(s, [(5, 0), (6, 1), (7, 2), (8, 3)])
    assert [player(s, i)["points"] for i in range(4)] == [1 + 1, 2, 3, 4]


def test_card_points_are_configurable() -> None:
    s = new(2, levels=[1, 4], card_points=[1, 1, 1, 1])
    play_round(s, [(5, 1)])
    assert player(s, 1)["points"] == 1 + 1 + 1  # gem + own card + station 1's card


def test_bad_levels_or_variant_refuse_to_start() -> None:
    with pytest.raises(SetupError):
        new(2, levels=[1, 5])
    with pytest.raises(SetupError):
        new(2, levels=[1])
    with pytest.raises(UnknownVariantError):
        new(2, variant="turbo")
    with pytest.raises(SetupError):
        new(2, card_points=[1, 2])


def test_solo_practice_with_one_station() -> None:
    s = new(1)
    play_round(s, [(20, 0)])
    assert player(s, 0)["gems"] == [1] and player(s, 0)["cards"] == 1


# -- the end of the game ------------------------------------------------------------------

def play_game(s: Session, winners_by_round: list[list[tuple[float, int]]]) -> None:
    for presses in winners_by_round:
        play_round(s, presses)
        if not s.is_over() and s.view()["phase"] == "results":
            next_round(s)


def test_most_points_after_nine_rounds_wins() -> None:
    s = new(3)
    play_game(s, [[(5, 0)]] * 6 + [[(5, 1)]] * 3)
    out = s.outcome()
    assert out is not None and out.winners == (0,)
    # Station 0: gems 1+1+1+2+2+2 = 9; cards: 6 own + 2 per round from the others = 18 (level 1).
    assert out.scores == {0: 9 + 18, 1: 9 + 9, 2: 0}


def test_equal_points_more_cards_wins() -> None:
    # Station 0 wins rounds with gems, station 1 collects many cards: arrange equal points.
    s = new(2, levels=[1, 1], card_points=[1, 1, 1, 1])
    # 9 rounds; station 1 always solves too (keeps own card) so only gems differ by round winner.
    rounds = [[(5, 0), (6, 1)]] * 4 + [[(5, 1), (6, 0)]] * 5
    play_game(s, rounds)
    sc = s.outcome()
    assert sc is not None
    # Station 0: gems 1+1+1+2 = 5, 9 cards = 14. Station 1: gems 2+2+3+3+3 = 13, 9 cards = 22.
    assert sc.winners == (1,)


def test_tie_on_points_and_cards_goes_to_an_extra_round_for_the_tied_players_only() -> None:
    s = new(3, levels=[1, 1, 1], card_points=[0, 0, 0, 0])
    # Cards count 0 here, so points are gems: stations 0 and 1 end on 7, station 2 on 4.
    order = [0, 2, 2, 1, 1, 2, 0, 0, 1]
    gem_values = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    totals = {0: 0, 1: 0, 2: 0}
    for st, g in zip(order, gem_values, strict=True):
        totals[st] += g
    assert totals[0] == totals[1] and totals[2] < totals[0]
    # Everybody solves each round so cards are equal too.
    rounds = [[(5, w)] + [(6 + i, o) for i, o in enumerate(x for x in range(3) if x != w)] for w in order]
    play_game(s, rounds[:8])
    play_round(s, rounds[8])
    v = s.view()
    assert not s.is_over() and v["extra_round"] and v["phase"] == "results"
    next_round(s, 2)
    assert s.view()["phase"] == "countdown"
    # Station 2 is not in the extra round: its press changes nothing.
    t = s.last_t + COUNTDOWN + 1
    run_until_idle(s, until=t)
    assert not s.apply(press(t, 2))
    # A simultaneous call in the extra round: play another one.
    play_round(s, [(4, 0), (4.001, 1)], start=t - COUNTDOWN - 1)
    assert not s.is_over() and s.view()["phase"] == "results"
    next_round(s, 0)
    play_round(s, [(7, 1)])
    out = s.outcome()
    assert out is not None and out.winners == (1,) and "extra round" in out.reason.english()


# -- variants -----------------------------------------------------------------------------

def test_running_sand_flips_until_someone_calls_and_the_round_ends_with_that_sand() -> None:
    s = new(2, variant="running-sand")
    run_until_idle(s, until=COUNTDOWN)
    assert s.view()["deadline"] == pytest.approx(COUNTDOWN + SAND)
    run_until_idle(s, until=COUNTDOWN + SAND + 1)
    assert s.view()["flips"] == 1 and s.view()["deadline"] == pytest.approx(COUNTDOWN + 2 * SAND)
    call = COUNTDOWN + SAND + 50
    feed(s, press(call, 1))
    # No new turn of the glass: the round ends when this sand runs out, 10 s after the call.
    assert s.view()["deadline"] == pytest.approx(COUNTDOWN + 2 * SAND)
    feed(s, press(call + 9.9, 0))
    run_until_idle(s)
    assert s.view()["phase"] == "results" and s.view()["solvers"] == [1, 0]


def test_advanced_variant_alternates_level_four_and_three_for_everyone() -> None:
    s = new(2, variant="advanced", levels=[1, 2])
    levels = []
    for _ in range(4):
        levels.append({p["station"]: p["round_level"] for p in s.view()["players"]})
        play_round(s, [(5, 0), (6, 1)])
        next_round(s)
    assert levels == [{0: 4, 1: 4}, {0: 3, 1: 3}, {0: 4, 1: 4}, {0: 3, 1: 3}]
    assert player(s, 1)["points"] == 4 + 3 + 4 + 3


def test_advanced_with_running_sand_combines_both() -> None:
    s = new(2, variant="advanced-running-sand")
    run_until_idle(s, until=COUNTDOWN)
    assert s.view()["deadline"] is not None
    assert player(s, 0)["round_level"] == 4


# -- the table menu -----------------------------------------------------------------------

def test_pause_stops_the_sand() -> None:
    s = new(2)
    feed(s, press(COUNTDOWN + 10, 0))
    s.apply(Action("pause", COUNTDOWN + 20))
    s.apply(Action("resume", COUNTDOWN + 320))
    assert s.deadline() == pytest.approx(COUNTDOWN + 10 + SAND + 300)
    feed(s, press(COUNTDOWN + 300 + 65, 1))  # 55 s of sand after the call: still in time
    assert s.view()["solvers"] == [0, 1]


def test_undo_takes_back_an_accidental_call() -> None:
    s = new(2)
    feed(s, press(COUNTDOWN + 10, 0))
    s.apply(Action("undo", COUNTDOWN + 11))
    assert s.view()["phase"] == "solving" and s.view()["callers"] == []


def test_skip_round_sends_the_gem_to_the_box() -> None:
    s = new(2)
    run_until_idle(s, until=COUNTDOWN + 100)
    s.apply(Action("skip_round", COUNTDOWN + 100))
    assert s.view()["phase"] == "results" and s.view()["gems_boxed"] == [1]
    next_round(s)
    assert s.view()["round"] == 2


def test_end_from_the_menu_reports_standings() -> None:
    s = new(2)
    play_round(s, [(5, 1)])
    s.apply(Action("end", s.last_t + 1))
    out = s.outcome()
    assert s.is_over() and out is not None and out.winners == ()  # ended early: nobody wins
    assert s.standing(1) > s.standing(0)  # but station 1, who called, ranks first
    assert out.reason.english() == "ended from the table menu"


def test_results_may_move_on_by_themselves_when_configured() -> None:
    s = new(2, next_round_after=15.0)
    play_round(s, [(5, 0)])
    run_until_idle(s, until=s.last_t + 15.0)
    assert s.view()["round"] == 2


def test_a_round_everyone_solved_ends_at_the_last_press_with_the_scores_of_the_sand_run_out() -> None:
    early = new(3, levels=[1, 2, 3])
    play_round(early, [(10, 1), (20, 0), (30, 2)])
    # Nobody can act after the third press: the round is scored then, not 60 s after the call.
    assert early.view()["phase"] == "results"
    assert early.last_t == pytest.approx(COUNTDOWN + 30)
    # The same round with the sand run out: the tick at the sand's end (an old journal's).
    late = new(3, levels=[1, 2, 3])
    for a in (press(COUNTDOWN + 10, 1), press(COUNTDOWN + 20, 0), press(COUNTDOWN + 30, 2)):
        run_until_idle(late, until=a.t)
        late.apply(a)
    late.apply(Action("tick", COUNTDOWN + 10 + SAND))
    assert late.view()["phase"] == "results"
    assert late.state.events[-1].t == pytest.approx(COUNTDOWN + 10 + SAND)  # scored when the sand ran out
    assert late.scores() == early.scores() and late.view()["players"] == early.view()["players"]


def test_the_round_goes_on_while_anyone_may_still_solve() -> None:
    s = new(3)
    feed(s, press(COUNTDOWN + 10, 1), press(COUNTDOWN + 20, 0))
    assert s.view()["phase"] == "racing" and s.deadline() == pytest.approx(COUNTDOWN + 10 + SAND)
