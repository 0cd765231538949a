"""Ugah Ugah!: throw, choose and set dice aside, then move the two hunters and take chips.

The dice stay physical (read from the tray, or set by knob); the table keeps the
circle of 31 path chips, the two hunters, the three spoils cards and everyone's
face-down pile. A turn runs through these phases:

1. ``throw``: the active player throws the dice still in play. The throw arrives as
   a ``dice`` action (``{"faces": [...]}``, pip numbers or symbol names, one face
   per die in the tray). A wrong number of dice or an unreadable face leaves the
   throw open and asks for a re-throw or a correction. In ``manual`` input mode
   (no dice reader, or the reader was unsure, or the player pressed the button) the
   player sets each die with the knob (turn) and confirms it (push); the button
   steps back one die. Bones go aside at once.
2. ``choose``: the player picks one or more of the symbols showing (knob to a symbol,
   push to mark or unmark it; push on "take out" or press the button to set the
   marked dice aside). When only one symbol shows, the choice is forced and made by
   the table. Then back to ``throw`` with the dice left, until none are left.
3. Scoring the turn: three or more of dinosaur, mammoth or bird take that spoils
   card from the middle; when another player holds it, ``spoils`` asks whether to
   take it from them (the rulebook says "may"). Each Mammoth Masher die moves the
   small hunter one chip clockwise, each Bone Breaker die the big one one chip
   counter-clockwise; empty places do not count. With both hunters moving and the
   order changing which chips they reach, ``order`` asks which moves first. The
   first hunter moves and its chip is taken before the second moves. With two chips
   taken, ``keep`` asks which to keep and ``give`` to whom the other goes.
4. The game ends after the turn in which the hunters meet (no chip left between
   them) or pass each other; a hunter always walks all its steps, past the other
   one onto the chips still lying there. Points: chip points (caterpillars 1) plus
   3 per spoils card; ties are shared.

Variant ``uncertain-hunting``: only four chips of the circle lie face up.

Decisions where the rulebook is silent are in ``docs/rules-decisions.md`` ("Ugah Ugah!").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from table.common.i18n import N_, N_plural
from table.games.base import (
    DICE,
    NO_REASON,
    PRESS,
    PUSH,
    SKIP_ROUND,
    TURN,
    Action,
    Event,
    GameSetup,
    JSONValue,
    Message,
    Outcome,
    Prompt,
    SetupError,
    StationId,
    counted,
    knob_choice,
    message_json,
    rng_for,
)
from table.games.contract import GameEngine
from table.games.ugah_ugah.chips import (
    BIRD,
    BONE,
    BREAKER,
    CHIPS_ON_CIRCLE,
    DEFAULT_PIPS,
    DINOSAUR,
    MAMMOTH,
    MASHER,
    SYMBOLS,
    Chip,
    normalise_symbol,
    parse_chips,
    parse_pips,
)

STANDARD = "standard"
UNCERTAIN = "uncertain-hunting"

DICE_COUNT = 5
FACE_UP_IN_VARIANT = 4
SPOILS_POINTS = 3
THREE_OF_A_KIND = 3

SPOILS_CARDS: tuple[str, ...] = (DINOSAUR, MAMMOTH, BIRD)
HUNTERS: tuple[str, ...] = (MASHER, BREAKER)
HUNTER_NAMES: Mapping[str, str] = {MASHER: N_("Mammoth Masher"), BREAKER: N_("Bone Breaker")}
CARD_NAMES: Mapping[str, str] = {DINOSAUR: N_("Dinosaur"), MAMMOTH: N_("Mammoth"), BIRD: N_("Bird")}
"""The spoils cards' names as the view's messages name them (message ids)."""
SYMBOL_NAMES: Mapping[str, str] = {
    BONE: "bone", DINOSAUR: "dinosaur", MAMMOTH: "mammoth", BIRD: "bird",
    MASHER: "Mammoth Masher", BREAKER: "Bone Breaker",
}

# Phases
THROW = "throw"
CHOOSE = "choose"
SPOILS = "spoils"
ORDER = "order"
KEEP = "keep"
GIVE = "give"
OVER = "over"

# Dice input modes
TRAY = "tray"
MANUAL = "manual"

TAKE_OUT = "take_out"
"""The last knob option while choosing symbols: set the marked dice aside."""

MASHER_START = -1
"""Mammoth Masher's position in the gap: just before place 0 (it walks to 0, 1, ...)."""
BREAKER_START = CHIPS_ON_CIRCLE
"""Bone Breaker's position in the gap: just after place 30 (it walks to 30, 29, ...)."""


@dataclass(frozen=True)
class Rules:
    """The data of a game: the 31 chips (box order) and the pip-to-symbol map."""

    chips: tuple[Chip, ...]
    pips: tuple[tuple[int, str], ...]
    dice_reader: bool = False
    """Whether a dice reader watches the tray; without one every throw starts in manual mode."""

    def symbol_for_pips(self, pips: int) -> str | None:
        for p, symbol in self.pips:
            if p == pips:
                return symbol
        return None


DEFAULT_CHIP_GROUPS: tuple[Mapping[str, Any], ...] = (
    {"points": 1, "caterpillar": True, "count": 6},
    {"points": 2, "count": 7},
    {"points": 3, "count": 7},
    {"points": 4, "count": 5},
    {"points": 5, "count": 4},
    {"points": 6, "count": 2},
)
"""The chip set a game uses when its setup names none; the same as the shipped
``ugah_ugah/ugah_ugah.toml`` (a test holds them together; reasons in its README)."""


