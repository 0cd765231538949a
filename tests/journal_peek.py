"""Reading a journal from outside the process that writes it, as tests that kill or stop
the daemon do: read-only, never creating the file or its tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def journaled(path: Path) -> int:
    """The actions in the journal at ``path`` now; 0 before the daemon made the file or
    its tables (it may be killed or stopped before it does)."""
    if not path.exists():
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM actions").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()
