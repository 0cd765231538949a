"""The lobby's fixed lines (a line per game), players' names (initials with the knob, or
a venue's list), and those names on the venue's page, by name, through the table loop."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pygame
import pytest

from table.common.config import ConfigError, TableConfig, parse_config
from table.common.names import unnamed
from table.display.screens import LETTERS, LobbyScreen, player_options
from table.display.theme import Theme
from table.games import lobby_games, registry
from table.games.base import Action, GameSetup
from table.loop.app import SETTLE_S, ScriptedInputs, Table
from table.play.clock import VirtualClock
from table.play.journal import Journal
from table.play.session import Session


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


class _Control:
    """The table as far as the lobby asks it: the games it was asked to start."""

    def __init__(self) -> None:
        self.started: list[GameSetup] = []
        self.session: Session | None = None

    def start_game(self, setup: GameSetup) -> None:
        self.started.append(setup)

    def game_input(self, action: Action) -> bool:
        return False

    def leave_game(self) -> None:
        return None

    def game_time(self, t: float) -> float:
        return t

    def push_screen(self, screen: object) -> None:
        return None

    def pop_screen(self) -> None:
        return None


def _lobby(names: tuple[str, ...] = ()) -> tuple[LobbyScreen, _Control]:
    control = _Control()
    return LobbyScreen(control, Theme(1280, 720), 4, names=names), control


def _turn(lobby: LobbyScreen, station: int, delta: int) -> None:
    lobby.handle(Action("turn", 0.0, station, {"delta": delta}))


def _push(lobby: LobbyScreen, station: int) -> None:
    lobby.handle(Action("push", 0.0, station))


def _spell(lobby: LobbyScreen, station: int, initials: str) -> None:
    """Turn to "Your name", push, then turn to each letter and push it."""
    _turn(lobby, station, lobby._lines().index("name") - lobby.cursor)
    _push(lobby, station)
    entry = lobby.entries[station]
    if not entry.spelling:  # a venue's list first: its last choice spells initials
        _turn(lobby, station, len(entry.choices) - entry.at)
        _push(lobby, station)
    for i, letter in enumerate(initials):
        _turn(lobby, station, LETTERS.index(letter) - entry.letters[i])
        _push(lobby, station)


def test_n_steps_land_on_the_nth_game_whatever_game_is_chosen() -> None:
    lobby, _control = _lobby()
    games = lobby_games()
    lines = lobby._lines()
    for chosen in games:
        lobby.settings.game = chosen
        lobby.settings.variant = registry()[chosen].variants[0]
        assert lobby._lines() == lines  # the same lines for every game
        for n, game in enumerate(games):
            _turn(lobby, 0, -lobby.cursor)
            _turn(lobby, 0, n)
            _push(lobby, 0)
            assert lobby.settings.game == game
            lobby.settings.game = chosen
    # An absolute knob's sectors map onto the same lines: the first sector is the first game.
    lobby.handle(Action("turn", 0.0, 1, {"sector": 0, "sectors": 16}))
    _push(lobby, 1)
    assert lobby.settings.game == games[0]
    lobby.handle(Action("turn", 0.0, 1, {"sector": 15, "sectors": 16}))
    assert lobby._lines()[lobby.cursor] == "start"


def test_a_player_option_of_another_game_shows_as_not_applicable() -> None:
    lobby, _control = _lobby()
    options = [line for line in lobby._lines() if line.startswith("option:")]
    assert options, "a shipped game has a player option (a level)"
    without = [g for g in lobby_games() if not player_options(g)]
    assert without
    lobby.settings.game = without[0]
    texts: list[str] = []
    from table.display import draw

    real = draw.label

    def spy(surface: pygame.Surface, theme: Theme, text: str, *args: Any, **kwargs: Any) -> Any:
        texts.append(text)
        return real(surface, theme, text, *args, **kwargs)

    draw.label = spy  # type: ignore[assignment]
    try:
        lobby.draw(pygame.Surface((1280, 720)), 0.0)
    finally:
        draw.label = real
    assert "not for this game" in texts
    # Pushing it changes nothing.
    before = dict(lobby.settings.choices)
    _turn(lobby, 0, lobby._lines().index(options[0]) - lobby.cursor)
    _push(lobby, 0)
    assert lobby.settings.choices == before


@pytest.mark.parametrize(("turns", "name"), [
    ([], "AAA"),
    ([1, 1, 1], "BBB"),
    ([-1, 3, 25], "ZDZ"),
    ([2, -1, 0], "CZA"),
])
def test_initials_are_turned_and_pushed_letter_by_letter(turns: list[int], name: str) -> None:
    lobby, control = _lobby()
    _turn(lobby, 2, lobby._lines().index("name"))
    _push(lobby, 2)
    assert 2 in lobby.entries
    for i in range(3):
        if turns:
            _turn(lobby, 2, turns[i])
        # Another station's knob moves the shared cursor meanwhile, not station 3's letters.
        _turn(lobby, 0, 1)
        _turn(lobby, 0, -1)
        _push(lobby, 2)
    assert 2 not in lobby.entries
    assert lobby.settings.names == {2: name}
    lobby.handle(Action("press", 0.0, 0))
    lobby.handle(Action("press", 0.0, 2))
    lobby.settings.game = lobby_games()[0]
    _turn(lobby, 0, lobby._lines().index("start") - lobby.cursor)
    _push(lobby, 0)
    (setup,) = control.started
    assert setup.names == (unnamed(0), name) == ("Station 1", name)


def test_an_absolute_knob_spells_initials_too() -> None:
    lobby, _control = _lobby()
    _spell(lobby, 1, "AA")  # two letters in
    lobby.handle(Action("turn", 0.0, 1, {"sector": 25, "sectors": 26}))
    _push(lobby, 1)
    assert lobby.settings.names[1] == "AAZ"


def test_names_from_the_venues_list_or_initials() -> None:
    lobby, control = _lobby(("Ada", "Ben", "Cleo"))
    _turn(lobby, 0, lobby._lines().index("name"))
    _push(lobby, 1)
    _turn(lobby, 1, 2)
    _push(lobby, 1)
    assert lobby.settings.names[1] == "Cleo"
    _spell(lobby, 3, "ZOE")
    assert lobby.settings.names[3] == "ZOE"
    # Entering again starts from the name chosen.
    _push(lobby, 1)
    assert lobby.entries[1].at == 2
    _turn(lobby, 1, -2)
    _push(lobby, 1)
    for station in (1, 2, 3):
        lobby.handle(Action("press", 0.0, station))
    lobby.settings.game = lobby_games()[0]
    _turn(lobby, 0, lobby._lines().index("start") - lobby.cursor)
    _push(lobby, 0)
    assert control.started[-1].names == ("Ada", "Station 3", "ZOE")


def test_an_unnamed_player_is_named_by_the_seat_in_the_lobbys_language() -> None:
    """The lobby's panel calls an unnamed player what the game will (the seat, never the
    colour), in the language in force, and starts the game with that name."""
    from table.common import i18n
    from table.display.theme import recording

    try:
        i18n.set_language("de")
        lobby, control = _lobby()
        _spell(lobby, 2, "ADA")
        for station in (0, 2):
            lobby.handle(Action("press", 0.0, station))
        with recording() as drawn:
            lobby.draw(pygame.Surface((1280, 720)), 0.0)
        shown = {d.message for d in drawn}
        assert {"Station 1", "Station 2", "Station 3 · ADA", "Station 4"} <= shown, shown
        assert unnamed(0) == unnamed(0, "de") and "Buzzer: mitspielen" in shown  # German, from the catalogue
        assert not any(word in text for text in shown for word in ("Rosa", "Orange", "Platz", "Spieler"))
        lobby.settings.game = lobby_games()[0]
        _turn(lobby, 0, lobby._lines().index("start") - lobby.cursor)
        _push(lobby, 0)
        assert control.started[-1].names == ("Station 1", "ADA")
    finally:
        i18n.set_language("en")
    assert unnamed(1) == "Station 2"


def test_a_resumed_games_party_is_seated_again_from_its_setup() -> None:
    """The lobby takes back the party of a journaled setup: seats, entered names (not
    the placeholders), colours, game, variant and levels; what a journal may hold and no
    lobby would make (a station this table lacks, a refused name, a colour twice or not
    a colour) is left out."""
    lobby, control = _lobby()
    game = lobby_games()[0]
    variant = registry()[game].variants[-1]
    options = {o.option: [o.values[-1]] * 3 for o in player_options(game)}
    lobby.take_party(GameSetup(game, variant, (0, 2, 3), ("Station 1", "BEN", "Zoë"),
                               {**options, "colours": [4, 1, 3]}))
    s = lobby.settings
    assert (s.game, s.variant, s.joined, s.names) == (game, variant, [0, 2, 3], {2: "BEN", 3: "Zoë"})
    assert s.colours == {0: 4, 1: 0, 2: 1, 3: 3}  # 1's own colour is 2's now: it takes the first free one
    assert all(s.choice(o, st) == o.values[-1] for o in player_options(game) for st in (0, 2, 3))
    _turn(lobby, 0, lobby._lines().index("start") - lobby.cursor)
    _push(lobby, 0)
    again = control.started[-1]
    assert (again.stations, again.names, again.options["colours"]) == ((0, 2, 3), ("Station 1", "BEN", "Zoë"),
                                                                      [4, 1, 3])
    odd = GameSetup(game, "no such variant", (1, 9), ("Ev\u202eil", "NIA"), {"colours": [2, True]})
    lobby.take_party(odd)
    assert (s.joined, s.names, s.game, s.variant) == ([1], {}, game, variant)
    assert s.colours == {0: 0, 1: 2, 2: 1, 3: 3}


def test_names_in_table_toml_are_checked_every_problem_at_once() -> None:
    config = parse_config({"table": {"names": ["Ada", "Ben"]}}, "table.toml")
    assert config.names == ("Ada", "Ben")
    assert TableConfig().names == ()
    with pytest.raises(ConfigError) as caught:
        parse_config({"table": {"names": ["Ada", "", "ada", 3, " Bo", "A" * 17], "stations": 9},
                      "sound": {"volume": 2}}, "table.toml")
    text = str(caught.value)
    assert "3 problems" in text
    for bit in ("entry 2 is empty", "'ada' is there twice", "entry 4 (3) is not text", "' Bo' begins or ends",
                "longer than 16", "table.stations", "sound.volume"):
        assert bit in text, bit
    with pytest.raises(ConfigError, match="must be a list of names"):
        parse_config({"table": {"names": "Ada"}}, "table.toml")


# -- three tables, initials entered, the venue's page ------------------------------------
BUZZER = "buzzer_race"


def _run(table: Table, clock: VirtualClock, inputs: ScriptedInputs, *actions: Action, seconds: float) -> None:
    start = clock.now
    inputs.add(*(Action(a.kind, start + a.t, a.station, a.value) for a in actions))
    while clock.now < start + seconds:
        clock.advance(1 / 30)
        table.step(clock.now)


def _knob(table: Table, clock: VirtualClock, inputs: ScriptedInputs, station: int, kind: str,
          delta: int = 0) -> None:
    action = Action(kind, 0.05, station, {"delta": delta} if kind == "turn" else None)
    before = table.showing()
    _run(table, clock, inputs, action, seconds=0.1)
    if table.showing() != before:  # the screen changed: inputs settle a moment
        _run(table, clock, inputs, seconds=SETTLE_S + 0.05)


def _walk_lobby(table: Table, clock: VirtualClock, inputs: ScriptedInputs, names: dict[int, str]) -> None:
    """Join, spell each station's initials with its knob, choose Buzzer race, start."""
    lobby = table.lobby
    for station, initials in names.items():
        _knob(table, clock, inputs, station, "press")
        _knob(table, clock, inputs, station, "turn", lobby._lines().index("name") - lobby.cursor)
        _knob(table, clock, inputs, station, "push")
        for letter in initials:
            _knob(table, clock, inputs, station, "turn", LETTERS.index(letter))
            _knob(table, clock, inputs, station, "push")
    assert lobby.settings.names == names
    _knob(table, clock, inputs, 0, "turn", lobby._lines().index(f"game:{BUZZER}") - lobby.cursor)
    _knob(table, clock, inputs, 0, "push")
    _knob(table, clock, inputs, 0, "turn", lobby._lines().index("start") - lobby.cursor)
    _knob(table, clock, inputs, 0, "push")
    session = table.session
    assert session is not None and session.engine.name == BUZZER
    assert session.setup.names == tuple(names.values())


