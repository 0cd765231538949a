"""Scenario tests: every rule of the rulebook and of TABLE.md's Umtata section."""

from __future__ import annotations

import json

from games.umtata.conftest import PARIS, WORLD_CUP, answer, guess, new, sector, tataaa
from table.games.base import Action, GameSetup
from table.games.umtata.engine import ENGINE
from table.games.umtata.state import ANSWER, GUESS, OVER, REVEAL


def test_rulebook_example_world_cup_2006() -> None:
    # Steven (0) reads, Andreas (1) calls Tataaa, Frank (2) guesses. Steven guesses Spain.
    s = new()
    s = tataaa(s, 1)
    s = guess(s, 0, "es")
    s = guess(s, 2, "gr")
    assert s.phase == ANSWER
    s = answer(s, 1, "it")
    assert s.phase == REVEAL
    assert s.round_points == (1, 3, 1)  # Spain: colour only; Italy: 3; Greece: region only
    assert s.scores == (1, 3, 1)


def test_guess_scores_region_and_colour() -> None:
    s = new(stations=(0, 1, 2, 3))
    s = guess(s, 0, "it")  # right country: region and colour
    s = guess(s, 1, "ba")  # same sector as Italy: 2 points too (the spinner cannot say more)
    s = guess(s, 2, "no")  # north orange: nothing
    s = guess(s, 3, "mc")  # west purple: colour
    assert s.phase == REVEAL
    assert s.round_points == (2, 2, 0, 1)


def test_first_tataaa_wrong_second_right() -> None:
    s = new(stations=(0, 1, 2, 3))
    s = tataaa(s, 2, t=1.0)
    s = tataaa(s, 0, t=1.5)
    s = guess(s, 1, "fr", t=2.0)
    s = guess(s, 3, "ba", t=2.5)
    assert s.tataaa == (2, 0)
    s = answer(s, 2, "es")
    assert s.phase == ANSWER  # the card stays secret: the next Tataaa player answers
    view = ENGINE.view(s, None)
    assert view["reveal"] is None and view["attempts"] == [{"station": 2, "result": "wrong"}]
    assert "it" not in json.dumps(view["attempts"]) and "Italy" not in json.dumps(view)
    s = answer(s, 0, "it")
    assert s.phase == REVEAL
    assert s.round_points == (3, 0, 0, 2)  # France: neither (west yellow vs south purple)


def test_right_tataaa_ends_answering_later_players_do_not_score() -> None:
    s = new(stations=(0, 1, 2))
    s = tataaa(s, 0)
    s = tataaa(s, 1)
    s = tataaa(s, 2)
    s = answer(s, 0, "it")
    assert s.phase == REVEAL
    assert s.round_points == (3, 0, 0)
    assert len(s.attempts) == 1


def test_nobody_right() -> None:
    s = new(stations=(0, 1, 2))
    s = tataaa(s, 1)
    s = guess(s, 0, "no")
    s = guess(s, 2, "lv")
    s = answer(s, 1, "gr")
    assert s.phase == REVEAL
    assert s.round_points == (0, 0, 0)
    view = ENGINE.view(s, None)
    assert view["reveal"]["name"] == "Italy"
    assert view["reveal"]["attempts"] == [{"station": 1, "country": "gr", "right": False}]


def test_tataaa_player_who_is_wrong_gets_no_guess_points() -> None:
    s = new(stations=(0, 1))
    s = tataaa(s, 0)
    s = guess(s, 1, "gr")
    s = answer(s, 0, "ba")  # right region and colour, wrong country: still 0
    assert s.round_points == (0, 1)


def test_first_action_counts() -> None:
    s = new(stations=(0, 1, 2))
    s = guess(s, 0, "it")
    after = tataaa(s, 0)  # a press after locking means nothing
    assert after is s
    s = tataaa(s, 1)
    assert guess(s, 1, "it") == s  # a push after Tataaa means nothing
    assert ENGINE.apply(s, Action("turn", 2.0, 0, {"delta": 3})) is s  # a locked knob is ignored


def test_tataaa_order_follows_arrival_order() -> None:
    s = new(stations=(0, 1, 2, 3, 4))
    for st in (3, 1, 4):
        s = tataaa(s, st)
    view = ENGINE.view(s, None)
    assert view["tataaa_order"] == [3, 1, 4]
    assert [p["tataaa_rank"] for p in view["players"]] == [None, 2, None, 1, 3]


