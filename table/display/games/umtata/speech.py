"""Reading the Umtata question aloud with a speech engine, when one is installed.

This belongs to the shell, not to the engine: the table loop hands each new public
view to :meth:`QuestionSpeaker.on_view`, which speaks a round's question once, in the
background, with the voice of the table's language (``voice_en``, ``voice_de``). Without
``espeak-ng`` (or ``espeak``) on the PATH, or with
``speak_questions = false`` in ``config/umtata/speech.toml``, it does nothing and
:meth:`QuestionSpeaker.status` says why in one friendly sentence.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.common.checks import Check, boolean, check_section, load_toml, read_text_input, whole
from table.common.datafiles import data_file
from table.common.errors import TableError
from table.common.i18n import language
from table.display.output import Output

log = logging.getLogger("table.umtata.speech")

ENGINES = ("espeak-ng", "espeak")
SETTINGS_FILE = "umtata/speech.toml"
"""The speech settings, under the config directory (else the shipped ones)."""
Runner = Callable[[Sequence[str]], object]


def _spawn(argv: Sequence[str]) -> object:
    """Start the speech engine without waiting (the display must not stall)."""
    return subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@dataclass(frozen=True)
class SpeechSettings:
    """``voice_en`` / ``voice_de``: the espeak-ng voice for each language of the table
    (``voice``, from older files, is the English one)."""

    speak_questions: bool = True
    voice_en: str = "en"
    voice_de: str = "de"
    speed: int = 150

    def voice_for(self, language: str) -> str:
        """The voice that reads ``language``; a language without its own voice setting
        uses its code, which is an espeak-ng voice name too."""
        return str(getattr(self, f"voice_{language}", language))


_VOICE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+.-]{0,39}\Z")


def _voice(v: Any) -> str | None:
    if not isinstance(v, str) or not _VOICE.match(v):
        return "must be a voice name such as \"en\" or \"en-us\" (letters, digits, - + _ .; not starting with -)"
    return None


SCHEMA: dict[str, Check] = {"speak_questions": boolean, "voice": _voice, "voice_en": _voice, "voice_de": _voice,
                            "speed": whole(80, 450)}
"""One check per key, shared by ``table check-config`` and :func:`load_settings`."""


class SpeechConfigError(TableError):
    """``speech.toml`` has problems; ``problems`` lists them, one line each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(problems[0] if len(problems) == 1 else
                         f"{len(problems)} problems: " + "; ".join(problems))


def settings_problems(path: Path) -> tuple[SpeechSettings, list[str]]:
    """The settings in ``path`` and every problem with them (``speed = "fast"``,
    ``speak_questions = "no"``, an unknown key with the nearest known one)."""
    if not path.exists():
        return SpeechSettings(), []
    try:
        data: Mapping[str, Any] = load_toml(read_text_input(path, "speech settings file"))
    except TableError as exc:
        return SpeechSettings(), [str(exc)]
    except tomllib.TOMLDecodeError as exc:
        return SpeechSettings(), [f"{path}: not valid TOML ({exc})"]
    problems: list[str] = []
    # The file is one flat table: check it as section "speech" and name keys without it.
    clean = check_section(str(path), "speech", dict(data), SCHEMA, problems)
    problems = [p.replace(": speech.", ": ", 1) for p in problems]
    if "voice" in clean:  # the single voice of older files reads English
        clean.setdefault("voice_en", clean.pop("voice"))
        clean.pop("voice", None)
    return SpeechSettings(**clean), problems


def load_settings(path: Path | None = None) -> SpeechSettings:
    """Settings from ``umtata/speech.toml`` (config directory, else shipped); defaults
    when the file is missing, :class:`SpeechConfigError` naming the file and key when a
    value is wrong (the same checks as ``table check-config``)."""
    settings, problems = settings_problems(path or data_file(SETTINGS_FILE))
    if problems:
        raise SpeechConfigError(problems)
    return settings


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
        # "--": the question is text, never an option, even when it starts with "-".
        # The voice follows the table's language, switched in the lobby at any time.
        return [engine, "-v", self.settings.voice_for(language()), "-s", str(self.settings.speed), "--", sentence]

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


def speaker_for(config_dir: Path | None) -> QuestionSpeaker:
    """The speaker set up by ``umtata/speech.toml`` of ``config_dir`` (``None``: the
    directory in force), else the shipped one; raises :class:`SpeechConfigError`."""
    return QuestionSpeaker(load_settings(data_file(SETTINGS_FILE, config_dir)))


class SpeechOutput(Output):
    """Reads each new question aloud through ``speaker``, when enabled (an output of the
    table loop, see :class:`table.display.output.Output`)."""

    def __init__(self, speaker: QuestionSpeaker) -> None:
        self.speaker = speaker
        self._state: object = None
        log.info("speech: %s", speaker.status())

    def update(self, session: Any, now: float) -> None:
        if session is None or session.engine.name != "umtata" or session.state is self._state:
            return
        self._state = session.state
        self.speaker.on_view(session.view(None))

    def close(self) -> None:
        return None
