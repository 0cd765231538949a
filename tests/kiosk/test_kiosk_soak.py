"""Soak: 8 hours of table time through the real table loop, at the real 1920x1080.

Runs in about 1.5 minutes here (virtual clock, one loop step per table second). See
``soak.py`` for what the guests do. Passes when nothing raised or was logged as an
error, every game and the attract mode and the table menu were used, every
journaled game replays, and the resident floor (``SoakStats.growth_mb``) grew by
less than 10 MB from the two hours after a two-hour warm-up to the last two hours.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from kiosk.soak import soak

from table.games import registry
from table.play.journal import Journal
from table.play.session import Session

HOURS = 8.0
MAX_GROWTH_MB = 10.0


@pytest.mark.slow
def test_eight_hours_of_table_time(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    # Two hours of warm-up: by then every game has been played and every bounded cache filled.
    stats = soak(HOURS, tmp_path / "journal.db", seed=8, size=(1920, 1080), warmup_hours=2.0)
    assert stats.table_seconds >= HOURS * 3600
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []
    assert set(stats.games_started) == set(registry()), stats.games_started
    assert stats.games_finished >= len(registry())
    assert stats.attract_shown > 0 and stats.menus_opened > 0
    with Journal(tmp_path / "journal.db") as journal:
        for game in journal.game_ids():
            record = journal.load(game)
            session = Session.replay(record.engine, record.setup, record.seed, record.actions)
            if record.finished:
                assert session.is_over(), f"journal game {game} is marked finished but does not replay to the end"
    growth = stats.growth_mb
    print(f"soak: {stats.steps} steps, {stats.frames} frames, {stats.inputs} inputs, "
          f"{sum(stats.games_started.values())} games, RSS growth {growth:.1f} MB")
    assert growth < MAX_GROWTH_MB
