"""Sounds made by the program itself (no sound files): beeps, buzzer, chime, gong, fanfare.

``SoundOutput`` follows the game's events and the sand: a beep for each count-down
second, a tick in each of the last ten seconds, for each event the sound the game's
screen gives it (a buzzer on a call, a chime for a solver, a gong when the sand runs
out, say), a fanfare at the end (a gong for a game ended early from the table menu:
nobody won it). It plays on the output ``[sound] device`` names (on a
Raspberry Pi the TV's HDMI rather than the headphone jack). Without an audio device it
logs once and stays silent; the game goes on.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy loads with the first sounds, not with the table
    import numpy as np

from table.common.repeats import RepeatedLog
from table.display.output import Output
from table.games.contract import COUNTDOWN, table_view

log = logging.getLogger(__name__)
# The card is opened at each game's start: a missing device would be said every game.
_card = RepeatedLog(log, every=3600.0)

RATE = 22050


def tone(freqs: list[float], seconds: float, volume: float = 0.5, decay: float = 4.0,
         square: bool = False) -> np.ndarray:
    """A mono 16-bit tone made of ``freqs`` (played together), with an exponential decay."""
    import numpy as np

    t = np.arange(int(RATE * seconds)) / RATE
    wave = np.zeros_like(t)
    for f in freqs:
        s = np.sin(2 * math.pi * f * t)
        wave += np.sign(s) * 0.6 if square else s
    wave /= max(1, len(freqs))
    envelope = np.exp(-decay * t) * np.minimum(1.0, t * 200)  # 5 ms attack: no click
    samples: np.ndarray = (wave * envelope * volume * 32767).astype(np.int16)
    return samples


def sequence(parts: list[np.ndarray], gap: float = 0.04) -> np.ndarray:
    import numpy as np

    silence = np.zeros(int(RATE * gap), dtype=np.int16)
    out: list[np.ndarray] = []
    for p in parts:
        out += [p, silence]
    return np.concatenate(out)


def make_sounds() -> dict[str, np.ndarray]:
    """Every sound the table plays, as sample arrays."""
    return {
        "count": tone([660], 0.18, decay=10),
        "go": tone([880, 1320], 0.45, decay=5),
        "buzzer": tone([220, 277], 0.6, decay=3, square=True),
        "chime": tone([1047, 1319], 0.5, decay=6),
        "tick": tone([1500], 0.05, volume=0.35, decay=40),
        "gong": tone([110, 165, 220, 331], 2.2, decay=1.6),
        "fanfare": sequence([tone([523], 0.16), tone([659], 0.16), tone([784], 0.16), tone([1047, 784], 0.7, decay=2)]),
        # The first press: a short rising "ta-da" after the buzzer's edge, bright enough
        # to carry over a noisy room.
        "first": sequence([tone([784, 1175], 0.09, decay=8), tone([1047, 1568], 0.35, decay=5)], gap=0.01),
        # A round won: three quick notes up.
        "win": sequence([tone([659], 0.1, decay=9), tone([784], 0.1, decay=9), tone([1047, 1319], 0.45, decay=4)],
                        gap=0.02),
    }


def event_sounds(game: str) -> Mapping[str, str]:
    """The sound each event of ``game`` makes, by event kind: the game's screen says
    (``GameRenderer.sounds``, names from :func:`make_sounds`); a game without a screen
    makes none but the fanfare at its end."""
    from table.display.games import renderer_of

    renderer = renderer_of(game)
    return renderer.sounds if renderer is not None else {}


@contextlib.contextmanager
def quiet_stderr() -> Iterator[Callable[[], str]]:
    """Send the process's C-level stderr (file descriptor 2) to a temporary file meanwhile.

    ALSA's library prints its complaints about a missing sound card straight to fd 2,
    below Python, so ``sys.stderr`` cannot catch them. Yields a function that returns
    what was written (for the debug log). Python's own stderr is flushed first so
    nothing of ours is swallowed. Anything another thread writes meanwhile (the probe
    takes milliseconds, at start-up) lands in the same file and goes to the debug log.
    """
    sys.stderr.flush()
    with contextlib.ExitStack() as stack:
        try:
            sink = stack.enter_context(tempfile.TemporaryFile())
            saved = os.dup(2)
        except OSError:  # no temporary folder or no free descriptor: probe with stderr as it is
            yield lambda: ""
            return
        os.dup2(sink.fileno(), 2)
        try:
            yield lambda: (sink.seek(0), sink.read().decode(errors="replace"))[1]
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


MODEL_FILE = Path("/proc/device-tree/model")
"""Where Linux names the board (a Raspberry Pi says so there)."""

DEVICE_WORDS = {"hdmi": "hdmi", "headphones": "headphone"}
"""``[sound] device`` keywords and what they look for in a device's name, whatever its
case: SDL names ALSA's cards by their description ("vc4-hdmi-0, MAI PCM i2s-hifi-0",
"bcm2835 Headphones, bcm2835 Headphones"), PulseAudio and PipeWire theirs
("Built-in Audio Digital Stereo (HDMI)")."""


def on_raspberry_pi() -> bool:
    try:
        return "Raspberry Pi" in MODEL_FILE.read_text(errors="replace")
    except OSError:
        return False


def choose_device(setting: str, names: Sequence[str], on_pi: bool) -> tuple[str | None, str]:
    """The output device ``[sound] device`` asks for among SDL's ``names``: a name, or None
    for the system's default; and, when the setting found nothing, why (for the log).

    ``auto``: on a Raspberry Pi the first HDMI output (a Pi 4's default card is its
    headphone jack; a Pi 5 has none), elsewhere the default. ``hdmi`` / ``headphones``:
    the first device whose name says so. Anything else: the device of exactly that name,
    else the one device whose name contains it. An ALSA device (``hw:1,0``) is not
    chosen here: :func:`open_mixer` hands it to SDL's ALSA driver as its default.
    """
    word = setting.lower()
    if word == "default" or ":" in setting or (word == "auto" and not on_pi):
        return None, ""
    listed = ", ".join(repr(n) for n in names) or "none"
    if word in ("auto", *DEVICE_WORDS):
        part = DEVICE_WORDS.get(word, "hdmi")
        found = next((n for n in names if part in n.lower()), None)
        if found is None and word != "auto":
            return None, f"no {word} output among the audio devices ({listed})"
        return found, ""
    if setting in names:
        return setting, ""
    matches = [n for n in names if word in n.lower()]
    if len(matches) == 1:
        return matches[0], ""
    what = "several" if matches else "no"
    return None, f"{what} audio devices match {setting!r} ({listed})"


def _device_names() -> list[str]:
    """SDL's output devices (the audio subsystem must be up: the mixer is open)."""
    try:
        from pygame._sdl2 import audio

        return [str(n) for n in audio.get_audio_device_names(False)]
    except Exception:  # an SDL or pygame build without the list: the default it is
        return []


