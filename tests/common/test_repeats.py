"""A log line that can repeat: said once, then once a period with the count held back."""

from __future__ import annotations

import logging

import pytest

from table.common.repeats import RepeatedLog

log = logging.getLogger("table.test.repeats")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == log.name]


def test_said_once_then_with_the_count_once_a_period(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    clock = Clock()
    line = RepeatedLog(log, every=60.0, clock=clock)
    said = [line.warning("frame %d is odd", n) for n in range(500)]  # one fault, each frame
    assert said == [True] + [False] * 499 and line.held("frame %d is odd") == 499
    assert lines(caplog) == ["frame 0 is odd"]
    clock.now += 59.9
    assert not line.warning("frame %d is odd", 500)
    clock.now += 0.1  # a period after the last line written
    assert line.warning("frame %d is odd", 501)
    assert lines(caplog) == ["frame 0 is odd", "frame 501 is odd (… 500 more times since)"]
    clock.now += 60.0
    line.warning("frame %d is odd", 502)
    clock.now += 61.0
    line.warning("frame %d is odd", 503)  # nothing held back in between: said as it is
    clock.now += 1.0
    line.warning("frame %d is odd", 504)
    clock.now += 60.0
    line.warning("frame %d is odd", 505)
    assert lines(caplog)[2:] == ["frame 502 is odd", "frame 503 is odd", "frame 505 is odd (… 1 more time since)"]


def test_problems_told_apart_by_key_are_each_said(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    line = RepeatedLog(log, clock=Clock())
    for _ in range(3):
        line.error("journal: %s", "the disk is full", key="full")
        line.error("journal: %s", "read-only", key="readonly")
    assert lines(caplog) == ["journal: the disk is full", "journal: read-only"]
    assert [r.levelno for r in caplog.records] == [logging.ERROR, logging.ERROR]


def test_a_period_must_be_positive() -> None:
    with pytest.raises(ValueError, match="every must be more than 0 seconds"):
        RepeatedLog(log, every=0.0)
