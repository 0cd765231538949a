"""Scripted games: a TOML file names the game and the inputs at their times.

``load_scenario`` validates the whole file and reports every problem at once;
``run_scenario`` plays it headless in virtual time (ticks delivered at each
deadline between inputs, then until the game is idle), optionally journaling every
action exactly as the live table does. The format is documented in
``docs/scenarios.md``; its examples live in ``docs/scenarios/`` and run in the tests.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.common.checks import did_you_mean, load_toml, number, read_text_input, whole, whole64
from table.common.errors import TableError
from table.games import UnknownGameError, games, get_engine
from table.games.base import TICK, Action, GameError, GameSetup, JSONValue
from table.play.journal import Journal
from table.play.session import META_KINDS, Session, known_kinds, run_until_idle

STATION_KINDS = frozenset({"press", "turn", "push"})
MAX_T = 10_000_000.0  # seconds (about four months): later than any evening at the table
_time = number(0, MAX_T)
_delta = whole(-1000, 1000)
_sectors = whole(2, 64)
_face_pips = whole(1, 6)
TABLE_KINDS = frozenset({"dice", "skip_round", "tick"}) | META_KINDS


class ScenarioError(TableError):
    """A scenario file that cannot be played; the message lists every problem."""


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: the setup, the seed and the inputs in time order."""

    path: str
    setup: GameSetup
    seed: int
    inputs: tuple[Action, ...]
    expect: Mapping[str, Any] = field(default_factory=dict)
    until: float | None = None


def _input_to_action(raw: Mapping[str, Any], where: str, problems: list[str],
                     stations: Sequence[int] | None = None) -> Action | None:
    """One ``[[input]]`` table as an action, or None with the problem added; every value
    is checked here (finite times, stations that play, faces a die has), so a script
    that passes never fails later."""
    kind = raw.get("kind")
    if not isinstance(kind, str):
        problems.append(f"{where}: needs kind = one of press, turn, push, dice, {', '.join(sorted(META_KINDS))}")
        return None
    t: Any = raw.get("t")  # checked by _time below
    msg = _time(t)
    if msg:
        problems.append(f"{where}: t (the time in seconds) {msg}")
        return None
    seconds = float(raw["t"])  # there, and a number: checked just above
    station = raw.get("station")
    value: JSONValue = raw.get("value")
    if station is not None and (not isinstance(station, int) or isinstance(station, bool)):
        problems.append(f"{where}: station must be a station number")
        return None
    if station is not None and stations is not None and station not in stations:
        problems.append(f"{where}: station {station} does not play (stations = {list(stations)})")
        return None
    if kind in STATION_KINDS:
        if station is None:
            problems.append(f"{where}: a {kind} needs station = the station number")
            return None
        if kind == "turn" and value is None:
            if "delta" in raw:
                msg = _delta(raw["delta"])
                if msg:
                    problems.append(f"{where}: delta {msg}")
                    return None
                value = {"delta": raw["delta"]}
            elif "sector" in raw:
                sectors = raw.get("sectors", 16)
                msg = _sectors(sectors)
                if msg:
                    problems.append(f"{where}: sectors {msg}")
                    return None
                msg = whole(0, sectors - 1)(raw["sector"])
                if msg:
                    problems.append(f"{where}: sector {msg}")
                    return None
                value = {"sector": raw["sector"], "sectors": sectors}
            else:
                problems.append(f"{where}: a turn needs delta = steps (encoder) or sector = 0..15 (switch)")
                return None
    elif kind == "dice":
        faces = raw.get("faces", value)
        if not isinstance(faces, list) or not 1 <= len(faces) <= 20:
            problems.append(f"{where}: a dice input needs faces = [the top faces in the tray] (1 to 20 of them)")
            return None
        for face in faces:
            if isinstance(face, str):
                if not face or len(face) > 40:
                    problems.append(f"{where}: faces: {face!r} is not a face name")
                    return None
            elif _face_pips(face):
                problems.append(f"{where}: faces: a face is a pip count from 1 to 6 or a symbol name, not {face!r}")
                return None
        value = {"faces": faces}
    elif kind not in TABLE_KINDS and station is None:
        # A game's own table-level kind (its engine's own_kinds, checked by the caller): as written.
        pass
    known = {"kind", "t", "station", "value", "delta", "sector", "sectors", "faces"}
    extra = sorted(set(raw) - known)
    if extra:
        problems.append(f"{where}: unknown key(s) {', '.join(extra)}{did_you_mean(extra[0], sorted(known))}")
    return Action.from_json({"kind": kind, "t": seconds, "station": station, "value": value})