def open_mixer(device: str = "auto") -> str:
    """Open pygame's mixer on the output ``device`` asks for (:func:`choose_device`), or on
    SDL's silent dummy driver without any sound card.

    The default device is opened first (SDL lists its devices only while audio is up),
    then, if another is wanted, that one; a wanted device that cannot be had leaves the
    default and logs one warning. The probe runs with fd 2 silenced (ALSA prints several
    lines when there is no card); falling back to silence logs one warning saying sound
    is off and why. Returns the SDL audio driver in use. Raises only when even the dummy
    driver cannot open.
    """
    import pygame

    if ":" in device:  # an ALSA device: SDL's ALSA driver opens $AUDIODEV as its default
        os.environ["AUDIODEV"] = device
    problem = missed = ""
    chosen: str | None = None
    names: list[str] = []
    with quiet_stderr() as noise:
        try:
            pygame.mixer.init(frequency=RATE, size=-16, channels=1)
            names = _device_names()
            chosen, missed = choose_device(device, names, on_raspberry_pi())
            if chosen is not None:
                pygame.mixer.quit()
                try:
                    pygame.mixer.init(frequency=RATE, size=-16, channels=1, devicename=chosen)
                except pygame.error as exc:
                    missed = f"{chosen!r} could not be opened ({exc})"
                    chosen = None
                    pygame.mixer.init(frequency=RATE, size=-16, channels=1)
        except pygame.error as exc:
            problem = str(exc)
        said = noise().strip()
    if said:
        log.debug("the audio library said while opening the sound card:\n%s", said)
    if not problem:
        if missed:
            _card.warning("sound device %r: %s; the sound plays on the default device", device, missed)
        log.info("sound plays on %s (audio devices: %s)", repr(chosen) if chosen else "the default device",
                 ", ".join(repr(n) for n in names) or "not listed")
        return pygame.mixer.get_driver() if hasattr(pygame.mixer, "get_driver") else os.environ.get(
            "SDL_AUDIODRIVER", "default")
    # SDL reads SDL_AUDIODRIVER each time the audio subsystem starts, so the next init
    # picks the dummy driver: sounds are accepted and never heard.
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    pygame.mixer.init(frequency=RATE, size=-16, channels=1)
    _card.warning("sound is off: no sound card could be opened (%s); the table plays silently", problem)
    return "dummy"


