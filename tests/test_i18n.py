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
from textfit import game_screens, shell_screens

from table import i18n
from table.config import ConfigError, parse_config
from table.display.theme import TextDrawn, record_text
from table.games.umtata.board import load_board
from table.pofile import Entry, extract_source, mo_bytes, parse_po


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
    text = (resources.files("table") / "locale" / f"{code}.po").read_text(encoding="utf-8")
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
    assert i18n.ngettext("{n} chip", "{n} chips", 2).format(n=2) == "2 Plättchen"
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


GAME_WORDS = {"ubongo", "shimo", "ugah", "tataaa", "umtata", "wo", "ist", "bitte", "demo", "ok", "dino", "mamm",
              "mm", "bb", "kb", "s", "x", "nr"}
"""Words a German screen may show although the English catalogue has them: game titles,
calls, abbreviations and units."""


def _english_only_words() -> set[str]:
    en = _catalogue("en")
    de = _catalogue("de")

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", re.sub(r"\{[^}]*\}", " ", text))}

    english = set().union(*(words(e.msgid) | words(e.plural or "") for e in en.values()))
    german = set().union(*(words(f) for e in de.values() for f in e.msgstr))
    return english - german - GAME_WORDS


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
