"""The screen side of the game contract, and the registered games' screens.

Each game's :class:`table.games.contract.Game` names its screen (``"module:ATTRIBUTE"``),
an instance of :class:`GameRenderer`. ``view`` is always ``engine.view(state, None)``
(the public display's view, JSON-compatible: the engine's own keys, and those the table
reads, :class:`table.games.contract.TableView`, whose contract is stated with the
engine's in :mod:`table.games.contract`); hidden things were removed there, so a
screen can never show a secret. No member may change anything but the surface it is
given (and a renderer's own caches).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import pygame

from table.common.checks import check_section, did_you_mean, load_toml, non_empty, number, one_of, read_text_input
from table.common.errors import TableError
from table.common.i18n import N_, _, language, ngettext, word
from table.common.pofile import SCREEN_FACTS
from table.display import draw
from table.display.layers import Part
from table.display.output import Output as Output  # a game's own outputs build on it
from table.display.theme import TEXT_DIM, Colour, Theme
from table.games.base import Event, JSONValue
from table.games.contract import games, load_object


@dataclass(frozen=True)
class RenderContext:
    """What a renderer needs besides the view: the theme and the game time now."""

    theme: Theme
    now: float
    paused: bool = False


Picture = Callable[[pygame.Surface], None]
"""A still picture: paints the whole of the surface it is given (its size is the display's)."""


@dataclass(frozen=True)
class PlayerOption:
    """A setting each player chooses for himself in the lobby (a level of difficulty, say).

    The lobby shows it as a line (``label`` beside ``hint``); a push on it moves the
    pushing station's own value to the next of ``values`` (after the last, the first);
    every station starts at the first. The game starts with ``option`` set to the list
    of the players' values in seating order. ``label``, ``hint`` and ``detail`` are
    message ids; ``detail`` is what a joined station's panel says instead of "playing",
    with a ``{value}`` field (several options' details are joined by " · ").
    """

    option: str
    label: str
    hint: str
    detail: str
    values: tuple[int, ...]


@dataclass(frozen=True)
class FinalDetail:
    """A game's own column on the final ranking, beside a player's score (the gems by
    colour, say): ``paint(surface, cell)`` draws inside ``cell`` (a row's right part,
    about ``units`` theme units wide); its picture follows from ``key``."""

    key: Hashable
    paint: Callable[[pygame.Surface, pygame.Rect], None]
    units: float = 40.0
    words: str | None = None
    """The words of a column that is only words (:func:`words_detail`): the final ranking
    draws them itself, at the one scale of all its rows' words."""


NEXT_ROUND_NOTE = N_("Press any button for the next round")
"""What every game's screen says between two rounds while it waits for a press: one
wording for every game (as the final ranking's note is one)."""


def words_detail(text: str, theme: Theme, units: float = 40.0) -> FinalDetail:
    """A final-ranking column that is only words (``text``, in the language in force)."""
    def paint(surface: pygame.Surface, cell: pygame.Rect) -> None:
        draw.label(surface, theme, text, (cell.right, cell.centery), "large", TEXT_DIM, "midright",
                   max_width=cell.width, box=cell)

    return FinalDetail(("words", text), paint, units, text)


FACTS_FILE = SCREEN_FACTS
"""The usual name of a screen's facts file (:class:`ScreenFacts`), beside its module: the
name the catalogue tools look for its messages under."""

BANNER_DEFAULT = (0.5, 43.0)
"""Where a banner settles on a screen that does not say (``banner_at``): centred, under
a headline."""


@dataclass(frozen=True)
class Celebration:
    """How the table celebrates one kind of engine event: the ``banner`` (``"first"``, the
    first press of a round, or ``"round"``, a round won) with ``words`` (a message id
    with the field ``{name}``, the event's player), only when the event's detail has
    every value in ``when`` (``{"place": 1}``: the first to finish, not every finisher)."""

    banner: str
    words: str
    when: Mapping[str, JSONValue] = field(default_factory=dict)


@dataclass(frozen=True)
class ScreenFacts:
    """What a game's screen says of itself besides drawing: the ``GameRenderer`` members
    of the same names (see there), declared as data in a TOML file beside the screen's
    module rather than as code, so that writing a screen is writing its drawing.

    The file's keys: ``game`` (required), ``how_to_play`` (a list of message ids),
    ``banner_at`` (two numbers), ``showcase_phase``, and the tables ``[sounds]`` (event
    kind = sound name), ``[variant_names]`` (variant = message id), ``[celebrations]``
    (event kind = ``{ banner = ..., words = ..., when = {...} }``, a :class:`Celebration`)
    and ``[palette.GROUP]`` tables of the screen's own colours (name = ``[r, g, b]``; a
    module of the screen reads a group with :func:`screen_palette`).
    The message ids are marked for the catalogues by standing there
    (:func:`table.common.pofile.extract_file`).
    """

    game: str
    how_to_play: tuple[str, ...] = ()
    banner_at: tuple[float, float] = BANNER_DEFAULT
    sounds: Mapping[str, str] = field(default_factory=dict)
    variant_names: Mapping[str, str] = field(default_factory=dict)
    showcase_phase: str | None = None
    celebrations: Mapping[str, Celebration] = field(default_factory=dict)
    palette: Mapping[str, Mapping[str, Colour]] = field(default_factory=dict)


def _texts(v: Any) -> str | None:
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        return "must be a list of non-empty strings"
    return None


def _place(v: Any) -> str | None:
    if not isinstance(v, list) or len(v) != 2:
        return "must be two numbers: [share of the width, top in theme units]"
    return number(0.0, 1.0)(v[0]) or number(0.0, 100.0)(v[1])


def _names(v: Any) -> str | None:
    if not isinstance(v, dict) or not all(isinstance(x, str) and x for x in v.values()):
        return "must be a table of non-empty strings"
    return None


_BANNER = one_of("first", "round")


def _when(v: Any) -> str | None:
    if not isinstance(v, dict) or not all(isinstance(x, str | int | float | bool) for x in v.values()):
        return "must be a table of detail values (strings, numbers, true or false)"
    return None


_CELEBRATION = {"banner": _BANNER, "words": non_empty, "when": _when}


def _celebrations(v: Any) -> str | None:
    if not isinstance(v, dict):
        return "must be a table: event kind = { banner = ..., words = ... }"
    for kind, said in v.items():
        if not isinstance(said, dict):
            return f"{kind}: must be a table {{ banner = ..., words = ... }}"
        for key, value in said.items():
            if key not in _CELEBRATION:
                return f"{kind}.{key}: unknown key{did_you_mean(key, _CELEBRATION)}"
            problem = _CELEBRATION[key](value)
            if problem:
                return f"{kind}.{key}: {problem}"
        missing = [key for key in ("banner", "words") if key not in said]
        if missing:
            return f"{kind}: needs {' and '.join(missing)}"
    return None


def _colour(v: Any) -> bool:
    return (isinstance(v, list) and len(v) == 3
            and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in v))


