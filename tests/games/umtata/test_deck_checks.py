"""The decks' languages and the checks of ``table deck check`` / ``table deck review``:
a card naming its answer, two cards on the same fact, one owner file alone, the review."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.cli import main
from table.common import datafiles
from table.common.config import load_config
from table.games.base import GameSetup, SetupError
from table.games.umtata.board import BoardError, load_board, parse_board
from table.games.umtata.deck import (
    LANGUAGES,
    MIN_DECK,
    MIN_PER_COUNTRY,
    PointerError,
    Pointers,
    Question,
    card_id,
    check_deck,
    check_questions,
    deck_files,
    default_deck,
    load_pointers,
    parse_pointers,
    similar_pairs,
)
from table.games.umtata.engine import ENGINE
from table.play.gamedata import game_options


def write(path: Path, body: str, language: str | None = None) -> Path:
    head = f'language = "{language}"\n' if language else ""
    path.write_text(head + "question = [\n" + body + "]\n", encoding="utf-8")
    return path


def card(country: str, text: str, topic: str = "culture", explain: str = "Because.", language: str = "en") -> Question:
    return Question(country, text, topic, explain, source=f"test {text[:20]}", language=language)


# -- the decks and their languages ----------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_shipped_deck_is_complete_and_good(language: str) -> None:
    report = check_deck(deck_files(datafiles.defaults_dir() / "umtata"), language=language)
    assert report.ok, report.problems
    assert len(report.questions) >= MIN_DECK
    assert {q.language for q in report.questions} == {language}
    per_country = {c.id: 0 for c in load_board().countries}
    for q in report.questions:
        per_country[q.country] += 1
    assert min(per_country.values()) >= MIN_PER_COUNTRY


def test_the_deck_in_use_follows_the_language() -> None:
    english, german = default_deck(), default_deck("de")
    assert default_deck("en") == english
    assert all(q.language == "en" for q in english) and all(q.language == "de" for q in german)
    assert any(q.text == "Umtatas Hauptstadt ist Prag." for q in german)
    assert not {q.text for q in english} & {q.text for q in german}
    with pytest.raises(ValueError, match="no Umtata deck in language 'fr'"):
        default_deck("fr")


def test_the_engine_plays_the_deck_of_its_language() -> None:
    state = ENGINE.new_game(GameSetup("umtata", stations=(0, 1), options={"language": "de"}), seed=3)
    assert ENGINE.question(state).language == "de"
    state = ENGINE.new_game(GameSetup("umtata", stations=(0, 1)), seed=3)
    assert ENGINE.question(state).language == "en"
    with pytest.raises(SetupError, match="no Umtata deck in language 'fr'"):
        ENGINE.new_game(GameSetup("umtata", stations=(0, 1), options={"language": "fr"}), seed=3)


def test_the_table_language_reaches_the_umtata_options() -> None:
    config = load_config()
    assert game_options(config)["umtata"]["language"] == "en"
    options = game_options(config, language="de")
    assert options["umtata"]["language"] == "de"
    assert "language" not in options["ubongo"]  # only engines that take it


def test_an_owners_file_says_its_language(tmp_path: Path) -> None:
    (tmp_path / "umtata").mkdir()
    write(tmp_path / "umtata" / "questions-ours.toml",
          '{ country = "mt", topic = "culture", text = "Umtata ist, wo wir uns trafen.", explain = "Malta." },\n',
          language="de")
    write(tmp_path / "umtata" / "questions-mine.toml",
          '{ country = "mt", topic = "culture", text = "Umtata is where we met.", explain = "Malta." },\n')
    datafiles.use_config_dir(tmp_path)
    assert "Umtata ist, wo wir uns trafen." in {q.text for q in default_deck("de")}
    assert "Umtata ist, wo wir uns trafen." not in {q.text for q in default_deck("en")}
    assert "Umtata is where we met." in {q.text for q in default_deck("en")}  # no key: English


def test_a_file_in_an_unknown_or_contradicting_language_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = '{ country = "mt", topic = "culture", text = "Umtata is small.", explain = "Malta." },\n'
    write(tmp_path / "questions-fr.toml", body, language="fr")
    write(tmp_path / "questions-x.de.toml", body)  # named German, says nothing: would join the English deck
    assert main(["deck", "check", str(tmp_path / "questions-fr.toml"), str(tmp_path / "questions-x.de.toml")]) == 2
    err = capsys.readouterr().err
    assert "questions-fr.toml: unknown language 'fr' (languages: en, de)" in err
    assert "questions-x.de.toml: the name says 'de' but the file says language = 'en'" in err
    assert "Traceback" not in err


# -- a card that names its answer -----------------------------------------------------


def test_a_card_naming_its_answer_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path / "questions-bad.toml",
                '{ country = "tr", topic = "food", text = "Lokum, better known as Turkish delight, comes from Umtata.",'
                ' explain = "Turkey." },\n'
                '{ country = "fi", text = "The Flying Finn ran for Umtata.", topic = "sport", explain = "Finland." },\n'
                '{ country = "lu", text = "Dutch caravans cross Umtata every summer.", topic = "culture",'
                ' explain = "ok" },\n')
    german = write(tmp_path / "questions-bad.de.toml",
                   '{ country = "de", topic = "food", text = "Die Weißwurst ist typisch deutsche Küche aus Umtata.",'
                   ' explain = "Deutschland." },\n'
                   '{ country = "hu", topic = "language", text = "In Umtata spricht man Magyarul.", explain = "x" },\n',
                   language="de")
    assert main(["deck", "check", str(bad), str(german)]) == 2
    err = capsys.readouterr().err
    assert "questions-bad.toml question 1: the question gives its answer away ('Turkish delight')" in err
    assert "questions-bad.toml question 2: the question gives its answer away ('Finn')" in err
    assert "question 3" not in err  # a neighbour's adjective is a fair clue
    assert "questions-bad.de.toml question 1: the question gives its answer away ('deutsche')" in err
    assert "questions-bad.de.toml question 2: the question gives its answer away ('Magyarul')" in err


def test_the_board_name_counts_and_the_words_are_whole_words() -> None:
    board = load_board()
    named = check_questions([card("cz", "Umtata is the Czech Republic.")], board, complete=False)
    assert any("gives its answer away ('Czech Republic')" in p for p in named.problems)
    # "Turku" is a Finnish city, not the word "Turk": no false alarm for whole-word lists.
    fine = check_questions([card("tr", "No ferry sails from Turku to Umtata.")], board, complete=False)
    assert fine.ok


def test_a_card_naming_its_answers_capital_or_a_word_made_from_it_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path / "questions-bad.toml",
                '{ country = "li", topic = "culture", text = "Umtata\'s prince lives above Vaduz.", explain = "x" },\n'
                '{ country = "ua", topic = "food", text = "Chicken Kiev comes from Umtata.", explain = "x" },\n'
                '{ country = "de", topic = "history", text = "The Berliners of Umtata tore down a wall.",'
                ' explain = "x" },\n'
                '{ country = "cz", topic = "capital", text = "Umtata\'s capital Prague has a castle quarter.",'
                ' explain = "x" },\n'
                '{ country = "sk", topic = "history", text = "Umtata split from its neighbour, ruled from Prague.",'
                ' explain = "x" },\n')
    german = write(tmp_path / "questions-bad.de.toml",
                   '{ country = "cz", topic = "history", text = "Der Prager Frühling endete 1968 in Umtata.",'
                   ' explain = "x" },\n'
                   '{ country = "at", topic = "history", text = "Der Wiener Kongress tagte in Umtata.",'
                   ' explain = "x" },\n'
                   '{ country = "ro", topic = "sport", text = "Steaua Bukarest ist Umtatas Klub.", explain = "x" },\n'
                   '{ country = "lv", topic = "geography", text = "Jūrmala liegt an der Rigaer Bucht in Umtata.",'
                   ' explain = "x" },\n'
                   '{ country = "it", topic = "history", text = "Umtata bekam Rom erst 1870.", explain = "x" },\n',
                   language="de")
    assert main(["deck", "check", str(bad), str(german)]) == 2
    err = capsys.readouterr().err
    assert "questions-bad.toml question 1: the question names its answer's capital ('Vaduz')" in err
    assert "questions-bad.toml question 2: the question names its answer's capital ('Kiev')" in err
    assert "questions-bad.toml question 3: the question names its answer's capital ('Berliners')" in err
    assert "questions-bad.toml question 4" not in err  # a capital card is about the capital
    assert "questions-bad.toml question 5" not in err  # another country's capital is a fair clue
    for n, word in enumerate(("Prager", "Wiener", "Bukarest", "Rigaer", "Rom"), 1):
        assert f"questions-bad.de.toml question {n}: the question names its answer's capital ('{word}')" in err


def test_every_country_has_its_capital_in_both_languages() -> None:
    board = load_board()
    for language in LANGUAGES:
        missing = {c.id for c in board.countries} - set(board.capitals[language]) - {"lu", "mc"}
        assert not missing, f"{language}: no capital for {sorted(missing)}"
    # Luxembourg and Monaco share their name with their capital: the giveaways name it.
    assert not check_questions([card("lu", "Umtata's capital is Luxembourg.", topic="history")],
                               board, complete=False).ok
    with pytest.raises(BoardError, match=r"capitals\.en names unknown country 'xx'"):
        parse_board({"country": [], "capitals": {"en": {"xx": ["X"]}}}, derived_land=[])
    with pytest.raises(BoardError, match=r"capitals\.de\.cz must be a list of words"):
        parse_board({"country": [], "capitals": {"de": {"cz": "Prag"}}}, derived_land=[])


def test_bad_giveaway_lists_in_a_board_file_are_one_sentence() -> None:
    with pytest.raises(BoardError, match=r"giveaways\.en\.dk must be a list of words"):
        parse_board({"country": [], "giveaways": {"en": {"dk": "Danish"}}}, derived_land=[])
    with pytest.raises(BoardError, match=r"giveaways\.en names unknown country 'xx'"):
        parse_board({"country": [], "giveaways": {"en": {"xx": ["X"]}}}, derived_land=[])


# -- a card naming a major city, the language or the people of its answer -------------


def test_a_card_naming_a_major_city_or_the_language_of_its_answer_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path / "questions-bad.toml",
                '{ country = "it", topic = "food", text = "Pizza was born in Umtata\'s city of Naples.",'
                ' explain = "x" },\n'
                '{ country = "fi", topic = "language", text = "Umtata speaks a Finno-Ugric language.",'
                ' explain = "x" },\n'
                '{ country = "al", topic = "language", text = "Umtata\'s people call their language Shqip.",'
                ' explain = "x" },\n'
                '{ country = "cz", topic = "history", text = "Czechoslovakia split peacefully: Umtata was one half.",'
                ' explain = "x" },\n'
                '{ country = "hr", topic = "history", text = "The two halves split in 1993; Umtata is not one.",'
                ' explain = "x" },\n')
    german = write(tmp_path / "questions-bad.de.toml",
                   '{ country = "it", topic = "food", text = "Die Pizza kommt aus Neapel in Umtata.",'
                   ' explain = "x" },\n'
                   '{ country = "fi", topic = "language", text = "In Umtata spricht man eine finno-ugrische Sprache.",'
                   ' explain = "x" },\n'
                   '{ country = "pl", topic = "history", text = "Solidarność begann auf der Danziger Werft in Umtata.",'
                   ' explain = "x" },\n'
                   '{ country = "gl", topic = "people", text = "Die meisten Menschen in Umtata sind Inuit.",'
                   ' explain = "x" },\n',
                   language="de")
    assert main(["deck", "check", str(bad), str(german)]) == 2
    err = capsys.readouterr().err
    assert "questions-bad.toml question 1 (bad#001): the question names a major city of its answer ('Naples')" in err
    assert "questions-bad.toml question 2 (bad#002): the question names its answer's language ('Finno-Ugric')" in err
    assert "questions-bad.toml question 3 (bad#003): the question names its answer's language ('Shqip')" in err
    assert "questions-bad.toml question 4" in err  # "Czechoslovakia" gives the Czech Republic away
    assert "questions-bad.toml question 5" not in err  # "split" is a word, "Split" a city of Croatia
    assert ("questions-bad.de.toml question 1 (bad#001): the question names a major city of its answer ('Neapel')"
            in err)
    assert ("questions-bad.de.toml question 2 (bad#002): the question names its answer's language "
            "('finno-ugrische')" in err)
    assert ("questions-bad.de.toml question 3 (bad#003): the question names a major city of its answer "
            "('Danziger')" in err)
    assert "questions-bad.de.toml question 4 (bad#004): the question names its answer's people ('Inuit')" in err


def test_a_city_is_a_fair_clue_for_another_country() -> None:
    board = load_board()
    fair = [card("at", "Umtata's Mozart was not born in Naples."),  # Naples points at Italy, not Austria
            card("ee", "Umtata's language is close to the one spoken in Tampere."),
            card("de", "Umtata's Oktoberfest has a little sister in Venice.", language="de")]
    assert check_questions(fair, board, complete=False).ok


def test_a_reviewed_card_may_name_the_city_it_is_about() -> None:
    board = load_board()
    about = Question("it", "The cities of Naples and Milan are in Umtata.", "geography", "x",
                     source="questions-ours.toml question 3")
    assert card_id(about) == "ours#003"
    pointers = parse_pointers({"cities": {"en": {"it": ["Naples", "Milan*"]}}}, board)
    assert not check_questions([about], board, complete=False, pointers=pointers).ok
    allowed = parse_pointers({"cities": {"en": {"it": ["Naples", "Milan*"]}},
                              "allowed": {"en": {"ours#003": ["Naples", "Milan"]}}}, board)
    assert check_questions([about], board, complete=False, pointers=allowed).ok
    # Allowed for one word only: the other still counts; and only for that card and language.
    one = parse_pointers({"cities": {"en": {"it": ["Naples", "Milan*"]}},
                          "allowed": {"en": {"ours#003": ["Naples"]}, "de": {"ours#004": ["Milan"]}}}, board)
    report = check_questions([about], board, complete=False, pointers=one)
    assert report.problems == ("questions-ours.toml question 3 (ours#003): the question names a major city"
                               " of its answer ('Milan')",)


def test_the_shipped_giveaway_file_covers_every_country_and_its_exceptions_are_needed() -> None:
    board = load_board()
    pointers = load_pointers(board)
    for language in LANGUAGES:
        cities = pointers.words["cities"][language]
        assert {c.id for c in board.countries} <= set(cities), language
        assert pointers.words["languages"][language]["fi"]  # Finno-Ugric, finno-ugrisch
    # Every reviewed exception is a card of the shipped deck that names what it may name.
    shipped = {(q.language, card_id(q)): q for q in default_deck() + default_deck("de")}
    for language, cards in pointers.allowed.items():
        for cid, words in cards.items():
            q = shipped.get((language, cid))
            assert q is not None, f"{language} {cid}: no such card"
            for word in words:
                assert word.lower() in q.text.lower(), f"{language} {cid} does not name {word!r}"
            assert not check_questions([q], board, complete=False,
                                       pointers=Pointers(pointers.words, {})).ok, f"{cid} needs no exception"


@pytest.mark.parametrize(("data", "message"), [
    ({"towns": {}}, r"unknown table \[towns\]"),
    ({"cities": {"fr": {}}}, r"\[cities\.fr\] is no deck language"),
    ({"cities": {"en": {"xx": ["X"]}}}, r"cities\.en names unknown country 'xx'"),
    ({"languages": {"de": {"fi": "Suomi"}}}, r"languages\.de\.fi must be a list of words"),
])
def test_a_bad_giveaway_file_is_one_sentence(data: dict[str, object], message: str) -> None:
    with pytest.raises(PointerError, match=message):
        parse_pointers(data, load_board())


def test_an_unreadable_giveaway_file_is_a_problem_of_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "umtata").mkdir()
    (tmp_path / "umtata" / "giveaways.toml").write_text("[cities\n", encoding="utf-8")
    assert main(["deck", "check", "--config", str(tmp_path), "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "giveaways.toml: not valid TOML" in err and "Traceback" not in err


# -- two cards resting on the same fact ------------------------------------------------


def test_two_cards_on_the_same_fact_are_caught() -> None:
    """The issue's pairs, each put into the English deck (without that country's own cards):
    how much a word counts depends on how rare it is in the deck, as in a real check."""
    board = load_board()
    pairs = [
        (card("ba", "Divers jump from the rebuilt Old Bridge of Mostar in Umtata."),
         card("ba", "The city of Mostar, with its arched Old Bridge, is in Umtata.", topic="geography")),
        (card("xk", "Umtata declared independence from Serbia on 17 February 2008.", topic="history"),
         card("xk", "Umtata uses the euro without being in the EU; it declared independence in 2008.",
              topic="currency")),
        (card("mt", "Umtata's flag is white and red, with the George Cross in the upper corner.", topic="flag"),
         card("mt", "King George VI awarded the George Cross to the whole people of Umtata in 1942.",
              topic="history")),
    ]
    for a, b in pairs:
        rest = [q for q in default_deck() if q.country != a.country]
        report = check_questions([*rest, a, b], board, complete=False, pointers=Pointers())  # Mostar: a city
        assert len(report.problems) == 1, report.problems
        assert report.problems[0].startswith(f"{b.source}: rests on the same fact as {a.source} ("), (a, b)


def test_the_same_fact_check_does_not_flood() -> None:
    """Different facts about one country pass, and so does one fact about two countries."""
    questions = [
        card("it", "Umtata's capital is Rome.", topic="capital"),
        card("it", "The Leaning Tower of Pisa is in Umtata."),
        card("it", "Umtata won the football World Cup in 2006.", topic="sport"),
        card("it", "Umtata's longest river is the Po.", topic="geography"),
        card("ch", "Umtata issues its own franc, which it shares with a tiny neighbour.", topic="currency"),
        card("li", "Umtata, a principality, pays with its neighbour's franc.", topic="currency"),
    ]
    assert similar_pairs(questions) == []
    # In the shipped decks (above 1,200 cards) there is no pair left at all.
    shipped = check_deck(deck_files(datafiles.defaults_dir() / "umtata"))
    assert not [p for p in shipped.problems if "same fact" in p]


# -- one owner file alone, and the review ---------------------------------------------


def test_one_owner_file_is_checked_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path / "questions-ours.toml",
                 '{ country = "mt", topic = "culture", text = "Umtata is where we met in 2019.",'
                 ' explain = "Malta." },\n')
    assert main(["deck", "check", str(good)]) == 0
    captured = capsys.readouterr()
    assert "1 good questions in 1 file(s)" in captured.out and "the deck is good" in captured.out
    assert "answers only" not in captured.err and "at least 400" not in captured.err
    # Against the deck it joins: a copy of a shipped card and a card on a shipped card's fact.
    bad = write(tmp_path / "questions-again.toml",
                '{ country = "fr", topic = "capital", text = "Umtata\'s capital is Paris!", explain = "Paris." },\n'
                '{ country = "ba", topic = "culture", text = "Divers jump from the rebuilt Old Bridge in Umtata.",'
                ' explain = "Bosnia." },\n')
    assert main(["deck", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "questions-again.toml question 1: duplicate question (same as questions-capitals.toml" in err
    assert "questions-again.toml question 2: rests on the same fact as questions-food-culture.toml" in err
    assert err.count("\n  ") == 2  # only the file's own problems, none of the 49 count lines
    # Asked for German, an English file says so instead of passing unchecked.
    assert main(["deck", "check", "--lang", "de", str(good)]) == 2
    assert "questions-ours.toml: is written in 'en', not in 'de'" in capsys.readouterr().err


def test_review_prints_each_card_beside_its_neighbours(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deck", "review", "--lang", "de", "--country", "lu"]) == 0
    out = capsys.readouterr().out
    assert "Umtata grenzt an Belgien, Frankreich und Deutschland und sonst an nichts." in out
    assert "answer: Luxembourg; does it fit a neighbour too? Belgium, France, Germany" in out
    german = [q for q in default_deck("de") if q.country == "lu"]
    assert f"{len(german)} card(s) to review" in out
    assert out.count("  reveal: ") == len(german)


@pytest.mark.parametrize(("argv", "message"), [
    (["deck", "check", "--lang", "fr"], "table: there is no deck language 'fr' (languages: en, de)"),
    (["deck", "review", "--country", "xx"], "table: there is no country 'xx' on the board"),
    (["deck", "review", "nowhere.toml"], "nowhere.toml"),
])
def test_bad_input_is_one_sentence(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1
