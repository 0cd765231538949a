"""Scenario tests for every Ubongo rule (rulebook + TABLE.md + docs/rules-decisions.md)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from ubongo_driver import Table

from table.common.i18n import format_message
from table.games.base import Action, GameSetup, SetupError, rng_for
from table.games.ubongo.engine import ENGINE, deal_board
from table.games.ubongo.state import COLOURS

R, G, B, V, Y, L = "red", "green", "brown", "violet", "yellow", "blue"
PLAIN = [[R] * 12, [G] * 12, [B] * 12, [V] * 12, [Y] * 12, [L] * 12]


def started(stations: int = 4, rows: tuple[int, ...] = (0, 1, 2, 3), **kw: object) -> Table:
    table = Table(stations, **kw)  # type: ignore[arg-type]
    table.place(rows[:stations])
    return table


# -- the gem board ---------------------------------------------------------------------
def test_gem_board_has_six_rows_of_twelve_and_twelve_of_each_colour() -> None:
    board = deal_board(11)
    assert len(board) == 6 and all(len(row) == 12 for row in board)
    assert Counter(g for row in board for g in row) == {c: 12 for c in COLOURS}


def test_gem_layout_comes_from_the_seed() -> None:
    assert deal_board(3) == deal_board(3)
    assert deal_board(3) != deal_board(4)
    assert Table(seed=3).state.board == deal_board(3)


# -- figures at the start --------------------------------------------------------------
def test_figures_are_placed_with_the_knob_and_the_game_waits_for_all() -> None:
    table = Table(3)
    assert table.state.phase == "place"
    table.turn(0.1, 0, -1)  # an encoder wraps from the top row to the bottom one
    table.push(0.2, 0)
    table.act("turn", 0.3, 1, {"sector": 9, "sectors": 16})  # an absolute knob points at row 4
    table.push(0.4, 1)
    assert table.state.phase == "place"
    assert table.view()["may_act"] == [2]
    table.turn(0.5, 0, 1)  # a placed figure stays put
    assert table.figure(0) == 5 and table.figure(1) == 3
    table.push(0.6, 2)
    assert table.figure(2) == 0
    assert table.state.phase == "countdown"
    assert [e.detail["row"] for e in table.events("figure_placed")] == [5, 3, 0]


def test_several_figures_may_share_a_field() -> None:
    table = started(2, rows=(2, 2))
    assert table.figure(0) == table.figure(1) == 2


# -- boards and rounds -----------------------------------------------------------------
@pytest.mark.parametrize(("stations", "boards"), [(2, 18), (3, 27), (4, 36)])
def test_board_count_follows_the_player_count(stations: int, boards: int) -> None:
    table = started(stations)
    assert table.view()["boards_total"] == boards
    assert table.view()["boards_left"] == boards
    t = table.sand_start()
    table.press(t + 1, 0)
    table.push(t + 2, 0)
    table.ticks_until(t + 61)
    assert table.view()["boards_left"] == boards - stations


def test_two_player_game_uses_eighteen_boards_over_nine_rounds() -> None:
    table = started(2, rows=(0, 5))
    for _ in range(9):
        t = table.sand_start()
        table.press(t + 5, 1)
        table.press(t + 9, 0)
        table.push(t + 10, 0)
        table.push(t + 11, 1)
        if table.state.phase == "results":
            assert table.view()["may_act"] == [0, 1]
            table.press(t + 20, 0)
    assert table.state.phase == "over"
    assert table.state.round == 9 and table.state.boards_played == 18
    # Both stayed on their rows: twelve gems each, then the rows were empty.
    assert len(table.gems(0)) == len(table.gems(1)) == 12
    assert table.state.board[0] == table.state.board[5] == ()
    assert len(table.events("gems_taken")) == 18


def test_easy_and_hard_boards_use_three_and_four_pieces() -> None:
    assert Table(variant="easy").view()["pieces"] == 3
    assert Table(variant="hard").view()["pieces"] == 4


def test_start_player_rotates_clockwise() -> None:
    table = started(3, options={"start_player": 1})
    starters = []
    for _ in range(4):
        starters.append(table.state.start_player)
        t = table.sand_start()
        table.ticks_until(t + 200)  # nobody finishes twice: boards used up
        table.press(t + 201, 0)
    assert starters == [1, 2, 0, 1]


def test_bad_setups_are_refused_in_one_sentence() -> None:
    with pytest.raises(SetupError):
        ENGINE.new_game(GameSetup(game="ubongo", stations=(0,)), 1)
    with pytest.raises(SetupError):
        ENGINE.new_game(GameSetup(game="ubongo", stations=(0, 1), options={"sand_seconds": 0}), 1)
    with pytest.raises(SetupError):
        ENGINE.new_game(GameSetup(game="ubongo", stations=(0, 1), options={"start_player": 2}), 1)
    with pytest.raises(SetupError, match="true or false"):
        ENGINE.new_game(GameSetup(game="ubongo", stations=(0, 1), options={"dice_reader": "no"}), 1)


# -- the die -----------------------------------------------------------------------------
def test_table_rolls_from_the_seed_and_shows_symbol_and_row() -> None:
    table = started(2, seed=42)
    for rnd in (1, 2):
        expected = rng_for(42, rnd).randrange(6)
        die = table.view()["die"]
        assert die["index"] == expected
        assert die["row"] == expected + 1
        assert table.events("die")[-1].detail["source"] == "table"
        t = table.sand_start()
        table.ticks_until(t + 200)
        table.press(t + 201, 0)


def test_with_a_dice_reader_the_round_waits_for_the_tray() -> None:
    table = started(2, options={"dice_reader": True})
    assert table.state.phase == "roll" and table.state.deadline is None
    table.act("dice", 5.0, None, {"faces": ["nonsense"]})
    table.act("dice", 5.0, None, {"faces": [7]})
    assert table.state.phase == "roll"
    table.act("dice", 6.0, None, {"faces": [4]})
    assert table.state.phase == "countdown"
    assert table.view()["die"]["name"] == "Ring" and table.view()["die"]["row"] == 4
    assert table.events("die")[-1].detail["source"] == "tray"
    table.act("dice", 6.5, None, {"faces": [1]})  # a second throw now changes nothing
    assert table.view()["die"]["name"] == "Ring"


def test_pips_map_to_symbols_from_the_config() -> None:
    die = {
        "symbols": [
            {"name": n, "picture": "ring", "row": r}
            for n, r in [("Gecko", 3), ("Zebra", 1), ("Snake", 2), ("Lion", 6), ("Hippo", 5), ("Okapi", 4)]
        ],
        "pips": {"1": "Lion", "2": "Zebra", "3": "Gecko", "4": "Okapi", "5": "Snake", "6": "Hippo"},
    }
    table = started(2, options={"dice_reader": True, "die": die})
    table.act("dice", 2.0, None, {"faces": [1]})
    assert table.view()["die"]["name"] == "Lion" and table.view()["die"]["row"] == 6
    named = started(2, options={"dice_reader": True, "die": die})
    named.act("dice", 2.0, None, {"faces": ["snake"]})  # a reader that knows the symbols
    assert named.view()["die"]["row"] == 2


def test_start_player_sets_the_die_with_the_knob_when_the_camera_fails() -> None:
    table = started(3, options={"dice_reader": True, "start_player": 2})
    assert table.view()["may_act"] == [2]
    table.turn(1.0, 0, 1)  # not the start player: ignored
    assert table.state.die_cursor == 0
    table.turn(1.1, 2, -1)
    table.push(1.2, 2)
    assert table.view()["die"]["name"] == "Bolt"
    assert table.events("die")[-1].detail["source"] == "knob"


def test_dice_outside_the_roll_are_ignored() -> None:
    table = started(2)
    before = table.state
    assert ENGINE.apply(before, Action("dice", 1.0, None, {"faces": [3]})) == before


# -- the hourglass and the finishing order ---------------------------------------------
def test_presses_before_the_sand_runs_are_ignored() -> None:
    table = started(2)
    assert table.state.phase == "countdown"
    before = table.state
    table.press(before.now + 0.5, 0)
    assert table.state.finishers == ()


def test_finishing_order_gives_three_two_one_and_no_rows() -> None:
    table = started(4, rows=(2, 2, 2, 2))
    t = table.sand_start()
    for n, s in enumerate((3, 1, 0, 2)):
        table.press(t + 10 + n * 0.001, s)  # a millisecond apart, ordered by edge time
    assert table.state.finishers == (3, 1, 0, 2)
    assert [table.state.allowance(s) for s in (3, 1, 0, 2)] == [3, 2, 1, 0]
    assert [e.detail["place"] for e in table.events("finished")] == [1, 2, 3, 4]
    assert table.state.reach(3) == (0, 5)
    assert table.state.reach(1) == (0, 4)
    assert table.state.reach(0) == (1, 3)
    assert table.state.reach(2) == (2, 2)
    table.press(t + 11, 3)  # pressing again changes nothing
    assert table.state.finishers == (3, 1, 0, 2)


def test_the_knob_moves_the_figure_only_within_its_allowance() -> None:
    table = started(4, rows=(0, 5, 1, 3))
    t = table.sand_start()
    table.press(t + 1, 0)  # 1st: 3 rows
    table.press(t + 2, 1)  # 2nd: 2 rows
    table.press(t + 3, 2)  # 3rd: 1 row
    table.press(t + 4, 3)  # 4th: stays
    table.turn(t + 5, 0, -1)  # cannot go above the top row, and does not wrap
    assert table.state.cursors[0] == 0
    table.turn(t + 5, 0, 10)
    assert table.state.cursors[0] == 3
    table.turn(t + 5, 1, 1)
    assert table.state.cursors[1] == 5
    table.act("turn", t + 6, 1, {"sector": 0, "sectors": 16})  # absolute knob: as far as allowed
    assert table.state.cursors[1] == 3
    table.turn(t + 6, 2, 2)
    assert table.state.cursors[2] == 2
    table.turn(t + 6, 3, 1)
    assert table.state.cursors[3] == 3
    table.turn(t + 6, 0, -1)  # back up: the allowance counts rows from the start field
    assert table.state.cursors[0] == 2


def test_a_finisher_takes_the_two_front_gems_of_the_chosen_row() -> None:
    table = started(2, rows=(0, 5))
    table.rig_board([[R, G, B, V, Y, L] * 2, [L] * 12, [B, Y] + [V] * 10, [G] * 12, [Y] * 12, [V] * 12])
    t = table.sand_start()
    table.press(t + 20, 0)
    table.turn(t + 21, 0, 2)
    table.push(t + 22, 0)
    assert table.gems(0) == (B, Y)
    assert table.figure(0) == 2
    assert table.state.board[2] == (V,) * 10
    taken = table.events("gems_taken")[-1]
    assert taken.detail == {"row": 2, "from_row": 0, "gems": [B, Y], "place": 1, "left": 10}
    table.turn(t + 23, 0, 1)  # done for this round
    table.push(t + 24, 0)
    assert table.gems(0) == (B, Y)


def test_two_finishers_on_the_same_row_first_confirmer_takes_the_front_two() -> None:
    table = started(3, rows=(1, 3, 0))
    table.rig_board([[R] * 12, [G] * 12, [B, B, V, V, Y, Y, L, L, R, R, G, G], [Y] * 12, [L] * 12, [V] * 12])
    t = table.sand_start()
    table.press(t + 10, 0)  # 1st, may reach rows 0..4
    table.press(t + 11, 1)  # 2nd, may reach rows 1..5
    table.turn(t + 12, 1, -1)
    table.push(t + 13, 1)  # the second finisher confirms first: takes first
    table.turn(t + 14, 0, 1)
    table.push(t + 15, 0)
    assert table.gems(1) == (B, B)
    assert table.gems(0) == (V, V)
    assert table.state.takers == (1, 0)
    assert table.state.board[2] == (Y, Y, L, L, R, R, G, G)


def test_a_row_with_one_gem_left_gives_one_and_an_empty_row_none() -> None:
    table = started(3, rows=(0, 0, 4))
    table.rig_board([[R], [G] * 12, [B] * 12, [V] * 12, [Y] * 12, [L] * 12])
    t = table.sand_start()
    table.press(t + 1, 0)
    table.press(t + 2, 1)
    table.push(t + 3, 0)
    table.push(t + 4, 1)
    assert table.gems(0) == (R,)
    assert table.gems(1) == ()
    assert table.state.board[0] == ()
    assert table.events("gems_taken")[-1].detail["gems"] == []


def test_a_finisher_who_does_not_push_before_the_sand_runs_out_takes_nothing() -> None:
    table = started(2, rows=(0, 1))
    t = table.sand_start()
    table.press(t + 50, 0)
    table.turn(t + 55, 0, 2)
    table.push(t + 60.001, 0)  # the sand ran out at t + 60
    assert table.gems(0) == ()
    assert table.figure(0) == 0  # the figure did not move either
    assert [e.station for e in table.events("too_late")] == [0]
    assert table.state.phase == "results"


def test_a_push_just_before_the_sand_runs_out_still_counts() -> None:
    table = started(2, rows=(0, 1))
    t = table.sand_start()
    table.press(t + 59.0, 1)
    table.push(t + 59.999, 1)
    assert len(table.gems(1)) == 2


def test_round_ends_at_once_when_everyone_has_taken() -> None:
    table = started(2)
    t = table.sand_start()
    table.press(t + 3, 0)
    table.press(t + 4, 1)
    table.push(t + 5, 1)
    assert table.state.phase == "sand"
    table.push(t + 6, 0)
    assert table.state.phase == "results"
    assert table.events("round_end")[-1].detail["why"] == "everyone has taken"


def test_a_round_everyone_has_taken_in_ends_with_the_scores_of_the_sand_run_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ending the round at the last take changes nothing that the sand's end would have
    decided: the same round played on until the sand runs out scores the same."""
    def play(table: Table) -> float:
        t = table.sand_start()
        table.press(t + 3, 0)
        table.press(t + 4, 1)
        table.turn(t + 4.5, 1, 1)  # the second finisher moves a row before taking
        table.push(t + 5, 1)
        table.push(t + 6, 0)
        return t

    early = started(2)
    t = play(early)
    assert early.state.phase == "results"
    end = early.events("round_end")[-1]
    assert end.t == pytest.approx(t + 6) and end.detail["why"] == "everyone has taken"
    # The same round with the early end switched off: it waits for the sand.
    keep = ENGINE._end_round

    def sand_only(state: object, at: float, why: str) -> object:
        return state if why == "everyone has taken" else keep(state, at, why)  # type: ignore[arg-type]

    monkeypatch.setattr(ENGINE, "_end_round", sand_only)
    late = started(2)
    t_late = play(late)
    assert late.state.phase == "sand"
    late.ticks_until(t_late + 60)
    monkeypatch.undo()
    assert late.state.phase == "results" and late.events("round_end")[-1].detail["why"] == "sand ran out"
    assert late.events("round_end")[-1].t == pytest.approx(t_late + 60)
    assert not late.events("too_late")
    assert late.state.collections == early.state.collections and late.state.figures == early.state.figures
    assert late.state.board == early.state.board and late.state.boards_played == early.state.boards_played
    assert ENGINE.scores(late.state) == ENGINE.scores(early.state)
    assert [p["collection"] for p in late.view()["players"]] == [p["collection"] for p in early.view()["players"]]


