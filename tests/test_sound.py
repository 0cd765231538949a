"""Sounds follow the game: count-down beeps, the call, solvers, the last seconds, the gong."""

from __future__ import annotations

import numpy as np

from table.games.base import Action, GameSetup
from table.session import Session, run_until_idle
from table.sound import SoundOutput, make_sounds


def test_sounds_are_synthesised_and_short() -> None:
    sounds = make_sounds()
    assert {"count", "go", "buzzer", "chime", "tick", "gong", "fanfare"} <= set(sounds)
    for samples in sounds.values():
        assert samples.dtype == np.int16 and 0 < len(samples) < 22050 * 3
        assert np.abs(samples).max() > 1000  # audible, not silence


def test_a_round_sounds_as_it_plays() -> None:
    out = SoundOutput(enabled=False)  # records what it would play; no audio device needed
    s = Session.start("ubongo_shimo", GameSetup("ubongo_shimo", stations=(0, 1)), 1)
    for t10 in range(0, 900):
        t = t10 / 10
        if t == 10.0:
            s.apply(Action("press", t, 0))
        if t == 30.0:
            s.apply(Action("press", t, 1))
        run_until_idle(s, until=t)
        out.update(s, t)
    played = out.played
    assert played[:3] == ["count", "count", "count"]
    assert played.index("go") < played.index("buzzer") < played.index("chime") < played.index("gong")
    assert played.count("tick") == 10  # the last ten seconds of the sand
