"""The words players read, in every catalogue (the shared one and each game's): counts in
the right number in both languages, the German rulebook's terms and one form of address
(docs/languages.md)."""

from __future__ import annotations

import re

import pytest
from own_packages import all_messages

from table.common import i18n
from table.common.pofile import Entry


def _catalogue(code: str) -> list[Entry]:
    """Every message players may read in ``code``: the shared catalogue's and each game's."""
    return all_messages(code)


@pytest.fixture(autouse=True)
def _english_after() -> object:
    yield
    i18n.set_language("en")


@pytest.mark.parametrize(("code", "n", "wanted"), [
    ("en", 0, "0 points"), ("en", 1, "1 point"), ("en", 2, "2 points"),
    ("de", 0, "0 Punkte"), ("de", 1, "1 Punkt"), ("de", 2, "2 Punkte"),
])
def test_a_count_takes_the_singular_only_for_one(code: str, n: int, wanted: str) -> None:
    i18n.set_language(code)
    assert i18n.ngettext("{n} point", "{n} points", n).format(n=n) == wanted


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_every_plural_message_has_two_forms_chosen_by_the_count(code: str) -> None:
    i18n.set_language(code)
    plurals = [e for e in _catalogue(code) if e.plural is not None]
    assert len(plurals) > 10
    for e in plurals:
        assert len(e.msgstr) == 2 and all(e.msgstr), e.msgid
        assert i18n.ngettext(e.msgid, e.plural or "", 1) == e.msgstr[0]
        for n in (0, 2):
            assert i18n.ngettext(e.msgid, e.plural or "", n) == e.msgstr[1]


COUNTED = r"\{(?:n|points|cards|gems|chips|count|rows|rounds|seconds|pieces)\} [a-z]{2,}"
"""A number field right before a countable noun: such a message must be a plural one."""


def test_no_message_puts_a_number_before_a_noun_without_ngettext() -> None:
    single = [e.msgid for e in _catalogue("en") if e.plural is None and re.search(COUNTED, e.msgid)]
    assert not single, f"use ngettext for: {single}"


def _german_forms() -> list[str]:
    return [form for e in _catalogue("de") for form in e.msgstr]


def test_german_uses_the_rulebook_terms() -> None:
    """Gems are Edelsteine, boards Legetafeln, pieces Legeteile, never the bare words."""
    bare = re.compile(r"(?<![A-Za-zÄÖÜäöüß])(Steine?|Tafeln?|Teilen?|Teile|Puzzles?)(?![a-zäöüß])")
    found = [f for f in _german_forms() if bare.search(f) or "Puzzle" in f]
    assert not found, found


ADDRESS = re.compile(r"\b(ihr|[Ee]uch|[Ee]uer|[Ee]ure[nmrs]?|seid|habt|Sie|Ihnen|Ihre?[nmrs]?)\b")
"""The words of the plural "ihr" and the polite "Sie"."""

SHE = re.compile(r"(?:^|(?<=[.!?:;] ))Sie (?!sind\b)(?=[A-Za-zÄÖÜäöüß]*[^n\W]\b)")
"""A "Sie" that is "she": at the start of a sentence (where "sie" is written "Sie") and
followed by a verb in the third person singular (``Sie hat gewonnen``, ``Sie ist dran``),
not by the plural that the polite form takes (``Sie haben``, ``Sie sind``). A verb form
ending in "n" counts as the plural: "Sie kann" is refused too, the price of a rule
without a dictionary."""


def speaks_politely_or_to_many(form: str) -> bool:
    """Whether a German line addresses the player as "ihr" or "Sie" (a "Sie" that is "she"
    excepted, :data:`SHE`)."""
    return ADDRESS.search(SHE.sub("", form)) is not None


@pytest.mark.parametrize(("form", "refused"), [
    ("Du bist dran", False), ("Sie hat gewonnen", False), ("Gut gemacht. Sie ist dran!", False),
    ("Drücken Sie den Buzzer", True), ("Sie haben gewonnen", True), ("Sie sind dran", True),
    ("Ihr seid dran", True), ("Eure Karten", True), ("Wer ist es? Sie drücken jetzt", True),
])
def test_the_form_of_address_check_tells_she_from_the_polite_sie(form: str, refused: bool) -> None:
    assert speaks_politely_or_to_many(form) is refused


def test_german_speaks_to_players_with_du_only() -> None:
    """One form of address (docs/languages.md): "du" to the player a line is for, the
    infinitive for instructions; never "ihr" or "Sie"."""
    found = [f for f in _german_forms() if speaks_politely_or_to_many(f)]
    assert not found, found


def _every_text() -> list[tuple[str, str]]:
    """Every text of every catalogue with its language: the English ids and translations,
    and the German translations (a German catalogue's ids are the English ones)."""
    out = []
    for code in i18n.LANGUAGES:
        for e in _catalogue(code):
            if not e.msgid:
                continue  # the header
            texts = (e.msgid, e.plural or "", *e.msgstr) if code == "en" else tuple(e.msgstr)
            out += [(code, text) for text in texts if text]
    return out


@pytest.mark.parametrize(("what", "pattern", "languages"), [
    ("a double space", re.compile(r"\S  +\S"), ("en", "de")),
    ("an ampersand for 'and'", re.compile(r"&"), ("en", "de")),
    ("a letter x for 'times'", re.compile(r"(?:\d|\})\s?x\b|\bx\s?(?:\d|\{)"), ("en", "de")),
    ("a hyphen between spaces for a dash (write –)", re.compile(r" - "), ("de",)),
    ("a comma before 'oder'", re.compile(r", oder\b"), ("de",)),
])
def test_no_catalogue_has_typewriter_typography(
    what: str, pattern: re.Pattern[str], languages: tuple[str, ...]
) -> None:
    """The mechanical slips, in every catalogue: "{name}  (reader)", "Ada & Bo", "{n}x",
    "Runde 3 - liest", "Neu würfeln, oder ..." (docs/languages.md)."""
    found = sorted({text for code, text in _every_text() if code in languages and pattern.search(text)})
    assert not found, f"{what}: {found}"


def test_the_typography_check_catches_each_slip() -> None:
    slips = {"{name}  (reader)": r"\S  +\S", "Ada & Bo": "&", "{n} card x 3": r"(?:\d|\})\s?x\b|\bx\s?(?:\d|\{)",
             "sand turned {flips}x": r"(?:\d|\})\s?x\b|\bx\s?(?:\d|\{)", "Runde 1 - liest": " - ",
             "Neu würfeln, oder Buzzer": r", oder\b"}
    for text, pattern in slips.items():
        assert re.search(pattern, text), text
    assert not re.search(r"(?:\d|\})\s?x\b|\bx\s?(?:\d|\{)", "Fix the next box 2 of 3")