def test_view_never_shows_a_guess_or_the_answer_before_the_reveal() -> None:
    s = new(stations=(0, 1, 2))
    s = ENGINE.apply(s, Action("turn", 1.0, 0, {"sector": sector("it"), "sectors": 16}))
    s = guess(s, 1, "es")
    text = json.dumps(ENGINE.view(s, None))
    for secret in ("purple", "south", "west", "Italy", '"it"', "Spain", "explain"):
        assert secret not in text
    statuses = [p["status"] for p in ENGINE.view(s, None)["players"]]
    assert statuses == ["thinking", "locked", "thinking"]
    # A station's own view shows its own knob and guess, nobody else's.
    own = ENGINE.view(s, 1)
    assert own["you"]["guess"] == {"region": "west", "colour": "purple"}
    assert "purple" not in json.dumps({k: v for k, v in ENGINE.view(s, 2).items() if k != "you"})


def test_both_knob_kinds_select_the_same_sector() -> None:
    s = new(stations=(0, 1))
    a = ENGINE.apply(s, Action("turn", 1.0, 0, {"sector": 11, "sectors": 16}))
    b = ENGINE.apply(s, Action("turn", 1.0, 0, {"delta": 11}))
    c = ENGINE.apply(s, Action("turn", 1.0, 0, {"delta": -5}))
    assert a.knobs[0] == b.knobs[0] == c.knobs[0] == 11


def test_answer_back_entry_returns_to_sector_step() -> None:
    s = new(stations=(0, 1))
    s = tataaa(s, 0)
    s = guess(s, 1, "fr")
    s = ENGINE.apply(s, Action("push", 2.0, 0))  # sector step -> country step
    assert s.step == "country"
    back = len(ENGINE.choices(s))
    s = ENGINE.apply(s, Action("turn", 2.0, 0, {"delta": back}))
    s = ENGINE.apply(s, Action("push", 2.0, 0))
    assert s.step == "sector" and s.phase == ANSWER and not s.attempts
    # Only the answering station's inputs count.
    assert ENGINE.apply(s, Action("push", 2.0, 1)) is s


def test_reader_rotates_and_used_card_goes_to_the_back() -> None:
    s = new(stations=(2, 4, 5), deck=(WORLD_CUP, PARIS), first_reader=4)
    assert ENGINE.view(s, None)["reader"] == 4
    first = ENGINE.question(s).country
    for _ in range(3):
        for st in (2, 4, 5):
            s = guess(s, st, "no")
        assert s.phase == REVEAL
        s = ENGINE.apply(s, Action("push", 9.0, 2))
    assert ENGINE.view(s, None)["reader"] == 4  # 4 -> 5 -> 2 -> 4
    assert s.round == 4
    assert ENGINE.question(s).country != first  # rounds alternate the two cards


def test_win_at_end_of_round_with_16() -> None:
    s = new(stations=(0, 1), target=4)
    s = tataaa(s, 0)
    s = guess(s, 1, "it")
    s = answer(s, 0, "it")
    assert s.scores == (3, 2) and s.phase == REVEAL
    s = ENGINE.apply(s, Action("push", 9.0, 1))
    s = guess(s, 0, "it")
    s = guess(s, 1, "no")
    assert s.phase == OVER and s.scores == (5, 2)
    out = ENGINE.outcome(s)
    assert out is not None and out.winners == (0,)
    assert ENGINE.is_over(s)
    assert ENGINE.apply(s, Action("push", 10.0, 0)) is s


def test_two_players_reach_16_in_the_same_round_share_the_win() -> None:
    s = new(stations=(0, 1, 2))
    s = ENGINE.apply(s, Action("turn", 0.0, 0, {"delta": 0}))
    from dataclasses import replace

    s = replace(s, scores=(15, 14, 15))
    s = tataaa(s, 1)
    s = guess(s, 0, "ba")  # 2 points -> 17
    s = guess(s, 2, "no")  # 0 -> 15
    s = answer(s, 1, "it")  # 3 -> 17
    assert s.phase == OVER
    assert ENGINE.outcome(s).winners == (0, 1)  # type: ignore[union-attr]
    assert ENGINE.view(s, None)["winners"] == [0, 1]