def test_a_round_nobody_finishes_twice_uses_the_boards_up() -> None:
    table = started(2)
    t = table.sand_start()
    table.ticks_until(t + 60)
    assert table.state.phase == "sand" and table.state.hourglass == 2
    assert table.state.deadline == t + 120
    assert [e.kind for e in table.state.events[-2:]] == ["sand_out", "sand_start"]
    table.ticks_until(t + 120)
    assert table.state.phase == "results"
    assert table.events("boards_used_up")[-1].detail == {"round": 1}
    assert table.state.boards_played == 2
    assert table.gems(0) == table.gems(1) == ()
    table.press(t + 130, 1)
    assert table.state.round == 2
    assert table.state.hourglass == 0


def test_finishing_during_the_second_hourglass_plays_as_usual() -> None:
    table = started(2, rows=(0, 5))
    t = table.sand_start()
    table.press(t + 70, 1)
    assert table.state.allowance(1) == 3
    table.turn(t + 71, 1, -3)
    table.push(t + 72, 1)
    assert table.figure(1) == 2 and len(table.gems(1)) == 2
    table.ticks_until(t + 120)
    assert not table.events("boards_used_up")
    assert table.state.phase == "results"


def test_no_second_hourglass_when_someone_finished() -> None:
    table = started(2)
    t = table.sand_start()
    table.press(t + 30, 0)
    table.ticks_until(t + 60)
    assert table.state.phase == "results" and table.state.hourglass == 1


