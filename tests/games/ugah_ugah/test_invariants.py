"""Invariants checked at every step of random games (both variants, 2-4 players)."""

from __future__ import annotations

import random

import pytest
from tier import fast

from table.games.base import GameSetup
from table.games.ugah_ugah.engine import ENGINE, GIVE, KEEP, OVER, UNCERTAIN, hunters_met
from table.play.autoplay import next_random_action
from table.play.session import Session


@pytest.mark.parametrize("variant", ["standard", UNCERTAIN])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_chips_are_kept_and_secrets_stay_hidden(variant: str, players: int) -> None:
    for seed in range(1 if fast() else 3):  # the fast tier (tests/tier.py): one game each
        setup = GameSetup("ugah_ugah", variant, tuple(range(players)))
        session = Session(engine=ENGINE, setup=setup, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not session.is_over():
            action = next_random_action(session, rng)
            assert action is not None
            session.apply(action)
            steps += 1
            s = session.state
            on_circle = sum(1 for c in s.circle if c is not None)
            in_piles = sum(len(p) for p in s.piles)
            in_hand = {KEEP: 2, GIVE: 1}.get(s.phase, 0)  # the two chips taken, before keeping/giving
            assert on_circle + in_piles + in_hand == 31
            view = ENGINE.view(s, None)
            if s.phase != OVER:
                assert all("pile" not in p and "points" not in p for p in view["players"])
                shown = [c for c in view["circle"] if c["points"] is not None]
                assert all(s.face_up[c["place"]] for c in shown)
                assert not hunters_met(s.circle, s.masher, s.breaker) or s.phase in (KEEP, GIVE)
            assert sum(view["scores"].values()) >= 0
        assert steps < 3000
        assert hunters_met(session.state.circle, session.state.masher, session.state.breaker)
