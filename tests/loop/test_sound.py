"""Sounds follow the game: count-down beeps, the call, solvers, the last seconds, the gong."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from table.games.base import Action, GameSetup
from table.loop.sound import SoundOutput, make_sounds
from table.play.session import Session, run_until_idle


def test_sounds_are_synthesised_and_short() -> None:
    sounds = make_sounds()
    assert {"count", "go", "buzzer", "chime", "tick", "gong", "fanfare"} <= set(sounds)
    for samples in sounds.values():
        assert samples.dtype == np.int16 and 0 < len(samples) < 22050 * 3
        assert np.abs(samples).max() > 1000  # audible, not silence


def test_a_round_sounds_as_it_plays() -> None:
    out = SoundOutput(enabled=False)  # records what it would play; no audio device needed
    # Station 2 never solves, so the sand runs out (with everyone solved the round ends at once).
    s = Session.start("ubongo_shimo", GameSetup("ubongo_shimo", stations=(0, 1, 2)), 1)
    for t10 in range(0, 900):
        t = t10 / 10
        if t == 10.0:
            s.apply(Action("press", t, 0))
        if t == 30.0:
            s.apply(Action("press", t, 1))
        run_until_idle(s, until=t)
        out.update(s, t)
    played = out.played
    assert played[:3] == ["count", "count", "count"]
    assert played.index("go") < played.index("first") < played.index("chime") < played.index("gong")
    assert played.index("gong") < played.index("win")  # the round's winner takes the gem
    assert played.count("tick") == 10  # the last ten seconds of the sand


def test_ending_the_game_from_the_menu_plays_a_gong_once_and_no_fanfare() -> None:
    """A game ended early has no winner: its end sounds, but nobody is cheered."""
    out = SoundOutput(enabled=False)
    s = Session.start("ubongo_shimo", GameSetup("ubongo_shimo", stations=(0, 1)), 1)
    out.update(s, 0.0)
    run_until_idle(s, until=5.0)
    out.update(s, 5.0)
    assert "gong" not in out.played
    s.apply(Action("end", 6.0))
    out.update(s, 6.0)
    out.update(s, 7.0)
    assert out.played.count("gong") == 1 and "fanfare" not in out.played


def run_sound_probe(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Open the table's sound in a fresh process (pygame's mixer is process-wide)."""
    script = ("import logging, sys\n"
              "logging.basicConfig(stream=sys.stderr, format='%(levelname)s %(name)s: %(message)s')\n"
              "from table.loop.sound import SoundOutput\n" + code)
    environ = {k: v for k, v in os.environ.items() if k != "SDL_AUDIODRIVER"}
    environ.update(env)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environ,
                          timeout=60, check=True)


def test_without_a_usable_audio_driver_sound_falls_back_to_silence_in_one_line() -> None:
    done = run_sound_probe("out = SoundOutput()\nout.open()\nout.play('buzzer')\n"
                           "print(out.enabled, out.driver, len(out.sounds))", SDL_AUDIODRIVER="no-such-driver")
    assert done.stdout.split() == ["True", "dummy", str(len(make_sounds()))]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("WARNING table.loop.sound: sound is off:") and "plays silently" in lines[0]


def test_the_audio_librarys_own_complaints_never_reach_the_terminal() -> None:
    # A stand-in for ALSA without a card: it writes to file descriptor 2 itself, below
    # Python's sys.stderr, then fails; only the table's one warning may be seen.
    code = (
        "import os, pygame\n"
        "real_init = pygame.mixer.init\n"
        "calls = []\n"
        "def noisy_init(*a, **k):\n"
        "    calls.append(os.environ.get('SDL_AUDIODRIVER'))\n"
        "    if len(calls) == 1:\n"
        "        for n in range(9):\n"
        "            os.write(2, b'ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default\\n')\n"
        "        raise pygame.error(\"ALSA: Couldn't open audio device\")\n"
        "    return real_init(*a, **k)\n"
        "pygame.mixer.init = noisy_init\n"
        "out = SoundOutput()\n"
        "out.open()\n"
        "print(calls, out.driver)\n"
        "print('after', file=sys.stderr)\n"
    )
    done = run_sound_probe(code, SDL_AUDIODRIVER="alsa")
    assert done.stdout.strip() == "['alsa', 'dummy'] dummy"
    assert "ALSA lib" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("WARNING table.loop.sound: sound is off:"), done.stderr
    assert lines[1] == "after"  # stderr works again after the probe


def test_the_dummy_driver_opens_without_a_warning() -> None:
    done = run_sound_probe("out = SoundOutput()\nout.open()\nprint(out.driver)", SDL_AUDIODRIVER="dummy")
    assert done.stdout.strip() == "dummy" and done.stderr == ""


# --- [sound] device: which output plays -----------------------------------------------

PI4_DEVICES = ["bcm2835 Headphones, bcm2835 Headphones", "vc4-hdmi-0, MAI PCM i2s-hifi-0",
               "vc4-hdmi-1, MAI PCM i2s-hifi-0"]