@dataclass(frozen=True)
class TurnRecord:
    """What the last finished turn did, for the display's turn summary.

    ``aside`` is every die the player set aside (bones too), ``spoils`` the card
    three of a kind won ("" for none) with ``spoils_from`` its former holder and
    ``spoils_result`` one of "took", "left" (the player left it with its holder) or
    "kept" (they held it already). ``places``/``chips`` are the chips the hunters
    took, in order, ``owners`` the station each went to.
    """

    station: StationId
    aside: tuple[str, ...]
    steps: tuple[int, int]
    spoils: str = ""
    spoils_from: StationId | None = None
    spoils_result: str = ""
    places: tuple[int, ...] = ()
    chips: tuple[int, ...] = ()
    owners: tuple[StationId, ...] = ()
    skipped: bool = False


@dataclass(frozen=True)
class UgahState:
    """The whole game.

    Circle places are numbered 0..30 clockwise from the gap. ``circle[p]`` is the index
    (into ``rules.chips``) of the chip lying on place ``p``, or None once it was taken.
    Hunter positions are *unwrapped*: Mammoth Masher counts up from -1 (the gap),
    Bone Breaker down from 31 (the gap); the place is ``position % 31``. Between the
    hunters (``masher < q < breaker``) every place still holds its chip, so the
    hunters have met or passed exactly when no chip lies strictly between them.
    """

    setup: GameSetup
    seed: int
    rules: Rules
    circle: tuple[int | None, ...]
    face_up: tuple[bool, ...]
    piles: tuple[tuple[int, ...], ...]
    spoils: tuple[StationId | None, ...] = (None, None, None)
    masher: int = MASHER_START
    breaker: int = BREAKER_START
    turn: int = 1
    active: int = 0
    """Index into ``setup.stations`` of the player whose turn it is."""
    phase: str = THROW
    now: float = 0.0
    # the dice of this turn
    dice_in_play: int = DICE_COUNT
    throws: int = 0
    tray: tuple[str, ...] = ()
    """Symbols of the last throw still in the tray (bones already aside)."""
    last_throw: tuple[str, ...] = ()
    aside: tuple[str, ...] = ()
    tray_problem: Message | None = None
    """Why the last reading of the tray was not taken as a throw (None: it was, or none came)."""
    input_mode: str = TRAY
    manual_faces: tuple[str, ...] = ()
    manual_index: int = 0
    # the knob
    cursor: int = 0
    marked: tuple[str, ...] = ()
    # scoring the turn
    spoils_card: str = ""
    steps: tuple[int, int] = (0, 0)
    taken: tuple[int, ...] = ()
    """Places whose chips were taken this turn (chip indices are in ``taken_chips``)."""
    taken_chips: tuple[int, ...] = ()
    kept: int | None = None
    ended_by_hunters: bool = False
    winners: tuple[StationId, ...] = ()
    reason: Message | None = None
    last_turn: TurnRecord | None = None
    """The turn before this one, for the summary on the display (None before the first)."""
    events: tuple[Event, ...] = ()

    @property
    def round(self) -> int:
        """Rounds of turns: round 2 starts when every player has had one turn."""
        return (self.turn - 1) // len(self.setup.stations) + 1

    @property
    def station(self) -> StationId:
        """The station whose turn it is."""
        return self.setup.stations[self.active]

    def chip(self, index: int) -> Chip:
        return self.rules.chips[index]

    def pile_points(self, player: int) -> int:
        return sum(self.chip(c).points for c in self.piles[player])

    def spoils_of(self, player: int) -> int:
        station = self.setup.stations[player]
        return sum(1 for holder in self.spoils if holder == station)

    def points(self, player: int) -> int:
        return self.pile_points(player) + SPOILS_POINTS * self.spoils_of(player)


# -- walking the circle --------------------------------------------------------------
def next_place(circle: Sequence[int | None], position: int, direction: int) -> int | None:
    """The unwrapped position of the next place holding a chip from ``position``, or None."""
    for step in range(1, CHIPS_ON_CIRCLE + 1):
        q = position + direction * step
        if circle[q % CHIPS_ON_CIRCLE] is not None:
            return q
    return None


def walk(circle: Sequence[int | None], position: int, direction: int, steps: int) -> int:
    """Where a hunter stands after ``steps`` chips; empty places do not count."""
    for _ in range(steps):
        q = next_place(circle, position, direction)
        if q is None:
            break  # no chip left anywhere: the hunter cannot move
        position = q
    return position


@dataclass(frozen=True)
class Hunt:
    """The result of moving both hunters in one order (first hunter takes first)."""

    circle: tuple[int | None, ...]
    masher: int
    breaker: int
    taken: tuple[int, ...]
    chips: tuple[int, ...]


