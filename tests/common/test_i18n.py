"""The table's languages: catalogues complete and consistent with the source, the
compiled catalogue read by gettext, the lobby's language line switching every screen at
once, German screens free of English words, board words and speech per language."""

from __future__ import annotations

import gettext
import io
import os
import re
import string
from importlib import resources

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from display.textfit import game_screens, shell_screens

from table.common import i18n
from table.common.config import ConfigError, parse_config
from table.common.pofile import Entry, extract_source, mo_bytes, parse_po
from table.display.theme import TextDrawn, record_text
from table.games.umtata.board import load_board


def _source_messages() -> dict[tuple[str | None, str], Entry]:
    """Every message marked in the installed package's source."""
    found: dict[tuple[str | None, str], Entry] = {}
    root = resources.files("table")

    def walk(folder: object) -> None:
        for item in folder.iterdir():  # type: ignore[attr-defined]
            if item.is_dir():
                walk(item)
            elif item.name.endswith(".py"):
                for e in extract_source(item.read_text(encoding="utf-8"), item.name):
                    found.setdefault(e.key, e)

    walk(root)
    return found


def _catalogue(code: str) -> dict[tuple[str | None, str], Entry]:
    text = (resources.files("table.common") / "locale" / f"{code}.po").read_text(encoding="utf-8")
    return {e.key: e for e in parse_po(text, f"{code}.po") if e.msgid}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_every_message_of_the_source_is_translated_with_the_same_fields(code: str) -> None:
    source = _source_messages()
    catalogue = _catalogue(code)
    assert len(source) > 200
    missing = sorted(m for _, m in set(source) - set(catalogue))
    assert not missing, f"run tools/i18n/update_catalogues.py and translate: {missing}"
    stale = sorted(m for _, m in set(catalogue) - set(source))
    assert not stale, f"messages the source no longer has: {stale}"
    for entry in catalogue.values():
        assert entry.translated, f"{code}: untranslated: {entry.msgid!r}"
        wanted = _fields(entry.msgid) | _fields(entry.plural or "")
        for form in entry.msgstr:
            # A translation that names another field would fail when the screen formats it.
            assert _fields(form) <= wanted, f"{code}: {entry.msgid!r} -> {form!r}"


def test_a_catalogue_compiles_to_what_gettext_reads() -> None:
    po = '''msgid ""
msgstr "Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

msgid "Paused"
msgstr "Pause"

#, fuzzy
msgid "Game"
msgstr "Spiel"

msgctxt "die"
msgid "Ring"
msgstr "Ringlein"

msgid "{n} chip"
msgid_plural "{n} chips"
msgstr[0] "{n} Plättchen"
msgstr[1] "{n} Plättchen (viele)"

msgid "two "
"lines"
msgstr "zwei "
"Zeilen"
'''
    cat = gettext.GNUTranslations(io.BytesIO(mo_bytes(parse_po(po))))
    assert cat.gettext("Paused") == "Pause"
    assert cat.gettext("Game") == "Game"  # fuzzy entries are left out, as msgfmt does
    assert cat.pgettext("die", "Ring") == "Ringlein"
    assert cat.ngettext("{n} chip", "{n} chips", 1) == "{n} Plättchen"
    assert cat.ngettext("{n} chip", "{n} chips", 3) == "{n} Plättchen (viele)"
    assert cat.gettext("two lines") == "zwei Zeilen"


def test_the_language_switches_the_whole_process_and_refuses_unknown_ones() -> None:
    assert i18n.language() == "en"
    assert i18n._("Paused") == "Paused"
    i18n.set_language("de")
    assert i18n._("Paused") == "Pause"
    assert i18n.ngettext("{n} card", "{n} cards", 2).format(n=2) == "2 Karten"
    assert i18n.in_language("en", "Paused") == "Paused"
    assert i18n.next_language("de") == "en"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        i18n.set_language("fr")


def test_table_toml_language_is_checked_with_a_suggestion() -> None:
    assert parse_config({"table": {"language": "de"}}, "t.toml").language == "de"
    assert parse_config({}, "t.toml").language == "en"
    for value, hint in (("German", "did you mean 'de'?"), ("de_DE", "did you mean 'de'?"), ("fr", ""), (3, "")):
        with pytest.raises(ConfigError) as caught:
            parse_config({"table": {"language": value}}, "t.toml")
        message = str(caught.value)
        assert "t.toml: table.language" in message and hint in message, message


