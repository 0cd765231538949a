"""The types engines and the table share: actions, setups, messages, outcomes, events,
the knob helpers and :func:`rng_for`, and :class:`Engine`, the engine interface as a
protocol.

The contract itself (what each member must do, what it may assume, the rules every
engine keeps, the view keys the table reads) is stated once, in
:mod:`table.games.contract` (:class:`table.games.contract.GameEngine`).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from table.common.i18n import format_message
from table.common.names import unnamed

StationId = int
"""A station's index, 0-based, in seating order (clockwise)."""

JSONValue = Any
"""A value that ``json.dumps`` accepts (dict/list/str/int/float/bool/None): what a view,
an action's value and a setup's options carry, arbitrary JSON whose shape is each game's
own. The keys the table itself reads of a view are typed in
:class:`table.games.contract.TableView`."""

# The action kinds that every engine understands. A game may add its own (its engine's
# ``own_kinds``); an engine ignores a kind it does not know, never fails on it.
PRESS = "press"  # the station's big button
TURN = "turn"  # the station's knob: ``value`` is {"delta": n} or {"sector": s}
PUSH = "push"  # the knob's own switch, short push
TICK = "tick"  # time passes: delivered by the loop at ``next_deadline``
DICE = "dice"  # a tray reading: ``value`` is {"faces": [...]} in tray order
SKIP_ROUND = "skip_round"  # from the table menu: abandon the current round
BASE_KINDS = frozenset({PRESS, TURN, PUSH, TICK, DICE, SKIP_ROUND})
"""The kinds above: what a journal row may hold for any game (besides the table menu's
meta kinds and the game's ``own_kinds``)."""


class GameError(ValueError):
    """Base class of the errors an engine raises for impossible requests."""


class UnknownVariantError(GameError):
    """The setup names a variant the game does not have."""


class SetupError(GameError):
    """The setup cannot start this game (station count, levels, ...)."""


