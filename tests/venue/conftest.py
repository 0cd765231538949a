"""The venue tests' broker: a test that needs Mosquitto asks for the ``mosquitto`` fixture.

Where Mosquitto cannot be installed (no root, no apt) such a test is skipped, with the
reason in pytest's summary of skips (``-rs``). Where it must be there, its absence is a
failure, not a skip: in CI (``CI`` set, as ``.ci/run`` and the usual CI services do)
and when running as root, where ``scripts/setup-env`` installs it
(``packaging/debian-test.txt``). So the broker's ACL, the poison and the integration
tests can never pass in CI by not running.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
MISSING = "mosquitto is not installed (Debian package: mosquitto)"


def mosquitto_required() -> bool:
    """Whether a missing Mosquitto fails the tests here (CI, or root: see the module docstring)."""
    return bool(os.environ.get("CI")) or (hasattr(os, "geteuid") and os.geteuid() == 0)


@pytest.fixture
def mosquitto() -> str:
    """The path of the mosquitto binary, or a skip (a failure in CI or as root) without it."""
    if MOSQUITTO is not None:
        return MOSQUITTO
    if mosquitto_required():
        pytest.fail(f"{MISSING}: scripts/setup-env installs it as root, and CI must have it")
    pytest.skip(MISSING)