def test_a_late_done_press_does_not_skip_the_results() -> None:
    table = started(2)
    t = table.sand_start()
    table.press(t + 10, 0)
    table.ticks_until(t + 60)
    assert table.state.phase == "results"
    table.press(t + 60.5, 1)  # meant as "done", arrived after the sand: ignored
    table.press(t + 62.9, 0)
    assert table.state.phase == "results" and table.state.round == 1
    table.press(t + 63.0, 1)
    assert table.state.round == 2


def test_results_move_on_by_themselves_when_configured() -> None:
    table = started(2, options={"next_round_after": 8})
    t = table.sand_start()
    table.ticks_until(t + 120)
    assert table.state.phase == "results" and table.state.deadline == t + 128
    table.ticks_until(t + 128)
    assert table.state.round == 2


def test_skip_round_uses_the_boards_and_keeps_gems_already_taken() -> None:
    table = started(2)
    t = table.sand_start()
    table.press(t + 1, 0)
    table.push(t + 2, 0)
    table.act("skip_round", t + 3)
    assert table.state.phase == "results" and table.state.boards_played == 2
    assert len(table.gems(0)) == 2
    assert table.events("round_skipped")


# -- the end -----------------------------------------------------------------------------
def finish_with(collections: dict[int, list[str]], names: tuple[str, ...] = ()) -> Table:
    """Play a full game in which station s takes exactly ``collections[s]``, pair by pair."""
    n = len(collections)
    table = Table(n, names=names)
    # One row per station, stocked with that station's gems in order; figures stay put.
    rows = [list(collections.get(r, [])) for r in range(6)]
    spare = [c for c in COLOURS for _ in range(12)]
    for gems in rows:
        for g in gems:
            spare.remove(g)
    rows = [r + [spare.pop() for _ in range(12 - len(r))] for r in rows]
    table.place(list(range(n)))
    table.rig_board(rows)
    for _ in range(9):
        t = table.sand_start()
        for s in range(n):
            if len(table.gems(s)) < len(collections[s]):
                table.press(t + 1 + s, s)
                table.push(t + 1.5 + s, s)
        table.ticks_until(t + 200)
        if table.state.phase == "results":
            table.press(t + 201, 0)
    assert table.state.phase == "over"
    for s, gems in collections.items():
        assert sorted(table.gems(s)) == sorted(gems)
    return table


