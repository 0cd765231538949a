"""Wo ist bitte Umtata?: the board, the question deck and the rules engine."""

from table.games.umtata.engine import ENGINE, UmtataEngine, UmtataState

__all__ = ["ENGINE", "UmtataEngine", "UmtataState"]
