"""Journals written before the code moved into packages by role replay to the same reports.

Each ``tests/fixtures/journals/NAME.db`` was journaled by ``table play`` (the shipped
scenarios and seeded random games of every game, menu actions included) and
``NAME.json`` is what ``table replay --json`` printed for it then. A change of layout or
contract that alters a replay, a report's wording or a journal's reading fails here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from table.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "journals"
JOURNALS = sorted(FIXTURES.glob("*.db"))


def test_fixtures_are_there() -> None:
    assert len(JOURNALS) >= 20


@pytest.mark.parametrize("journal", JOURNALS, ids=[p.stem for p in JOURNALS])
def test_replays_to_the_same_report(journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / journal.name
    shutil.copyfile(journal, copy)
    assert main(["replay", str(copy), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(journal.with_suffix(".json").read_text(encoding="utf-8"))
