"""A screen's facts file (``screen.toml``, :class:`table.display.games.ScreenFacts`): read
into the renderer's members, checked with one sentence per problem, and its words found
by the catalogue tools."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from table.common.errors import TableError
from table.common.pofile import extract_file, message_sources
from table.display.games import GameRenderer, ScreenFacts, read_screen_facts, renderers, screen_palette
from table.games.base import Event

FACTS = """\
game = "quiz_night"
showcase_phase = "ask"
banner_at = [0.25, 12.5]
how_to_play = ["Press first.", "Turn your knob to answer."]

[sounds]
asked = "go"

[variant_names]
short-night = "a short night"

[celebrations]
answered = { banner = "first", words = "{name} answered first", when = { rank = 1 } }
won = { banner = "round", words = "{name} wins" }

[palette.cards]
back = [10, 20, 30]
face = [250, 250, 240]
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "screen.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_file_gives_every_fact(tmp_path: Path) -> None:
    facts = read_screen_facts(_write(tmp_path, FACTS))
    assert facts.game == "quiz_night" and facts.showcase_phase == "ask"
    assert facts.banner_at == (0.25, 12.5)
    assert facts.how_to_play == ("Press first.", "Turn your knob to answer.")
    assert facts.sounds == {"asked": "go"} and facts.variant_names == {"short-night": "a short night"}
    assert facts.celebrations["answered"].when == {"rank": 1}
    assert facts.celebrations["won"].banner == "round" and facts.celebrations["won"].when == {}
    assert list(facts.palette["cards"].items()) == [("back", (10, 20, 30)), ("face", (250, 250, 240))]


def test_a_module_of_the_screen_reads_its_colours_by_group(tmp_path: Path) -> None:
    _write(tmp_path, FACTS)
    module = str(tmp_path / "cards.py")
    assert screen_palette(module, "cards") == {"back": (10, 20, 30), "face": (250, 250, 240)}
    screen_palette(module, "cards")["back"] = (0, 0, 0)  # a copy: the next reader is not fooled
    assert screen_palette(module, "cards")["back"] == (10, 20, 30)
    with pytest.raises(TableError, match=r"palette\.chips: missing"):
        screen_palette(module, "chips")


def test_only_the_game_is_required(tmp_path: Path) -> None:
    assert read_screen_facts(_write(tmp_path, 'game = "quiz_night"\n')) == ScreenFacts("quiz_night")


@pytest.mark.parametrize(("text", "said"), [
    ('how_to_play = ["x"]\n', "game: missing"),
    ('game = "q"\nhow_to_play = "one line"\n', "how_to_play: must be a list of non-empty strings"),
    ('game = "q"\nbanner_at = [0.5]\n', "banner_at: must be two numbers"),
    ('game = "q"\nbanner_at = [1.5, 10]\n', "banner_at: must be from 0 to 1, not 1.5"),
    ('game = "q"\nsound = { a = "go" }\n', "facts.sound: unknown key (did you mean 'sounds'?)"),
    ('game = "q"\n[sounds]\na = 3\n', "sounds: must be a table of non-empty strings"),
    ('game = "q"\n[celebrations]\na = { banner = "last", words = "w" }\n', "a.banner: must be one of first, round"),
    ('game = "q"\n[celebrations]\na = { banner = "first" }\n', "a: needs words"),
    ('game = "q"\n[celebrations]\na = { banner = "first", word = "w" }\n', "a.word: unknown key (did you mean"),
    ('game = "q"\n[celebrations]\na = { banner = "first", words = "w", when = { x = [1] } }\n',
     "a.when: must be a table of detail values"),
    ('game = "q"\n[palette.a]\nx = [1, 2]\n', "palette: a.x: must be [red, green, blue]"),
    ('game = "q"\n[palette.a]\nx = [1, 2, 256]\n', "palette: a.x: must be [red, green, blue]"),
    ('game = "q"\n[palette]\na = 3\n', "palette: a: must be a table of colours"),
    ('game = "q\n', "is not valid TOML"),
])
def test_a_bad_file_is_refused_in_one_sentence_naming_it(tmp_path: Path, text: str, said: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(TableError) as caught:
        read_screen_facts(path)
    message = str(caught.value)
    assert said in message and str(path) in message and "\n" not in message


def test_a_missing_file_is_refused_in_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="there is no screen facts file at"):
        read_screen_facts(tmp_path / "screen.toml")


def test_a_renderer_takes_its_facts_from_the_file_beside_its_module(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, FACTS)
    (tmp_path / "quiz_screen.py").write_text(textwrap.dedent("""\
        from table.display.games import GameRenderer

        class QuizRenderer(GameRenderer, facts="screen.toml"):
            pass
        """), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "quiz_screen", raising=False)
    import quiz_screen

    renderer: GameRenderer = quiz_screen.QuizRenderer()
    assert renderer.game == "quiz_night" and renderer.banner_at == (0.25, 12.5)
    assert renderer.sounds == {"asked": "go"} and renderer.how_to_play[0] == "Press first."
    # The celebrations follow the file: the first to answer only, words through the catalogue.
    assert renderer.celebration(Event(1.0, "answered", 3, {"rank": 1}), "Ann") == ("first", "Ann answered first")
    assert renderer.celebration(Event(1.0, "answered", 3, {"rank": 2}), "Ann") is None
    assert renderer.celebration(Event(1.0, "answered", 3, None), "Ann") is None
    assert renderer.celebration(Event(1.0, "won", 3, None), "Bo") == ("round", "Bo wins")
    assert renderer.celebration(Event(1.0, "asked", 3, None), "Bo") is None
    assert GameRenderer().celebration(Event(1.0, "won", 3, None), "Bo") is None


def test_every_shipped_screen_declares_its_facts_in_its_file() -> None:
    """The renderers' members are their files' (none left in code to drift apart)."""
    for name, renderer in renderers().items():
        module = sys.modules[type(renderer).__module__]
        facts = read_screen_facts(Path(str(module.__file__)).parent / "screen.toml")
        assert (renderer.game, renderer.how_to_play, renderer.sounds, renderer.celebrations) == (
            facts.game, facts.how_to_play, facts.sounds, facts.celebrations), name


def test_the_catalogue_tools_find_the_words_of_a_facts_file(tmp_path: Path) -> None:
    path = _write(tmp_path, FACTS)
    (tmp_path / "other.toml").write_text('how_to_play = ["not a screen"]\n', encoding="utf-8")
    assert message_sources(tmp_path) == [path]
    found = {e.msgid: e.comments for e in extract_file(path, "quiz/screen.toml")}
    assert found == {"Press first.": ["#: quiz/screen.toml:4"], "Turn your knob to answer.": ["#: quiz/screen.toml:4"],
                     "a short night": ["#: quiz/screen.toml:10"], "{name} answered first": ["#: quiz/screen.toml:13"],
                     "{name} wins": ["#: quiz/screen.toml:14"]}
