"""The outputs of the table loop: what it drives from the game besides the screen.

Light on purpose (no pygame): the loop's LEDs, hourglass, sounds and tray, and a game's
own outputs, all build on :class:`Output`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from table.games.base import Action
    from table.play.session import Session


class Output:
    """The base of everything besides the screen that the table drives from the game:
    sounds, button LEDs, the hourglass, a game's own outputs (speech, say).

    The table loop calls every hook; each does nothing by default, so an output overrides
    only what it follows. Times are the game's (seconds since its start, pauses left out).
    An output that raises is logged and dropped; the game goes on without it.

    * :meth:`update`: after every step of the loop, with the running session (``None``
      in the lobby);
    * :meth:`on_input`: right after an input changed the game;
    * :meth:`on_press`: a station's press was counted;
    * :meth:`next_update`: when the output next needs an :meth:`update` although nothing
      happens (an animation's next frame), so that an idle table wakes for it;
    * :meth:`close`: the table stops.
    """

    def update(self, session: Session | None, now: float) -> None:
        """Follow the game at game time ``now``."""
        return None

    def on_input(self, session: Session, action: Action) -> None:
        """``action`` (in game time) has just changed ``session``'s game."""
        return None

    def on_press(self, station: int, at: float) -> None:
        """``station``'s press at game time ``at`` counted."""
        return None

    def next_update(self, now: float) -> float | None:
        """The game time of the next :meth:`update` this output needs by itself (``None``:
        none until something happens)."""
        return None

    def close(self) -> None:
        """Let go of what the output holds (devices, processes)."""
        return None
