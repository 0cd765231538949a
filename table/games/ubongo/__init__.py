"""Ubongo (the original, with the gem board): engine, die and public view.

``ENGINE`` is what the registry discovers; see :mod:`table.games.ubongo.engine`.
"""

from table.games.ubongo.engine import ENGINE, Ubongo, UbongoState

__all__ = ["ENGINE", "Ubongo", "UbongoState"]
