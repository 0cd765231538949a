"""Scenario tests for every rule of Ugah Ugah! and of its TABLE.md section."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from games.ugah_ugah.table_helper import Table
from table.common.datafiles import defaults_dir
from table.common.errors import TableError
from table.common.i18n import format_message
from table.games.base import Action, GameSetup, Message, SetupError, check_setup, rng_for
from table.games.ugah_ugah.chips import config_options
from table.games.ugah_ugah.engine import (
    BONE,
    BREAKER,
    CHOOSE,
    DEFAULT_CHIP_GROUPS,
    ENGINE,
    GIVE,
    KEEP,
    MANUAL,
    MASHER,
    ORDER,
    OVER,
    SPOILS,
    SYMBOLS,
    TAKE_OUT,
    THROW,
    TRAY,
    UNCERTAIN,
    hunters_met,
    parse_chips,
)

CONFIG_DIR = defaults_dir()

# -- preparation ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_to_four_players_start_with_hunters_in_the_gap(players: int) -> None:
    table = Table(players)
    s = table.state
    assert sorted(c for c in s.circle if c is not None) == list(range(31))
    assert all(s.face_up)
    assert (s.masher, s.breaker) == (-1, 31)
    view = ENGINE.view(s, None)
    in_gap = {"place": None, "in_gap": True}
    assert view["hunters"] == {MASHER: in_gap, BREAKER: in_gap}
    assert view["spoils"] == {"dinosaur": None, "mammoth": None, "bird": None}
    assert s.station == 0 and s.phase == THROW and s.dice_in_play == 5


@pytest.mark.parametrize("players", [1, 5])
def test_one_or_five_players_are_refused(players: int) -> None:
    with pytest.raises(SetupError):
        check_setup(ENGINE, GameSetup("ugah_ugah", stations=tuple(range(players))))


def test_the_circle_is_shuffled_from_the_seed() -> None:
    assert Table(seed=1).state.circle == Table(seed=1).state.circle
    assert Table(seed=1).state.circle != Table(seed=2).state.circle


def test_default_chip_set_has_31_chips_and_caterpillars_count_one() -> None:
    chips = parse_chips(DEFAULT_CHIP_GROUPS, "default")
    assert len(chips) == 31
    assert all(c.points == 1 for c in chips if c.caterpillar)
    assert Table().state.rules.chips == chips
    assert dict(Table().state.rules.pips) == {1: BONE, 2: "dinosaur", 3: "mammoth", 4: "bird", 5: MASHER,
                                              6: BREAKER}


def test_the_shipped_config_file_is_the_default_set() -> None:
    options = config_options(CONFIG_DIR)
    assert parse_chips(options["chips"], "file") == parse_chips(DEFAULT_CHIP_GROUPS, "default")
    assert options["pips"] == {"1": BONE, "2": "dinosaur", "3": "mammoth", "4": "bird", "5": MASHER,
                               "6": BREAKER}
    assert Table(options=options).state.rules == Table().state.rules


def test_a_config_file_for_another_box(tmp_path: Path) -> None:
    (tmp_path / "ugah_ugah").mkdir()
    path = tmp_path / "ugah_ugah" / "ugah_ugah.toml"
    path.write_text("[[chips]]\npoints = 4\ncount = 31\n", encoding="utf-8")
    options = config_options(tmp_path)
    assert [c.points for c in Table(options=options).state.rules.chips] == [4] * 31
    path.write_text("[[chips]]\npoints = 4\ncount = 30\n", encoding="utf-8")
    with pytest.raises(TableError, match="exactly 31"):
        config_options(tmp_path)
    path.write_text("chips = [", encoding="utf-8")
    with pytest.raises(TableError, match="cannot read"):
        config_options(tmp_path)
    # A directory without the file falls back to the shipped chip set (file-by-file override).
    assert config_options(tmp_path / "nowhere") == config_options(CONFIG_DIR)


def test_chip_set_from_options_and_its_mistakes() -> None:
    groups = [{"points": 1, "caterpillar": True, "count": 11}, {"points": 5, "count": 20}]
    table = Table(options={"chips": groups})
    assert sorted(c.points for c in table.state.rules.chips) == [1] * 11 + [5] * 20
    with pytest.raises(SetupError, match="exactly 31"):
        parse_chips([{"points": 2, "count": 30}], "test")
    with pytest.raises(SetupError, match="caterpillar"):
        parse_chips([{"points": 2, "count": 31, "caterpillar": True}], "test")
    with pytest.raises(SetupError, match="pips"):
        Table(options={"pips": {"1": "bone"}})
    with pytest.raises(SetupError, match="dice_reader"):
        Table(options={"dice_reader": "yes"})


def test_uncertain_hunting_shows_only_four_chips() -> None:
    table = Table(variant=UNCERTAIN)
    assert sum(table.state.face_up) == 4
    view = ENGINE.view(table.state, None)
    assert sum(1 for c in view["circle"] if c["points"] is not None) == 4


# -- throwing and choosing -----------------------------------------------------------


def test_bones_go_aside_at_once_and_the_rest_is_chosen() -> None:
    table = Table()
    table.throw("bone", "bone", "mammoth", "bird", "mammoth")
    s = table.state
    assert s.phase == CHOOSE and s.aside == (BONE, BONE) and s.tray == ("mammoth", "bird", "mammoth")
    assert ENGINE.options(s) == ["mammoth", "bird", TAKE_OUT]
    table.choose("mammoth")
    s = table.state
    assert s.phase == THROW and s.dice_in_play == 1 and s.aside == (BONE, BONE, "mammoth", "mammoth")


def test_several_symbols_may_be_chosen_at_once() -> None:
    table = Table()
    table.throw("dinosaur", "bird", "bird", "masher", "dinosaur")
    table.choose("dinosaur", "bird")
    assert table.state.dice_in_play == 1
    assert sorted(table.state.aside) == ["bird", "bird", "dinosaur", "dinosaur"]


def test_at_least_one_symbol_must_be_chosen() -> None:
    table = Table()
    table.throw("dinosaur", "bird", "bird", "masher", "dinosaur")
    before = table.state
    assert table.press() == before
    table.turn(3)  # onto "take out"
    assert ENGINE.options(table.state)[table.state.cursor] == TAKE_OUT
    marked_nothing = table.state
    assert table.push() == marked_nothing


def test_pushing_a_marked_symbol_again_unmarks_it() -> None:
    table = Table()
    table.throw("dinosaur", "bird", "bird", "masher", "dinosaur")
    table.push()
    assert table.state.marked == ("dinosaur",)
    table.push()
    assert table.state.marked == ()


def test_push_on_take_out_sets_the_marked_dice_aside() -> None:
    table = Table()
    table.throw("dinosaur", "bird", "bird", "masher", "dinosaur")
    table.pick("bird")
    table.pick(TAKE_OUT)
    assert table.state.dice_in_play == 3


def test_a_symbol_chosen_before_may_be_chosen_again() -> None:
    table = Table()
    table.throw("mammoth", "bird", "bird", "dinosaur", "dinosaur")
    table.choose("mammoth")
    table.throw("mammoth", "bird", "dinosaur", "dinosaur")
    table.choose("mammoth")
    assert table.state.aside.count("mammoth") == 2


def test_a_single_symbol_showing_is_chosen_by_the_table() -> None:
    table = Table()
    table.throw("bird", "bird", "bone", "bird", "bone")
    # three birds, nothing else to choose: set aside without a knob, spoils card taken
    assert table.state.station == 1
    assert ENGINE.view(table.state, None)["spoils"]["bird"] == 0
    assert table.state.events[-3].detail["forced"] is True


def test_a_throw_of_five_bones_ends_the_turn_with_nothing() -> None:
    table = Table()
    circle = table.state.circle
    table.throw(1, 1, 1, 1, 1)  # pip 1 is a bone
    s = table.state
    assert s.station == 1 and s.turn == 2 and s.phase == THROW and s.dice_in_play == 5
    assert s.circle == circle and (s.masher, s.breaker) == (-1, 31) and s.piles == ((), (), ())


def test_the_last_die_a_hunter_moves_it() -> None:
    table = Table()
    table.stack()
    table.throw("bird", "dinosaur", "mammoth", "bird", "masher")
    table.choose("bird", "dinosaur", "mammoth")
    assert table.state.dice_in_play == 1
    table.throw("breaker")
    s = table.state
    assert s.breaker == 30 and s.circle[30] is None and table.pile(0) == [31]
    assert s.station == 1


def test_the_dice_are_thrown_until_none_are_left() -> None:
    table = Table()
    table.stack()
    table.throw("masher", "bird", "dinosaur", "mammoth", "bone")
    table.choose("masher")
    table.throw("bird", "dinosaur", "bone")
    table.choose("dinosaur")
    table.throw("bone")
    assert table.state.station == 1
    assert table.pile(0) == [1]  # Mammoth Masher walked one chip clockwise onto place 0


# -- the tray -------------------------------------------------------------------------


def test_a_wrong_number_of_dice_asks_for_a_re_throw_or_correction() -> None:
    table = Table()
    table.throw("bird", "bird", "bone", "bird")
    s = table.state
    assert s.phase == THROW and s.dice_in_play == 5 and s.throws == 0
    assert s.tray_problem is not None and "4 dice" in s.tray_problem.english()
    assert format_message(ENGINE.view(s, None)["players"][0]["prompt"]).startswith("Throw the 5 dice")
    table.throw("bird", "bird", "bone", "bird", "mammoth")
    assert table.state.phase == CHOOSE and table.state.tray_problem is None


def test_a_wrong_number_after_dice_were_set_aside() -> None:
    table = Table()
    table.throw("bird", "mammoth", "bone", "bird", "mammoth")
    table.choose("bird")
    table.throw("mammoth", "mammoth", "bird")  # one die too many
    assert table.state.tray_problem and table.state.dice_in_play == 2


def test_an_unreadable_face_is_not_a_throw() -> None:
    table = Table()
    table.throw("bird", "x", "bone", "bird", 9)
    assert table.state.tray_problem == Message("a die in the tray could not be read")
    assert table.state.throws == 0


def test_pip_dice_map_through_the_config() -> None:
    table = Table(options={"pips": {"1": "bird", "2": "bone", "3": "mammoth", "4": "dinosaur",
                                    "5": "breaker", "6": "masher"}})
    table.throw(1, 2, 3, 4, 6)
    assert table.state.tray == ("bird", "mammoth", "dinosaur", "masher")


def test_symbol_names_are_read_in_several_spellings() -> None:
    table = Table()
    table.throw("Mammoth Masher", "bone-breaker", "BIRD", "Bones", "4")
    assert table.state.last_throw == (MASHER, BREAKER, "bird", BONE, "bird")


def test_a_throw_from_another_station_is_ignored() -> None:
    table = Table()
    before = table.state
    assert table.act("dice", 2, {"faces": ["bird"] * 5}) == before


# -- manual dice entry with the knob --------------------------------------------------


def test_without_a_dice_reader_the_knob_sets_each_die() -> None:
    table = Table()
    assert table.state.input_mode == MANUAL
    faces = ["bird", "bird", "bone", "masher", "bird"]
    for face in faces:
        table.turn(SYMBOLS.index(face) - table.state.cursor)
        table.push()
    s = table.state
    assert s.last_throw == tuple(faces) and s.phase == CHOOSE
    assert s.events[-1].detail["source"] == "knob"


def test_an_absolute_knob_selects_faces_by_sector() -> None:
    table = Table()
    table.sector(15)  # the last of 16 sectors: the last symbol
    assert table.state.manual_faces[0] == BREAKER
    table.sector(0)
    assert table.state.manual_faces[0] == BONE


def test_the_button_steps_back_one_die_during_knob_entry() -> None:
    table = Table()
    table.turn(2)
    table.push()
    table.turn(1)
    assert table.state.manual_index == 1
    table.press()
    assert table.state.manual_index == 0 and table.state.manual_faces[:2] == ("mammoth", "dinosaur")
    before = table.state
    assert table.press() == before  # no dice reader to go back to


def test_with_a_dice_reader_the_button_switches_to_the_knob_and_back() -> None:
    table = Table(options={"dice_reader": True})
    assert table.state.input_mode == TRAY
    table.press()
    assert table.state.input_mode == MANUAL and table.state.manual_faces == (BONE,) * 5
    table.press()
    assert table.state.input_mode == TRAY


def test_an_unsure_reading_falls_back_to_the_knob_with_its_guess() -> None:
    table = Table(options={"dice_reader": True})
    table.act("dice", None, {"faces": ["bird", "bird", "mammoth", "bone", "bird"], "unsure": True})
    s = table.state
    assert s.input_mode == MANUAL and s.manual_faces == ("bird", "bird", "mammoth", BONE, "bird")
    for _ in range(5):
        table.push()
    assert table.state.phase == CHOOSE


def test_a_tray_reading_still_counts_during_knob_entry() -> None:
    table = Table()
    table.turn(1)
    table.throw("bird", "bird", "bird", "bone", "bone")
    assert table.state.station == 1


# -- spoils cards ----------------------------------------------------------------------


def test_three_of_a_kind_takes_the_spoils_card_from_the_middle() -> None:
    table = Table()
    table.throw("dinosaur", "dinosaur", "dinosaur", "bone", "bone")
    assert ENGINE.view(table.state, None)["spoils"]["dinosaur"] == 0
    assert ENGINE.view(table.state, None)["scores"] == {"0": 3, "1": 0, "2": 0}


def test_two_of_a_kind_takes_nothing() -> None:
    table = Table()
    table.throw("dinosaur", "dinosaur", "bone", "bone", "bone")
    assert table.state.spoils == (None, None, None)


def test_a_spoils_card_may_be_taken_from_another_player() -> None:
    table = Table()
    table.throw("mammoth", "mammoth", "mammoth", "bone", "bone")
    assert table.state.spoils[1] == 0
    table.throw("mammoth", "mammoth", "mammoth", "mammoth", "bone")
    assert table.state.phase == SPOILS and table.state.station == 1
    assert ENGINE.options(table.state) == ["take", "leave"]
    table.pick("take")
    assert table.state.spoils[1] == 1 and table.state.station == 2
    assert ENGINE.view(table.state, None)["scores"] == {"0": 0, "1": 3, "2": 0}
    assert any(e.kind == "spoils" and e.detail == {"card": "mammoth", "from": 0} for e in table.state.events)


def test_the_player_may_leave_the_card_with_its_holder() -> None:
    table = Table()
    table.throw("bird", "bird", "bird", "bone", "bone")
    table.throw("bird", "bird", "bird", "bone", "bone")
    table.pick("leave")
    assert table.state.spoils[2] == 0 and table.state.station == 2


def test_holding_the_card_already_changes_nothing() -> None:
    table = Table(players=2)
    table.throw("bird", "bird", "bird", "bone", "bone")
    table.throw(1, 1, 1, 1, 1)
    table.throw("bird", "bird", "bird", "bird", "bird")
    assert table.state.spoils[2] == 0 and table.state.station == 1


# -- hunters and chips ------------------------------------------------------------------


def test_each_masher_die_walks_one_chip_clockwise_and_the_chip_is_taken() -> None:
    table = Table()
    table.stack()
    table.throw("masher", "masher", "masher", "bone", "bone")
    s = table.state
    assert s.masher == 2 and s.circle[2] is None and s.circle[0] is not None and table.pile(0) == [3]
    view = ENGINE.view(s, None)
    assert view["hunters"][MASHER] == {"place": 2, "in_gap": False}
    assert view["players"][0]["chips"] == 1 and "pile" not in view["players"][0]


def test_empty_places_do_not_count_as_steps() -> None:
    table = Table()
    table.stack()
    table.throw("masher", "masher", "bone", "bone", "bone")  # station 0 takes place 1
    table.throw("masher", "masher", "bone", "bone", "bone")  # from place 1: 2, 3
    assert table.state.masher == 3 and table.pile(1) == [4]
    table.stack()  # lay a fresh circle but keep the emptied place 5 in the way
    table.place_hunters(masher=3, breaker=31, taken=(5,))
    table.throw("masher", "masher", "bone", "bone", "bone")  # 4, then 6 (5 is empty)
    assert table.state.masher == 6 and table.pile(2) == [7]


def test_bone_breaker_walks_counter_clockwise() -> None:
    table = Table()
    table.stack()
    table.throw("breaker", "breaker", "bone", "bone", "bone")
    assert table.state.breaker == 29 and table.pile(0) == [30]


def test_no_hunter_showing_moves_nobody() -> None:
    table = Table()
    table.throw("bird", "mammoth", "dinosaur", "bone", "bone")
    table.choose("bird", "mammoth", "dinosaur")
    assert (table.state.masher, table.state.breaker) == (-1, 31) and table.state.station == 1


def test_both_hunters_moving_keep_one_chip_and_give_the_other() -> None:
    table = Table(players=3)
    table.stack()
    table.throw("masher", "breaker", "breaker", "bone", "bone")
    table.choose(MASHER, BREAKER)
    s = table.state
    assert s.phase == KEEP  # far apart: the order does not matter, so it is not asked
    assert [t["points"] for t in ENGINE.view(s, None)["taken"]] == [1, 30]
    table.pick("29")  # keep the chip from place 29
    assert table.state.phase == GIVE and ENGINE.options(table.state) == ["1", "2"]
    table.pick("2")
    assert table.pile(0) == [30] and table.pile(2) == [1] and table.pile(1) == []
    assert table.state.station == 1


def test_with_two_players_the_other_chip_goes_to_the_opponent() -> None:
    table = Table(players=2)
    table.stack()
    table.throw("masher", "breaker", "bone", "bone", "bone")
    table.choose(MASHER, BREAKER)
    table.pick("0")
    assert table.pile(0) == [1] and table.pile(1) == [31] and table.state.station == 1


def test_order_matters_when_the_hunters_converge_on_one_chip() -> None:
    # Masher on 10, Breaker on 14: with two steps each, both would land on place 12.
    for first, expect_taken, expect_positions in (
        (MASHER, {12, 11}, (12, 11)),
        (BREAKER, {12, 13}, (13, 12)),
    ):
        table = Table(players=3)
        table.stack()
        table.place_hunters(masher=10, breaker=14)
        table.throw("masher", "masher", "breaker", "breaker", "bone")
        table.choose(MASHER, BREAKER)
        assert table.state.phase == ORDER
        preview = {p["first"]: set(p["places"]) for p in ENGINE.view(table.state, None)["order_preview"]}
        assert preview == {MASHER: {12, 11}, BREAKER: {12, 13}}
        table.pick(first)
        s = table.state
        assert set(s.taken) == expect_taken and (s.masher, s.breaker) == expect_positions
        table.push()  # keep the first chip
        table.push()  # give the other to the next player
        assert sorted(table.pile(0) + table.pile(1)) == sorted(p + 1 for p in expect_taken)
        # the second hunter walked past the first one: the game ends after this turn
        assert table.state.phase == OVER


def test_hunters_meeting_exactly_end_the_game_after_the_turn() -> None:
    table = Table(players=2)
    table.stack()
    table.place_hunters(masher=10, breaker=13)
    table.throw("masher", "breaker", "bone", "bone", "bone")
    table.choose(MASHER, BREAKER)  # 11 and 12: nothing left between them
    assert table.state.phase == KEEP
    table.pick("12")
    s = table.state
    assert s.phase == OVER and s.ended_by_hunters
    assert table.pile(0) == [13] and table.pile(1) == [12]
    assert s.winners == (0,)


def test_one_hunter_reaching_the_other_ends_the_game() -> None:
    table = Table(players=2)
    table.stack()
    table.place_hunters(masher=10, breaker=12)
    table.throw("masher", "bone", "bone", "bone", "bone")
    assert table.state.phase == OVER and table.state.masher == 11


def test_passing_hunters_walk_their_remaining_steps_on_the_remaining_chips() -> None:
    table = Table(players=2)
    table.stack()
    table.place_hunters(masher=10, breaker=12, taken=(14,))
    table.throw("masher", "masher", "masher", "bone", "bone")  # 11, (12 empty) 13, (14 empty) 15
    s = table.state
    assert s.masher == 15 and table.pile(0) == [16] and s.phase == OVER


def test_a_hunter_walks_over_the_gap_after_passing() -> None:
    table = Table(players=2)
    table.stack()
    table.place_hunters(masher=28, breaker=29)  # side by side: a further move wraps over the gap
    table.throw("masher", "masher", "masher", "bone", "bone")  # 30, (gap) 0, 1
    assert table.state.masher % 31 == 1 and table.pile(0) == [2]


def test_not_met_while_chips_lie_between() -> None:
    circle = tuple(range(31))
    assert not hunters_met(circle, -1, 31)
    assert not hunters_met(circle, 10, 12)
    assert hunters_met(circle, 10, 11)
    assert hunters_met(circle, 12, 10)


# -- scoring ----------------------------------------------------------------------------


def test_scoring_caterpillars_count_one_and_spoils_three() -> None:
    table = Table(players=2)
    values = [p + 1 for p in range(31)]
    values[0] = 1
    table.stack(values, caterpillars=(0,))
    table.throw("bird", "bird", "bird", "masher", "bone")
    table.choose("bird", MASHER)
    assert table.pile(0) == [1]
    table.place_hunters(masher=10, breaker=12)
    table.throw("breaker", "bone", "bone", "bone", "bone")
    out = ENGINE.outcome(table.state)
    assert out is not None and out.scores == {0: 1 + 3, 1: 12} and out.winners == (1,)


def test_ties_are_shared() -> None:
    table = Table(players=2)
    table.stack([5] * 31)
    table.throw("masher", "bone", "bone", "bone", "bone")
    table.place_hunters(masher=10, breaker=12, taken=(0,))
    table.throw("masher", "bone", "bone", "bone", "bone")
    out = ENGINE.outcome(table.state)
    assert out is not None and out.scores == {0: 5, 1: 5} and out.winners == (0, 1)
    assert "shared" in out.reason.english()


def test_the_final_view_reveals_everything() -> None:
    table = Table(players=2, variant=UNCERTAIN)
    table.stack()
    table.place_hunters(masher=10, breaker=12)
    table.throw("masher", "bone", "bone", "bone", "bone")
    view = ENGINE.view(table.state, None)
    assert view["phase"] == OVER and view["scores_final"]
    assert all(c["points"] is not None for c in view["circle"] if c["present"])
    assert view["players"][0]["pile"] == [{"points": 12, "caterpillar": False}]
    assert view["scores"] == {"0": 12, "1": 0}


# -- the variant keeps its secrets ------------------------------------------------------


def test_the_public_view_never_leaks_face_down_chips_or_piles() -> None:
    table = Table(players=3, variant=UNCERTAIN)
    table.stack([100 + p for p in range(31)])
    table.state = replace(table.state, face_up=tuple(p in (0, 5, 6, 7) for p in range(31)))
    table.throw("masher", "breaker", "bone", "bone", "bone")
    table.choose(MASHER, BREAKER)
    assert table.state.phase == KEEP
    public = ENGINE.view(table.state, None)
    text = json.dumps(public)
    assert "130" not in text  # the face-down chip on place 30, just taken
    assert "100" in text  # the face-up chip on place 0
    for hidden in (101, 102, 104, 108, 115, 129):
        assert str(hidden) not in text
    # the active station may look at the chips it holds in its hand
    own = ENGINE.view(table.state, 0)
    assert [t["points"] for t in own["taken"]] == [100, 130]
    assert [t["points"] for t in ENGINE.view(table.state, 1)["taken"]] == [100, None]
    table.pick("30")
    table.pick("1")
    public = json.dumps(ENGINE.view(table.state, None))
    assert "130" not in public and "100" not in public  # both now lie face down in piles
    assert ENGINE.view(table.state, None)["scores"] == {"0": 0, "1": 0, "2": 0}
    assert ENGINE.view(table.state, 0)["players"][0]["pile"] == [{"points": 130, "caterpillar": False}]
    assert "pile" not in ENGINE.view(table.state, 0)["players"][1]


def test_turns_go_round_and_rounds_count_them() -> None:
    table = Table(players=3)
    seen = []
    for _ in range(4):
        seen.append((table.state.station, table.state.round))
        table.throw("bone", "bone", "bone", "bone", "bone")
    assert seen == [(0, 1), (1, 1), (2, 1), (0, 2)]


# -- random play, skipping, meaningless input ---------------------------------------------


def test_random_throws_come_from_the_seed_turn_and_throw() -> None:
    table = Table(seed=7)
    throw = next(a for a in ENGINE.legal_actions(table.state) if a.kind == "dice")
    rng = rng_for(7, 1, 0)
    assert list(throw.value["faces"]) == [rng.choice(SYMBOLS) for _ in range(5)]


def test_legal_actions_all_change_the_state() -> None:
    table = Table(players=3, options={"dice_reader": True})
    table.throw("bird", "mammoth", "masher", "breaker", "bone")
    for phase_state in (table.state,):
        for action in ENGINE.legal_actions(phase_state):
            assert ENGINE.apply(phase_state, action) != phase_state


def test_skip_round_skips_the_turn_while_throwing_only() -> None:
    table = Table(players=3)
    table.stack()
    table.throw("bird", "mammoth", "bone", "bone", "bone")
    table.act("skip_round")
    assert table.state.station == 1 and table.state.aside == ()
    table.throw("masher", "breaker", "bone", "bone", "bone")
    table.choose(MASHER, BREAKER)
    keep = table.state
    assert table.act("skip_round") == keep


def test_inputs_from_other_stations_are_ignored() -> None:
    table = Table()
    before = table.state
    for kind in ("press", "turn", "push"):
        assert ENGINE.apply(before, Action(kind, 1.0, 2, {"delta": 1})) == before


def test_nothing_changes_after_the_end() -> None:
    table = Table(players=2)
    table.stack()
    table.place_hunters(masher=10, breaker=12)
    table.throw("masher", "bone", "bone", "bone", "bone")
    over = table.state
    assert table.throw("masher", "bone", "bone", "bone", "bone") == over
    assert ENGINE.legal_actions(over) == []


def test_the_view_tells_what_the_last_turn_did() -> None:
    table = Table(players=3)
    table.stack([100 + p for p in range(31)])
    assert ENGINE.view(table.state, None)["last_turn"] is None
    table.throw("bird", "bird", "mammoth", "mammoth", "mammoth")
    table.choose("mammoth")
    table.throw("masher", "breaker")
    table.choose(MASHER, BREAKER)
    table.pick("30")
    table.pick("1")
    last = ENGINE.view(table.state, None)["last_turn"]
    assert last["station"] == 0 and not last["skipped"]
    assert last["dice"] == {"mammoth": 3, "masher": 1, "breaker": 1}  # birds were thrown, not set aside
    assert last["spoils"] == {"card": "mammoth", "from": None, "result": "took"}
    assert last["steps"] == {"masher": 1, "breaker": 1}
    # the chips now lie face down: where they went is public, their values are not
    assert [(c["place"], c["to"], c["points"]) for c in last["chips"]] == [(0, 1, None), (30, 0, None)]
    own = ENGINE.view(table.state, 0)["last_turn"]
    assert [(c["to"], c["points"]) for c in own["chips"]] == [(1, 100), (0, 130)]
