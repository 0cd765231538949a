"""Umtata in the table's languages: the board's words, the deck chosen by the table's
language, the question read aloud with the language's voice, and the speech settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.common import i18n
from table.common.config import TableConfig
from table.display.games.umtata.speech import QuestionSpeaker, SpeechSettings, settings_problems
from table.games.umtata.board import load_board
from table.play.gamedata import game_options, option_problems


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


def test_umtata_options_carry_the_table_language() -> None:
    options = game_options(TableConfig(language="de"))
    assert options["umtata"]["language"] == "de"
    assert all("language" not in options[game] for game in options if game != "umtata")
    assert option_problems(TableConfig(language="de")) == []


def test_the_speech_voice_follows_the_language(tmp_path: Path) -> None:
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
    path = tmp_path / "speech.toml"
    path.write_text('voice_de = "de+f3"\nvoice = "en-gb"\n', encoding="utf-8")
    settings, problems = settings_problems(path)
    assert problems == [] and settings.voice_for("de") == "de+f3" and settings.voice_for("en") == "en-gb"
    path.write_text('voice_fr = "fr"\n', encoding="utf-8")
    assert "did you mean" in settings_problems(path)[1][0]


def test_the_question_is_never_an_option_to_the_speech_program() -> None:
    speaker = QuestionSpeaker(SpeechSettings(), which=lambda name: "/usr/bin/espeak-ng")
    argv = speaker.command("-w /tmp/owned.wav Where is Umtata?")
    assert argv is not None and argv[-2:] == ["--", "-w /tmp/owned.wav Where is Umtata?"]


@pytest.mark.parametrize(("text", "needle"), [
    ('speed = "fast"', "speed: must be a whole number"),
    ('speak_questions = "no"', "speak_questions: must be true or false"),
    ("spead = 150", "did you mean 'speed'"),
    ('voice = "-w x"', "voice: must be a voice name"),
])
def test_speech_settings_are_checked_where_they_are_used(text: str, needle: str, tmp_path: Path) -> None:
    path = tmp_path / "speech.toml"
    path.write_text(text + "\n")
    _, problems = settings_problems(path)
    assert len(problems) == 1 and needle in problems[0] and str(path) in problems[0]