def hunt(circle: tuple[int | None, ...], masher: int, breaker: int, steps: tuple[int, int],
         first: str) -> Hunt:
    """Move the hunters that have steps, ``first`` one first, each taking the chip it lands on.

    The first hunter's chip leaves the circle before the second walks, which is why
    the order matters when they walk towards the same chip.
    """
    cells = list(circle)
    positions = {MASHER: masher, BREAKER: breaker}
    moves = {MASHER: steps[0], BREAKER: steps[1]}
    direction = {MASHER: 1, BREAKER: -1}
    taken: list[int] = []
    chips: list[int] = []
    for hunter in (first, BREAKER if first == MASHER else MASHER):
        if moves[hunter] <= 0:
            continue
        start = positions[hunter]
        end = walk(cells, start, direction[hunter], moves[hunter])
        positions[hunter] = end
        place = end % CHIPS_ON_CIRCLE
        chip = cells[place]
        if end != start and chip is not None:
            taken.append(place)
            chips.append(chip)
            cells[place] = None
    return Hunt(tuple(cells), positions[MASHER], positions[BREAKER], tuple(taken), tuple(chips))


def hunters_met(circle: Sequence[int | None], masher: int, breaker: int) -> bool:
    """True when no chip lies between the hunters: they met, or passed each other."""
    return not any(circle[q % CHIPS_ON_CIRCLE] is not None for q in range(masher + 1, breaker))


def _event(state: UgahState, t: float, kind: str, station: StationId | None = None,
           detail: JSONValue = None) -> tuple[Event, ...]:
    return (*state.events, Event(t, kind, station, detail))


