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

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import ClassVar

import pygame

from table.common.i18n import N_, language, ngettext, word
from table.display import draw
from table.display.layers import Part
from table.display.output import Output as Output  # a game's own outputs build on it
from table.display.theme import TEXT_DIM, Theme
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


class GameRenderer:
    """The base of every game's screen: what it must draw, and every optional member with
    its default.

    **Must** set or override:

    * ``game``: the engine's name;
    * :meth:`parts`: the screen as :class:`~table.display.layers.Part` objects whose
      times are the game's (the table repaints only what changed), or
    * :meth:`draw`: the whole screen painted from scratch (the default :meth:`parts`
      is then one part repainted every frame: correct, not cheap).

    **May** override:

    * :meth:`prepare`: steps that build ahead what the first frames would stop for (the
      table runs them while nobody plays);
    * :meth:`celebration`: which engine events the table celebrates, as what, with what
      words (default: none);
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
    banner_at: ClassVar[tuple[float, float]] = (0.5, 43.0)
    sounds: ClassVar[Mapping[str, str]] = {}
    variant_names: ClassVar[Mapping[str, str]] = {}
    player_options: ClassVar[tuple[PlayerOption, ...]] = ()
    showcase_phase: ClassVar[str | None] = None

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
        used: nothing a view would hide."""
        return None

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