def test_the_target_counts_only_at_the_end_of_the_round() -> None:
    from dataclasses import replace

    s = replace(new(stations=(0, 1, 2)), scores=(14, 0, 0))
    s = tataaa(s, 0)
    s = tataaa(s, 1)
    s = guess(s, 2, "it")
    assert s.scores == (14, 0, 0)  # nothing is scored before the answers
    s = answer(s, 0, "gr")  # wrong
    assert s.phase == ANSWER and s.scores == (14, 0, 0)
    assert guess(s, 2, "no") is not None and guess(s, 2, "no").guesses == s.guesses  # too late
    s = answer(s, 1, "it")
    assert s.phase == REVEAL and s.scores == (14, 3, 2)


def test_station_that_never_acts_waits_and_can_be_skipped() -> None:
    s = new(stations=(0, 1, 2), deck=(WORLD_CUP, PARIS))
    s = guess(s, 0, "it")
    s = guess(s, 1, "it")
    assert s.phase == GUESS  # station 2 has not acted: the round waits
    assert ENGINE.next_deadline(s) is None
    assert ENGINE.apply(s, Action("tick", 100.0)) is s
    before = s.scores
    s = ENGINE.apply(s, Action("skip_round", 120.0))
    assert s.phase == GUESS and s.round == 2 and s.scores == before
    assert ENGINE.view(s, None)["reader"] == 1
    assert all(p["status"] == "thinking" for p in ENGINE.view(s, None)["players"])
    # A Tataaa player who never answers can be skipped too.
    s = tataaa(s, 0)
    s = guess(s, 1, "fr")
    s = guess(s, 2, "fr")
    assert s.phase == ANSWER
    s = ENGINE.apply(s, Action("skip_round", 130.0))
    assert s.phase == GUESS and s.round == 3


def test_unknown_and_foreign_inputs_are_ignored() -> None:
    s = new(stations=(0, 1))
    assert ENGINE.apply(s, Action("press", 1.0, 7)) is s
    assert ENGINE.apply(s, Action("dice", 1.0, 0, {"faces": [1]})) is s
    assert ENGINE.apply(s, Action("turn", 1.0, 0, "nonsense")) is s


def test_station_counts() -> None:
    import pytest

    from table.games.base import SetupError

    for n in (2, 3, 4, 5):
        assert len(new(stations=tuple(range(n))).scores) == n
    with pytest.raises(SetupError):
        new(stations=(0,))
    with pytest.raises(SetupError):
        new(stations=tuple(range(6)))


def test_same_seed_same_game_and_half_deck() -> None:
    setup = GameSetup("umtata", stations=(0, 1, 2))
    a = ENGINE.new_game(setup, 42)
    b = ENGINE.new_game(setup, 42)
    c = ENGINE.new_game(setup, 43)
    assert a == b and a.cards != c.cards
    from table.games.umtata.engine import deck_of

    assert len(a.cards) == (len(deck_of(setup)) + 1) // 2


def test_random_legal_play_ends() -> None:
    import random

    for seed in range(3):
        rng = random.Random(seed)
        s = ENGINE.new_game(GameSetup("umtata", stations=(0, 1, 2, 3)), seed)
        for _ in range(20000):
            if ENGINE.is_over(s):
                break
            acts = ENGINE.legal_actions(s)
            nxt = ENGINE.apply(s, rng.choice(acts))
            assert nxt != s
            s = nxt
        assert ENGINE.is_over(s)
        json.dumps(ENGINE.view(s, None))


def test_may_act_lists_the_stations_expected_to_act() -> None:
    s = new(stations=(0, 1, 2))
    assert ENGINE.view(s, None)["may_act"] == [0, 1, 2]
    s = tataaa(s, 2)
    s = guess(s, 0, "fr")
    assert ENGINE.view(s, None)["may_act"] == [1]
    s = guess(s, 1, "fr")
    assert ENGINE.view(s, None)["may_act"] == [2]  # the Tataaa player answers
    assert ENGINE.view(s, None)["scores"] == {"0": 0, "1": 0, "2": 0}