def test_the_board_names_countries_regions_and_colours_in_each_language() -> None:
    board = load_board()
    assert board.name("nl", "de") == "Niederlande"
    assert board.name("cz", "de") == "Tschechien"
    assert board.name("nl", "en") == "Netherlands"
    assert board.region_name("south", "de") == "Süd"
    assert board.colour_name("purple", "de") == "lila"
    for c in board.countries:
        assert board.name(c.id, "de") and board.label(c.id, "de")
        assert c.id in board.words["de"].countries, f"no German name for {c.name}"
    # One name in English for the Czech Republic, on the map and at the reveal alike.
    assert board.name("cz", "en") == board.label("cz", "en") == "Czechia"


GAME_WORDS = {"tataaa", "demo", "ok", "dino", "mamm", "mm", "bb", "kb", "s", "x", "nr"}
"""Words a German screen may show although the English catalogue has them besides the
games' titles: calls, abbreviations and units."""


def _title_words() -> set[str]:
    """Every word of every registered game's title (a title is the same in every language)."""
    from table.games import registry

    return {w.lower() for engine in registry().values() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", engine.title)}


def _english_only_words() -> set[str]:
    en = _catalogue("en")
    de = _catalogue("de")

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", re.sub(r"\{[^}]*\}", " ", text))}

    english = set().union(*(words(e.msgid) | words(e.plural or "") for e in en.values()))
    german = set().union(*(words(f) for e in de.values() for f in e.msgstr))
    return english - german - GAME_WORDS - _title_words()


