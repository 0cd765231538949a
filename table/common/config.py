"""The table's configuration: TOML files in a config directory -> frozen dataclasses.

``load_config(dir)`` reads ``table.toml`` from the directory (or the shipped default,
see :mod:`table.common.datafiles`, when the directory has none) and reports *every* problem at once,
each as ``file: key.path: what is wrong (did you mean 'x'?)``. Other config files
(hardware, games' data) are read by their own modules with the same error style.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from table.common.checks import (
    Check,
    boolean,
    camera_problem,
    check_section,
    did_you_mean,
    load_toml,
    number,
    one_of,
    plain_text,
    read_text_input,
    shown_name,
    whole,
)
from table.common.datafiles import data_file
from table.common.errors import TableError
from table.common.i18n import LANGUAGES
from table.common.names import is_unnamed, name_problem, unnamed

CONFIG_FILE = "table.toml"


class ConfigError(TableError):
    """One or more problems in the config; ``problems`` lists them one per line."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        if len(problems) == 1:
            super().__init__(f"the config has a problem: {problems[0]}")
        else:
            super().__init__(f"the config has {len(problems)} problems:\n  " + "\n  ".join(problems))


@dataclass(frozen=True)
class DisplayConfig:
    """``[display]``: the screen's size, full screen or a window, the frame rate."""

    width: int = 1920
    height: int = 1080
    fullscreen: bool = True
    fps: int = 60
    celebrations: bool = True
    """Flashes and motion for a first press, a round's winner and the game's end (off
    for quiet venues; sounds follow ``[sound] enabled``)."""


@dataclass(frozen=True)
class TimingConfig:
    """``[timing]``: the stations' tie window and settling, a long push, when attract mode starts."""

    tie_window_ms: float = 2.0
    settle_ms: float = 15.0
    long_push_s: float = 2.0
    attract_after_s: float = 120.0


@dataclass(frozen=True)
class SoundConfig:
    """``[sound]``: on or off, the volume (0..1), and the output it plays on."""

    enabled: bool = True
    volume: float = 0.6
    device: str = "auto"
    """``auto`` (a Raspberry Pi's first HDMI output, elsewhere the system's default),
    ``default``, ``hdmi``, ``headphones``, an audio device's name (or part of it, as the
    sound library lists it) or an ALSA device such as ``hw:1,0``
    (:func:`table.loop.sound.choose_device`)."""


@dataclass(frozen=True)
class HourglassConfig:
    """``[hourglass]``: the LED hourglass's seconds, LEDs and layout."""

    seconds: float = 60.0
    leds: int = 60
    layout: str = "strip"


@dataclass(frozen=True)
class TrayConfig:
    """``[tray]``: the dice tray's camera."""

    camera: str = ""
    """``pi``, ``usb`` / ``usb:N``, a folder of pictures, or empty for no camera (knob)."""


@dataclass(frozen=True)
class TableConfig:
    """The whole table. ``games`` holds per-game option tables, passed to the engines."""

    source: str = "<defaults>"
    stations: int = 4
    station_names: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    """The venue's names for its players to choose from in the lobby (``[table] names``),
    besides spelling their initials."""
    journal: str = ""
    language: str = "en"
    """The language of every screen, menu and spoken line (``en`` or ``de``); the lobby
    can switch it for the evening."""
    display: DisplayConfig = field(default_factory=DisplayConfig)
    timing: TimingConfig = field(default_factory=TimingConfig)
    sound: SoundConfig = field(default_factory=SoundConfig)
    hourglass: HourglassConfig = field(default_factory=HourglassConfig)
    tray: TrayConfig = field(default_factory=TrayConfig)
    games: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def journal_path(self) -> Path:
        """Where the journal lives: the config's value, else systemd's state directory,
        else ``~/.local/state/table/journal.db``."""
        if self.journal:
            return Path(self.journal).expanduser()
        state_dir = os.environ.get("STATE_DIRECTORY")
        if state_dir:
            return Path(state_dir.split(":")[0]) / "journal.db"
        return Path.home() / ".local" / "state" / "table" / "journal.db"


MAX_STATIONS = 5


def _names(v: Any) -> str | None:
    """A list of names the lobby can show (their count against ``stations`` is checked
    with the whole ``[table]``)."""
    if not isinstance(v, list) or not all(isinstance(n, str) for n in v):
        return "must be a list of names"
    for i, name in enumerate(v):
        msg = shown_name(name)
        if msg:
            return f"name {i + 1} {msg}"
    return None


