"""Country names in sentences: every sentence of the catalogues with a ``{country}`` field,
formatted with each of the 48 countries, shows the name with the article the board's
grammar table gives it ("Die Lösung: die Schweiz"), and the grammar table itself is right."""

from __future__ import annotations

import re
import string
from importlib import resources

import pytest

from table.common import i18n
from table.common.pofile import parse_po
from table.games.umtata.board import BoardError, load_board, parse_board

DEFINITE = {
    "de": {"masculine": ("der", "dem"), "feminine": ("die", "der"), "neuter": ("das", "dem"), "plural": ("die", "den")},
    "en": {gender: ("the", "the") for gender in ("masculine", "feminine", "neuter", "plural")},
}
"""The definite article in the nominative and the dative, by gender."""

WITH_ARTICLE = {
    "de": {"ch": "die Schweiz", "tr": "die Türkei", "sk": "die Slowakei", "ua": "die Ukraine",
           "md": "die Republik Moldau", "nl": "die Niederlande", "fo": "die Färöer", "xk": "das Kosovo"},
    "en": {"nl": "the Netherlands", "fo": "the Faroe Islands", "ie": "the Republic of Ireland"},
}
"""The names of the board that take an article in a sentence, known independently of the
board file (so a missing or wrong grammar entry fails here)."""


def _sentences(code: str) -> list[str]:
    """Every translation in ``code`` that has a ``{country}`` field (the game's own catalogue)."""
    text = (resources.files("table.games.umtata") / "locale" / f"{code}.po").read_text(encoding="utf-8")
    out = []
    for entry in parse_po(text, f"{code}.po"):
        for form in entry.msgstr:
            if "country" in {f for _, f, _, _ in string.Formatter().parse(form) if f}:
                out.append(form)
    return out


@pytest.mark.parametrize("code", ["de", "en"])
def test_the_grammar_table_gives_the_article_its_gender_wants(code: str) -> None:
    board = load_board()
    grammar = board.words[code].grammar
    assert {cid: g.forms["nominative"] for cid, g in grammar.items()} == WITH_ARTICLE[code]
    for cid, g in grammar.items():
        nominative, dative = DEFINITE[code][g.gender]
        name = board.name(cid, code)
        assert g.forms["nominative"] == f"{nominative} {name}", cid
        # A plural name takes -n in the German dative ("in den Niederlanden", "auf den Färöern").
        ending = "n" if code == "de" and g.gender == "plural" else ""
        assert g.forms["dative"] == f"{dative} {name}{ending}", cid


def test_sentence_forms_in_both_cases() -> None:
    board = load_board()
    assert board.in_sentence("ch", "de") == "die Schweiz"
    assert board.in_sentence("ch", "de", "dative") == "der Schweiz"
    assert board.in_sentence("nl", "de", "dative") == "den Niederlanden"
    assert board.in_sentence("xk", "de", "dative") == "dem Kosovo"
    assert board.in_sentence("de", "de", "dative") == "Deutschland"
    assert board.in_sentence("nl", "en") == "the Netherlands"
    assert board.name("md", "de") == "Republik Moldau" and board.label("md", "de") == "Moldau"


@pytest.mark.parametrize("code", ["de", "en"])
def test_every_sentence_with_a_country_is_right_for_all_48(code: str) -> None:
    from table.display.games.umtata.screen import _country_in_sentence
    from table.games.contract import games

    games()  # as at the table: finding the games adds each game's own catalogue of words
    board = load_board()
    assert len(board.countries) == 48
    sentences = _sentences(code)
    assert any(s.startswith(("Umtata was", "Die Lösung")) for s in sentences), sentences
    i18n.set_language(code)
    try:
        for sentence in sentences:
            for c in board.countries:
                fields = {f: "…" for _, f, _, _ in string.Formatter().parse(sentence) if f}
                line = sentence.format(**{**fields, "country": _country_in_sentence(c.id)})
                name = board.name(c.id, code)
                wanted = WITH_ARTICLE[code].get(c.id, name)
                assert wanted in line, f"{line!r}: wanted {wanted!r}"
                if c.id in WITH_ARTICLE[code]:
                    # Never the bare name where an article belongs ("war Schweiz").
                    bare = re.sub(re.escape(wanted), "", line)
                    assert not re.search(rf"\b{re.escape(name)}\b", bare), line
        i18n.set_language("de")
        assert i18n._("Umtata was {country}: {explanation}").format(
            country=_country_in_sentence("ch"), explanation="…") == "Die Lösung: die Schweiz – …"
    finally:
        i18n.set_language("en")


def test_a_bad_grammar_entry_is_refused_in_one_sentence() -> None:
    base = {"country": [{"id": "ch", "name": "Switzerland", "region": "west", "colour": "green"}]}
    for entry, words in (({"nominative": "die Schweiz"}, "gender must be one of"),
                         ({"gender": "feminine"}, "needs a nominative"),
                         ({"gender": "feminine", "nominative": "die Schweiz", "genitive": "der"}, "unknown key"),
                         ("die", "must be a table")):
        with pytest.raises(BoardError, match=words):
            parse_board({**base, "language": {"de": {"grammar": {"ch": entry}}}})
    with pytest.raises(BoardError, match="unknown country 'zz'"):
        parse_board({**base, "language": {"de": {"grammar": {"zz": {"gender": "neuter", "nominative": "das Z"}}}}})


def test_the_final_reason_says_the_target_was_reached() -> None:
    """A winner with 17 stands under "reached the target of 16 points", not "16 points
    reached"; the journaled reason keeps the engine's words."""
    from table.display.games.umtata.screen import RENDERER
    from table.games.contract import games

    games()
    reason = {"id": "reached {target} points", "params": {"target": 16}}
    assert RENDERER.final_reason(reason) == "reached the target of 16 points"
    i18n.set_language("de")
    try:
        assert RENDERER.final_reason(reason) == "Ziel von 16 Punkten erreicht"
    finally:
        i18n.set_language("en")
    assert RENDERER.final_reason({"id": "ended from the table menu", "params": {}}) == "ended from the table menu"