@pytest.mark.heavy
def test_no_german_screen_shows_an_english_word() -> None:
    """Every line drawn on every screen of every game in German, scanned for words only
    the English catalogue has (the names of players and the question deck's own text
    aside: the German deck is data of its own)."""
    pygame.display.init()
    pygame.font.init()
    english = _english_only_words()
    board = load_board()
    allowed = {w.lower() for c in board.countries for w in re.findall(r"\w+", board.name(c.id, "de"))}
    i18n.set_language("de")
    found: list[str] = []
    for name, paint in [*shell_screens(), *game_screens()]:
        drawn: list[TextDrawn] = []
        with record_text(drawn.append):
            paint(pygame.Surface((1280, 720)))
        deck = _deck_words(name)
        for d in drawn:
            words = {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", d.message)}
            bad = words & english - allowed - deck
            if bad:
                found.append(f"{name}: {d.message!r} ({', '.join(sorted(bad))})")
    assert not found, "\n".join(found)


def _deck_words(screen: str) -> set[str]:
    """The words of the longest card of the deck the Umtata moments play with: until the
    deck loader chooses by language it is an English card (deck data, not the screens')."""
    if not screen.startswith("umtata/"):
        return set()
    from table.games.base import GameSetup
    from table.games.umtata.engine import deck_of

    deck = deck_of(GameSetup("umtata", stations=(0, 1), options={"language": "de"}))
    longest = max(deck, key=lambda q: len(q.text))
    texts = [longest.text, longest.explain]
    return {w.lower() for t in texts for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", t)}


def _lobby_table(language: str = "en") -> tuple[object, object, object]:
    from table.common.config import TableConfig
    from table.loop.app import ScriptedInputs, Table
    from table.play.clock import VirtualClock
    from table.play.gamedata import game_options

    pygame.display.init()
    pygame.font.init()
    config = TableConfig(stations=4, language=language)
    clock = VirtualClock(100.0)
    inputs = ScriptedInputs()
    table = Table(config, clock, pygame.Surface((1280, 720)), None, inputs=[inputs], seed_source=lambda: 3,
                  game_options=game_options(config))
    return table, clock, inputs


def _play(table: object, clock: object, inputs: object, *actions: object, seconds: float = 1.0) -> None:
    from table.games.base import Action

    start = clock.now  # type: ignore[attr-defined]
    inputs.add(*(Action(a.kind, start + a.t, a.station, a.value) for a in actions))  # type: ignore[attr-defined]
    while clock.now < start + seconds:  # type: ignore[attr-defined]
        clock.advance(1 / 30)  # type: ignore[attr-defined]
        table.step(clock.now)  # type: ignore[attr-defined]


def _texts(table: object, clock: object) -> list[str]:
    drawn: list[TextDrawn] = []
    with record_text(drawn.append):
        table.draw(clock.now, force=True)  # type: ignore[attr-defined]
    return [d.message for d in drawn]


@pytest.mark.heavy
def test_the_table_starts_in_table_toml_language_and_the_lobby_knob_switches_every_screen_at_once() -> None:
    from table.games.base import Action

    table, clock, inputs = _lobby_table("de")
    assert i18n.language() == "de"
    assert "Der Spieltisch" in _texts(table, clock)
    lobby = table.lobby  # type: ignore[attr-defined]
    line = lobby._lines().index("language")
    # A knob turn to the language line and a push: English at once, in the lobby's picture.
    _play(table, clock, inputs, Action("turn", 0.1, 1, {"delta": line}), Action("push", 0.2, 1))
    assert i18n.language() == "en"
    _play(table, clock, inputs, seconds=0.2)  # the next frames repaint what the language changed
    assert "The game table" in _texts(table, clock)
    picture = pygame.image.tobytes(table.surface, "RGB")  # type: ignore[attr-defined]
    table.draw(clock.now, force=True)  # type: ignore[attr-defined]
    assert pygame.image.tobytes(table.surface, "RGB") == picture  # type: ignore[attr-defined]
    # Back to German, choose Umtata, two players, start: the game is German from its first frame.
    _play(table, clock, inputs, Action("push", 0.1, 1))
    assert i18n.language() == "de"
    umtata = lobby._lines().index("game:umtata")
    _play(table, clock, inputs, Action("turn", 0.1, 1, {"delta": umtata - line}), Action("push", 0.2, 1),
          Action("press", 0.8, 0), Action("press", 0.9, 1),
          Action("turn", 1.0, 1, {"sector": 15, "sectors": 16}), Action("push", 1.1, 1), seconds=1.5)
    session = table.session  # type: ignore[attr-defined]
    assert session is not None and session.engine.name == "umtata"
    assert session.setup.options["language"] == "de"  # the deck follows the language (journaled with the game)
    texts = " ".join(_texts(table, clock))
    assert "Runde 1" in texts and "Round 1" not in texts
    assert "NORD" not in texts  # the map's words are in its picture, not lines of text
    assert "Tipp" in texts or "drehen" in texts


def test_umtata_options_carry_the_table_language() -> None:
    from table.common.config import TableConfig
    from table.play.gamedata import game_options, option_problems

    assert game_options(TableConfig(language="de"))["umtata"]["language"] == "de"
    assert "language" not in game_options(TableConfig())["ubongo"]
    assert option_problems(TableConfig(language="de")) == []


def test_the_speech_voice_follows_the_language(tmp_path: object) -> None:
    from pathlib import Path

    from table.display.games.umtata.speech import QuestionSpeaker, SpeechSettings, settings_problems

    spoken: list[list[str]] = []
    speaker = QuestionSpeaker(SpeechSettings(), which=lambda name: "/usr/bin/espeak-ng",
                              runner=lambda argv: spoken.append(list(argv)))
    view = {"game": "umtata", "phase": "guess", "round": 1, "question": {"text": "Umtata liegt am Meer."}}
    i18n.set_language("de")
    assert speaker.on_view(view)
    assert spoken[-1][:3] == ["/usr/bin/espeak-ng", "-v", "de"]
    i18n.set_language("en")
    assert speaker.on_view({**view, "round": 2})
    assert spoken[-1][2] == "en"
    # An owner's file sets each language's voice; the one voice of an older file reads English.
    path = Path(str(tmp_path)) / "speech.toml"
    path.write_text('voice_de = "de+f3"\nvoice = "en-gb"\n', encoding="utf-8")
    settings, problems = settings_problems(path)
    assert problems == [] and settings.voice_for("de") == "de+f3" and settings.voice_for("en") == "en-gb"
    path.write_text('voice_fr = "fr"\n', encoding="utf-8")
    assert "did you mean" in settings_problems(path)[1][0]


def test_selftest_prompts_speak_the_table_language_and_results_stay_english() -> None:
    from table.commands.selftest import SelfTest

    said: list[str] = []
    i18n.set_language("de")
    test = SelfTest(None, 1, ["encoder"], None, say=lambda step, text: said.append(text), timeout=0.01,
                    display=lambda confirm: confirm("Does the display show seven colour bars ({size})?", size="4x3"))
    results = test.run(["stations", "display"])
    assert said[0] == "Platz 1: den Buzzer drücken (innerhalb von 0.01 s)"
    assert said[-1] == "Zeigt der Bildschirm sieben Farbbalken (4x3)? Ein Buzzer heißt ja, ein Drehknopf heißt nein."
    # The result table is for the installer's terminal: English names, as before.
    assert [r.name for r in results][:2] == ["station 1 press", "station 1 turn clockwise"]
    assert results[-1].name == "Does the display show seven colour bars (4x3)?"