def test_most_gems_of_one_colour_wins_even_with_fewer_gems() -> None:
    table = finish_with({0: [R] * 6, 1: [R, R, R, R, R, G, G, B, B, V, V, Y]})
    outcome = ENGINE.outcome(table.state)
    assert outcome is not None and outcome.winners == (0,)
    assert dict(outcome.scores) == {0: 6, 1: 5}
    assert outcome.reason.english() == "most gems of one colour: 6"


def test_colour_tie_break_goes_down_several_colours() -> None:
    table = finish_with(
        {
            0: [R] * 4 + [G] * 4 + [B] * 2 + [V] * 2,  # 4, 4, 2, 2
            1: [L] * 4 + [Y] * 4 + [V] * 2 + [B] * 1 + [G] * 1,  # 4, 4, 2, 1, 1
            2: [G] * 4 + [R] * 2 + [L] * 2 + [Y] * 2,  # 4, 2, 2, 2
        },
        names=("Ada", "Ben", "Cleo"),
    )
    outcome = ENGINE.outcome(table.state)
    assert outcome is not None and outcome.winners == (0,)
    assert outcome.reason.english() == (
        "Ada and Ben tied on the best 3 colours (4, 4, 2); the 4th colour decided 2 to 1: Ada wins"
    )
    ranking = table.view()["ranking"]
    assert [r["station"] for r in ranking] == [0, 1, 2]
    assert [r["rank"] for r in ranking] == [1, 2, 3]


