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

This module is where the contract is stated; other documents point here:

* :class:`Game`: what a game registers (engine, screen, data files, commands, words);
* :class:`GameEngine`: every member of an engine, with what it must do, what it may
  assume and an example, and the rules every engine keeps (:data:`RULES`:
  :data:`ENDS` within :data:`MAX_ACTIONS`, :data:`PURE`, :data:`DETERMINISTIC`,
  :data:`VIEW`, :data:`IGNORES`, :data:`RANKS`), each checked by its own test in
  ``tests/games/test_conformance.py``;
* :class:`TableView`: the keys of a public view the table's shared code reads, and
  :data:`LOBBY_OPTIONS`, the setup options the lobby adds to every game.

The screen half's members are stated on :class:`table.display.games.GameRenderer`.
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
from typing import Any, ClassVar, Generic, NotRequired, TypedDict, TypeVar, cast

from table.common.datafiles import distribution_folders
from table.games.base import Action, Engine, GameSetup, GameState, JSONValue, Outcome, Prompt, StationId

log = logging.getLogger(__name__)

ENTRY_POINTS = "table.games"
"""The entry point group every game registers its :class:`Game` under."""

S = TypeVar("S", bound=GameState)


# -- The view the table reads -----------------------------------------------------------
# A view is the engine's own JSON (``dict[str, JSONValue]``, whatever the game's screen
# needs), and the table's shared code reads a few keys of the public one: those are
# declared here, once, and ``tests/games/test_conformance.py`` checks them at every step
# of random play (:func:`view_problems`).

COUNTDOWN = "countdown"
"""The ``phase`` of a count-down before play opens: the table sounds a count each second
and shows no sand tension while the view's ``phase`` is this."""


class Sand(TypedDict):
    """The view's ``sand``: the hourglass running now, drawn by the LED hourglass and the
    screen's tension glow (:func:`table.games.timed.sand_view` builds it).

    ``started`` is the game time the sand was turned (``None``: no sand runs now),
    ``seconds`` how long it runs."""

    started: float | None
    seconds: float


class TableView(TypedDict):
    """The keys of a game's **public** view (``view(state, None)``) that the table's shared
    code reads: the button lights, the sounds, the hourglass, the tray camera, the screen's
    tension glow, the scores of a game ended early. A view holds any other keys the
    game's own screen wants; these must be there (the first four) or, when present, of
    these types. Keys of JSON objects are strings, so ``scores`` is keyed ``"0"``, ``"1"``.

    Required:

    * ``phase`` (str): the game's phase; the table knows one by name, :data:`COUNTDOWN`.
    * ``round`` (int): the round being played (a new round is a new throw to the tray camera).
    * ``scores`` ({str(station): int}): every playing station's score now; it ranks a
      game ended early unless :meth:`GameEngine.final_scores` says otherwise.
    * ``may_act`` ([station]): the stations whose press means something now; their
      buttons blink and only theirs are armed.

    Optional:

    * ``deadline`` (float | None): the game time the table counts down to aloud (a tick
      each of the last ten seconds); ``None`` or absent: nothing to count down to. It may
      differ from :meth:`GameEngine.next_deadline`, which may be secret.
    * ``sand`` (:class:`Sand` | None): a game with an hourglass.
    * ``callers`` ([station]): the stations that called first this round; one caller's
      button keeps a steady light.
    * ``expects_dice`` (int | None): while a positive number, the tray camera reads a
      throw of that many dice and hands it back as a ``dice`` action. A new value of any
      of ``round``, ``turn``, ``throws``, ``expects_dice``, ``tray``, ``tray_problem`` (any
      JSON, compared as they are) is a new throw to read.

    The session adds ``paused`` (bool) to every view it hands on (:data:`TABLE_KEYS`): a
    game's view must not hold it.
    """

    phase: str
    round: int
    scores: dict[str, int]
    may_act: list[StationId]
    deadline: NotRequired[float | None]
    sand: NotRequired[Sand | None]
    callers: NotRequired[list[StationId]]
    expects_dice: NotRequired[int | None]
    turn: NotRequired[JSONValue]
    throws: NotRequired[JSONValue]
    tray: NotRequired[JSONValue]
    tray_problem: NotRequired[JSONValue]


TABLE_KEYS = frozenset({"paused"})
"""Keys the table adds to a game's views (``paused``): a game's own view holds none."""

LOBBY_OPTIONS = frozenset({"colours"})
"""Setup options the lobby adds to every game it starts: ``colours``, one colour index
per playing station (the table's screens draw each player in it; an engine may ignore
it). A game with ``option_names`` must name these. The lobby adds ``language`` (the
language in force) only to a game that names it, and the config ``dice_reader`` (true
with a tray camera) likewise."""


