"""The conformance test fails, naming the rule, for each broken game of ``broken/``, and
for that rule alone: what a game's author sees of the contract's rules."""

from __future__ import annotations

import pytest

from games.broken import BROKEN
from games.conformance import CHECKS, cases

BREAKS = {"broken_never_ends": "ends", "broken_missing_key": "view", "broken_mutates": "pure",
          "broken_tie_break": "ranks"}
"""The rule each broken game breaks."""


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_the_broken_rule_fails_by_name_at_its_step(name: str) -> None:
    engine = BROKEN[name]
    rule = BREAKS[name]
    with pytest.raises(pytest.fail.Exception) as failed:
        CHECKS[rule](engine, cases(engine, full=False)[0])
    message = str(failed.value)
    assert message.startswith(f"rule '{rule}' broken by {name} ")
    assert "at step " in message or "at the start" in message
    assert f"table.games.contract.{rule.upper()}" in message


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_the_other_rules_hold(name: str) -> None:
    """Each broken game breaks one rule: the checks of the others pass (a game that never
    ends has its other checks skipped, as the conformance test does)."""
    engine = BROKEN[name]
    case = cases(engine, full=False)[0]
    for rule, check in CHECKS.items():
        if rule == BREAKS[name] or (BREAKS[name] == "ends" and rule != "ignores"):
            continue
        check(engine, case)


def test_the_broken_games_are_registered_with_nothing() -> None:
    from table.games import registry

    assert not set(BROKEN) & set(registry())
