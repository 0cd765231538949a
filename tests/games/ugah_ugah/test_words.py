"""Ugah Ugah!'s chip choices read as sentences in both languages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from table.common import i18n
from table.display.games.ugah_ugah.screen import UgahRenderer


@pytest.fixture(autouse=True)
def _english_after() -> Iterator[None]:
    yield
    i18n.set_language("en")


def test_chip_choices_read_as_sentences_in_both_languages() -> None:
    points = UgahRenderer._points_text
    assert [points({"points": n}) for n in (0, 1, 2)] == ["0 points", "1 point", "2 points"]
    assert points({"points": 1, "caterpillar": True}) == "caterpillar, 1 point"
    line = i18n._("Keep the {hunter}'s chip ({points})").format(hunter=i18n._("Bone Breaker"),
                                                                 points=points({"points": 3}))
    assert line == "Keep the Bone Breaker's chip (3 points)"
    i18n.set_language("de")
    assert points({"points": 1}) == "1 Punkt"
    line = i18n._("Keep the {hunter}'s chip ({points})").format(hunter=i18n._("Bone Breaker"),
                                                                 points=points({"points": 3}))
    assert line == "Plättchen vom Knochenbrecher behalten (3 Punkte)"