def test_tie_on_every_colour_is_a_shared_win() -> None:
    table = finish_with({0: [R, R, G, G], 1: [L, L, Y, Y], 2: [B, B, V, Y]})
    outcome = ENGINE.outcome(table.state)
    assert outcome is not None and outcome.winners == (0, 1)
    assert outcome.reason.english() == (
        "Station 1, Station 2 and Station 3 tied on the best colour (2); the 2nd colour "
        "decided 2 to 1: Station 1 and Station 2 share the win (tied on every colour)"
    )
    assert [r["rank"] for r in table.view()["ranking"]] == [1, 1, 3]


def test_a_complete_tie_of_everyone_is_a_shared_win() -> None:
    table = finish_with({0: [R, G], 1: [Y, L]})
    outcome = ENGINE.outcome(table.state)
    assert outcome is not None and outcome.winners == (0, 1)
    assert outcome.reason.english().startswith("complete tie")


# -- the view ----------------------------------------------------------------------------
def test_view_is_json_and_tells_every_station_what_to_do() -> None:
    table = Table(4)
    prompts = {format_message(p["prompt"]) for p in table.view()["players"]}
    assert prompts == {"Turn to choose your start row, push to place"}
    table.place((0, 1, 2, 3))
    t = table.sand_start()
    table.press(t + 1, 2)
    table.press(t + 2, 0)
    table.press(t + 3, 1)
    table.press(t + 4, 3)
    table.push(t + 5, 1)
    view = table.view()
    json.dumps(view)
    by = {p["station"]: p for p in view["players"]}
    # The prompts are messages (an id and its parameters); in English:
    assert format_message(by[2]["prompt"]) == "Turn: move up to 3 rows, push to take 2"
    assert format_message(by[0]["prompt"]) == "Turn: move up to 2 rows, push to take 2"
    assert format_message(by[1]["prompt"]) == "Gems taken - done this round"
    assert format_message(by[3]["prompt"]) == "Push to take the 2 front gems of your row"
    assert by[2]["reach"] == [0, 5] and by[3]["reach"] == [3, 3]
    assert view["may_act"] == [0, 2, 3]
    assert set(view["scores"]) == {"0", "1", "2", "3"}
    assert view["phase"] == "sand" and view["round"] == 1