@dataclass(frozen=True)
class Action:
    """One input that reached the game.

    ``kind`` is one of the constants above (or a game's own kind); ``station`` is the
    acting station or ``None`` for table-level inputs (tick, dice from the tray when
    the game knows whose turn it is, ...). ``value`` carries the kind's payload and
    must be JSON-compatible so the journal can store it.
    """

    kind: str
    t: float
    station: StationId | None = None
    value: JSONValue = None

    def to_json(self) -> dict[str, JSONValue]:
        """The action as a JSON object (used by the journal and scenarios)."""
        out: dict[str, JSONValue] = {"kind": self.kind, "t": self.t}
        if self.station is not None:
            out["station"] = self.station
        if self.value is not None:
            out["value"] = self.value
        return out

    @staticmethod
    def from_json(data: Mapping[str, JSONValue]) -> Action:
        """Inverse of :meth:`to_json`; raises ``ValueError`` on a malformed object."""
        try:
            kind = data["kind"]
            t = float(data["t"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"an action needs a 'kind' and a numeric 't' ({exc})") from None
        if not isinstance(kind, str):
            raise ValueError("an action's 'kind' must be a string")
        station = data.get("station")
        if station is not None and (not isinstance(station, int) or isinstance(station, bool)):
            raise ValueError("an action's 'station' must be a whole number")
        return Action(kind=kind, t=t, station=station, value=_freeze(data.get("value")))


def _freeze(value: JSONValue) -> JSONValue:
    """Lists become tuples so actions stay hashable and comparable after a round trip."""
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return FrozenDict({k: _freeze(v) for k, v in value.items()})
    return value


class FrozenDict(dict[str, Any]):
    """A dict that can be hashed; used for action payloads only."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))


def turn_delta(action: Action) -> int | None:
    """The signed steps of a relative ``turn`` (encoder), or ``None`` if absolute."""
    value = action.value
    if isinstance(value, Mapping) and isinstance(value.get("delta"), int):
        return int(value["delta"])
    return None


def turn_sector(action: Action) -> tuple[int, int] | None:
    """``(sector, sectors)`` of an absolute ``turn`` (switch or potentiometer)."""
    value = action.value
    if isinstance(value, Mapping) and isinstance(value.get("sector"), int):
        return int(value["sector"]), int(value.get("sectors", 16))
    return None


def knob_choice(current: int, action: Action, options: int) -> int:
    """The option a knob selects among ``options`` after ``action``.

    Works for both kinds of knob: an encoder's ``delta`` moves the cursor and wraps;
    an absolute knob's ``sector`` of ``sectors`` maps proportionally onto the options,
    so a 16-position switch selects directly when ``options == 16``.
    """
    if options <= 0:
        return 0
    delta = turn_delta(action)
    if delta is not None:
        return (current + delta) % options
    absolute = turn_sector(action)
    if absolute is not None:
        sector, sectors = absolute
        sectors = max(1, sectors)
        return min(options - 1, (sector % sectors) * options // sectors)
    return current


@dataclass(frozen=True)
class GameSetup:
    """What the lobby decided: game variant, stations playing, per-player options.

    ``stations`` lists the physical stations taking part, in seating order.
    ``options`` holds game-specific settings (levels, names, card points, ...).
    """

    game: str
    variant: str = "standard"
    stations: tuple[StationId, ...] = (0, 1, 2, 3)
    names: tuple[str, ...] = ()
    options: Mapping[str, JSONValue] = field(default_factory=dict)

    def name_of(self, station: StationId) -> str:
        """The display name of ``station``: its entry in ``names``, else the one name of
        a player who entered none (:func:`table.common.names.unnamed`, in the language in
        force). The lobby fills every entry, the placeholder in the language its screens
        speak, so a game it started names its players the same on every screen, in the
        journal and at the venue; only a setup written without names (a scenario) falls
        back here."""
        idx = self.stations.index(station)
        if idx < len(self.names) and self.names[idx]:
            return self.names[idx]
        return unnamed(station)

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "game": self.game,
            "variant": self.variant,
            "stations": list(self.stations),
            "names": list(self.names),
            "options": dict(self.options),
        }

    @staticmethod
    def from_json(data: Mapping[str, JSONValue]) -> GameSetup:
        try:
            return GameSetup(
                game=str(data["game"]),
                variant=str(data.get("variant", "standard")),
                stations=tuple(int(s) for s in data.get("stations", (0, 1, 2, 3))),
                names=tuple(str(n) for n in data.get("names", ())),
                options=dict(data.get("options", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"a game setup needs a 'game' and whole-number stations ({exc})") from None


@dataclass(frozen=True)
class Message:
    """Words for the players as data: ``id`` is the English message id (a gettext msgid,
    marked where it is written with :func:`table.common.i18n.N_`), ``params`` fill its
    ``{fields}``. A counted message has the plural id in ``plural`` and the number that
    picks the form in ``count`` (both marked with :func:`table.common.i18n.N_plural`;
    :func:`counted` builds one).

    Views carry messages as :meth:`to_json` data and the screens word them in the
    language in force (:func:`table.common.i18n.word`); :meth:`english` is the message
    in the English its ids are written in, for the JSON report and the venue.
    """

    id: str
    params: Mapping[str, MessageParam] = field(default_factory=dict)
    plural: str | None = None
    count: int | None = None

    def to_json(self) -> dict[str, JSONValue]:
        """``{"id": ..., "params": {...}}``, with ``plural`` and ``count`` when counted."""
        out: dict[str, JSONValue] = {
            "id": self.id,
            "params": {k: v.to_json() if isinstance(v, Message) else v for k, v in self.params.items()},
        }
        if self.plural is not None:
            out["plural"] = self.plural
            out["count"] = self.count
        return out

    def english(self) -> str:
        """The message in English, its ids' own words (no catalogue)."""
        return format_message(self.to_json())


MessageParam = str | int | float | bool | None | Message
"""What fills a message's ``{field}``: a plain value (a name, a number), or a message
(a card's or a hunter's name) that is worded first."""


def counted(forms: tuple[str, str], count: int, **params: MessageParam) -> Message:
    """A message with a singular and a plural form (``N_plural("…", "…")``), the form
    chosen by ``count``."""
    return Message(forms[0], params, plural=forms[1], count=count)


def message_json(message: Message | None) -> dict[str, JSONValue] | None:
    """A message as view data, or ``None`` for none."""
    return message.to_json() if message is not None else None


NO_REASON = Message("")
"""The reason of an outcome that gives none."""


@dataclass(frozen=True)
class Prompt:
    """What a game asks of the players now, as the table loop needs it to read presses.

    * ``key``: the identity of the question on screen (a phase, a round, whose turn it
      is), compared with ``==``. When a station's input changes it, that input moved
      everyone on to a new question: the table drops every station's input for a short
      while around the change (the press that came a moment after someone else's "next
      round" was meant for the old screen) and shows the station "wait". A game whose
      stations race across a change (the first call of a race, which other calls in the
      tie window still join) keeps the key the same across it.
    * ``opens_at``: the game time before which the players are not yet asked anything
      (a countdown, results that hold for a moment); a station input before it is
      early, and the table shows that station "wait" (``None``: nothing to wait for).
    """

    key: Hashable
    opens_at: float | None = None


@dataclass(frozen=True)
class Outcome:
    """How a game ended: final scores by station, the winner(s), and why (a message;
    the JSON report and the journal keep it in English). An engine's outcome names at
    least one winner; the table's outcome of a game ended early from the menu names
    none (:meth:`table.play.session.Session.outcome`)."""

    scores: Mapping[StationId, int]
    winners: tuple[StationId, ...]
    reason: Message = NO_REASON

    def to_json(self) -> dict[str, JSONValue]:
        return {
            "scores": {str(k): v for k, v in sorted(self.scores.items())},
            "winners": list(self.winners),
            "reason": self.reason.english(),
        }


@dataclass(frozen=True)
class Event:
    """Something that happened, for the display, the sounds and the JSON report."""

    t: float
    kind: str
    station: StationId | None = None
    detail: JSONValue = None

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {"t": round(self.t, 6), "kind": self.kind}
        if self.station is not None:
            out["station"] = self.station
        if self.detail is not None:
            out["detail"] = _thaw(self.detail)
        return out


def _thaw(value: JSONValue) -> JSONValue:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _thaw(v) for k, v in value.items()}
    return value


