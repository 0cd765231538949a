"""Suite-wide fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from table import datafiles


@pytest.fixture(autouse=True)
def _shipped_data_only() -> Iterator[None]:
    """Each test starts and ends with no config directory in force: a command run by one
    test (``check-config DIR``, ``run --config DIR``) sets the process-wide directory,
    which must not leak into the next test's boards, decks or dice settings."""
    datafiles.use_config_dir(None)
    yield
    datafiles.use_config_dir(None)