def _play_out(table: Table, clock: VirtualClock, inputs: ScriptedInputs, first: int) -> None:
    """Station ``first`` presses at every signal until the game is over."""
    session = table.session
    assert session is not None
    for _ in range(600):
        if session.is_over():
            break
        if session.view(None)["phase"] == "signal":
            _run(table, clock, inputs, Action("press", 0.05, first), seconds=0.2)
        else:
            _run(table, clock, inputs, seconds=0.3)
    assert session.is_over() and not session.ended_early


def _end_from_menu(table: Table, clock: VirtualClock, inputs: ScriptedInputs) -> None:
    from table.loop.snapshots import menu_choice

    _run(table, clock, inputs, seconds=3.0)
    menu_choice(table, clock, inputs, "end")
    session = table.session
    assert session is not None and session.ended_early
    assert session.report()["ended"] == "early"


def test_initials_entered_at_three_tables_show_on_the_venue_page(tmp_path: Path) -> None:
    if BUZZER not in lobby_games():
        pytest.skip("the test game Buzzer race is not installed")
    from table.venue import contract
    from table.venue.follow import JournalFollower, Position
    from table.venue.server import Venue, VenueConfig, make_http_server

    players = {"T1": {0: "ADA", 1: "BEN"}, "T2": {0: "ADA", 2: "CYD"}, "T3": {1: "BEN", 3: "DEE"}}
    journals: dict[str, Path] = {}
    for k, (name, names) in enumerate(players.items()):
        clock = VirtualClock(time.time() - 3600 + 600 * k)  # played within the venue's evening
        inputs = ScriptedInputs()
        journals[name] = tmp_path / f"{name}.db"
        with Journal(journals[name]) as journal:
            table = Table(TableConfig(stations=4), clock, pygame.Surface((640, 360)), journal, inputs=[inputs],
                          seed_source=lambda: 5)
            _walk_lobby(table, clock, inputs, names)
            if name == "T3":
                _end_from_menu(table, clock, inputs)  # ended early: played, never won
            else:
                _play_out(table, clock, inputs, first=min(names))
            _run(table, clock, inputs, seconds=1.0)
    venue = Venue(VenueConfig(db=tmp_path / "venue.db", http_host="127.0.0.1", http_port=0))
    server = make_http_server(venue)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for name, path in journals.items():
            follower = JournalFollower(path, name)
            pos = Position(1, 0)
            while True:
                batch, pos = follower.messages_after(pos, 200)
                if not batch:
                    break
                for m in batch:
                    venue.handle(m.topic, contract.encode(m.payload))
        port = server.server_address[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as resp:
            state = json.loads(resp.read())
        assert state["results"] == 3 and state["counts"].get("invalid", 0) == 0
        (board,) = [b for b in state["leaderboard"] if b["engine"] == BUZZER]
        assert board["games"] == 3
        # The winners by the names they entered, at their tables; T3's game ended early wins nothing.
        assert board["wins"] == [{"name": "ADA", "table": "T1", "wins": 1, "games": 1},
                                 {"name": "ADA", "table": "T2", "wins": 1, "games": 1}]
        seen = {(e["name"], e["table"]) for e in board["top"]}
        assert seen == {(n, t) for t, ns in players.items() for n in ns.values()}
        ended = [r for r in venue.store.results() if r["table"] == "T3"]
        assert [r.get("ended") for r in ended] == ["early"]
        assert not any(p.get("name", "").lower() in ("orange", "blue", "green", "pink") for r in
                       venue.store.results() for p in r["players"])
    finally:
        server.shutdown()
        server.server_close()
        venue.stop()


def test_a_german_table_names_the_unnamed_player_alike_on_screen_in_the_journal_and_at_the_venue(
        tmp_path: Path) -> None:
    """One player spells ADA, the other enters no name: the game's screen and its final
    ranking show "Station 1" (German for a seat), and the journal, the relay's status and result and the
    venue's leaderboard carry that very name."""
    if BUZZER not in lobby_games():
        pytest.skip("the test game Buzzer race is not installed")
    from table.common.i18n import set_language
    from table.display.final import final_rows
    from table.display.theme import recording
    from table.venue import contract
    from table.venue.follow import JournalFollower, Position
    from table.venue.server import Venue, VenueConfig

    clock = VirtualClock(time.time() - 600)
    inputs = ScriptedInputs()
    path = tmp_path / "de.db"
    try:
        with Journal(path) as journal:
            table = Table(TableConfig(stations=4, language="de"), clock, pygame.Surface((640, 360)), journal,
                          inputs=[inputs], seed_source=lambda: 5)
            lobby = table.lobby
            _knob(table, clock, inputs, 0, "press")
            _knob(table, clock, inputs, 2, "press")
            _knob(table, clock, inputs, 2, "turn", lobby._lines().index("name") - lobby.cursor)
            _knob(table, clock, inputs, 2, "push")
            for _letter in "ADA":
                _knob(table, clock, inputs, 2, "turn", LETTERS.index(_letter) - lobby.entries[2].letters[
                    lobby.entries[2].letter])
                _knob(table, clock, inputs, 2, "push")
            _knob(table, clock, inputs, 0, "turn", lobby._lines().index(f"game:{BUZZER}") - lobby.cursor)
            _knob(table, clock, inputs, 0, "push")
            _knob(table, clock, inputs, 0, "turn", lobby._lines().index("start") - lobby.cursor)
            _knob(table, clock, inputs, 0, "push")
            session = table.session
            assert session is not None and session.setup.names == ("Station 1", "ADA")
            with recording() as drawn:
                table.draw(clock.now, force=True)
            playing = {d.message for d in drawn}
            assert "Station 1" in playing and "ADA" in playing, playing
            _play_out(table, clock, inputs, first=2)
            _run(table, clock, inputs, seconds=1.0)
            with recording() as drawn:
                table.draw(clock.now, force=True)
            ranking = " | ".join(d.message for d in drawn)
            shown = [row.name for row in final_rows(session)]
            assert sorted(shown) == ["ADA", "Station 1"] and all(name in ranking for name in shown), ranking
            assert "Gewinnt" in ranking or "gewinnt" in ranking or "Sieg" in ranking, ranking  # in German
            assert "Platz" not in ranking and "Player" not in ranking and "Spieler" not in ranking, ranking
            record = journal.latest()
            assert record is not None and record.setup.names == ("Station 1", "ADA")
    finally:
        set_language("en")
    follower = JournalFollower(path, "T1")
    batch, _pos = follower.messages_after(Position(1, 0), 500)
    (result,) = [m.payload for m in batch if m.payload["type"] == "result"]
    status = follower.live_game()  # what the relay's status message says of the game
    assert status is not None
    for players in (result["players"], status["players"]):
        assert {p["station"]: p["name"] for p in players} == {0: "Station 1", 2: "ADA"}
    venue = Venue(VenueConfig(db=tmp_path / "venue.db", http_host="127.0.0.1", http_port=0))
    try:
        for m in batch:
            venue.handle(m.topic, contract.encode(m.payload))
        (stored,) = venue.store.results()
        assert [p["name"] for p in stored["players"]] == ["Station 1", "ADA"]
        # The wall's leaderboard names them so too.
        (board,) = [b for b in venue.state()["leaderboard"] if b["engine"] == BUZZER]
        assert {e["name"] for e in board["top"]} == {"Station 1", "ADA"}
    finally:
        venue.stop()


def test_how_to_play_shows_the_chosen_games_card_until_a_push_or_a_press() -> None:
    """The line under the games opens the chosen game's card, in the lobby as in the
    attract loop; the lines stay the same for every game, and the lobby is where it was."""
    from table.display.howto import card_lines, card_title
    from table.display.screens import HowToPlayScreen
    from table.display.theme import recording

    clock = VirtualClock(10.0)
    inputs = ScriptedInputs()
    table = Table(TableConfig(stations=4), clock, pygame.Surface((1280, 720)), None, inputs=[inputs], attract=False)
    lobby = table.lobby
    lines = lobby._lines()
    assert lines.index(LobbyScreen.HOW_TO_PLAY) == len(lobby_games())  # right under the games
    for game in lobby_games():
        _knob(table, clock, inputs, 1, "turn", lines.index(f"game:{game}") - lobby.cursor)
        _knob(table, clock, inputs, 1, "push")
        _knob(table, clock, inputs, 1, "turn", lines.index(LobbyScreen.HOW_TO_PLAY) - lobby.cursor)
        _knob(table, clock, inputs, 1, "push")
        card = table.screens[-1]
        assert isinstance(card, HowToPlayScreen) and card.game == game
        with recording() as drawn:
            table.draw(clock.now, force=True)
        shown = {d.message for d in drawn}
        assert card_title(game) in shown and card_lines(game), game
        assert all(line.split()[0] in " ".join(shown) for line in card_lines(game))
        _knob(table, clock, inputs, 2, "turn", 3)  # read, not browsed: a turn leaves it
        assert table.screens[-1] is card
        _knob(table, clock, inputs, 2, "press" if game == lobby_games()[0] else "push")
        assert table.screens[-1] is lobby and lobby._lines() == lines
        assert lines[lobby.cursor] == LobbyScreen.HOW_TO_PLAY and 2 not in lobby.settings.joined
        assert lobby.settings.game == game


def test_the_lobby_words_a_plugin_games_title_in_its_own_catalogue() -> None:
    if BUZZER not in lobby_games():
        pytest.skip("the test game Buzzer race is not installed")
    from table.common.i18n import set_language
    from table.display.theme import recording

    set_language("de")
    try:
        lobby, _control = _lobby()
        with recording() as drawn:
            lobby.draw(pygame.Surface((1280, 720)), 0.0)
        shown = {d.message for d in drawn}
        assert "Buzzerrennen" in shown and "Buzzer race" not in shown
    finally:
        set_language("en")


def test_station_names_in_table_toml_are_the_names_the_stations_start_with() -> None:
    """``[table] station_names``: each station starts with its own name (a player may
    still change it); a station beyond the list starts unnamed."""
    config = parse_config({"table": {"stations": 4, "station_names": ["Ada", "Ben"]}}, "table.toml")
    clock = VirtualClock(10.0)
    table = Table(config, clock, pygame.Surface((640, 360)), None, inputs=[ScriptedInputs()], attract=False)
    lobby = table.lobby
    assert lobby.settings.names == {0: "Ada", 1: "Ben"}
    _spell(lobby, 1, "ZOE")
    for station in (0, 1, 2):
        lobby.handle(Action("press", 0.0, station))
    _turn(lobby, 0, lobby._lines().index("start") - lobby.cursor)
    _push(lobby, 0)
    assert table.session is not None
    assert table.session.setup.names == ("Ada", "ZOE", unnamed(2))
