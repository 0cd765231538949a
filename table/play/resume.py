"""Resuming: the journal opened so that the table always starts, its unfinished game
replayed, and where a scenario's script stands against what the journal holds.

The live table (:meth:`table.loop.app.Table.resume_unfinished`), ``table run --script``
and the scripted daemon (:mod:`table.kiosk.headless`) all resume through here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from table.games.base import Action, GameError
from table.play.journal import GameRecord, Journal, JournalError
from table.play.journal_open import open_daemon_journal
from table.play.session import Session

if TYPE_CHECKING:  # scripts are played by tests and the kill test's daemon, not by the kiosk
    from table.play.scenario import Scenario

log = logging.getLogger(__name__)


def open_journal_resilient(path: str | Path, *, create_folder: bool = False, wait_s: float = 30.0,
                           on_wait: Callable[[str], object] | None = None) -> Journal:
    """Open ``path`` as the daemon's journal: faults are not damage; a file SQLite
    reports corrupt, or one whose schema holds what the table never creates, is set
    aside and a new journal started (see :mod:`table.play.journal_open`)."""
    return open_daemon_journal(path, create_folder=create_folder, wait_s=wait_s, on_wait=on_wait, foreign="aside")


def resumable_game(journal: Journal) -> tuple[GameRecord, Session] | None:
    """The journal's unfinished game, replayed, or None.

    A damaged tail (rows that do not decode, or actions the game cannot have: an unknown
    kind, a station its setup lacks) was set aside by :meth:`Journal.load` and the game
    resumes before it. A game that cannot be replayed (unreadable setup, a game or
    variant this build does not have) must not keep the table from starting: it is marked finished
    without an outcome (its rows stay in the journal for ``table replay``) and the
    log says why. ``table run`` calls this on start, as the scripted daemon does.
    """
    try:
        record = journal.unfinished()
    except JournalError as exc:
        # An unreadable setup: close the game (its rows stay for ``table replay``).
        log.warning("%s; the table starts without resuming it", exc)
        game = journal.unfinished_id()
        if game is not None:
            journal.finish(game, None)
        return None
    if record is None:
        return None
    try:
        session = Session.replay(record.engine, record.setup, record.seed, record.actions)
    except (GameError, ValueError, TypeError) as exc:
        log.warning("journal game %d (%s) cannot be resumed (%s); closed without an outcome, still in %s",
                    record.id, record.engine, exc, journal.path)
        journal.finish(record.id, None)
        return None
    return record, session


def same_game(scenario: Scenario, engine: str, setup_json: object, seed: int) -> bool:
    """Whether a journaled game (its engine, setup as JSON, seed) is ``scenario``'s game."""
    return engine == scenario.setup.game and setup_json == scenario.setup.to_json() and seed == scenario.seed


def script_position(scenario: Scenario, journaled: Sequence[Action]) -> tuple[int, Session] | None:
    """Where the script stands once the journal's actions are in: the index of the
    first input not yet fed, and the session at that point.

    Plays the script in memory the way the loop feeds it until as many actions have
    been journaled as the journal holds. Inputs that change nothing are not
    journaled, so counting inputs or comparing times would not be exact; this is.
    None if the journal does not follow this script.
    """
    from table.play.scenario import script_steps

    session = Session.start(scenario.setup.game, scenario.setup, scenario.seed)
    if not journaled:
        return 0, session
    count = 0
    mismatch = False

    def record(action: Action) -> None:
        nonlocal count, mismatch
        if count >= len(journaled) or action != journaled[count]:
            mismatch = True
        count += 1

    for index, is_input, action in script_steps(session, scenario.inputs, 0, scenario.until):
        session.apply(action, record)
        if mismatch:
            return None
        if count == len(journaled):
            return (index + 1 if is_input else index), session
    return None