def table_view(view: Mapping[str, JSONValue]) -> TableView:
    """``view`` (a public view) as the table reads it. The conformance test holds every
    registered game's public views to :class:`TableView`; the table's reads stay
    defensive all the same, since one broken plugin must not stop the table."""
    return cast(TableView, view)


def _station_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(s, int) and not isinstance(s, bool) for s in value)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def view_problems(view: Mapping[str, object]) -> list[str]:
    """Every way the public ``view`` (as the engine returns it) breaks :class:`TableView`
    and :data:`TABLE_KEYS`, one sentence each; none for a view the table can read."""
    problems: list[str] = []
    required: dict[str, tuple[Callable[[object], bool], str]] = {
        "phase": (lambda v: isinstance(v, str), "a string"),
        "round": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
        "scores": (lambda v: isinstance(v, dict) and all(isinstance(k, str) and isinstance(p, int)
                                                         and not isinstance(p, bool) for k, p in v.items()),
                   'an object of whole numbers keyed by station ("0", "1", ...)'),
        "may_act": (_station_list, "a list of stations"),
    }
    optional: dict[str, tuple[Callable[[object], bool], str]] = {
        "deadline": (lambda v: v is None or _number(v), "a game time or null"),
        "sand": (lambda v: v is None or (isinstance(v, dict) and _number(v.get("seconds"))
                                         and (v.get("started") is None or _number(v.get("started")))),
                 'null or {"started": a game time or null, "seconds": a number}'),
        "callers": (_station_list, "a list of stations"),
        "expects_dice": (lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
                         "a whole number or null"),
    }
    for key, (fits, what) in required.items():
        if key not in view:
            problems.append(f"the public view has no '{key}' ({what}), which the table reads")
        elif not fits(view[key]):
            problems.append(f"the public view's '{key}' must be {what}, not {view[key]!r}")
    for key, (fits, what) in optional.items():
        if key in view and not fits(view[key]):
            problems.append(f"the public view's '{key}' must be {what}, not {view[key]!r}")
    for key in sorted(TABLE_KEYS & set(view)):
        problems.append(f"the view holds '{key}', which the table adds itself")
    return problems


