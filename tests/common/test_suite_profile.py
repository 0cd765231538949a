"""The suite's hypothesis profile (tests/conftest.py): property tests are never timed."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings


def test_no_property_test_is_timed_and_ci_replays_the_same_examples() -> None:
    profile = settings.default
    # A wall-clock limit per example fails a correct test when the machine is busy.
    assert profile.deadline is None
    assert HealthCheck.too_slow in profile.suppress_health_check
    assert profile.derandomize == bool(os.environ.get("CI"))
