"""Four games that each break one rule of the game contract, for
``tests/games/test_conformance.py`` to fail on, naming the rule (``test_broken_games.py``
holds it to that; ``scripts/run-tests --fast --game broken_never_ends`` shows the
failure as a game's author sees it).

They are registered with nothing: no entry point, so no table, lobby or other test ever
sees them; the conformance test looks them up here, and only when named.
"""

from __future__ import annotations

from typing import Any

from games.broken.counter import MissingKey, Mutates, NeverEnds, TieBreakUnranked
from table.games.base import Engine

BROKEN: dict[str, Engine[Any]] = {
    engine.name: engine for engine in (NeverEnds(), MissingKey(), Mutates(), TieBreakUnranked())}
"""The broken games by name, with the rule each breaks in its docstring."""