class GameState(Protocol):
    """What every game state offers the shell (engines add their own fields)."""

    @property
    def setup(self) -> GameSetup: ...

    @property
    def events(self) -> tuple[Event, ...]: ...

    @property
    def round(self) -> int: ...


S = TypeVar("S", bound=GameState)


class Engine(Protocol, Generic[S]):
    """A game engine as the table calls it: the members of
    :class:`table.games.contract.GameEngine`, where each is stated (engines derive from
    that class, which gives the optional ones their defaults)."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def variants(self) -> tuple[str, ...]: ...

    @property
    def min_stations(self) -> int: ...

    @property
    def max_stations(self) -> int: ...

    @property
    def option_names(self) -> frozenset[str] | None: ...

    @property
    def own_kinds(self) -> frozenset[str]: ...

    def new_game(self, setup: GameSetup, seed: int) -> S: ...

    def legal_actions(self, state: S) -> Sequence[Action]: ...

    def apply(self, state: S, action: Action) -> S: ...

    def next_deadline(self, state: S) -> float | None: ...

    def is_over(self, state: S) -> bool: ...

    def outcome(self, state: S) -> Outcome | None: ...

    def view(self, state: S, station: StationId | None) -> dict[str, JSONValue]: ...

    def prompt(self, state: S) -> Prompt: ...

    def standing(self, state: S, station: StationId, scores: Mapping[StationId, int]) -> tuple[int, ...]: ...

    def final_scores(self, state: S) -> Mapping[StationId, int] | None: ...

    def final_view(self, state: S) -> dict[str, JSONValue] | None: ...


def check_setup(engine: Engine[Any], setup: GameSetup) -> None:
    """Raise :class:`SetupError`/:class:`UnknownVariantError` for a setup ``engine`` cannot play."""
    if setup.variant not in engine.variants:
        raise UnknownVariantError(
            f"{engine.title} has no variant '{setup.variant}' (it has: {', '.join(engine.variants)})"
        )
    n = len(setup.stations)
    if not engine.min_stations <= n <= engine.max_stations:
        raise SetupError(
            f"{engine.title} is played by {engine.min_stations} to {engine.max_stations} stations, not {n}"
        )
    if len(set(setup.stations)) != n:
        raise SetupError("a station can only take part once")


def rng_for(seed: int, *salt: object) -> random.Random:
    """A random generator derived from the game's seed and a salt (round, purpose).

    Deriving a fresh generator per purpose keeps replays exact whatever order the
    engine asks for randomness in.
    """
    return random.Random(f"{seed}:" + ":".join(str(s) for s in salt))


def ranked_winners(scores: Mapping[StationId, tuple[int, ...]]) -> tuple[StationId, ...]:
    """The stations with the highest score key (tuples compare lexicographically, so
    ``(points, cards)`` breaks ties on points by cards)."""
    if not scores:
        return ()
    best = max(scores.values())
    return tuple(sorted(s for s, v in scores.items() if v == best))