# -- The rules every engine keeps -------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One rule of the contract that ``tests/games/test_conformance.py`` checks for every
    registered game, by its ``name`` (which the test's failure message names)."""

    name: str
    says: str


MAX_ACTIONS = 20_000
"""The most actions random legal play may take to end a game (rule :data:`ENDS`)."""

ENDS = Rule("ends", f"random legal play (legal actions at random moments, a tick at each deadline, from any "
                    f"seed) ends the game within {MAX_ACTIONS} actions and never gets stuck (no legal action "
                    f"and no deadline while the game is not over)")
PURE = Rule("pure", "apply never changes the state it is given (states are values; a new state is a new object)")
DETERMINISTIC = Rule("deterministic", "the same setup, seed and actions give equal states and equal views")
VIEW = Rule("view", "every public view is JSON and has the keys the table reads (TableView), "
                    "without the ones the table adds")
IGNORES = Rule("ignores", "apply returns the very same state for an input that means nothing now, and never "
                          "raises for a well-formed action")
RANKS = Rule("ranks", "at the game's own end, the stations standing ranks best (given the outcome's scores) are "
                      "exactly the outcome's winners: the tie-breaks of the game's end are its standing's too")
RULES = (ENDS, PURE, DETERMINISTIC, VIEW, IGNORES, RANKS)
"""Every rule, in the order the conformance test checks them."""


class GameEngine(Generic[S]):
    """The game contract's engine half, stated here once: every engine derives from this
    class, which gives each optional member its default, so the table never has to ask
    whether an engine has one. (:class:`table.games.base.Engine` is the same contract as
    a protocol, for code that only calls engines.)

    **Must** set ``name``, ``title``, ``variants``, ``min_stations``, ``max_stations`` and
    override :meth:`new_game`, :meth:`legal_actions`, :meth:`apply`, :meth:`is_over`,
    :meth:`outcome`, :meth:`view`. **May** set ``option_names`` and ``own_kinds`` and
    override :meth:`next_deadline`, :meth:`prompt`, :meth:`standing`, :meth:`final_scores`,
    :meth:`final_view`.

    What the table may assume of every engine, and the conformance test
    (``tests/games/test_conformance.py``, one named test per rule; ``scripts/run-tests
    --fast --game NAME`` runs them for one game) checks, at every step of random play:

    * **ends** (:data:`ENDS`): random legal play ends the game within
      :data:`MAX_ACTIONS` actions and never gets stuck;
    * **pure** (:data:`PURE`): no clocks, no randomness but :func:`table.games.base.rng_for`
      from the seed, no files, no hardware, and :meth:`apply` never changes the state it
      is given (states are frozen dataclasses comparing by value);
    * **deterministic** (:data:`DETERMINISTIC`): the same setup, seed and actions give
      equal states and views (replays and the journal rely on it);
    * **view** (:data:`VIEW`): every view is JSON, and the public one has the keys of
      :class:`TableView`;
    * **ignores** (:data:`IGNORES`): :meth:`apply` returns the very same state object
      for an input that means nothing now and never raises for a well-formed action;
    * **ranks** (:data:`RANKS`): at the game's own end, :meth:`standing` ranks best
      exactly the outcome's winners (so a game with a tie-break cannot keep the
      points-only default by accident; checked at the end of random play).

    Time is an input (each :class:`Action` carries ``t``, game seconds; deadlines are
    kept in the state and come back as ``tick`` actions); a pause never reaches the
    engine. Words for players travel as :class:`table.games.base.Message` data.
    """

    name: ClassVar[str]
    """The game's key in configs, scenarios, journals and ``[games.NAME]``: lower case
    letters, digits and ``_``, unique among installed games (``"my_game"``, as in the entry point above)."""
    title: ClassVar[str]
    """The game's name as players read it, a message id its catalogue translates
    (``"My game"``)."""
    variants: ClassVar[tuple[str, ...]]
    """The variants a setup may name, the first being the default
    (``("standard", "strict")``)."""
    min_stations: ClassVar[int]
    """The fewest stations that play a game (at least 1)."""
    max_stations: ClassVar[int]
    """The most stations that play a game (at most the table's 16)."""
    option_names: ClassVar[frozenset[str] | None] = None
    """The setup options the game accepts; the config check and scenarios refuse the
    others, naming the one meant. ``None`` (the default): any. A set must include
    :data:`LOBBY_OPTIONS` (``colours``), which the lobby gives every game it starts
    (``frozenset({"points_to_win", "colours"})``)."""
    own_kinds: ClassVar[frozenset[str]] = frozenset()
    """The action kinds the game adds to :data:`table.games.base.BASE_KINDS` (default:
    none). A journaled action of any other kind is damage, never replayed
    (``frozenset({"bid"})``)."""

    def new_game(self, setup: GameSetup, seed: int) -> S:
        """The first state of a game played by ``setup`` with chance drawn from ``seed``.

        Must: derive every random choice from ``seed`` (:func:`table.games.base.rng_for`),
        read the game's options from ``setup.options`` with a default for each, and raise
        :class:`table.games.base.SetupError` (one sentence) for options it cannot play.
        May assume: ``setup.variant`` is one of :attr:`variants` and the station count
        within bounds (:func:`table.games.base.check_setup` ran); ``setup.options`` may
        hold :data:`LOBBY_OPTIONS`. Example: ``new_game(GameSetup("my_game",
        stations=(0, 2)), seed=7)`` is round 1 waiting for its signal at time 0.
        """
        raise NotImplementedError

    def legal_actions(self, state: S) -> Sequence[Action]:
        """The inputs that would change ``state`` now (ticks excepted: they come from
        :meth:`next_deadline`); the ``t`` of each is ignored.

        Must: list at least one action or have a deadline while the game is not over
        (rule **ends**: random play draws from this list). May list a few representative
        values where a knob has many. Example: during a round, ``[Action("press", now, s)
        for s in playing]``.
        """
        raise NotImplementedError

    def apply(self, state: S, action: Action) -> S:
        """The state after ``action``: a new object for a change, ``state`` itself when the
        action means nothing now (a press out of turn, an unknown kind, a station not
        playing, a tick before the deadline, anything after the end).

        Must: leave ``state`` untouched (rule **pure**), never raise for a well-formed
        action (rule **ignores**), treat ``action.t`` as the time it happened. May assume:
        ``action.t`` never goes back before a time the state has seen, and the tick of a
        passed deadline comes before any later input. Example: ``apply(s, Action("press",
        4.2, 1))`` in the signal phase scores station 1; the same press in the results
        returns ``s``.
        """
        raise NotImplementedError

    def next_deadline(self, state: S) -> float | None:
        """The game time at which ``state`` wants a ``tick`` (the sand runs out, a
        count-down ends), or ``None`` (the default): none. The loop delivers
        ``Action("tick", deadline)`` when it passes; it may be secret (not in the view).
        Example: :func:`table.games.timed.on_tick` meets one."""
        return None

    def is_over(self, state: S) -> bool:
        """Whether the game has ended by its rules (then :meth:`outcome` is not ``None``
        and every further action returns ``state``)."""
        raise NotImplementedError

    def outcome(self, state: S) -> Outcome | None:
        """How the game ended: every playing station's final score, the winners (at least
        one), and the reason as a message; ``None`` while it runs. Example:
        ``Outcome({0: 5, 1: 3}, (0,), Message("first to reach the points to win"))``."""
        raise NotImplementedError

    def view(self, state: S, station: StationId | None) -> dict[str, JSONValue]:
        """What ``station`` may see of ``state`` (``None``: the public screen), as a new
        JSON-compatible dict (rule **view**).

        Must: leave out what that station may not see; hold the keys of
        :class:`TableView` in the public view; carry words as message data
        (:meth:`table.games.base.Message.to_json`). May: add any keys its own screen
        draws from. The table may add :data:`TABLE_KEYS` to the dict it gets. Example:
        ``{"phase": "signal", "round": 2, "scores": {"0": 1, "1": 0}, "may_act": [0, 1],
        "deadline": 9.5, "headline": {"id": "Press!", "params": {}}}``.
        """
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
        """What ranks ``station`` on the final ranking, compared left to right (greater is
        better); ``scores`` are the scores that count (the outcome's, or
        :meth:`final_scores`). It alone orders a game ended early from the table menu,
        which has no winner; after the game's own end it orders the players after the
        winners.

        Must (rule **ranks**): at the game's own end, rank best exactly the outcome's
        winners: the rulebook's tie-breaks belong here as well as in :meth:`outcome`.
        Default: the score alone. Example: ``(points, cards)`` breaks a tie on points
        by cards."""
        return (int(scores.get(station, 0)),)

    def final_scores(self, state: S) -> Mapping[StationId, int] | None:
        """The scores that count when the game is ended early, for a game that hides some
        of them, or ``None`` (the default): the public view's ``scores``."""
        return None

    def final_view(self, state: S) -> dict[str, JSONValue] | None:
        """The public view of a game ended early with everything its own end would reveal
        (face-down chips, piles), for a game that hides some of it, or ``None`` (the
        default): the public view. The final ranking's columns
        (``GameRenderer.final_detail``) read it, so that they add up to
        :meth:`final_scores`. Example: the public view with every pile's chips and points
        shown, as the game's own end shows them."""
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

    @property
    def own_kinds(self) -> frozenset[str]:
        """The engine's own action kinds (asked only of a game being played or replayed,
        so it imports the engine rather than being one more fact stated here)."""
        return self.engine.own_kinds

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

    def final_view(self, state: Any) -> dict[str, JSONValue] | None:
        return self.engine.final_view(state)


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
    Example (a game's ``__init__.py``, named by its entry point)::

        GAME = Game(LazyEngine("my_game.engine:ENGINE", name="my_game", title="My game",
                               variants=("standard",), min_stations=2, max_stations=4,
                               option_names=frozenset({"points_to_win", "colours"})),
                    "my_game.screen:RENDERER", catalogue="my_game")
    """

    engine: Engine[Any]
    """The engine, or a :class:`LazyEngine` naming it with its facts, which keeps its rules
    unimported until a game of it is played (the table's start imports no game's rules
    then; ``data_options`` should import them on use too)."""
    screen: str
    """``"module:ATTRIBUTE"`` of its :class:`table.display.games.GameRenderer`, imported
    only by the display (a replay and the venue relay never load pygame)."""
    data_options: Callable[[Path | None], dict[str, JSONValue]] = no_data_options
    """``data_options(config_dir)``: setup options read from the game's own data files
    under ``NAME/`` of the config directory (``None``: the one in force) or the shipped
    defaults; raises :class:`table.common.errors.TableError` for a bad file. The options
    are plain data, so a journaled setup replays without the files."""
    data_problems: Callable[[Path | None], list[str]] = no_data_problems
    """``data_problems(config_dir)``: every problem in those files, one sentence each, for
    ``table check-config``."""
    commands: str | None = None
    """``"module:FUNCTION"`` that adds the game's own subcommands to the table's command
    line (``FUNCTION(subparsers)``, like a module of ``table.commands``)."""
    catalogue: str | None = None
    """A package holding ``locale/<lang>.po`` (or the compiled ``.mo``) with the game's own
    words: every message marked in its engine's and its screen's packages (consulted
    after the table's catalogue, which holds the shared words only); ``None`` for a game
    without words of its own."""
    lobby_order: int = 50
    """Where the game stands in the lobby's list (lower first; the first is the one the
    lobby offers first); ties go by name."""
    secret_knob: bool = False
    """Players set a secret with the knob (the station's own view holds the cursor as
    ``you``), which the shared screen never shows: with relative encoders a player needs
    a private station display to see what he sets (``table check-config`` warns when
    one is missing)."""

    @property
    def name(self) -> str:
        """The engine's ``name``."""
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
