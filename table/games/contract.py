"""The game contract: what a game brings to the table, and how the table finds it.

A game is two halves registered together as one :class:`Game`:

* its **engine** (pure rules; :class:`GameEngine` below, in the layer ``table.games``), and
* its **screen** (drawing, celebrations, sounds, words; the base is
  :class:`table.display.games.GameRenderer`), named here by a ``"module:ATTRIBUTE"``
  string so that code that only plays (a replay, the venue relay) never imports pygame.

The table finds games through the Python entry point group ``table.games``
(:data:`ENTRY_POINTS`): every entry point names a :class:`Game` object. The four games
shipped with the table are registered in the table's own ``pyproject.toml``; a game in a
distribution of its own registers the same way in its ``pyproject.toml``::

    [project.entry-points."table.games"]
    my_game = "my_game:GAME"

Nothing else in the table names a game: the lobby, the journal, scenarios, the config
check, the screens, the sounds, the celebrations, the demo and the venue all ask the
registered games.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from table.games.base import Action, Engine, GameSetup, GameState, JSONValue, Outcome, StationId

log = logging.getLogger(__name__)

ENTRY_POINTS = "table.games"
"""The entry point group every game registers its :class:`Game` under."""

S = TypeVar("S", bound=GameState)


class GameEngine(Generic[S]):
    """The base of every engine: the members a game must override, and every optional
    trait with its default, so that the table never has to ask whether an engine has one.

    **Must** set or override:

    * ``name`` (the key in configs, scenarios, journals and ``[games.NAME]``), ``title``,
      ``variants`` (the first is the default), ``min_stations``, ``max_stations``;
    * :meth:`new_game`, :meth:`legal_actions`, :meth:`apply`, :meth:`is_over`,
      :meth:`outcome`, :meth:`view`.

    **May** override:

    * ``option_names``: the setup options the game accepts (``None``, the default: any);
      the config check and scenarios refuse the others, with the one meant;
    * :meth:`next_deadline` (default: no deadline);
    * :meth:`standing`: what ranks a station when the game is ended early (default: its score);
    * :meth:`final_scores`: the scores that count when the game is ended early, for games
      that hide some of them (default: the public view's ``scores``).

    An engine is pure: no clocks, no randomness but :func:`table.games.base.rng_for`, no
    files, no hardware. ``apply`` returns the same state for an action that means nothing
    now and never raises for a well-formed action.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    variants: ClassVar[tuple[str, ...]]
    min_stations: ClassVar[int]
    max_stations: ClassVar[int]
    option_names: ClassVar[frozenset[str] | None] = None

    def new_game(self, setup: GameSetup, seed: int) -> S:
        raise NotImplementedError

    def legal_actions(self, state: S) -> Sequence[Action]:
        raise NotImplementedError

    def apply(self, state: S, action: Action) -> S:
        raise NotImplementedError

    def next_deadline(self, state: S) -> float | None:
        return None

    def is_over(self, state: S) -> bool:
        raise NotImplementedError

    def outcome(self, state: S) -> Outcome | None:
        raise NotImplementedError

    def view(self, state: S, station: StationId | None) -> dict[str, JSONValue]:
        raise NotImplementedError

    def standing(self, state: S, station: StationId, scores: Mapping[StationId, int]) -> tuple[int, ...]:
        """What ranks ``station`` when the game is ended early, compared left to right
        (greater is better); ``scores`` are the scores that count (:meth:`final_scores`)."""
        return (int(scores.get(station, 0)),)

    def final_scores(self, state: S) -> Mapping[StationId, int] | None:
        """The scores that count when the game is ended early, or ``None`` for the public
        view's ``scores``."""
        return None


def no_data_options(config_dir: Path | None) -> dict[str, JSONValue]:
    """A game that reads no data files: no options from them."""
    return {}


def no_data_problems(config_dir: Path | None) -> list[str]:
    """A game that reads no data files: nothing for the config check to report."""
    return []


@dataclass(frozen=True)
class Game:
    """One game as the table knows it: the engine, where its screen is, and what the game
    adds around them. Only ``engine`` and ``screen`` are needed; the rest has defaults.

    * ``screen``: ``"module:ATTRIBUTE"`` of its :class:`table.display.games.GameRenderer`,
      imported only by the display.
    * ``data_options(config_dir)``: setup options read from the game's own data files under
      ``NAME/`` of the config directory (``None``: the one in force) or the shipped defaults;
      raises :class:`table.common.errors.TableError` for a bad file. The options are plain
      data, so a journaled setup replays without the files.
    * ``data_problems(config_dir)``: every problem in those files, one sentence each, for
      ``table check-config``.
    * ``commands``: ``"module:FUNCTION"`` that adds the game's own subcommands to the
      table's command line (``FUNCTION(subparsers)``, like a module of ``table.commands``).
    * ``catalogue``: a package holding ``locale/<lang>.po`` (or the compiled ``.mo``) with
      the game's own words: every message marked in its engine's and its screen's
      packages (consulted after the table's catalogue, which holds the shared words
      only); ``None`` for a game without words of its own.
    * ``lobby_order``: where the game stands in the lobby's list (lower first; the first
      is the one the lobby offers first); ties go by name.
    * ``secret_knob``: players set a secret with the knob (the station's own view holds
      the cursor as ``you``), which the shared screen never shows: with relative encoders
      a player needs a private station display to see what he sets (``table check-config``
      warns when one is missing).
    """

    engine: Engine[Any]
    screen: str
    data_options: Callable[[Path | None], dict[str, JSONValue]] = no_data_options
    data_problems: Callable[[Path | None], list[str]] = no_data_problems
    commands: str | None = None
    catalogue: str | None = None
    lobby_order: int = 50
    secret_knob: bool = False

    @property
    def name(self) -> str:
        return self.engine.name


def load_object(reference: str) -> Any:
    """The object a ``"module:ATTRIBUTE"`` reference names (imported now)."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


@cache
def games() -> dict[str, Game]:
    """Every registered game by engine name, sorted by name; found once per process.

    An entry point that fails to load, or names something that is not a :class:`Game`,
    is logged and left out: one broken plugin never stops the table.
    """
    from table.common.i18n import add_catalogue

    found: dict[str, Game] = {}
    for point in importlib.metadata.entry_points(group=ENTRY_POINTS):
        try:
            game = point.load()
        except Exception as exc:  # a plugin's import error is the plugin's, not the table's
            log.warning("the game '%s' could not be loaded (%s: %s): left out", point.name, type(exc).__name__, exc)
            continue
        if not isinstance(game, Game):
            log.warning("the entry point '%s' (%s) is not a game: left out", point.name, point.value)
            continue
        found.setdefault(game.name, game)
    for game in found.values():
        if game.catalogue is not None:
            add_catalogue(game.catalogue)
    return dict(sorted(found.items()))


def lobby_games() -> list[str]:
    """The games' names in the order the lobby lists them."""
    return [g.name for g in sorted(games().values(), key=lambda g: (g.lobby_order, g.name))]
