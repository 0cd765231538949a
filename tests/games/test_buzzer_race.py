"""Buzzer race, the test game: a fifth game in a distribution of its own
(``tests/games/buzzer_race``, installed by ``scripts/setup-env dev``) that proves the game
contract. Everything here goes through the table's shared code as any registered game
does: its rules, its catalogue, the lobby and the table loop, the headless daemon killed
and resumed, ``table replay``, ``table screens`` in both languages, the celebrations and
sounds, the config and the venue."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import string
import subprocess
import sys
import time
import urllib.request
from importlib import metadata, resources
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from journal_peek import journaled

from table.common import i18n
from table.common.pofile import Entry, extract_file, message_sources, parse_po
from table.games import games, registry
from table.games.base import Action, GameSetup, SetupError
from table.play.journal import Journal
from table.play.scenario import load_scenario, run_scenario
from table.play.session import Session, canonical

NAME = "buzzer_race"
PACKAGE = Path(__file__).resolve().parent / "buzzer_race" / "buzzer_race"
NAMES = ("Ada", "Ben", "Cleo")



def _dev_install() -> bool:
    """Whether the table was installed with its development tools (``scripts/setup-env
    dev``, which installs the test game with them): every requirement of its ``dev`` extra
    is installed."""
    dev = [re.match(r"[A-Za-z0-9._-]+", r) for r in metadata.requires("game-table") or [] if 'extra == "dev"' in r]
    try:
        return bool(dev) and all(metadata.version(m.group(0)) for m in dev if m is not None)
    except metadata.PackageNotFoundError:
        return False


if NAME not in games():
    # The proof must never go quiet: with the development install the game belongs here,
    # so a broken or missing install fails the run instead of skipping these tests.
    if _dev_install():
        pytest.fail(f"the test game '{NAME}' is not registered although the development install is here: "
                    "its distribution table-buzzer-race is missing or failed to load (see the log); "
                    "run scripts/setup-env dev", pytrace=False)
    pytest.skip("the test game is not installed (scripts/setup-env dev installs it)", allow_module_level=True)

from buzzer_race.engine import ENGINE, RaceState  # noqa: E402


def _press(state: RaceState, station: int, t: float) -> RaceState:
    return ENGINE.apply(state, Action("press", t, station))


def _tick(state: RaceState) -> RaceState:
    assert state.deadline is not None
    return ENGINE.apply(state, Action("tick", state.deadline))


def _new(stations: int = 3, variant: str = "standard", seed: int = 4, **options: Any) -> RaceState:
    return ENGINE.new_game(GameSetup(NAME, variant, tuple(range(stations)), NAMES[:stations], options), seed)


# -- the contract -------------------------------------------------------------------------
def test_the_game_comes_from_its_own_distribution_and_nothing_under_table_names_it() -> None:
    game = games()[NAME]
    assert registry()[NAME] is game.engine
    points = [p for p in metadata.entry_points(group="table.games") if p.name == NAME]
    assert len(points) == 1 and points[0].value == "buzzer_race:GAME"
    assert points[0].dist is not None and points[0].dist.metadata["Name"] == "table-buzzer-race"
    assert game.catalogue == NAME
    assert not str(Path(sys.modules["buzzer_race"].__file__ or "")).startswith(str(resources.files("table")))
    # The contract's promise: the table's own source never names the game.
    table_root = Path(str(resources.files("table")))
    named = [p for p in table_root.rglob("*.py") if re.search(r"buzzer[_ ]race", p.read_text(encoding="utf-8"), re.I)]
    assert not named


# -- the rules ----------------------------------------------------------------------------
def test_the_signal_comes_after_a_seeded_delay_that_the_view_keeps_secret() -> None:
    state = _new()
    assert state.phase == "wait" and state.signal_at is not None and 2.0 <= state.signal_at <= 6.0
    assert _new().signal_at == state.signal_at  # the same seed, the same delay
    assert len({_new(seed=s).signal_at for s in range(8)}) > 4
    view = ENGINE.view(state, None)
    assert view["deadline"] is None and view["signal_at"] is None
    assert view["headline"] == {"id": "Wait...", "params": {}}
    json.dumps(view)
    state = _tick(state)
    view = ENGINE.view(state, None)
    assert state.phase == "signal" and view["headline"]["id"] == "Press!"
    assert view["deadline"] == pytest.approx(state.signal_at + 5.0)


def test_the_first_press_after_the_signal_scores_and_a_false_start_sits_the_round_out() -> None:
    state = _press(_new(), 0, 0.5)
    assert state.out == (0,) and state.events[-1].kind == "false_start"
    assert _press(state, 0, 0.6) is state  # out for this round: nothing more
    state = _tick(state)
    assert _press(state, 0, state.now + 0.1) is state
    signal_at = state.now
    state = _press(state, 2, signal_at + 0.25)
    assert state.phase == "results" and state.points == (0, 0, 1)
    view = ENGINE.view(state, None)
    assert view["headline"] == {"id": "{name} was first", "params": {"name": "Cleo"}}
    assert view["reaction_ms"] == 250
    assert _press(state, 1, signal_at + 0.5) is state  # too slow: no point
    state = _tick(state)
    assert state.phase == "wait" and state.round == 2 and state.out == ()


def test_presses_within_the_tie_window_share_the_point_and_the_win() -> None:
    state = _new(2, points_to_win=1)
    state = _tick(state)
    t = state.now + 0.3
    state = _press(_press(state, 1, t), 0, t + 0.0015)
    assert state.points == (1, 1) and [e.kind for e in state.events[-2:]] == ["buzz", "tie"]
    assert ENGINE.view(state, None)["headline"]["id"] == "{names} pressed at the same moment"
    state = _tick(state)
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.winners == (0, 1) and state.reason == "reached the points to win together"


def test_a_round_nobody_presses_in_ends_at_its_deadline_and_so_does_one_everybody_started_early() -> None:
    state = _tick(_tick(_new()))
    assert state.ending == "nobody" and state.points == (0, 0, 0)
    assert ENGINE.view(state, None)["headline"]["id"] == "Nobody pressed in time"
    state = _new(2)
    state = _press(_press(state, 0, 0.1), 1, 0.2)
    assert state.phase == "results" and state.ending == "all_out"
    assert ENGINE.apply(state, Action("skip_round", 0.3)) is state  # the round is over already


def test_first_to_the_points_wins_and_strict_false_starts_cost_a_point() -> None:
    state = _new(2, points_to_win=2, variant="strict")
    for _ in range(2):
        state = _tick(state)
        state = _press(state, 1, state.now + 0.2)
        state = _tick(state)
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.winners == (1,) and outcome.scores == {0: 0, 1: 2}
    assert state.reason == "first to reach the points to win"
    state = _new(2, variant="strict")
    state = _tick(state)
    state = _tick(_press(state, 0, state.now + 0.1))
    assert state.points == (1, 0)
    state = _press(state, 0, state.now + 0.1)  # a false start in round 2
    assert state.points == (0, 0) and state.events[-1].detail == {"lost": True}


@pytest.mark.parametrize("options, words", [
    ({"points_to_win": 0}, "from 1 to 99"),
    ({"points_to_win": "five"}, "must be numbers"),
    ({"wait_min_seconds": 5, "wait_max_seconds": 2}, "at most wait_max_seconds"),
    ({"press_seconds": 0}, "press_seconds must be positive"),
])
def test_bad_options_are_one_sentence(options: dict[str, Any], words: str) -> None:
    with pytest.raises(SetupError, match=words):
        _new(**options)


def test_a_written_scenario_plays_to_its_expected_end(capsys: pytest.CaptureFixture[str]) -> None:
    """``table play`` of the distribution's scenario: a false start, a point each, a tie."""
    from table.cli import main

    scenario = PACKAGE.parent / "scenarios" / "shared-win.toml"
    assert main(["play", str(scenario), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    kinds = [e["kind"] for e in report["events"]]
    assert kinds.count("false_start") == 1 and kinds.count("buzz") == 3 and kinds.count("tie") == 1


# -- the words ----------------------------------------------------------------------------
def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_the_game_brings_every_word_it_shows_in_its_own_catalogue(code: str) -> None:
    source: set[tuple[str | None, str]] = set()
    for path in message_sources(PACKAGE):
        source |= {e.key for e in extract_file(path, path.name)}
    po = PACKAGE / "locale" / f"{code}.po"
    catalogue: dict[tuple[str | None, str], Entry] = {
        e.key: e for e in parse_po(po.read_text(encoding="utf-8"), po.name) if e.msgid}
    assert source == set(catalogue), "run tests/games/buzzer_race/tools/update_catalogues.py and translate"
    for entry in catalogue.values():
        assert entry.translated, f"{code}: untranslated: {entry.msgid!r}"
        for form in entry.msgstr:
            assert _fields(form) <= _fields(entry.msgid) | _fields(entry.plural or "")


def test_the_catalogue_is_chained_after_the_tables() -> None:
    i18n.set_language("de")
    assert i18n._("Press!") == "Drücken!"
    assert i18n._("Buzzer race · round {round}").format(round=2) == "Buzzerrennen · Runde 2"
    assert i18n._("Round skipped") == "Runde übersprungen"  # the table's own words still come first


# -- the table loop -----------------------------------------------------------------------
def _table(language: str = "en") -> tuple[Any, Any, Any]:
    from table.common.config import TableConfig
    from table.loop.app import ScriptedInputs, Table
    from table.loop.sound import SoundOutput
    from table.play.clock import VirtualClock
    from table.play.gamedata import game_options

    pygame.display.init()
    pygame.font.init()
    config = TableConfig(stations=4, language=language)
    clock = VirtualClock(100.0)
    inputs = ScriptedInputs()
    sound = SoundOutput(enabled=False)
    table = Table(config, clock, pygame.Surface((1280, 720)), None, inputs=[inputs], outputs=[sound],
                  seed_source=lambda: 3, attract=False, game_options=game_options(config))
    return table, clock, inputs


def _run(table: Any, clock: Any, inputs: Any, *actions: Action, seconds: float = 0.5) -> None:
    start = clock.now
    inputs.add(*(Action(a.kind, start + a.t, a.station, a.value) for a in actions))
    while clock.now < start + seconds:
        clock.advance(1 / 30)
        table.step(clock.now)


def _texts(table: Any, clock: Any) -> str:
    from table.display.theme import TextDrawn, record_text

    drawn: list[TextDrawn] = []
    with record_text(drawn.append):
        table.draw(clock.now, force=True)
    return " | ".join(d.message for d in drawn)


def _choose_game(table: Any, clock: Any, inputs: Any) -> None:
    """Turn to Buzzer race's line of the lobby's list of games and push it."""
    lobby = table.lobby
    line = lobby._lines().index(f"game:{NAME}")
    _run(table, clock, inputs, Action("turn", 0.1, 0, {"delta": line - lobby.cursor}), Action("push", 0.2, 0))


def _choose_in_lobby(table: Any, clock: Any, inputs: Any) -> None:
    """Join stations 1 and 2, turn to Buzzer race's line of the lobby and push."""
    lobby = table.lobby
    _run(table, clock, inputs, Action("press", 0.1, 0), Action("press", 0.2, 1))
    _choose_game(table, clock, inputs)
    assert lobby.settings.game == NAME
    assert i18n._("Buzzer race") in _texts(table, clock)  # its title in its own catalogue's words
    start = lobby._lines().index("start")
    _run(table, clock, inputs, Action("turn", 0.1, 0, {"delta": start - lobby.cursor}), Action("push", 0.2, 0))


@pytest.mark.heavy  # draws every frame of a whole game
@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_joined_in_the_lobby_and_played_to_the_end_through_the_table_loop(language: str) -> None:
    table, clock, inputs = _table(language)
    _choose_in_lobby(table, clock, inputs)
    session = table.session
    assert session is not None and session.engine.name == NAME and session.setup.stations == (0, 1)
    words = {"en": ("Wait...", "Press!", "was first", "Buzzer race · round"),
             "de": ("Warten ...", "Drücken!", "war am schnellsten", "Buzzerrennen · Runde")}[language]
    seen: set[str] = set()
    false_started = False
    for _ in range(400):
        if session.is_over():
            break
        phase = session.view(None)["phase"]
        text = _texts(table, clock)
        seen |= {w for w in words if w in text}
        if phase == "wait" and not false_started and session.state.round == 2:
            _run(table, clock, inputs, Action("press", 0.05, 1), seconds=0.2)  # station 2 jumps the gun
            false_started = True
            assert session.state.out == (1,)
            assert ("False start" if language == "en" else "Fehlstart") in _texts(table, clock)
        elif phase == "signal":
            _run(table, clock, inputs, Action("press", 0.1, 0), seconds=0.3)
        else:
            _run(table, clock, inputs, seconds=0.5)
    assert session.is_over()
    outcome = session.outcome()
    assert outcome is not None and outcome.winners == (0,) and outcome.scores == {0: 5, 1: 0}
    assert seen == set(words)
    _run(table, clock, inputs, seconds=2.5)
    text = _texts(table, clock)
    assert i18n._("Press any button for the menu") in text
    # Players are named by their station, in every language, until they enter a name.
    assert ("Station 1 wins!" if language == "en" else "Station 1 gewinnt!") in text
    _run(table, clock, inputs, Action("press", 0.1, 1), seconds=0.5)
    assert table.session is None  # back in the lobby


def test_the_lobby_names_its_variants_in_its_own_words() -> None:
    table, clock, inputs = _table("de")
    lobby = table.lobby
    _choose_game(table, clock, inputs)
    variant = lobby._lines().index("variant")
    _run(table, clock, inputs, Action("turn", 0.1, 0, {"delta": variant - lobby.cursor}), Action("push", 0.2, 0))
    assert lobby.settings.variant == "strict"
    assert "streng: ein Fehlstart kostet einen Punkt" in _texts(table, clock)


def test_the_table_menu_skips_a_waiting_round() -> None:
    from table.loop.snapshots import menu_choice

    table, clock, inputs = _table()
    _choose_in_lobby(table, clock, inputs)
    session = table.session
    menu_choice(table, clock, inputs, "skip")
    assert session.view(None)["ending"] == "skipped"
    assert "Round skipped" in _texts(table, clock)


def test_its_events_make_its_own_sounds() -> None:
    """The game's ``sounds`` (its renderer's), played by the table's sound output."""
    from table.loop.sound import SoundOutput

    setup = GameSetup(NAME, "standard", (0, 1), NAMES[:2], {"points_to_win": 1})
    session = Session.start(NAME, setup, 3)
    sound = SoundOutput(enabled=False)
    sound.update(session, 0.0)
    session.apply(Action("press", 0.5, 1))  # a false start
    sound.update(session, 0.5)
    deadline = session.deadline()
    assert deadline is not None
    session.apply(Action("tick", deadline))
    sound.update(session, deadline)
    session.apply(Action("press", deadline + 0.2, 0))
    sound.update(session, deadline + 0.2)
    assert [name for name in sound.played if name != "tick"][:3] == ["buzzer", "go", "first"]


def test_the_buttons_stay_armed_for_a_false_start_and_the_first_keeps_its_light() -> None:
    """The table's button lights follow ``may_act``: every station still in the round
    is armed through the wait (so a false start reaches the engine), one that jumped the
    gun is not, and the first to press keeps a steady light with the result."""
    from table.loop.outputs import ButtonLeds

    class Recorder:
        def __init__(self) -> None:
            self.leds: dict[int, str] = {}
            self.armed: object = "unset"

        def set_leds(self, states: dict[int, str]) -> None:
            self.leds = dict(states)

        def arm(self, stations: object, at: float | None = None) -> None:
            self.armed = stations

    stations = Recorder()
    leds = ButtonLeds(stations, 4)  # type: ignore[arg-type]
    session = Session.start(NAME, GameSetup(NAME, "standard", (0, 1, 2), NAMES), 2)
    leds.update(session, 0.0)
    assert stations.armed == {0, 1, 2} and stations.leds[3] == "off"
    session.apply(Action("press", 0.5, 2))
    leds.update(session, 0.5)
    assert stations.armed == {0, 1} and stations.leds == {0: "blink", 1: "blink", 2: "off", 3: "off"}
    deadline = session.deadline()
    assert deadline is not None
    session.apply(Action("tick", deadline))
    session.apply(Action("press", deadline + 0.3, 1))
    session.apply(Action("tick", deadline + 0.31))  # the tie window has closed: nothing changes
    leds.update(session, deadline + 0.4)
    assert stations.leds[1] == "on"


def test_the_first_press_is_celebrated_with_the_games_own_words() -> None:
    from table.display.games import renderers
    from table.display.screens import GameScreen
    from table.loop.snapshots import walk_until

    renderer = renderers()[NAME]
    session = Session.start(NAME, GameSetup(NAME, "standard", (0, 1), NAMES[:2]), 3)
    session.apply(Action("tick", session.deadline() or 0.0))
    session.apply(Action("press", session.last_t + 0.2, 1))
    assert renderer.celebration(session.state.events[-1], "Ben") == ("first", "A point for Ben!")

    def showing(table: Any) -> bool:
        screen = next((s for s in table.screens if isinstance(s, GameScreen)), None)
        return screen is not None and any(m.kind == "first" for m in screen.moments)

    found = walk_until(NAME, pygame.Surface((1280, 720)), showing)
    assert found is not None and showing(found[0]), "the table never celebrated a first press"
    screen = next(s for s in found[0].screens if isinstance(s, GameScreen))
    assert any(m.text.startswith("A point for ") for m in screen.moments)


def test_the_end_is_celebrated() -> None:
    from table.loop.snapshots import celebration_frames

    assert celebration_frames(NAME, "final", (640, 360), fps=4)


# -- the daemon killed and resumed, and its journal replayed --------------------------------
def _reference(script: Path, tmp: Path) -> tuple[list[Action], str]:
    with Journal(tmp / "reference.db") as journal:
        session = run_scenario(load_scenario(script), journal)
        record = journal.latest()
        assert session.is_over() and record is not None and record.finished
        return list(record.actions), canonical(session.report())


def _daemon(script: Path, journal: Path, speed: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "table.kiosk.headless", str(script), "--journal", str(journal),
                             "--speed", f"{speed:.3f}", "--allow-root"], cwd="/", stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


@pytest.mark.heavy  # real processes, killed in real time
def test_the_headless_daemon_killed_at_random_moments_loses_nothing_and_replays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table.cli import main
    from table.play.scenario_writer import random_script, scenario_toml

    data = random_script(NAME, seed=11, stations=3, meta_rate=0.03)
    data["names"] = list(NAMES)
    script = tmp_path / "buzzer.toml"
    script.write_text(scenario_toml(data))
    want_actions, want_report = _reference(script, tmp_path)
    journal = tmp_path / "journal.db"
    last_t = load_scenario(script).inputs[-1].t
    speed = max(1.0, last_t / 4.0)  # about four seconds of wall time per whole game
    rng = random.Random(5)
    kills = 0
    mid_game = 0
    for _ in range(40):
        child = _daemon(script, journal, speed)
        if kills < 5:
            time.sleep(rng.uniform(0.2, 1.5))
            if child.poll() is None:
                child.send_signal(signal.SIGKILL)
                child.wait(timeout=30)
                kills += 1
                mid_game += 0 < journaled(journal) < len(want_actions)
                continue
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0 and b"Traceback" not in err, err.decode()
        break
    assert kills >= 3 and mid_game >= 2, (kills, mid_game)
    with Journal(journal) as j:
        assert len(j.game_ids()) == 1
        record = j.latest()
        assert record is not None and record.finished
        assert list(record.actions) == want_actions
        session = Session.replay(record.engine, record.setup, record.seed, record.actions)
        assert canonical(session.report()) == want_report
    assert main(["replay", str(journal), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert canonical(replayed) == want_report
    assert replayed["game"] == NAME and replayed["over"] is True
    assert replayed["reason"] in ("first to reach the points to win", "reached the points to win together")
    assert main(["replay", str(journal)]) == 0
    assert f"{NAME} (standard), seed " in capsys.readouterr().out


# -- the pictures -------------------------------------------------------------------------
def _table_screens(language: str, out: Path, monkeypatch: pytest.MonkeyPatch,
                   moments: str) -> tuple[list[str], list[str]]:
    """``table screens --lang LANGUAGE OUT`` as it runs, limited to this game's pictures
    of one kind (``game_moments`` or ``flow_moments``: the whole set takes a minute):
    the pictures written (relative names) and every line drawn."""
    from table.cli import main
    from table.display.theme import TextDrawn, record_text
    from table.loop import snapshots

    source = getattr(snapshots, moments)
    monkeypatch.setattr(snapshots, "all_moments", lambda: source([NAME]))
    drawn: list[TextDrawn] = []
    with record_text(drawn.append):
        assert main(["screens", str(out), "--lang", language]) == 0
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png")), [d.message for d in drawn]


def _english_only(language: str) -> set[str]:
    """This game's English message ids that its catalogue of ``language`` words otherwise
    (none for English)."""
    if language == "en":
        return set()
    ours = parse_po((PACKAGE / "locale" / f"{language}.po").read_text(encoding="utf-8"), "po")
    translated = {form for e in ours for form in e.msgstr}
    return {e.msgid for e in ours if e.msgid and e.msgid not in translated}


@pytest.mark.heavy  # draws
@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_table_screens_draws_every_phase_in_the_games_own_words(
        language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pictures, lines = _table_screens(language, tmp_path, monkeypatch, "game_moments")
    for variant in ENGINE.variants:
        for phase in ("wait", "signal", "results", "over"):
            assert any(re.fullmatch(f"{NAME}/{variant}-\\d\\d-{phase}\\.png", p) for p in pictures), (phase, pictures)
    for words in {"en": ("Wait...", "Press!", "Buzzer race · game over"),
                  "de": ("Warten ...", "Drücken!", "Buzzerrennen · Spiel vorbei")}[language]:
        assert words in lines
    assert not [line for line in lines if line in _english_only(language)], "English words on a German screen"


@pytest.mark.heavy  # draws
@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_table_screens_shows_the_menus_flows_in_the_language_chosen(
        language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table menu mid-game, paused, and the ranking after "end the game", through the
    table loop, for this game as for the shipped ones."""
    pictures, lines = _table_screens(language, tmp_path, monkeypatch, "flow_moments")
    assert pictures == [f"{NAME}/menu-end-confirm.png", f"{NAME}/menu-ended-ranking.png", f"{NAME}/menu-paused.png"]
    english = _english_only(language)
    assert not [line for line in lines if line in english], "English words on a German screen"


def _scenes() -> list[tuple[str, RaceState, bool]]:
    """Moments random play may miss: a tie, everybody out, nobody pressing, a strict
    false start, the points to win written out, the pause, a shared win."""
    out: list[tuple[str, RaceState, bool]] = []
    state = _tick(_new(3))
    t = state.now + 0.2
    out.append(("tie", _press(_press(state, 2, t), 0, t + 0.001), False))
    out.append(("all-out", _press(_press(_press(_new(3), 0, 0.1), 1, 0.2), 2, 0.3), False))
    out.append(("nobody", _tick(_tick(_new(4))), False))
    strict = _tick(_new(4, "strict", points_to_win=12))
    strict = _tick(_press(strict, 3, strict.now + 0.3))  # a point for station 4, then round 2 waits
    out.append(("strict-false-start-points-written", _press(strict, 3, strict.now + 0.1), False))
    out.append(("paused", _tick(_new(2)), True))
    shared = _tick(_new(2, points_to_win=1))
    shared = _press(_press(shared, 0, shared.now + 0.3), 1, shared.now + 0.301)
    out.append(("shared-win", _tick(shared), False))
    return out


def _scene_painter(state: RaceState, paused: bool) -> Any:
    from display.textfit import _parts_painter

    return _parts_painter(NAME, ENGINE.view(state, None), state.now, paused)


@pytest.mark.heavy  # draws
@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_line_fits_stays_apart_and_contrasts(language: str) -> None:
    """The table's own measures of its screens (text in its box, no overlaps, big enough,
    4.5:1 contrast) on every phase and on the moments random play may miss."""
    from display.test_contrast import low_contrast
    from display.test_layout import _problems
    from display.textfit import SIZES, misfits

    from table.loop.snapshots import game_moments

    pygame.display.init()
    pygame.font.init()
    i18n.set_language(language)
    pictures = [*game_moments([NAME]), *((f"{NAME}/{n}", _scene_painter(s, p)) for n, s, p in _scenes())]
    problems: list[str] = []
    for size in SIZES:
        for name, paint in pictures:
            problems += _problems(size, name, paint)
            problems += low_contrast(name, paint, size)
            problems += [str(m) for m in misfits(name, paint, size, min_scale=0.25)]
    assert len(pictures) > 10
    assert not problems, "\n".join(problems)


# -- the config ---------------------------------------------------------------------------
def test_its_options_come_from_a_games_section_of_table_toml(tmp_path: Path) -> None:
    from table.common.config import parse_config
    from table.play.gamedata import game_options

    config = parse_config({"games": {NAME: {"points_to_win": 3}}}, "table.toml")
    assert game_options(config)[NAME]["points_to_win"] == 3


@pytest.mark.parametrize("toml, words", [
    ("points_to_win = 3\n", ""),
    ("point_to_win = 3\n", "games.buzzer_race.point_to_win: unknown option (did you mean 'points_to_win'?)"),
    ("points_to_win = 0\n", "games.buzzer_race: points_to_win must be from 1 to 99"),
])
def test_check_config_knows_its_section_and_options(toml: str, words: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from table.cli import main

    (tmp_path / "table.toml").write_text(f"[games.{NAME}]\n{toml}")
    code = main(["check-config", str(tmp_path)])
    err = capsys.readouterr().err
    if not words:
        assert code == 0, err
    else:
        assert code != 0 and words in err and "Traceback" not in err, err


# -- the venue ----------------------------------------------------------------------------
def test_its_results_reach_the_venue_page(tmp_path: Path) -> None:
    import threading

    from table.play.scenario_writer import random_script, scenario_toml
    from table.venue import contract
    from table.venue.follow import JournalFollower, Position
    from table.venue.server import Venue, VenueConfig, make_http_server

    data = random_script(NAME, seed=21, stations=3, meta_rate=0.0)
    data["names"] = list(NAMES)
    script = tmp_path / "buzzer.toml"
    script.write_text(scenario_toml(data))
    journal = tmp_path / "journal.db"
    with Journal(journal) as j:
        session = run_scenario(load_scenario(script), j)
    outcome = session.outcome()
    assert outcome is not None
    follower = JournalFollower(journal, "T1")
    messages = []
    pos = Position(1, 0)
    while True:
        batch, pos = follower.messages_after(pos, 50)
        if not batch:
            break
        messages += batch
    # Port 0: any free port, so that tests running side by side never collide.
    venue = Venue(VenueConfig(db=tmp_path / "venue.db", http_host="127.0.0.1", http_port=0))
    server = make_http_server(venue)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for m in messages:
            contract.validate(m.payload)
            venue.handle(m.topic, contract.encode(m.payload))
        port = server.server_address[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as resp:
            state = json.loads(resp.read())
        assert state["results"] == 1 and state["counts"].get("invalid", 0) == 0
        (board,) = [b for b in state["leaderboard"] if b["engine"] == NAME]
        assert board["title"] == "Buzzer race"
        winners = [e["name"] for e in board["wins"] if e["wins"]]
        assert winners == [NAMES[s] for s in outcome.winners]
        top = {e["name"]: e["score"] for e in board["top"]}
        assert top == {NAMES[s]: p for s, p in outcome.scores.items()}
    finally:
        server.shutdown()
        server.server_close()
        venue.stop()


@pytest.mark.slow
@pytest.mark.skipif(not Path("/usr/sbin/mosquitto").exists(), reason="mosquitto is not installed (Debian package)")
def test_its_results_reach_the_venue_through_a_relay_and_a_broker(tmp_path: Path) -> None:
    """The whole way: a journal with a finished game of it, ``table relay`` to a real
    Mosquitto, ``table venue`` and its page, which must show what ``table replay`` says."""
    from venue.helpers import get_json, replay_report, spawn, table_cmd, wait_for

    from table.venue.broker import LocalBroker, free_port, wait_port

    journal = tmp_path / "T1.db"
    with Journal(journal) as j:
        run_scenario(load_scenario(PACKAGE.parent / "scenarios" / "shared-win.toml"), j)
    users = {"T1": "pw-one", "venue": "pw-venue"}
    for user, password in users.items():
        (tmp_path / f"{user}.pw").write_text(password)
    broker = LocalBroker(tmp_path / "broker", users)
    http_port = free_port()
    url = f"http://127.0.0.1:{http_port}"
    procs: list[subprocess.Popen[bytes]] = []
    try:
        broker.start()
        procs.append(spawn(table_cmd("-v", "venue", "--db", str(tmp_path / "venue.db"), "--port", str(broker.port),
                                     "--username", "venue", "--password-file", str(tmp_path / "venue.pw"),
                                     "--http-host", "127.0.0.1", "--http-port", str(http_port)),
                           tmp_path / "venue.log"))
        wait_port(http_port)
        procs.append(spawn(table_cmd("-v", "relay", "--table", "T1", "--journal", str(journal), "--state-dir",
                                     str(tmp_path / "relay"), "--broker", "127.0.0.1", "--port", str(broker.port),
                                     "--password-file", str(tmp_path / "T1.pw")), tmp_path / "relay.log"))
        state = wait_for(lambda: (s := get_json(url + "/api/state"))["results"] >= 1 and s, 30,
                         "the game's result at the venue")
        report = replay_report(journal, 1)
        (board,) = [b for b in state["leaderboard"] if b["engine"] == NAME]
        assert {e["name"]: e["score"] for e in board["top"]} == {"Ada": 2, "Ben": 2} == {
            NAMES[int(k)]: v for k, v in report["scores"].items()}
        assert sorted(e["name"] for e in board["wins"] if e["wins"]) == ["Ada", "Ben"]
        assert state["counts"].get("invalid", 0) == 0
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        broker.kill()