def test_the_device_setting_picks_by_name() -> None:
    from table.loop.sound import choose_device

    hdmi0, hdmi1 = PI4_DEVICES[1], PI4_DEVICES[2]
    assert choose_device("auto", PI4_DEVICES, on_pi=True) == (hdmi0, "")  # the TV, not the jack
    assert choose_device("auto", PI4_DEVICES, on_pi=False) == (None, "")  # a PC: its default
    assert choose_device("auto", PI4_DEVICES[:1], on_pi=True) == (None, "")  # no HDMI: the default, quietly
    assert choose_device("HDMI", PI4_DEVICES, on_pi=False) == (hdmi0, "")
    assert choose_device("headphones", PI4_DEVICES, on_pi=True) == (PI4_DEVICES[0], "")
    assert choose_device("default", PI4_DEVICES, on_pi=True) == (None, "")
    assert choose_device("hw:1,0", PI4_DEVICES, on_pi=True) == (None, "")  # ALSA's own: via AUDIODEV
    assert choose_device(hdmi1, PI4_DEVICES, on_pi=True) == (hdmi1, "")
    assert choose_device("vc4-hdmi-1", PI4_DEVICES, on_pi=True) == (hdmi1, "")
    pulse = ["Built-in Audio Digital Stereo (HDMI)", "Built-in Audio Stereo"]
    assert choose_device("auto", pulse, on_pi=True) == (pulse[0], "")
    chosen, why = choose_device("headphones", PI4_DEVICES[1:], on_pi=True)
    assert chosen is None and why.startswith("no headphones output among the audio devices ('vc4-hdmi-0")
    chosen, why = choose_device("vc4-hdmi", PI4_DEVICES, on_pi=True)
    assert chosen is None and why.startswith("several audio devices match 'vc4-hdmi' (")
    chosen, why = choose_device("USB Audio", PI4_DEVICES, on_pi=True)
    assert chosen is None and why.startswith("no audio devices match 'USB Audio' (")


def device_probe(device: str, names: list[str], model: str, tmp: str, **env: str) -> list[str]:
    """Open the sound with ``[sound] device = device`` on SDL's dummy driver, SDL's device
    list stubbed to ``names`` and the board's model to ``model``; prints the device each
    mixer opening asked for, what stayed open, and $AUDIODEV."""
    model_file = os.path.join(tmp, "model")
    with open(model_file, "w") as f:
        f.write(model + "\0")
    code = (
        "from pathlib import Path\n"
        "import os, pygame, pygame._sdl2.audio as sdl_audio\n"
        "import table.loop.sound as sound\n"
        f"sound.MODEL_FILE = Path({model_file!r})\n"
        f"sdl_audio.get_audio_device_names = lambda iscapture=False: {names!r}\n"
        "asked = []\n"
        "real_init = pygame.mixer.init\n"
        "def init(*a, **k):\n"
        "    asked.append(k.get('devicename'))\n"
        "    return real_init(*a, **k)\n"
        "pygame.mixer.init = init\n"
        f"out = SoundOutput(device={device!r})\n"
        "out.open()\n"
        "print(asked, out.driver, pygame.mixer.get_init(), os.environ.get('AUDIODEV'))\n"
    )
    done = run_sound_probe(code, SDL_AUDIODRIVER="dummy", **env)
    return [done.stdout.strip(), *done.stderr.strip().splitlines()]


def test_on_a_pi_the_sound_goes_to_hdmi_and_falls_back_to_the_default(tmp_path: Path) -> None:
    # SDL's dummy driver has one device of its own: any other name it refuses, as a real
    # driver refuses an HDMI output that went away.
    out, *log = device_probe("auto", PI4_DEVICES, "Raspberry Pi 4 Model B Rev 1.4", str(tmp_path))
    assert out == f"[None, {PI4_DEVICES[1]!r}, None] dummy (22050, -16, 1) None"
    assert log == [f"WARNING table.loop.sound: sound device 'auto': {PI4_DEVICES[1]!r} could not be opened "
                   "(No such device); the sound plays on the default device"]


def test_a_named_device_is_opened_by_its_name(tmp_path: Path) -> None:
    names = [*PI4_DEVICES, "System audio output device"]  # the last is the dummy driver's own
    out, *log = device_probe("system audio", names, "Raspberry Pi 5 Model B Rev 1.0", str(tmp_path))
    assert out == "[None, 'System audio output device'] dummy (22050, -16, 1) None" and log == []


def test_off_a_pi_auto_and_alsa_names_open_the_default_once(tmp_path: Path) -> None:
    out, *log = device_probe("auto", PI4_DEVICES, "Some PC", str(tmp_path))
    assert out == "[None] dummy (22050, -16, 1) None" and log == []
    out, *log = device_probe("hw:1,0", PI4_DEVICES, "Raspberry Pi 4 Model B Rev 1.4", str(tmp_path))
    assert out == "[None] dummy (22050, -16, 1) hw:1,0" and log == []


def test_a_device_that_is_not_there_is_one_warning(tmp_path: Path) -> None:
    out, *log = device_probe("headphones", PI4_DEVICES[1:], "Raspberry Pi 5 Model B Rev 1.0", str(tmp_path))
    assert out == "[None] dummy (22050, -16, 1) None"
    assert len(log) == 1 and log[0].startswith("WARNING table.loop.sound: sound device 'headphones': no "
                                               "headphones output among the audio devices (")
