"""``[sound] device`` in table.toml: the keywords and any device name pass; what could
never name a device is one sentence."""

from __future__ import annotations

from typing import Any

import pytest

from table.common.config import ConfigError, load_config, parse_config


def test_the_shipped_config_plays_on_auto() -> None:
    assert load_config().sound.device == "auto"
    assert parse_config({}, "t.toml").sound.device == "auto"


@pytest.mark.parametrize("device", ["auto", "default", "hdmi", "HDMI", "headphones", "hw:1,0",
                                    "plughw:CARD=vc4hdmi0,DEV=0", "vc4-hdmi-1, MAI PCM i2s-hifi-0"])
def test_keywords_and_device_names_pass(device: str) -> None:
    assert parse_config({"sound": {"device": device}}, "t.toml").sound.device == device


@pytest.mark.parametrize(("device", "said"), [
    (1, 'sound.device: must be "auto", "default", "hdmi", "headphones" or an audio device\'s name (as text), not 1'),
    ("", "sound.device: must be \"auto\""),
    ("   ", "sound.device: must be \"auto\""),
    ("hdmi\n", "sound.device: must not hold control characters ('\\n')"),
    (" hdmi", "sound.device: ' hdmi' begins or ends with a space"),
    ("x" * 129, "sound.device: is longer than 128 characters"),
])
def test_a_bad_device_is_one_sentence(device: Any, said: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"sound": {"device": device}}, "t.toml")
    assert len(info.value.problems) == 1
    problem = info.value.problems[0]
    assert problem.startswith(f"t.toml: {said}") and "\n" not in problem