def _palette(v: Any) -> str | None:
    if not isinstance(v, dict):
        return "must be tables of colours ([palette.GROUP])"
    for group, colours in v.items():
        if not isinstance(colours, dict) or not colours:
            return f"{group}: must be a table of colours, name = [red, green, blue]"
        for name, colour in colours.items():
            if not _colour(colour):
                return f"{group}.{name}: must be [red, green, blue], each a whole number from 0 to 255"
    return None


_FACTS = {"game": non_empty, "how_to_play": _texts, "banner_at": _place, "sounds": _names,
          "variant_names": _names, "showcase_phase": non_empty, "celebrations": _celebrations,
          "palette": _palette}


@cache
def read_screen_facts(path: Path) -> ScreenFacts:
    """The facts in the TOML file ``path`` (see :class:`ScreenFacts`), checked; a missing
    or bad file raises :class:`TableError` with one sentence naming the file and the key.
    Read once per path (a screen's class and its modules' colours share the reading)."""
    try:
        data = load_toml(read_text_input(path, "screen facts file"))
    except ValueError as exc:  # tomllib's errors and the bounds' are ValueErrors
        raise TableError(f"the screen facts file {path} is not valid TOML ({exc})") from None
    problems: list[str] = []
    clean = check_section(str(path), "facts", data, _FACTS, problems)
    if "game" not in data:
        problems.append(f"{path}: game: missing (the engine's name)")
    if problems:
        raise TableError(problems[0])
    place = clean.get("banner_at", BANNER_DEFAULT)
    celebrations = {kind: Celebration(said["banner"], said["words"], dict(said.get("when", {})))
                    for kind, said in clean.get("celebrations", {}).items()}
    palette = {group: {name: (c[0], c[1], c[2]) for name, c in colours.items()}
               for group, colours in clean.get("palette", {}).items()}
    return ScreenFacts(clean["game"], tuple(clean.get("how_to_play", ())), (float(place[0]), float(place[1])),
                       dict(clean.get("sounds", {})), dict(clean.get("variant_names", {})),
                       clean.get("showcase_phase"), celebrations, palette)