class SoundOutput(Output):
    """Plays the table's sounds through pygame.mixer (an Output for the table loop).

    The sound card is opened when a game starts (:meth:`open`) and closed when the
    table goes back to the lobby: only games make sounds, and an open card keeps SDL's
    audio thread waking many times a second to feed it silence (a still lobby and the
    demo would pay for it). The sounds are made once, on the first opening."""

    def __init__(self, volume: float = 0.6, enabled: bool = True, device: str = "auto") -> None:
        self.enabled = enabled
        self.volume = volume
        #: ``[sound] device``: where the sound plays (:func:`choose_device`).
        self.device = device
        self.sounds: dict[str, Any] = {}
        self.played: list[str] = []
        self._seen = 0
        self._session_id: int | None = None
        self._last_second: int | None = None
        self._ended = False
        #: SDL's audio driver in use ("dummy" when there is no sound card: silent, but the
        #: sounds still "play", so everything else behaves the same); None while closed.
        self.driver: str | None = None
        self._samples: dict[str, np.ndarray] = {}

    def open(self) -> None:
        """Open the sound card (or SDL's silent dummy driver) and make the sounds; without
        any audio device sound is off for good (logged once) and the game goes on."""
        if not self.enabled or self.driver is not None:
            return
        try:
            import numpy as np
            import pygame

            mixer = pygame.mixer.get_init()  # (frequency, format, channels); None while closed
            if mixer is None:
                self.driver = open_mixer(self.device)
                mixer = pygame.mixer.get_init()
            else:
                self.driver = pygame.mixer.get_driver() if hasattr(pygame.mixer, "get_driver") else "default"
            if mixer is None:  # (open_mixer raises first: said for the type checker)
                raise pygame.error("the mixer did not open")
            _, _, channels = mixer
            if not self._samples:
                self._samples = make_sounds()
            for name, samples in self._samples.items():
                data = samples if channels == 1 else np.repeat(samples[:, None], channels, axis=1)
                snd = pygame.sndarray.make_sound(np.ascontiguousarray(data))
                snd.set_volume(self.volume)
                self.sounds[name] = snd
        except Exception as exc:  # no audio device: the game goes on without sound
            log.warning("sound is off: %s", exc)
            self.enabled = False
            self.sounds = {}

    def _close_card(self) -> None:
        """Close the sound card (the lobby and the demo are silent)."""
        if self.driver is None:
            return
        import pygame

        self.sounds = {}
        self.driver = None
        pygame.mixer.quit()

    def play(self, name: str) -> None:
        self.played.append(name)
        if len(self.played) > 100:
            del self.played[:50]
        snd = self.sounds.get(name)
        if snd is not None:
            snd.play()

    def update(self, session: Any, now: float) -> None:
        if session is None:
            self._session_id = None
            self._close_card()
            return
        if id(session) != self._session_id:
            self._session_id = id(session)
            self.open()
            self._seen = len(session.state.events)
            self._ended = session.is_over()
        events = session.state.events
        if len(events) < self._seen:  # undo rewound the game
            self._seen = len(events)
        sounds = event_sounds(session.engine.name)
        for event in events[self._seen:]:
            name = sounds.get(event.kind)
            if name:
                self.play(name)
        self._seen = len(events)
        over = session.is_over()
        if over and not self._ended and session.ended_early:
            self.play("gong")  # ended from the table menu: an end, but no winner to cheer
        elif over and not self._ended and not any(e.kind == "game_over" for e in events[-3:]):
            self.play("fanfare")  # a game without its own end event
        self._ended = over
        view = table_view(session.view(None))
        deadline = view.get("deadline")
        if deadline is None or session.paused:
            self._last_second = None
            return
        left = float(deadline) - session.game_time(now)
        second = math.ceil(left)
        if second != self._last_second and left > 0:
            self._last_second = second
            if view.get("phase") == COUNTDOWN:
                self.play("count")
            elif second <= 10:
                self.play("tick")

    def close(self) -> None:
        self._close_card()
