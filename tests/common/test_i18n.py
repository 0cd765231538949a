"""The table's languages: the shared catalogue and each game's complete and consistent
with their source, the compiled catalogue read by gettext, the lobby's language line
switching every screen at once, German screens free of English words."""

from __future__ import annotations

import gettext
import io
import os
import re
import string
from functools import cache

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import own_packages
import pygame
import pytest
from display.textfit import game_screens, shell_screens
from own_packages import catalogue_sources

from table.common import i18n
from table.common.config import ConfigError, parse_config
from table.common.pofile import Entry, extract_file, mo_bytes, parse_po
from table.display.theme import TextDrawn, record_text

Key = tuple[str | None, str]


@cache
def _source_messages(package: str | None) -> dict[Key, Entry]:
    """Every message marked in the modules whose words ``package``'s catalogue holds
    (the shared catalogue's: the shared code; a game's: its own packages)."""
    found: dict[Key, Entry] = {}
    for path in catalogue_sources().get(package, []):
        for e in extract_file(path, path.name):
            found.setdefault(e.key, e)
    return found


def _catalogue(package: str, code: str) -> dict[Key, Entry]:
    return {e.key: e for e in own_packages.catalogue(package, code)}


def _catalogues(code: str) -> dict[str, dict[Key, Entry]]:
    """Every catalogue of ``code`` by package: the shared one first, then each game's."""
    return {package: {e.key: e for e in entries} for package, entries in own_packages.catalogues(code).items()}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_every_message_of_the_source_is_translated_with_the_same_fields(code: str) -> None:
    """Each catalogue holds exactly the messages its modules mark: the shared one the
    shared code's, each game's its own packages' (a game's words are never the shared
    catalogue's business)."""
    unowned = sorted(m for _, m in _source_messages(None))
    assert not unowned, f"a game without a catalogue marks messages (give its Game a catalogue): {unowned}"
    total = 0
    for package, catalogue in _catalogues(code).items():
        source = _source_messages(package)
        total += len(source)
        missing = sorted(m for _, m in set(source) - set(catalogue))
        assert not missing, f"{package}: run tools/i18n/update_catalogues.py and translate: {missing}"
        stale = sorted(m for _, m in set(catalogue) - set(source))
        assert not stale, f"{package}: messages its source no longer has: {stale}"
        for entry in catalogue.values():
            assert entry.translated, f"{package} {code}: untranslated: {entry.msgid!r}"
            wanted = _fields(entry.msgid) | _fields(entry.plural or "")
            for form in entry.msgstr:
                # A translation that names another field would fail when the screen formats it.
                assert _fields(form) <= wanted, f"{package} {code}: {entry.msgid!r} -> {form!r}"
    assert total > 300


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_a_message_in_several_catalogues_reads_the_same_in_each(code: str) -> None:
    """The shared catalogue is consulted first, so a game's different translation of the
    same message would never show: the same message is worded the same everywhere."""
    seen: dict[Key, tuple[str, Entry]] = {}
    differ = []
    for package, catalogue in _catalogues(code).items():
        for key, entry in catalogue.items():
            first = seen.setdefault(key, (package, entry))
            if (first[1].msgstr, first[1].plural) != (entry.msgstr, entry.plural):
                differ.append(f"{entry.msgid!r}: {first[0]} {first[1].msgstr} but {package} {entry.msgstr}")
    assert not differ, "\n".join(differ)


def test_every_games_catalogue_is_consulted() -> None:
    from table.games import games

    names = {game.catalogue for game in games().values() if game.catalogue is not None}
    assert len(names) >= 4
    i18n.set_language("de")
    for package in names:
        entry = next(e for e in _catalogue(package, "de").values() if e.plural is None and e.context is None)
        assert i18n._(entry.msgid) == entry.msgstr[0], package


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


GAME_WORDS = {"tataaa", "demo", "ok", "dino", "mamm", "mm", "bb", "kb", "s", "x", "nr"}
"""Words a German screen may show although the English catalogue has them besides the
games' titles: calls, abbreviations and units."""


def _title_words() -> set[str]:
    """Every word of every registered game's title (a title is the same in every language)."""
    from table.games import registry

    return {w.lower() for engine in registry().values() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", engine.title)}


def _english_only_words() -> set[str]:
    en = [e for catalogue in _catalogues("en").values() for e in catalogue.values()]
    de = [e for catalogue in _catalogues("de").values() for e in catalogue.values()]

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", re.sub(r"\{[^}]*\}", " ", text))}

    english = set().union(*(words(e.msgid) | words(e.plural or "") for e in en))
    german = set().union(*(words(f) for e in de for f in e.msgstr))
    return english - german - GAME_WORDS - _title_words()


QUOTES_THE_CHECK = "shell/menu-settings-notice"
"""The settings notice quotes the config check's own sentences, as `table check-config`
prints them (in English, naming the file, key and value to change); each names a
``.toml`` file. The notice's own words around them are translated and scanned."""


@pytest.mark.heavy
def test_no_german_screen_shows_an_english_word() -> None:
    """Every line drawn on every screen of every game in German, scanned for words only
    the English catalogues have."""
    pygame.display.init()
    pygame.font.init()
    english = _english_only_words()
    i18n.set_language("de")
    found: list[str] = []
    for name, paint in [*shell_screens(), *game_screens()]:
        drawn: list[TextDrawn] = []
        with record_text(drawn.append):
            paint(pygame.Surface((1280, 720)))
        for d in drawn:
            if name == QUOTES_THE_CHECK and ".toml" in d.message:
                continue
            words = {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", d.message)}
            bad = words & english
            if bad:
                found.append(f"{name}: {d.message!r} ({', '.join(sorted(bad))})")
    assert not found, "\n".join(found)


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
    from table.games import registry
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
    # Back to German, choose a game that takes the language (its questions, say), two
    # players, start: the game is German from its first frame, and its setup carries the
    # language (journaled with the game).
    _play(table, clock, inputs, Action("push", 0.1, 1))
    assert i18n.language() == "de"
    game = next(g for g in registry() if "language" in (registry()[g].option_names or ()))
    chosen = lobby._lines().index(f"game:{game}")
    _play(table, clock, inputs, Action("turn", 0.1, 1, {"delta": chosen - line}), Action("push", 0.2, 1),
          Action("press", 0.8, 0), Action("press", 0.9, 1),
          Action("turn", 1.0, 1, {"sector": 15, "sectors": 16}), Action("push", 1.1, 1), seconds=1.5)
    session = table.session  # type: ignore[attr-defined]
    assert session is not None and session.engine.name == game
    assert session.setup.options["language"] == "de"
    texts = " ".join(_texts(table, clock))
    assert "Runde 1" in texts and "Round 1" not in texts
    english = {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", texts)} & _english_only_words()
    assert not english, english