def screen_palette(module_file: str, group: str, facts: str = FACTS_FILE) -> dict[str, Colour]:
    """The colours of ``[palette.GROUP]`` in the facts file ``facts`` beside the module
    ``module_file`` (its ``__file__``), by name in the file's order (a fresh copy); a
    missing group raises :class:`TableError` with one sentence."""
    path = Path(module_file).parent / facts
    colours = read_screen_facts(path).palette.get(group)
    if colours is None:
        raise TableError(f"{path}: palette.{group}: missing (the colours [palette.{group}])")
    return dict(colours)


class GameRenderer:
    """The base of every game's screen: what it must draw, and every optional member with
    its default.

    A subclass declared ``class MyRenderer(GameRenderer, facts="screen.toml")`` takes
    ``game``, ``how_to_play``, ``banner_at``, ``sounds``, ``variant_names``,
    ``showcase_phase`` and ``celebrations`` from that file beside its module
    (:class:`ScreenFacts`), read once when the class is made; a bad file stops the
    import with one sentence.

    **Must** set or override:

    * ``game``: the engine's name;
    * :meth:`parts`: the screen as :class:`~table.display.layers.Part` objects whose
      times are the game's (the table repaints only what changed), or
    * :meth:`draw`: the whole screen painted from scratch (the default :meth:`parts`
      is then one part repainted every frame: correct, not cheap).

    **May** override:

    * :meth:`prepare`: steps that build ahead what the first frames would stop for (the
      table runs them while nobody plays);
    * ``celebrations``: which engine events the table celebrates, as what, with what
      words (:class:`Celebration`, by event kind; default: none), or
      :meth:`celebration` for a rule these cannot say;
    * ``banner_at``: where a celebration's banner settles (centre as a share of the
      width, top in theme units), over the board rather than over words being read;
    * ``sounds``: the sound each engine event makes, by event kind (names of the table's
      sounds in :func:`table.loop.sound.make_sounds`: ``go``, ``first``, ``buzzer``,
      ``chime``, ``gong``, ``win``, ``fanfare``, ``tick``); an event not named is silent;
    * :meth:`score_text`: a score in words, for the ranking (default: points);
    * :meth:`final_reason`: the outcome's reason in words on the final ranking
      (:mod:`table.display.final`; default: the message as it says it);
    * :meth:`final_detail`: a column of the game's own on the final ranking (default: none);
    * ``how_to_play``: the game's how-to-play card, a few short lines (message ids);
    * ``variant_names``: how the lobby names the variants, by variant (message ids; a
      variant not named shows as it is);
    * ``player_options``: the lines each player sets for himself in the lobby
      (:class:`PlayerOption`), in the order the lobby shows them;
    * ``showcase_phase``: the view phase in which the table menu is opened for the
      pictures of the game's flows, some rounds in (``None``: any phase with a deadline;
      see :func:`table.loop.snapshots.showcase`);
    * :meth:`pictures`: still pictures of the game's own beyond those every game gets
      (for ``table screens`` and the docs), by name;
    * :meth:`outputs`: extra outputs the game drives (speech), built from the config;
    * :meth:`data_problems`: problems in the screen's own data files, for ``check-config``;
    * :meth:`station_lines`: what a station's private display shows of its own view.
    """

    game: ClassVar[str]
    banner_at: ClassVar[tuple[float, float]] = BANNER_DEFAULT
    sounds: ClassVar[Mapping[str, str]] = {}
    variant_names: ClassVar[Mapping[str, str]] = {}
    player_options: ClassVar[tuple[PlayerOption, ...]] = ()
    showcase_phase: ClassVar[str | None] = None
    celebrations: ClassVar[Mapping[str, Celebration]] = {}

    def __init_subclass__(cls, facts: str | None = None, **kwargs: Any) -> None:
        """Take the members :class:`ScreenFacts` names from the file ``facts`` (a name
        relative to the folder of the module that declares the class), if given."""
        super().__init_subclass__(**kwargs)
        if facts is None:
            return
        module = sys.modules[cls.__module__]
        if getattr(module, "__file__", None) is None:
            raise TableError(f"the screen {cls.__qualname__} has no folder to find its {facts} in")
        said = read_screen_facts(Path(str(module.__file__)).parent / facts)
        cls.game = said.game
        cls.how_to_play = said.how_to_play
        cls.banner_at = said.banner_at
        cls.sounds = said.sounds
        cls.variant_names = said.variant_names
        cls.showcase_phase = said.showcase_phase
        cls.celebrations = said.celebrations

    def draw(self, surface: pygame.Surface, view: dict[str, JSONValue], ctx: RenderContext) -> None:
        """Paint the whole screen for ``view`` at ``ctx.now``."""
        for part in self.parts(view, ctx.theme, ctx.paused):
            part.paint(surface, ctx.now)

    def parts(self, view: dict[str, JSONValue], theme: Theme, paused: bool = False) -> list[Part]:
        whole = pygame.Rect(0, 0, theme.width, theme.height)

        def paint(surface: pygame.Surface, t: float) -> None:
            self.draw(surface, view, RenderContext(theme, t, paused))

        return [Part(f"{self.game}:whole", whole, None, paint, base=True,
                     live=None if paused else (lambda t: (t, whole)))]

    def prepare(self, theme: Theme) -> Iterator[None]:
        return iter(())

    def celebration(self, event: Event, name: str) -> tuple[str, str] | None:
        """``(kind, words)`` for an event the table celebrates, else ``None``. ``kind`` is
        ``"first"`` (the first press of a round) or ``"round"`` (a round won); ``name`` is
        the event's station's player. Only the event's kind, station and detail may be
        used: nothing a view would hide. The default follows ``celebrations``."""
        said = self.celebrations.get(event.kind)
        if said is None:
            return None
        detail = event.detail if isinstance(event.detail, dict) else {}
        if any(detail.get(key) != value for key, value in said.when.items()):
            return None
        return said.banner, _(said.words).format(name=name)

    def score_text(self, n: int) -> str:
        """A score of ``n`` in words, in the language in force."""
        return ngettext("{n} point", "{n} points", n).format(n=n)

    def final_reason(self, message: JSONValue) -> str:
        """The outcome's reason (a message as :meth:`table.games.base.Message.to_json`
        data) in words for the final ranking, in the language in force."""
        return word(message)

    def final_detail(self, view: dict[str, JSONValue], station: int, theme: Theme) -> FinalDetail | None:
        """The game's own column for ``station`` on the final ranking, from the public
        view of the finished game, or ``None`` (the default: the score says it all)."""
        return None

    how_to_play: ClassVar[tuple[str, ...]] = ()
    """The how-to-play card: three to five short lines (message ids), what to do with
    the button and the knob; shown in the lobby and between the demo games."""

    def pictures(self) -> Iterator[tuple[str, Picture]]:
        """``(name, picture)`` for each still picture of the game's own; the names are
        file names without ``.png`` (unique among every game's)."""
        return iter(())

    def outputs(self, config_dir: Path | None) -> list[Output]:
        """The outputs the game drives besides the screen, set up from the data files
        under ``config_dir`` (``None``: the directory in force); raises
        :class:`table.common.errors.TableError` for a bad file."""
        return []

    def data_problems(self, config_dir: Path | None) -> list[str]:
        """Every problem in the screen's own data files under ``config_dir``, one
        sentence each (the same checks :meth:`outputs` makes)."""
        return []

    def station_lines(self, view: dict[str, JSONValue]) -> list[tuple[str, str]]:
        """The lines a station's private display shows, top down, as ``(text, size)``
        with size ``"big"`` or ``"small"``, from that station's own view
        (``engine.view(state, station)``, the only view holding its secrets); words in
        the language in force. Default: none (the display shows the station's name)."""
        return []



