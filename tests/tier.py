"""What a test scales down in the fast tier (``pytest --fast``, ``scripts/run-tests --fast``).

``tests/conftest.py`` sets :data:`FAST_TIER_ENV` before any test module is imported, so
module-level numbers (seeds, examples) can follow the tier. The full suite runs every
test at its full size; the tier runs the same tests smaller, to catch a broken contract
in seconds.
"""

from __future__ import annotations

import os

FAST_TIER_ENV = "TABLE_FAST_TIER"


def fast() -> bool:
    """Whether this run is the fast tier."""
    return os.environ.get(FAST_TIER_ENV) == "1"


def examples(full: int) -> int:
    """hypothesis's ``max_examples`` for a property: ``full`` in the full suite, a tenth
    (at least 10) in the fast tier. A ``@settings(max_examples=...)`` decorator overrides
    any settings profile, so the number itself has to follow the tier."""
    return max(10, full // 10) if fast() else full
