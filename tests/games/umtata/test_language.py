"""Umtata's speech: the question is never an option to the speech program, and the
speech settings are checked where they are used."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.display.games.umtata.speech import QuestionSpeaker, SpeechSettings, settings_problems


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
