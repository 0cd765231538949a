"""Suite-wide fixtures, and the fast tier (``pytest --fast``, ``scripts/run-tests --fast``).

The fast tier is every test under the folders in :data:`FAST_TIER` (the engines and
sessions, the game contract's conformance, the hardware logic, the config checks and the
command line, the architecture's and the game contract's checks) except those marked
``heavy`` or ``slow``. A new test in those folders is in the tier; mark it
``@pytest.mark.heavy`` when it draws screens, plays thousands of inputs or waits seconds
in real time, and scale its numbers with ``tests/tier.py`` when it runs many cases (the
conformance test's seeds, hypothesis's examples). Outside those folders nothing is even
imported, which keeps collection short.

Hypothesis runs under one profile: no per-example deadline and no "too slow" health
check (both time the machine, and CI's jobs share two cores with three emulators), and
under ``CI`` derandomized with no example database, so that a CI failure is the same
failure again on any machine with ``CI=1``; elsewhere each run explores new examples.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from tier import FAST_TIER_ENV

from table.common import datafiles, i18n

TESTS = Path(__file__).resolve().parent
settings.register_profile("table", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("table-ci", parent=settings.get_profile("table"), derandomize=True, database=None)
settings.load_profile("table-ci" if os.environ.get("CI") else "table")

FAST_TIER = ("games", "play", "hardware", "common", "test_cli.py", "test_architecture.py", "test_no_game_names.py")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true", default=False,
                     help=f"run the fast tier only: tests/{{{','.join(FAST_TIER)}}} without heavy or slow tests")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("fast"):
        os.environ[FAST_TIER_ENV] = "1"


def _in_fast_tier(path: Path) -> bool:
    """True for the tier's folders and files, what is inside them, and the folders above them."""
    try:
        parts = path.resolve().relative_to(TESTS).parts
    except ValueError:
        return True  # not the suite's own tree: leave it to pytest
    return not parts or parts[0] in FAST_TIER


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.getoption("fast") and not _in_fast_tier(collection_path):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("fast"):
        return
    kept: list[pytest.Item] = []
    left_out: list[pytest.Item] = []
    for item in items:
        heavy = item.get_closest_marker("heavy") or item.get_closest_marker("slow")
        (left_out if heavy else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.fixture(autouse=True)
def _shipped_data_only() -> Iterator[None]:
    """Each test starts and ends with no config directory in force: a command run by one
    test (``check-config DIR``, ``run --config DIR``) sets the process-wide directory,
    which must not leak into the next test's boards, decks or dice settings; the table's
    language is process-wide too, and starts as English."""
    datafiles.use_config_dir(None)
    i18n.set_language(i18n.LANGUAGES[0])
    yield
    datafiles.use_config_dir(None)
    i18n.set_language(i18n.LANGUAGES[0])