SOUND_DEVICE_LIMIT = 128
"""The longest ``[sound] device`` (ALSA's and SDL's device names are far shorter)."""


def _sound_device(v: Any) -> str | None:
    """``[sound] device``: a keyword or a device's name; which names exist is only known
    when the sound card opens (a name it does not find is logged then)."""
    if not isinstance(v, str) or not v.strip():
        return ('must be "auto", "default", "hdmi", "headphones" or an audio device\'s name '
                f"(as text), not {v!r}")
    odd = plain_text(v)
    if odd is not None:
        return odd
    if v != v.strip():
        return f"{v!r} begins or ends with a space"
    if len(v) > SOUND_DEVICE_LIMIT:
        return f"is longer than {SOUND_DEVICE_LIMIT} characters"
    return None


def _camera(v: Any) -> str | None:
    if not isinstance(v, str):
        return 'must be a string: "pi", "usb", "usb:N" or empty'
    return camera_problem(v) if v else None


@cache
def _matrix_counts(matrices: int) -> frozenset[int]:
    """The LED counts ``matrices`` matrices can have, in the shapes the hourglass draws
    (:class:`table.hardware.interfaces.HourglassLayout`): ``width`` 1 to 64 by ``height``
    2 to 64 each, and one matrix alone an even number of rows (its halves are the bulbs)."""
    rows = range(2, 65, 2) if matrices == 1 else range(2, 65)
    return frozenset(matrices * w * h for w in range(1, 65) for h in rows)


_HOURGLASS_MATRICES = {"matrix": 1, "two-matrices": 2}


def _hourglass_problem(leds: int, layout: str) -> str | None:
    """Why ``leds`` LEDs cannot form the hourglass ``layout``, or None."""
    if layout == "strip":
        return None if leds % 2 == 0 else f"a strip needs an even count (two halves), not {leds}"
    matrices = _HOURGLASS_MATRICES.get(layout)
    counts = None if matrices is None else _matrix_counts(matrices)
    if counts is None or leds in counts:
        return None
    below = max((c for c in counts if c < leds), default=None)
    above = min((c for c in counts if c > leds), default=None)
    near = " or ".join(str(c) for c in (below, above) if c is not None)
    shape = ("width x height with an even number of rows, e.g. 64 for 8 x 8" if layout == "matrix"
             else "2 x width x height, e.g. 128 for two 8 x 8")
    return f"a {layout} layout needs a count of {shape}, not {leds} (did you mean {near}?)"


NAME_LENGTH = 16
"""The longest name in ``[table] names``: it must fit a station's panel."""


def _player_names(v: Any) -> str | None:
    """Every problem of ``[table] names`` in one sentence."""
    if not isinstance(v, list):
        return f"must be a list of names, such as [\"Ada\", \"Ben\"], not {v!r}"
    wrong: list[str] = []
    seen: set[str] = set()
    for i, name in enumerate(v):
        if not isinstance(name, str):
            wrong.append(f"entry {i + 1} ({name!r}) is not text")
        elif not name.strip():
            wrong.append(f"entry {i + 1} is empty")
        elif (problem := name_problem(name, NAME_LENGTH)) is not None:  # the one rule (table.common.names)
            wrong.append(f"{name!r} {problem}")
        elif name != name.strip():
            wrong.append(f"{name!r} begins or ends with a space")
        elif is_unnamed(name):
            forms = " or ".join(dict.fromkeys(repr(unnamed(3, code)) for code in LANGUAGES))
            wrong.append(f"{name!r} reads as the name of a player who entered none ({forms}): choose another")
        elif name.casefold() in seen:
            wrong.append(f"{name!r} is there twice")
        else:
            seen.add(name.casefold())
    return "; ".join(wrong) if wrong else None


_LANGUAGE_WORDS = {"english": "en", "englisch": "en", "german": "de", "deutsch": "de"}
"""What people write for a language instead of its code."""


def _language(v: Any) -> str | None:
    if isinstance(v, str) and v in LANGUAGES:
        return None
    known = ", ".join(f'"{code}"' for code in LANGUAGES)
    if not isinstance(v, str):
        return f"must be a language code ({known}), not {v!r}"
    meant = _LANGUAGE_WORDS.get(v.lower()) or (v[:2].lower() if v[:2].lower() in LANGUAGES else None)
    hint = f" (did you mean '{meant}'?)" if meant else did_you_mean(v, LANGUAGES)
    return f"unknown language {v!r}: must be one of {known}{hint}"