def parse_scenario(data: Mapping[str, Any], path: str = "<scenario>") -> Scenario:
    """Validate a scenario already parsed from TOML; raises :class:`ScenarioError`."""
    problems: list[str] = []
    game = data.get("game")
    engine = None
    if not isinstance(game, str):
        problems.append(f"game: missing (the engine name: one of {', '.join(games())})")
    else:
        try:
            engine = get_engine(game)
        except UnknownGameError as exc:
            problems.append(f"game: {exc}")
    seed = data.get("seed", 1)
    msg = whole64(seed)
    if msg:
        problems.append(f"seed: {msg}")
        seed = 1
    stations = data.get("stations", [0, 1, 2, 3])
    if not isinstance(stations, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in stations):
        problems.append("stations: must be a list of station numbers, e.g. [0, 1, 2]")
        stations = [0, 1]
    elif any(not 0 <= s <= 15 for s in stations):
        problems.append(f"stations: station numbers go from 0 to 15, not {[s for s in stations if not 0 <= s <= 15]}")
        stations = [0, 1]
    names = data.get("names", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        problems.append("names: must be a list of strings")
        names = []
    options = data.get("options", {})
    if not isinstance(options, dict):
        problems.append("options: must be a table")
        options = {}
    known_options = engine.option_names if engine is not None else None
    if known_options is not None:
        for key in sorted(set(options) - set(known_options)):
            problems.append(f"options.{key}: unknown option of {game}{did_you_mean(key, sorted(known_options))}")
    variant = data.get("variant", engine.variants[0] if engine else "standard")
    if not isinstance(variant, str):
        problems.append("variant: must be a string")
        variant = "standard"
    until = data.get("until")
    if until is not None and _time(until):
        problems.append(f"until: a time in seconds that {_time(until)}")
        until = None
    raw_inputs = data.get("input", [])
    if not isinstance(raw_inputs, list):
        problems.append("input: must be an array of tables ([[input]])")
        raw_inputs = []
    actions: list[Action] = []
    previous: tuple[int, float] | None = None  # the last good input: its index and time
    for i, raw in enumerate(raw_inputs):
        if not isinstance(raw, dict):
            problems.append(f"input[{i}]: must be a table")
            continue
        action = _input_to_action(raw, f"input[{i}]", problems, stations)
        if action is None:
            continue
        if engine is not None and action.kind not in known_kinds(engine):
            # Played, it would change nothing and be dropped unsaid: a misspelt kind, say.
            kinds = sorted(known_kinds(engine))
            problems.append(f"input[{i}]: unknown kind {action.kind!r}{did_you_mean(action.kind, kinds)}")
            continue
        # Time never goes backwards at the table; equal times are presses at the same moment.
        if previous is not None and action.t < previous[1]:
            problems.append(f"input[{i}]: t = {action.t:g} is before input[{previous[0]}]'s t = {previous[1]:g} "
                            "(inputs go in time order; equal times happen at the same moment)")
        previous = (i, action.t)
        actions.append(action)
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        problems.append("expect: must be a table")
        expect = {}
    unknown = sorted(set(data) - {"game", "seed", "stations", "names", "options", "variant", "input", "expect",
                                  "until", "description"})
    known_top = ["game", "seed", "stations", "names", "options", "variant", "input", "expect", "until",
                 "description"]
    for key in unknown:
        problems.append(f"{key}: unknown key{did_you_mean(key, known_top)}")
    setup = GameSetup(game=str(game), variant=variant, stations=tuple(stations), names=tuple(names),
                      options=options)
    if engine is not None and not problems:
        try:
            Session(engine=engine, setup=setup, seed=seed)
        except (GameError, ValueError) as exc:
            problems.append(str(exc))
    if problems:
        raise ScenarioError(f"{path}: " + "; ".join(problems))
    # In time order already (checked above); inputs at the same time keep the file's order.
    return Scenario(path=path, setup=setup, seed=seed, inputs=tuple(actions), expect=expect,
                    until=float(until) if until is not None else None)


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; raises :class:`ScenarioError` (one sentence)."""
    p = Path(path)
    try:
        text = read_text_input(p, "scenario file")  # regular files only, never written
    except TableError as exc:
        raise ScenarioError(str(exc)) from None
    try:
        data = load_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{p} is not valid TOML ({exc})") from None
    return parse_scenario(data, str(p))


def script_steps(session: Session, inputs: Sequence[Action], start: int,
                 until: float | None) -> Iterator[tuple[int, bool, Action]]:
    """The actions a script feeds, in order: ``(input index, is_input, action)``.

    Before each input, the ticks due by its time; after the last input, the ticks up
    to ``until``. Ticks carry the index of the input they precede (``len(inputs)``
    after the last). The caller applies each action before asking for the next,
    exactly as :func:`table.play.scenario.run_scenario` does.
    """

    def ticks(index: int, limit: float | None) -> Iterator[tuple[int, bool, Action]]:
        while True:
            d = session.deadline()
            if d is None or (limit is not None and d > limit):
                return
            before = session.state
            yield index, False, Action(TICK, max(d, session.last_t))
            if session.state == before and session.deadline() == d:
                return  # an engine that does not advance its deadline would spin

    for i in range(start, len(inputs)):
        if session.is_over():
            return
        yield from ticks(i, inputs[i].t)
        if session.is_over():
            return
        yield i, True, inputs[i]
    if not session.is_over():
        yield from ticks(len(inputs), until)


def run_scenario(scenario: Scenario, journal: Journal | None = None) -> Session:
    """Play ``scenario`` to its end (or until idle) as fast as the machine allows.

    Every action, ticks included, goes through ``journal`` first when one is given,
    exactly as the live loop does, so ``table replay`` of that journal agrees.
    """
    session = Session.start(scenario.setup.game, scenario.setup, scenario.seed)
    game_id = journal.start_game(scenario.setup, scenario.seed) if journal else None
    seq = 0

    def record(action: Action) -> None:
        nonlocal seq
        if journal is not None and game_id is not None:
            journal.append(game_id, seq, action)
            seq += 1

    for _, _, action in script_steps(session, scenario.inputs, 0, scenario.until):
        # As in the live loop: only inputs that change the game are journaled.
        session.apply(action, record if journal is not None else None)
    if journal is not None and game_id is not None and session.is_over():
        journal.finish(game_id, session.outcome())
    return session


def _station_name(station: object) -> str:
    """A station as the report prints it: counted from 1 (files and the engines count from 0)."""
    try:
        return f"station {int(str(station)) + 1}"
    except ValueError:
        return f"station {station!r}"


def _stations(value: object) -> str:
    if not isinstance(value, list):
        return repr(value)
    return ", ".join(_station_name(s) for s in value) if value else "none"


def check_expectations(scenario: Scenario, report: Mapping[str, Any]) -> list[str]:
    """Differences between the scenario's ``[expect]`` table and the report, one sentence
    each, naming stations as the report prints them (from 1)."""
    problems: list[str] = []
    for key, want in scenario.expect.items():
        got = report.get(key)
        if key == "scores" and isinstance(want, dict):
            want = {str(k): v for k, v in want.items()}
        if got == want:
            continue
        if key == "scores" and isinstance(want, dict) and isinstance(got, dict):
            for station in sorted(set(want) | set(got), key=lambda k: (not k.isdigit(), k.zfill(20))):
                who = f"scores: {_station_name(station)}"
                if station not in got:
                    problems.append(f"{who} expected {want[station]!r}, but it did not play")
                elif station not in want:
                    problems.append(f"{who} got {got[station]!r}, which [expect] does not list")
                elif want[station] != got[station]:
                    problems.append(f"{who} expected {want[station]!r}, got {got[station]!r}")
        elif key == "winners":
            problems.append(f"winners: expected {_stations(want)}, got {_stations(got)}")
        else:
            problems.append(f"{key}: expected {want!r}, got {got!r}")
    return problems


__all__ = [
    "Scenario",
    "ScenarioError",
    "check_expectations",
    "load_scenario",
    "parse_scenario",
    "run_scenario",
    "run_until_idle",
    "script_steps",
]
