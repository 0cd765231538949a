"""Buzzer race: the first press after the signal scores; a press before it sits the round out.

A fifth game for the table, in a distribution of its own: it is written only against
the game contract (:mod:`table.games.contract`, :mod:`table.display.games`) and
registers through the ``table.games`` entry point group, touching nothing of the table.
Its rules (:mod:`buzzer_race.engine`) are imported when a game of it is played
(:class:`table.games.contract.LazyEngine`).
"""

from table.games.contract import Game, LazyEngine

GAME = Game(LazyEngine("buzzer_race.engine:ENGINE", name="buzzer_race", title="Buzzer race",
                       variants=("standard", "strict"), min_stations=2, max_stations=4,
                       option_names=frozenset({"points_to_win", "wait_min_seconds", "wait_max_seconds",
                                               "press_seconds", "results_seconds", "tie_window_ms", "colours"})),
            "buzzer_race.screen:RENDERER", catalogue="buzzer_race", lobby_order=60)
"""Buzzer race as the table registers it (entry point ``table.games``)."""

__all__ = ["GAME"]
