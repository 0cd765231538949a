"""Buzzer race: the first press after the signal scores; a press before it sits the round out.

A fifth game for the table, in a distribution of its own: it is written only against
the game contract (:mod:`table.games.contract`, :mod:`table.display.games`) and
registers through the ``table.games`` entry point group, touching nothing of the table.
"""

from buzzer_race.engine import ENGINE
from table.games.contract import Game

GAME = Game(ENGINE, "buzzer_race.screen:RENDERER", catalogue="buzzer_race", lobby_order=60)
"""Buzzer race as the table registers it (entry point ``table.games``)."""

__all__ = ["ENGINE", "GAME"]