def preparations(theme: Theme) -> Iterator[None]:
    """Every renderer's ``prepare(theme)`` steps, one after the other, then the pause's
    words (:func:`table.display.pieces.prepare_paused`)."""
    from table.display.pieces import prepare_paused

    for renderer in renderers().values():
        yield from renderer.prepare(theme)
    yield from prepare_paused(theme)


@cache
def renderer_of(name: str) -> GameRenderer | None:
    """The screen of the registered game ``name`` (None for no such game), its module
    imported on first use: a table that shows one game's lobby line loads that game's
    screen only; the rest load while it is idle (:func:`preparations`) or when asked."""
    game = games().get(name)
    return None if game is None else load_object(game.screen)


def renderers() -> dict[str, GameRenderer]:
    """Every registered game's screen by game name (all of them imported)."""
    found: dict[str, GameRenderer] = {}
    for name in games():
        screen = renderer_of(name)
        if screen is not None:
            found[name] = screen
    return found


def renderer_parts(renderer: GameRenderer, view: dict[str, JSONValue], theme: Theme,
                   paused: bool = False) -> list[Part]:
    """``renderer.parts``, each part's key extended by the language in force: every word
    on a game screen follows the table's language, so a part's picture follows from its
    key and the language."""
    lang = language()
    return [replace(part, key=(part.key, lang)) for part in renderer.parts(view, theme, paused)]