SCHEMA: dict[str, dict[str, Check]] = {
    "table": {"stations": whole(1, MAX_STATIONS), "station_names": _names, "names": _player_names,
              "journal": plain_text, "language": _language},
    "display": {"width": whole(320, 7680), "height": whole(240, 4320), "fullscreen": boolean, "fps": whole(10, 240),
                "celebrations": boolean},
    "timing": {
        "tie_window_ms": number(0, 1000),
        "settle_ms": number(0, 1000),
        "long_push_s": number(0.5, 10),
        "attract_after_s": number(5, 86400),
    },
    "sound": {"enabled": boolean, "volume": number(0, 1), "device": _sound_device},
    "tray": {"camera": _camera},
    "hourglass": {
        "seconds": number(1, 3600),
        "leds": whole(1, 2048),
        "layout": one_of("strip", "matrix", "two-matrices"),
    },
}
def parse_config(data: Mapping[str, Any], source: str, games: Collection[str] | None = None) -> TableConfig:
    """Validate parsed TOML; raises :class:`ConfigError` listing every problem.

    ``games`` are the names a ``[games.NAME]`` section may have (the registered games';
    this layer does not know them); ``None`` leaves the names unchecked, for a caller
    that reads only the table's own sections."""
    problems: list[str] = []
    sections: dict[str, dict[str, Any]] = {}
    known_top = [*SCHEMA, "games"]
    for key, value in data.items():
        if key not in known_top:
            problems.append(f"{source}: {key}: unknown section{did_you_mean(key, known_top)}")
            continue
        if key == "games":
            if not isinstance(value, dict):
                problems.append(f"{source}: games: must be a table ([games])")
                continue
            for game, opts in value.items():
                if games is not None and game not in games:
                    problems.append(f"{source}: games.{game}: unknown game{did_you_mean(game, list(games))}")
                elif not isinstance(opts, dict):
                    problems.append(f"{source}: games.{game}: must be a table")
            continue
        sections[key] = check_section(source, key, value, SCHEMA[key], problems)
    t = sections.get("table", {})
    raw_table = data.get("table")
    names = raw_table.get("station_names", ()) if isinstance(raw_table, dict) else ()
    stations = t.get("stations", 4)
    if isinstance(names, list) and len(names) > stations:  # said beside what is wrong with a name
        problems.append(f"{source}: table.station_names: {len(names)} names for {stations} stations "
                        "(at most one name per station)")
    glass = sections.get("hourglass", {})
    if "leds" in glass or "layout" in glass:
        msg = _hourglass_problem(glass.get("leds", 60), glass.get("layout", "strip"))
        if msg:
            problems.append(f"{source}: hourglass.leds: {msg}")
    if problems:
        raise ConfigError(problems)
    return TableConfig(
        source=source,
        stations=t.get("stations", 4),
        station_names=tuple(t.get("station_names", ())),
        names=tuple(t.get("names", ())),
        journal=t.get("journal", ""),
        language=t.get("language", "en"),
        display=DisplayConfig(**sections.get("display", {})),
        timing=TimingConfig(**sections.get("timing", {})),
        sound=SoundConfig(**sections.get("sound", {})),
        hourglass=HourglassConfig(**sections.get("hourglass", {})),
        tray=TrayConfig(**sections.get("tray", {})),
        games={k: dict(v) for k, v in data.get("games", {}).items()},
    )


def load_config(directory: str | Path | None = None, games: Collection[str] | None = None) -> TableConfig:
    """Load ``table.toml`` from ``directory``, or the shipped one when ``directory`` is
    ``None`` or has no ``table.toml`` (the defaults are overridden file by file);
    ``games``: the known game names, as for :func:`parse_config`."""
    if directory is not None and not Path(directory).is_dir():
        raise ConfigError([f"{directory}: there is no config directory here"])
    path = data_file(CONFIG_FILE, directory)
    if not os.path.lexists(path):
        raise ConfigError([f"{path}: missing (the install has no {CONFIG_FILE}; reinstall the table)"])
    try:
        text = read_text_input(path, "config file")  # regular files only: a FIFO or /dev/zero is refused
    except TableError as exc:
        raise ConfigError([str(exc)]) from None
    try:
        data = load_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{path}: not valid TOML ({exc})"]) from None
    return parse_config(data, str(path), games)