class UgahUgah(GameEngine[UgahState]):
    """The Ugah Ugah! engine (see the module docstring for the flow)."""

    name = "ugah_ugah"
    title = "Ugah Ugah!"
    variants = (STANDARD, UNCERTAIN)
    min_stations = 2
    max_stations = 4
    option_names = frozenset({"chips", "pips", "dice_reader", "colours"})

    # -- setup ------------------------------------------------------------------------
    def new_game(self, setup: GameSetup, seed: int) -> UgahState:
        """Shuffle the chips into the circle; the first station of the setup starts.

        Options: ``chips`` (groups like the config file's, 31 chips in all), ``pips``
        (pip count to symbol), ``dice_reader`` (true when a camera reads the tray;
        default false: the dice are set with the knob).
        """
        options = setup.options
        chips = parse_chips(options.get("chips", DEFAULT_CHIP_GROUPS), "option chips")
        pips = parse_pips(options.get("pips", DEFAULT_PIPS), "option pips")
        reader = options.get("dice_reader", False)
        if not isinstance(reader, bool):
            raise SetupError("option dice_reader must be true or false")
        rules = Rules(chips=chips, pips=pips, dice_reader=reader)
        order = list(range(CHIPS_ON_CIRCLE))
        rng_for(seed, "circle").shuffle(order)
        if setup.variant == UNCERTAIN:
            shown = set(rng_for(seed, "face-up").sample(range(CHIPS_ON_CIRCLE), FACE_UP_IN_VARIANT))
            face_up = tuple(p in shown for p in range(CHIPS_ON_CIRCLE))
        else:
            face_up = (True,) * CHIPS_ON_CIRCLE
        state = UgahState(
            setup=setup, seed=seed, rules=rules, circle=tuple(order), face_up=face_up,
            piles=tuple(() for _ in setup.stations),
        )
        state = self._start_throw(state)
        return replace(state, events=_event(state, 0.0, "turn_start", state.station,
                                            {"turn": 1, "round": 1}))

    # -- the interface ----------------------------------------------------------------
    def legal_actions(self, state: UgahState) -> list[Action]:
        """Inputs that change the game now. A throw comes from the seeded rng of the turn."""
        if state.phase == OVER:
            return []
        s, t = state.station, state.now
        actions: list[Action] = []
        if state.phase == THROW:
            rng = rng_for(state.seed, state.turn, state.throws)
            faces = [rng.choice(SYMBOLS) for _ in range(state.dice_in_play)]
            actions.append(Action(DICE, t, None, {"faces": faces}))
            if state.input_mode == TRAY:
                actions.append(Action(PRESS, t, s))
            else:
                actions += [Action(TURN, t, s, {"delta": 1}), Action(TURN, t, s, {"delta": -1}),
                            Action(PUSH, t, s)]
                if state.manual_index > 0 or state.rules.dice_reader:
                    actions.append(Action(PRESS, t, s))
            return actions
        options = self.options(state)
        if len(options) > 1:
            actions += [Action(TURN, t, s, {"delta": 1}), Action(TURN, t, s, {"delta": -1})]
        if state.phase == CHOOSE:
            if options[state.cursor] != TAKE_OUT or state.marked:
                actions.append(Action(PUSH, t, s))
            if state.marked:
                actions.append(Action(PRESS, t, s))
        else:
            actions.append(Action(PUSH, t, s))
        return actions

    def next_deadline(self, state: UgahState) -> float | None:
        """Ugah Ugah! has no sand timer: the table never needs a tick."""
        return None

    def prompt(self, state: UgahState) -> Prompt:
        """Each step of a turn is a question of its own, and each turn another player's."""
        return Prompt(key=(state.phase, state.turn))

    def is_over(self, state: UgahState) -> bool:
        return state.phase == OVER

    def options(self, state: UgahState) -> list[str]:
        """What the knob chooses among in the current phase (symbols, hunters, chips, stations)."""
        if state.phase == CHOOSE:
            return [*self._showing(state), TAKE_OUT]
        if state.phase == SPOILS:
            return ["take", "leave"]
        if state.phase == ORDER:
            return [MASHER, BREAKER]
        if state.phase == KEEP:
            return [str(p) for p in state.taken]
        if state.phase == GIVE:
            return [str(s) for s in self._others(state)]
        if state.phase == THROW and state.input_mode == MANUAL:
            return list(SYMBOLS)
        return []

    def apply(self, state: UgahState, action: Action) -> UgahState:
        """Apply one input; inputs that mean nothing now return ``state`` unchanged."""
        if state.phase == OVER:
            return state
        t = max(action.t, state.now)
        if action.kind == DICE:
            if state.phase != THROW or action.station not in (None, state.station):
                return state
            return self._tray_reading(replace(state, now=t), action.value, t)
        if action.kind == SKIP_ROUND:
            if state.phase not in (THROW, CHOOSE):
                return state  # see _skip_turn
            return self._skip_turn(replace(state, now=t), t)
        if action.station != state.station or action.kind not in (PRESS, TURN, PUSH):
            return state
        if state.phase == THROW:
            if state.input_mode == TRAY:
                return self._start_manual(replace(state, now=t), (), t) if action.kind == PRESS else state
            return self._manual_input(state, action, t)
        options = self.options(state)
        if action.kind == TURN:
            cursor = knob_choice(state.cursor, action, len(options))
            return state if cursor == state.cursor else replace(state, cursor=cursor, now=t)
        if state.phase == CHOOSE:
            return self._choose_input(state, action, options, t)
        if action.kind != PUSH:
            return state
        state = replace(state, now=t)
        choice = options[state.cursor]
        if state.phase == SPOILS:
            return self._settle_spoils(state, choice == "take", t)
        if state.phase == ORDER:
            return self._move_hunters(state, choice, t)
        if state.phase == KEEP:
            return self._keep(state, state.cursor, t)
        if state.phase == GIVE:
            return self._give(state, int(choice), t)
        return state

    # -- throwing ---------------------------------------------------------------------
    def _start_throw(self, state: UgahState) -> UgahState:
        """Wait for the next throw; without a dice reader the knob entry starts at once."""
        mode = TRAY if state.rules.dice_reader else MANUAL
        state = replace(state, phase=THROW, tray=(), tray_problem=None, cursor=0, marked=(), input_mode=mode,
                        manual_faces=(BONE,) * state.dice_in_play if mode == MANUAL else (), manual_index=0)
        return state

    def _start_manual(self, state: UgahState, faces: Sequence[str], t: float) -> UgahState:
        prefill = tuple(faces) if len(faces) == state.dice_in_play else (BONE,) * state.dice_in_play
        state = replace(state, input_mode=MANUAL, manual_faces=prefill, manual_index=0,
                        cursor=SYMBOLS.index(prefill[0]))
        return replace(state, events=_event(state, t, "manual_dice", state.station,
                                            {"dice": state.dice_in_play}))

    def _manual_input(self, state: UgahState, action: Action, t: float) -> UgahState:
        faces = list(state.manual_faces)
        i = state.manual_index
        if action.kind == TURN:
            current = SYMBOLS.index(faces[i])
            chosen = knob_choice(current, action, len(SYMBOLS))
            if chosen == current:
                return state
            faces[i] = SYMBOLS[chosen]
            return replace(state, manual_faces=tuple(faces), cursor=chosen, now=t)
        if action.kind == PRESS:  # step back one die, or back to the dice reader
            if i > 0:
                return replace(state, manual_index=i - 1, cursor=SYMBOLS.index(faces[i - 1]), now=t)
            if state.rules.dice_reader:
                return replace(state, input_mode=TRAY, manual_faces=(), now=t, cursor=0)
            return state
        if i + 1 < len(faces):
            return replace(state, manual_index=i + 1, cursor=SYMBOLS.index(faces[i + 1]), now=t)
        return self._throw(replace(state, now=t), tuple(faces), t, "knob")

    def _tray_reading(self, state: UgahState, value: JSONValue, t: float) -> UgahState:
        """A reading of the tray: accept it, or ask for a re-throw or a correction."""
        raw = value.get("faces") if isinstance(value, Mapping) else None
        unsure = isinstance(value, Mapping) and bool(value.get("unsure"))
        if not isinstance(raw, Sequence) or isinstance(raw, str):
            raw = ()
        faces = [self._symbol(state, f) for f in raw]
        readable = tuple(f for f in faces if f is not None)
        problem: Message | None = None
        if unsure:
            problem = Message(N_("the camera is unsure of the dice"))
        elif len(faces) != state.dice_in_play:
            n = state.dice_in_play
            problem = Message(N_("{tray}, {in_play}"), {
                "tray": counted(N_plural("the tray shows {shown} die", "the tray shows {shown} dice"), len(faces),
                                shown=len(faces)),
                "in_play": counted(N_plural("{n} is in play", "{n} are in play"), n, n=n)})
        elif len(readable) != len(faces):
            problem = Message(N_("a die in the tray could not be read"))
        if problem is not None:
            # The journal's events keep the problem in English ("unsure" when the reader gave up).
            event = _event(state, t, "tray_problem", state.station,
                           {"problem": "unsure" if unsure else problem.english(), "faces": [str(f) for f in raw]})
            if unsure:  # the reader itself gives up: the player sets the dice, its guess pre-filled
                return self._start_manual(replace(state, events=event, tray_problem=problem), readable, t)
            return replace(state, tray_problem=problem, events=event)
        return self._throw(state, readable, t, "tray")

    def _symbol(self, state: UgahState, face: Any) -> str | None:
        if isinstance(face, bool):
            return None
        if isinstance(face, int):
            return state.rules.symbol_for_pips(face)
        if isinstance(face, str) and face.strip().isdigit():
            return state.rules.symbol_for_pips(int(face))
        return normalise_symbol(face)

    def _throw(self, state: UgahState, faces: tuple[str, ...], t: float, source: str) -> UgahState:
        """A complete throw: bones aside at once, then choose (or the table chooses when forced)."""
        bones = tuple(f for f in faces if f == BONE)
        tray = tuple(f for f in faces if f != BONE)
        state = replace(state, throws=state.throws + 1, last_throw=faces, tray=tray,
                        aside=state.aside + bones,
                        dice_in_play=len(tray), tray_problem=None, input_mode=TRAY, manual_faces=(),
                        manual_index=0, cursor=0, marked=())
        state = replace(state, events=_event(state, t, "throw", state.station,
                                             {"faces": list(faces), "bones": len(bones), "source": source}))
        showing = self._showing(state)
        if not showing:
            return self._score_turn(state, t)
        if len(showing) == 1:  # one symbol only: choosing it is forced
            return self._set_aside(replace(state, marked=showing), t, forced=True)
        return replace(state, phase=CHOOSE, cursor=0)

    def _showing(self, state: UgahState) -> tuple[str, ...]:
        present = set(state.tray)
        return tuple(s for s in SYMBOLS if s in present)

    def _choose_input(self, state: UgahState, action: Action, options: list[str], t: float) -> UgahState:
        if action.kind == PRESS or options[state.cursor] == TAKE_OUT:
            return self._set_aside(replace(state, now=t), t) if state.marked else state
        symbol = options[state.cursor]
        marked = (tuple(m for m in state.marked if m != symbol) if symbol in state.marked
                  else tuple(s for s in SYMBOLS if s in (*state.marked, symbol)))
        return replace(state, marked=marked, now=t)

    def _set_aside(self, state: UgahState, t: float, forced: bool = False) -> UgahState:
        chosen = tuple(f for f in state.tray if f in state.marked)
        left = len(state.tray) - len(chosen)
        state = replace(state, aside=state.aside + chosen, tray=(), dice_in_play=left, marked=())
        state = replace(state, events=_event(state, t, "set_aside", state.station,
                                             {"dice": list(chosen), "left": left, "forced": forced}))
        if left == 0:
            return self._score_turn(state, t)
        return self._start_throw(state)

    # -- scoring a turn ---------------------------------------------------------------
    def _score_turn(self, state: UgahState, t: float) -> UgahState:
        counts = Counter(state.aside)
        state = replace(state, tray=(), dice_in_play=0, steps=(counts[MASHER], counts[BREAKER]))
        card = next((c for c in SPOILS_CARDS if counts[c] >= THREE_OF_A_KIND), "")
        if not card:
            return self._hunters(state, t)
        holder = state.spoils[SPOILS_CARDS.index(card)]
        if holder is None:
            return self._hunters(self._take_spoils(state, card, None, t), t)
        if holder == state.station:
            state = replace(state, events=_event(state, t, "spoils_kept", state.station, {"card": card}))
            return self._hunters(state, t)
        return replace(state, phase=SPOILS, spoils_card=card, cursor=0)

    def _take_spoils(self, state: UgahState, card: str, holder: StationId | None, t: float) -> UgahState:
        spoils = list(state.spoils)
        spoils[SPOILS_CARDS.index(card)] = state.station
        return replace(state, spoils=tuple(spoils), events=_event(
            state, t, "spoils", state.station, {"card": card, "from": holder}))

    def _settle_spoils(self, state: UgahState, take: bool, t: float) -> UgahState:
        card = state.spoils_card
        holder = state.spoils[SPOILS_CARDS.index(card)]
        if take:
            state = self._take_spoils(state, card, holder, t)
        else:
            state = replace(state, events=_event(state, t, "spoils_left", state.station,
                                                 {"card": card, "with": holder}))
        return self._hunters(replace(state, spoils_card=""), t)

    def order_matters(self, state: UgahState) -> bool:
        """Whether moving Mammoth Masher or Bone Breaker first reaches different chips."""
        a = hunt(state.circle, state.masher, state.breaker, state.steps, MASHER)
        b = hunt(state.circle, state.masher, state.breaker, state.steps, BREAKER)
        return (set(a.taken), a.masher, a.breaker) != (set(b.taken), b.masher, b.breaker)

    def _hunters(self, state: UgahState, t: float) -> UgahState:
        m, b = state.steps
        if m == 0 and b == 0:
            return self._end_turn(state, t)
        if m > 0 and b > 0 and self.order_matters(state):
            return replace(state, phase=ORDER, cursor=0)
        return self._move_hunters(state, MASHER, t)

    def _move_hunters(self, state: UgahState, first: str, t: float) -> UgahState:
        result = hunt(state.circle, state.masher, state.breaker, state.steps, first)
        state = replace(state, circle=result.circle, masher=result.masher, breaker=result.breaker,
                        taken=result.taken, taken_chips=result.chips)
        detail = {"first": first, "steps": {MASHER: state.steps[0], BREAKER: state.steps[1]},
                  "places": list(result.taken),
                  "masher": result.masher % CHIPS_ON_CIRCLE, "breaker": result.breaker % CHIPS_ON_CIRCLE}
        state = replace(state, events=_event(state, t, "hunters_moved", state.station, detail))
        if len(result.chips) == 2:
            return replace(state, phase=KEEP, cursor=0)
        if len(result.chips) == 1:
            return self._end_turn(self._add_to_pile(state, state.active, result.chips[0], t), t)
        return self._end_turn(state, t)

    def _add_to_pile(self, state: UgahState, player: int, chip: int, t: float) -> UgahState:
        piles = list(state.piles)
        piles[player] = (*piles[player], chip)
        station = state.setup.stations[player]
        return replace(state, piles=tuple(piles), events=_event(state, t, "chip_taken", station,
                                                                {"pile": len(piles[player])}))

    def _keep(self, state: UgahState, index: int, t: float) -> UgahState:
        state = self._add_to_pile(state, state.active, state.taken_chips[index], t)
        state = replace(state, kept=index)
        others = self._others(state)
        if len(others) == 1:  # two players: the other chip can only go to the opponent
            return self._give(state, others[0], t)
        return replace(state, phase=GIVE, cursor=0)

    def _others(self, state: UgahState) -> list[StationId]:
        """The other players in seating order, starting with the next one."""
        n = len(state.setup.stations)
        return [state.setup.stations[(state.active + k) % n] for k in range(1, n)]

    def _give(self, state: UgahState, station: StationId, t: float) -> UgahState:
        assert state.kept is not None
        chip = state.taken_chips[1 - state.kept]
        player = state.setup.stations.index(station)
        state = self._add_to_pile(state, player, chip, t)
        state = replace(state, events=_event(state, t, "chip_given", state.station, {"to": station}))
        return self._end_turn(state, t)

    def _end_turn(self, state: UgahState, t: float) -> UgahState:
        state = replace(state, last_turn=self._record(state))
        state = replace(state, steps=(0, 0), taken=(), taken_chips=(), kept=None, spoils_card="", cursor=0)
        if hunters_met(state.circle, state.masher, state.breaker):
            return self._finish(replace(state, ended_by_hunters=True), t)
        n = len(state.setup.stations)
        state = replace(state, turn=state.turn + 1, active=(state.active + 1) % n, dice_in_play=DICE_COUNT,
                        throws=0, aside=(), last_throw=())
        state = self._start_throw(state)
        return replace(state, events=_event(state, t, "turn_start", state.station,
                                            {"turn": state.turn, "round": state.round}))

    @staticmethod
    def _record(state: UgahState) -> TurnRecord:
        """The turn ending now, from the state and this turn's events (nothing is re-decided)."""
        spoils, spoils_from, result, skipped = "", None, "", False
        owners: dict[int, StationId] = {}
        taken = 0
        for e in reversed(state.events):
            if e.kind == "turn_start":
                break
            d = e.detail if isinstance(e.detail, Mapping) else {}
            if e.kind in ("spoils", "spoils_left", "spoils_kept"):
                spoils = str(d.get("card", ""))
                result = {"spoils": "took", "spoils_left": "left", "spoils_kept": "kept"}[e.kind]
                holder = d.get("from") if e.kind == "spoils" else d.get("with")
                spoils_from = holder if isinstance(holder, int) else None
            elif e.kind == "turn_skipped":
                skipped = True
        # Chips went to piles: the kept one (or the only one) to the player, the other as given.
        if state.taken_chips:
            given = next((e.detail.get("to") for e in reversed(state.events) if e.kind == "chip_given"
                          and isinstance(e.detail, Mapping)), None) if len(state.taken_chips) == 2 else None
            kept = state.kept if state.kept is not None else 0
            for i in range(len(state.taken_chips)):
                owners[i] = state.station if i == kept or not isinstance(given, int) else given
                taken += 1
        return TurnRecord(station=state.station, aside=state.aside, steps=state.steps, spoils=spoils,
                          spoils_from=spoils_from, spoils_result=result, places=state.taken,
                          chips=state.taken_chips, owners=tuple(owners[i] for i in range(taken)), skipped=skipped)

    def _skip_turn(self, state: UgahState, t: float) -> UgahState:
        """The table menu skips the turn while it is still being thrown; later it is ignored.

        Once the dice are all aside, spoils and chips are being handed out and the turn
        is finished with the knob instead (stopping half-way would lose chips).
        """
        state = replace(state, aside=(), events=_event(state, t, "turn_skipped", state.station,
                                                      {"turn": state.turn}))
        return self._end_turn(state, t)

    def _finish(self, state: UgahState, t: float) -> UgahState:
        totals = {state.setup.stations[i]: state.points(i) for i in range(len(state.setup.stations))}
        best = max(totals.values())
        winners = tuple(s for s, v in totals.items() if v == best)
        reason = Message(N_("most munch points") if len(winners) == 1
                         else N_("tied on munch points: the win is shared"))
        state = replace(state, phase=OVER, winners=winners, reason=reason, tray=(), marked=())
        return replace(state, events=_event(state, t, "game_over", None, {
            "winners": list(winners), "reason": reason.english(), "scores": {str(k): v for k, v in totals.items()}}))

    # -- results ----------------------------------------------------------------------
    def final_scores(self, state: UgahState) -> dict[StationId, int]:
        """Everyone's points with the piles counted (secret until the game is over)."""
        return {s: state.points(i) for i, s in enumerate(state.setup.stations)}

    def outcome(self, state: UgahState) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome(scores=self.final_scores(state), winners=state.winners, reason=state.reason or NO_REASON)

    def view(self, state: UgahState, station: StationId | None) -> dict[str, JSONValue]:
        """What ``station`` (None: the public display) may see.

        Until the game is over, face-down chip values (variant) and the contents of the
        piles stay hidden: ``scores`` then counts only the spoils cards (3 each), which
        everyone can see. A station also sees its own pile, and the two chips it just
        took. At the end every chip is revealed and ``scores`` are the final points.
        """
        return self._view(state, station, reveal=state.phase == OVER)

    def final_view(self, state: UgahState) -> dict[str, JSONValue]:
        """The public view of a game ended early as its end shows it: every chip and pile
        revealed, ``scores`` the final points (:meth:`final_scores`), nobody to act."""
        return self._view(state, None, reveal=True)

    def _view(self, state: UgahState, station: StationId | None, reveal: bool) -> dict[str, JSONValue]:
        over = reveal  # the end reveals everything (and asks nobody to act)
        stations = state.setup.stations
        circle = []
        for p in range(CHIPS_ON_CIRCLE):
            c = state.circle[p]
            shown = c is not None and (over or state.face_up[p])
            circle.append({
                "place": p, "present": c is not None, "face_up": c is not None and state.face_up[p],
                "points": state.chip(c).points if shown and c is not None else None,
                "caterpillar": state.chip(c).caterpillar if shown and c is not None else None,
            })
        players = []
        for i, s in enumerate(stations):
            entry: dict[str, JSONValue] = {
                "station": s, "name": state.setup.name_of(s), "chips": len(state.piles[i]),
                "spoils": [c for c, h in zip(SPOILS_CARDS, state.spoils, strict=True) if h == s],
                "active": i == state.active and not over, "prompt": message_json(self._prompt(state, s)),
            }
            if over or station == s:
                entry["pile"] = [state.chip(c).to_json() for c in state.piles[i]]
                entry["pile_points"] = state.pile_points(i)
            if over:
                entry["points"] = state.points(i)
            players.append(entry)
        options = self.options(state)
        choice: dict[str, JSONValue] | None = None
        if options:
            choice = {"options": options, "cursor": state.cursor, "marked": list(state.marked)}
        taken_view: list[dict[str, JSONValue]] = []
        for place, chip in zip(state.taken, state.taken_chips, strict=True):
            visible = over or state.face_up[place] or station == state.station
            taken_view.append({"place": place, "points": state.chip(chip).points if visible else None,
                               "caterpillar": state.chip(chip).caterpillar if visible else None})
        preview: list[dict[str, JSONValue]] = []
        if state.phase == ORDER:
            for first in HUNTERS:
                h = hunt(state.circle, state.masher, state.breaker, state.steps, first)
                preview.append({"first": first, "places": list(h.taken),
                                "masher": h.masher % CHIPS_ON_CIRCLE, "breaker": h.breaker % CHIPS_ON_CIRCLE})
        if over:
            scores = {str(s): v for s, v in self.final_scores(state).items()}
        else:
            scores = {str(s): SPOILS_POINTS * state.spoils_of(i) for i, s in enumerate(stations)}
        return {
            "game": self.name,
            "variant": state.setup.variant,
            "phase": state.phase,
            "round": state.round,
            "turn": state.turn,
            "active": state.station,
            "circle": circle,
            "hunters": {MASHER: self._hunter_view(state.masher), BREAKER: self._hunter_view(state.breaker)},
            "steps": {MASHER: state.steps[0], BREAKER: state.steps[1]},
            "dice_in_play": state.dice_in_play,
            "throws": state.throws,
            "last_throw": list(state.last_throw),
            "tray": list(state.tray),
            "aside": list(state.aside),
            "tray_problem": message_json(state.tray_problem),
            "input_mode": state.input_mode,
            "dice_reader": state.rules.dice_reader,
            # How many dice the tray camera should read now (None: no throw awaited from it).
            "expects_dice": state.dice_in_play
            if state.phase == THROW and state.input_mode == TRAY and state.rules.dice_reader else None,
            "manual": {"faces": list(state.manual_faces), "index": state.manual_index}
            if state.input_mode == MANUAL and state.phase == THROW else None,
            "choice": choice,
            "spoils": {c: h for c, h in zip(SPOILS_CARDS, state.spoils, strict=True)},
            "spoils_card": state.spoils_card,
            "taken": taken_view,
            "kept": state.kept,
            "order_preview": preview,
            "players": players,
            "scores": scores,
            "scores_final": over,
            "winners": list(state.winners),
            "reason": message_json(state.reason),
            "ended_by_hunters": state.ended_by_hunters,
            "hunters_met": hunters_met(state.circle, state.masher, state.breaker),
            "may_act": [] if over else [state.station],
            "log": [m.to_json() for m in self._log(state)],
            "last_turn": self._last_turn_view(state, station),
        }

    @staticmethod
    def _last_turn_view(state: UgahState, station: StationId | None) -> dict[str, JSONValue] | None:
        """The last finished turn as facts (no words): who, the dice set aside by symbol,
        the spoils card, the hunters' steps, and each chip taken with whom it went to.

        Once taken, chips lie face down in piles (``docs/rules-decisions.md``, Ugah Ugah! 6),
        so a chip's value shows only at the end or to the player who took it.
        """
        record = state.last_turn
        if record is None:
            return None
        over = state.phase == OVER
        counts = Counter(record.aside)
        chips: list[JSONValue] = []
        for place, chip, owner in zip(record.places, record.chips, record.owners, strict=True):
            visible = over or station == record.station
            chips.append({"place": place, "to": owner,
                          "points": state.chip(chip).points if visible else None,
                          "caterpillar": state.chip(chip).caterpillar if visible else None})
        return {
            "station": record.station,
            "skipped": record.skipped,
            "dice": {s: counts[s] for s in SYMBOLS if counts[s]},
            "spoils": {"card": record.spoils, "from": record.spoils_from, "result": record.spoils_result}
            if record.spoils else None,
            "steps": {MASHER: record.steps[0], BREAKER: record.steps[1]},
            "chips": chips,
        }

    def _log(self, state: UgahState, lines: int = 4) -> list[Message]:
        """The last few things that happened, as messages, newest first (no hidden values)."""
        name = state.setup.name_of
        out: list[Message] = []
        for e in reversed(state.events):
            d = e.detail if isinstance(e.detail, Mapping) else {}
            who = name(e.station) if e.station is not None else ""
            said: Message | None = None
            if e.kind == "throw" and d.get("bones") == len(d.get("faces", ())) and d.get("bones"):
                said = Message(N_("{who} threw only bones"), {"who": who})
            elif e.kind == "spoils":
                giver = d.get("from")
                if giver is not None:
                    said = Message(N_("{who} took the {card} card from {other}"),
                                   {"who": who, "card": _card(d.get("card")), "other": name(giver)})
                else:
                    said = Message(N_("{who} took the {card} card"), {"who": who, "card": _card(d.get("card"))})
            elif e.kind == "spoils_left":
                said = Message(N_("{who} left the {card} card with {other}"),
                               {"who": who, "card": _card(d.get("card")), "other": name(d["with"])})
            elif e.kind == "hunters_moved":
                steps = d.get("steps", {})
                walked = [h for h in HUNTERS if steps.get(h)]
                if len(walked) == 2:
                    said = Message(N_("{who} moved {hunter} {steps} and {other} {other_steps}"), {
                        "who": who, "hunter": Message(HUNTER_NAMES[MASHER]), "steps": steps[MASHER],
                        "other": Message(HUNTER_NAMES[BREAKER]), "other_steps": steps[BREAKER]})
                elif walked:
                    said = Message(N_("{who} moved {hunter} {steps}"),
                                   {"who": who, "hunter": Message(HUNTER_NAMES[walked[0]]), "steps": steps[walked[0]]})
            elif e.kind == "chip_given":
                said = Message(_GAVE, {"who": who, "other": name(d["to"])})
            elif e.kind == "chip_taken" and (not out or out[-1].id != _GAVE):
                said = Message(N_("{who} took a chip"), {"who": who})
            elif e.kind == "turn_skipped":
                said = Message(N_("{who}'s turn was skipped"), {"who": who})
            if said is not None:
                out.append(said)
            if len(out) >= lines:
                break
        return out

    @staticmethod
    def _hunter_view(position: int) -> dict[str, JSONValue]:
        in_gap = position in (MASHER_START, BREAKER_START)
        return {"place": None if in_gap else position % CHIPS_ON_CIRCLE, "in_gap": in_gap}

    def _prompt(self, state: UgahState, station: StationId) -> Message | None:
        """What ``station`` is expected to do next, in a few words for the display."""
        if state.phase == OVER:
            return Message(N_("Winner!") if station in state.winners else N_("Game over"))
        if station != state.station:
            return Message(N_("Watch {name}"), {"name": state.setup.name_of(state.station)})
        if state.phase == THROW:
            n = state.dice_in_play
            if state.input_mode == MANUAL:
                return counted(N_plural("Throw the die, set die {i} of {n}: turn, push",
                                        "Throw the {n} dice, set die {i} of {n}: turn, push"), n,
                               i=state.manual_index + 1, n=n)
            if state.tray_problem:
                return Message(N_("Throw again, or press to set the dice with the knob"))
            return counted(N_plural("Throw the die into the tray", "Throw the {n} dice into the tray"), n, n=n)
        if state.phase == CHOOSE:
            if state.marked:
                return Message(N_("Mark more: turn, push; press to set them aside"))
            return Message(N_("Choose a symbol: turn, push"))
        if state.phase == SPOILS:
            return Message(N_("Take the {card} card? turn, push"), {"card": _card(state.spoils_card)})
        if state.phase == ORDER:
            return Message(N_("Which hunter moves first? turn, push"))
        if state.phase == KEEP:
            return Message(N_("Keep which chip? turn, push"))
        if state.phase == GIVE:
            return Message(N_("Give the other chip to? turn, push"))
        return None


_GAVE = N_("{who} gave a chip to {other}")


def _card(card: Any) -> Message:
    """A spoils card's name as a message."""
    return Message(CARD_NAMES.get(str(card), str(card)))


ENGINE = UgahUgah()
