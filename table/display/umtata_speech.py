"""Reading the Umtata question aloud with a speech engine, when one is installed.

This belongs to the shell, not to the engine: the table loop hands each new public
view to :meth:`QuestionSpeaker.on_view`, which speaks a round's question once, in the
background. Without ``espeak-ng`` (or ``espeak``) on the PATH, or with
``speak_questions = false`` in ``config/umtata/speech.toml``, it does nothing and
:meth:`QuestionSpeaker.status` says why in one friendly sentence.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.datafiles import data_file

log = logging.getLogger("table.umtata.speech")

ENGINES = ("espeak-ng", "espeak")
Runner = Callable[[Sequence[str]], object]


def _spawn(argv: Sequence[str]) -> object:
    """Start the speech engine without waiting (the display must not stall)."""
    return subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@dataclass(frozen=True)
class SpeechSettings:
    speak_questions: bool = True
    voice: str = "en"
    speed: int = 150


def load_settings(path: Path | None = None) -> SpeechSettings:
    """Settings from ``umtata/speech.toml`` (config directory, else shipped); defaults
    when the file is missing."""
    path = path or data_file("umtata/speech.toml")
    try:
        with open(path, "rb") as fh:
            data: Mapping[str, Any] = tomllib.load(fh)
    except FileNotFoundError:
        return SpeechSettings()
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path} is not valid TOML: {exc}") from None
    return SpeechSettings(
        speak_questions=bool(data.get("speak_questions", True)),
        voice=str(data.get("voice", "en")),
        speed=int(data.get("speed", 150)),
    )


@dataclass
class QuestionSpeaker:
    """Speaks each round's question once. ``which``/``runner`` are injectable for tests."""

    settings: SpeechSettings = field(default_factory=SpeechSettings)
    which: Callable[[str], str | None] = shutil.which
    runner: Runner = _spawn
    _spoken: tuple[int, str] | None = None

    @property
    def engine(self) -> str | None:
        """The path of the speech engine found, or ``None``."""
        for name in ENGINES:
            found = self.which(name)
            if found:
                return found
        return None

    def status(self) -> str:
        if not self.settings.speak_questions:
            return "reading questions aloud is switched off (umtata/speech.toml)"
        if self.engine is None:
            return "no speech engine (espeak-ng) is installed, so questions are only shown - nothing is wrong"
        return f"questions are read aloud with {Path(self.engine).name}"

    def command(self, sentence: str) -> list[str] | None:
        engine = self.engine
        if engine is None or not self.settings.speak_questions:
            return None
        return [engine, "-v", self.settings.voice, "-s", str(self.settings.speed), sentence]

    def on_view(self, view: Mapping[str, Any]) -> bool:
        """Speak the question of a new round in the guessing phase; True if it spoke."""
        if view.get("game") != "umtata" or view.get("phase") != "guess":
            return False
        key = (int(view.get("round", 0)), str(view.get("question", {}).get("text", "")))
        if key == self._spoken:
            return False
        self._spoken = key
        argv = self.command(key[1])
        if argv is None:
            return False
        try:
            self.runner(argv)
        except OSError as exc:  # a broken engine must never stop the game
            log.warning("speech engine failed: %s", exc)
            return False
        return True
