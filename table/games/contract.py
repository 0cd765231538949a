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
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from table.common.datafiles import distribution_folders
from table.games.base import Action, Engine, GameSetup, GameState, JSONValue, Outcome, Prompt, StationId

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
    * :meth:`prompt`: what the players are asked now (default: the public view's
      ``round``, nothing to wait for);
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

    def prompt(self, state: S) -> Prompt:
        """What the players are asked now (:class:`~table.games.base.Prompt`): its ``key``
        changes when a station's input moves everyone on to a new question, so that the
        table settles the inputs of that moment; ``opens_at`` is the game time before
        which an input is early. The default is a new round by the public view's
        ``round`` and no ``opens_at``: a game whose phases within a round wait for "any
        button" (results to read, a turn passing) states its own."""
        return Prompt(key=self.view(state, None).get("round"))

    def standing(self, state: S, station: StationId, scores: Mapping[StationId, int]) -> tuple[int, ...]:
        """What ranks ``station`` when the game is ended early, compared left to right
        (greater is better); ``scores`` are the scores that count (:meth:`final_scores`)."""
        return (int(scores.get(station, 0)),)

    def final_scores(self, state: S) -> Mapping[StationId, int] | None:
        """The scores that count when the game is ended early, or ``None`` for the public
        view's ``scores``."""
        return None


FACTS = ("name", "title", "variants", "min_stations", "max_stations", "option_names")
"""The members of an engine a :class:`LazyEngine` states without importing it."""


class LazyEngine:
    """An engine named by ``"module:ATTRIBUTE"`` and imported at its first use, with its
    facts (:data:`FACTS`: ``name``, ``title``, ``variants``, the station counts,
    ``option_names``) stated here: what the table needs of every game before a game is
    played (the config check, the lobby), so that starting the table imports no game's
    rules. A game may register ``Game(LazyEngine(...), ...)`` instead of its engine.

    The facts must be the engine's own (``tests/games/test_conformance.py`` checks every
    registered game); the first use of any other member imports the engine, logs an
    error for a fact that differs, and from then on every call goes to the engine.
    """

    def __init__(self, reference: str, *, name: str, title: str, variants: tuple[str, ...],
                 min_stations: int, max_stations: int, option_names: frozenset[str] | None = None) -> None:
        self.reference = reference
        """``"module:ATTRIBUTE"`` of the engine object."""
        self.name = name
        self.title = title
        self.variants = variants
        self.min_stations = min_stations
        self.max_stations = max_stations
        self.option_names = option_names
        self._engine: Engine[Any] | None = None

    @property
    def engine(self) -> Engine[Any]:
        """The engine itself (imported now, the first time)."""
        if self._engine is None:
            engine: Engine[Any] = load_object(self.reference)
            for fact in FACTS:
                if getattr(engine, fact) != getattr(self, fact):
                    log.error("the game '%s' states %s %r, its engine %s has %r", self.name, fact,
                              getattr(self, fact), self.reference, getattr(engine, fact))
            self._engine = engine
        return self._engine

    def __repr__(self) -> str:
        return f"LazyEngine({self.reference!r})"

    def new_game(self, setup: GameSetup, seed: int) -> Any:
        return self.engine.new_game(setup, seed)

    def legal_actions(self, state: Any) -> Sequence[Action]:
        return self.engine.legal_actions(state)

    def apply(self, state: Any, action: Action) -> Any:
        return self.engine.apply(state, action)

    def next_deadline(self, state: Any) -> float | None:
        return self.engine.next_deadline(state)

    def is_over(self, state: Any) -> bool:
        return self.engine.is_over(state)

    def outcome(self, state: Any) -> Outcome | None:
        return self.engine.outcome(state)

    def view(self, state: Any, station: StationId | None) -> dict[str, JSONValue]:
        return self.engine.view(state, station)

    def prompt(self, state: Any) -> Prompt:
        return self.engine.prompt(state)

    def standing(self, state: Any, station: StationId, scores: Mapping[StationId, int]) -> tuple[int, ...]:
        return self.engine.standing(state, station, scores)

    def final_scores(self, state: Any) -> Mapping[StationId, int] | None:
        return self.engine.final_scores(state)


def engine_of(game: Game) -> Engine[Any]:
    """``game``'s engine itself (a :class:`LazyEngine`'s imported now)."""
    return game.engine.engine if isinstance(game.engine, LazyEngine) else game.engine


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

    * ``engine``: the engine, or a :class:`LazyEngine` naming it with its facts, which
      keeps its rules unimported until a game of it is played (the table's start imports
      no game's rules then; ``data_options`` should import them on use too).
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


def entry_points(group: str) -> list[tuple[str, str]]:
    """The ``(name, "module:attribute")`` of every entry point in ``group``, in the order
    ``importlib.metadata.entry_points`` gives them.

    Installed distributions are folders (``NAME-VERSION.dist-info`` or ``.egg-info``) in
    the folders of ``sys.path``, and the first of a name wins; their ``entry_points.txt``
    is read here directly, because importing ``importlib.metadata`` (the e-mail and zip
    packages and more) cost the kiosk's start more than finding its games. Where a path
    entry is not a folder (a zip file) the standard library is asked instead."""
    if any(entry and not os.path.isdir(entry) and os.path.exists(entry) for entry in sys.path):
        import importlib.metadata

        return [(p.name, p.value) for p in importlib.metadata.entry_points(group=group)]
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for dist, folder in distribution_folders():
        if dist in seen:
            continue
        seen.add(dist)
        try:
            # A plain open: most distributions have no such file, and pathlib's objects
            # for each of the scores of them cost more than the failed opens.
            with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as file:
                text = file.read()
        except OSError:
            continue
        out += _group(text, group)
    return out


def _group(text: str, group: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of section ``[group]`` of an ``entry_points.txt``."""
    out: list[tuple[str, str]] = []
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group and "=" in line:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.partition("[")[0].strip()))
    return out


@cache
def games() -> dict[str, Game]:
    """Every registered game by engine name, sorted by name; found once per process.

    An entry point that fails to load, or names something that is not a :class:`Game`,
    is logged and left out: one broken plugin never stops the table.
    """
    from table.common.i18n import add_catalogue

    found: dict[str, Game] = {}
    for name, value in entry_points(ENTRY_POINTS):
        try:
            game = load_object(value)
        except Exception as exc:  # a plugin's import error is the plugin's, not the table's
            log.warning("the game '%s' could not be loaded (%s: %s): left out", name, type(exc).__name__, exc)
            continue
        if not isinstance(game, Game):
            log.warning("the entry point '%s' (%s) is not a game: left out", name, value)
            continue
        found.setdefault(game.name, game)
    for game in found.values():
        if game.catalogue is not None:
            add_catalogue(game.catalogue)
    return dict(sorted(found.items()))


def lobby_games() -> list[str]:
    """The games' names in the order the lobby lists them."""
    return [g.name for g in sorted(games().values(), key=lambda g: (g.lobby_order, g.name))]
