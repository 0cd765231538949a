"""Suite-wide fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from table.common import datafiles, i18n


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
