"""Suite-wide fixtures, and the fast tier (``pytest --fast``, ``scripts/run-tests --fast``).

The fast tier is every test under the folders in :data:`FAST_TIER` (the engines and
sessions, the game contract's conformance, the hardware logic, the config checks and the
command line, the architecture's and the game contract's checks) except those marked
``heavy`` or ``slow``. A new test in those folders is in the tier; mark it
``@pytest.mark.heavy`` when it draws screens, plays thousands of inputs or waits seconds
in real time, and scale its numbers with ``tests/tier.py`` when it runs many cases (the
conformance test's seeds, hypothesis's examples). Outside those folders nothing is even
imported, which keeps collection short.

``pytest --game NAME`` (``scripts/run-tests --fast --game NAME``) is one game's run, for
its author: the conformance test and the display tests made for each game (heavy ones
included), for that game only, at the fast tier's sizes, instead of the tier. NAME may be one of the broken games of
``tests/games/broken/``, which nothing else sees.

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


ONE_GAME = ("games/test_conformance.py", "display")
"""What ``--game NAME`` runs: the conformance test and the display tests, for that game."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true", default=False,
                     help=f"run the fast tier only: tests/{{{','.join(FAST_TIER)}}} without heavy or slow tests")
    parser.addoption("--game", default=None, metavar="NAME",
                     help=f"one game's run at the fast tier's sizes, instead of the tier: the tests of "
                          f"tests/{{{','.join(ONE_GAME)}}} made for each game, for NAME only (a registered game, "
                          "or one of tests/games/broken/)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("fast") or config.getoption("game"):
        os.environ[FAST_TIER_ENV] = "1"
    game = config.getoption("game")
    if game:
        from games.broken import BROKEN

        from table.games import registry

        known = sorted(registry()) + sorted(BROKEN)
        if game not in known:
            raise pytest.UsageError(f"--game: there is no game called '{game}' (known: {', '.join(known)})")


def _in_fast_tier(path: Path) -> bool:
    """True for the tier's folders and files, what is inside them, and the folders above them."""
    try:
        parts = path.resolve().relative_to(TESTS).parts
    except ValueError:
        return True  # not the suite's own tree: leave it to pytest
    return not parts or parts[0] in FAST_TIER


def _in_one_game_run(path: Path) -> bool:
    """True for :data:`ONE_GAME`'s files and folders, what is inside them, and the folders above them."""
    try:
        parts = path.resolve().relative_to(TESTS).parts
    except ValueError:
        return True
    wanted = [tuple(w.split("/")) for w in ONE_GAME]
    return any(parts[:len(w)] == w[:len(parts)] for w in wanted)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.getoption("game"):
        return True if not _in_one_game_run(collection_path) else None
    if config.getoption("fast") and not _in_fast_tier(collection_path):
        return True
    return None


def _about_game(item: pytest.Item, game: str) -> bool:
    """Whether ``item`` is made for each game (one of its parameters, or a part of one,
    names a game) and this one is ``game``."""
    callspec = getattr(item, "callspec", None)
    values = [str(v) for v in callspec.params.values()] if callspec is not None else []
    return any(v == game or v.startswith(f"{game}/") for v in values)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    game = config.getoption("game")
    if game:  # the one game's run, heavy tests included, instead of the tier
        others = [item for item in items if not _about_game(item, game)]
        if others:
            config.hook.pytest_deselected(items=others)
            items[:] = [item for item in items if _about_game(item, game)]
        return
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
