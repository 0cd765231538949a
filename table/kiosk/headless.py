"""The daemon without a screen: resume the journaled game and play a script to its end.

This is the "real daemon" path for tests and for ``table run --headless``: the same
journal-first loop as the live table, with the stations replaced by a scenario's
inputs and the wall clock by a :class:`Clock` (virtual, or real time at a speed).

Contract of :func:`run_headless`:

* The journal is opened with :func:`table.play.resume.open_journal_resilient`: a journal SQLite reports
  corrupt is renamed aside (the log says so, and what could be read is copied into a
  fresh one); a damaged tail is set aside by :class:`table.play.journal.Journal`; a full
  disk or a read-only folder only holds the writes in memory. What is not a journal
  at all (a folder, a device, another program's file) is refused in one sentence.
* If the journal's unfinished game is this scenario's game (same setup and seed),
  it is resumed with ``Session.replay``; the script's inputs that are already in the
  journal are skipped (matched one by one, in order, so inputs at the same instant
  are neither lost nor doubled) and the rest are fed. If the journal's latest game
  of this scenario is already finished, nothing is played again.
* Every action (inputs and the ticks delivered at deadlines) is appended to the
  journal, committed with ``synchronous=FULL``, *before* the session applies it, in
  exactly the order :func:`table.play.scenario.run_scenario` uses, so an interrupted and
  resumed run journals the same actions as an uninterrupted one.
* SIGTERM (via ``stop``) ends the loop between two actions: a clean stop that loses
  nothing. SIGKILL or a pulled plug loses at most an action whose append had not
  committed; it is fed again from the script on the next start.
* systemd is told READY=1 once the game is resumed, gets watchdog pings from the
  loop, STATUS= lines and STOPPING=1 (all no-ops outside systemd).

Run ``python -m table.kiosk.headless SCENARIO --journal FILE [--speed N]`` for the child
process that the kill test starts.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from table.common.errors import TableError
from table.games.base import Action
from table.kiosk.signals import sigterm_stops
from table.kiosk.systemd import Notifier, refuse_root
from table.play.clock import Clock, ScaledClock, VirtualClock
from table.play.journal import Journal, JournalError
from table.play.resume import open_journal_resilient, same_game, script_position
from table.play.scenario import Scenario, load_scenario, script_steps
from table.play.session import Session

log = logging.getLogger(__name__)


# -- the loop -------------------------------------------------------------------------------
@dataclass
class HeadlessResult:
    """What a headless run ended with."""

    session: Session
    game_id: int
    resumed_from: int  # journaled actions replayed at start (0 for a new game)
    stopped: bool  # True when SIGTERM (``stop``) ended the run before the script did


def run_headless(
    journal_path: str | Path,
    scenario: Scenario,
    clock: Clock | None = None,
    *,
    notifier: Notifier | None = None,
    stop: threading.Event | None = None,
    on_action: Callable[[Action], None] | None = None,
) -> HeadlessResult:
    """Resume or start ``scenario``'s game in the journal and play the script out.

    See the module docstring for the contract. ``on_action`` is called after each
    action is journaled and applied (for tests and benchmarks).
    """
    clock = clock or VirtualClock()
    notifier = notifier or Notifier()
    stop = stop or threading.Event()
    journal = open_journal_resilient(journal_path, on_wait=notifier.waiting)
    try:
        return _play(journal, scenario, clock, notifier, stop, on_action)
    finally:
        journal.close()


def _play(
    journal: Journal,
    scenario: Scenario,
    clock: Clock,
    notifier: Notifier,
    stop: threading.Event,
    on_action: Callable[[Action], None] | None,
) -> HeadlessResult:
    game_id: int | None = None
    session: Session | None = None
    journaled: tuple[Action, ...] = ()
    try:
        found = journal.unfinished() or journal.latest()
    except JournalError as exc:
        log.warning("%s; starting the scenario as a new game", exc)
        unreadable = journal.unfinished_id()
        if unreadable is not None:
            journal.finish(unreadable, None)
        found = None
    if found is not None and same_game(scenario, found.engine, found.setup.to_json(), found.seed):
        game_id = found.id
        journaled = found.actions
        session = Session.replay(found.engine, found.setup, found.seed, journaled)
        if found.finished:
            log.info("game %d of %s is already finished; nothing to play", game_id, scenario.path)
            notifier.ready(f"game {game_id} already finished")
            return HeadlessResult(session, game_id, len(journaled), False)
        log.info("resuming game %d of %s after %d journaled actions", game_id, scenario.path, len(journaled))
    elif found is not None and not found.finished:
        # Another game was left unfinished: the script replaces it, the journal keeps it.
        log.warning("journal game %d (%s) was unfinished; closing it to play %s", found.id, found.engine,
                    scenario.path)
        journal.finish(found.id, None)
    if session is None or game_id is None:
        session = Session.start(scenario.setup.game, scenario.setup, scenario.seed)
        game_id = journal.start_game(scenario.setup, scenario.seed)
    seq = len(journaled)
    start = 0
    if journaled:
        position = script_position(scenario, journaled)
        if position is None:
            # Not this script's journal after all: go on with the inputs still to come.
            start = sum(1 for a in scenario.inputs if a.t < session.last_t)
            log.warning("the journal of game %d does not follow %s; continuing with the inputs after t=%.3f",
                        game_id, scenario.path, session.last_t)
        else:
            start, simulated = position
            if simulated.state != session.state:
                log.warning("game %d: the script replays to another state than the journal; trusting the journal",
                            game_id)
    clock.start(session.last_t)
    notifier.ready(f"playing {scenario.setup.game}, game {game_id}")

    def ping() -> None:
        notifier.watchdog()

    def record(action: Action) -> None:
        nonlocal seq
        journal.append(game_id, seq, action)  # durable before it takes effect
        seq += 1

    running = True
    for _, _, action in script_steps(session, scenario.inputs, start, scenario.until):
        if not clock.wait_until(action.t, stop.is_set, ping):
            running = False
            break
        # Journaled (and fsynced) first, applied after; inputs that change nothing are neither.
        session.apply(action, record)
        if on_action is not None:
            on_action(action)
    if session.is_over():
        journal.finish(game_id, session.outcome())
        notifier.status(f"game {game_id} finished")
    return HeadlessResult(session, game_id, len(journaled), not running)


# -- process lifecycle ------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    """``python -m table.kiosk.headless``: the scripted daemon (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m table.kiosk.headless", description=__doc__.split("\n")[0])
    parser.add_argument("scenario", help="scenario file (TOML)")
    parser.add_argument("--journal", required=True, metavar="FILE", help="journal file (SQLite)")
    parser.add_argument("--speed", type=float, default=0.0,
                        help="real time at this many times the wall clock (default: virtual time)")
    parser.add_argument("--allow-root", action="store_true",
                        help="run even as root (CI containers only; the table itself never does)")
    args = parser.parse_args(argv)
    under_systemd = "JOURNAL_STREAM" in os.environ or "INVOCATION_ID" in os.environ
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s" if under_systemd
        else "%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    stop = threading.Event()
    notifier = Notifier()
    try:
        if not args.allow_root:
            refuse_root()
        scenario = load_scenario(args.scenario)
        clock: Clock = ScaledClock(args.speed) if args.speed > 0 else VirtualClock()
        with sigterm_stops(stop):
            result = run_headless(args.journal, scenario, clock, notifier=notifier, stop=stop)
    except TableError as exc:
        sys.stderr.write(f"table: {exc}\n")
        return exc.exit_status
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"table: {exc}\n")
        return 2
    finally:
        notifier.stopping()
        notifier.close()
    state = "finished" if result.session.is_over() else ("stopped" if result.stopped else "idle")
    log.info("game %d %s after %d actions", result.game_id, state, result.session.applied)
    return 0


if __name__ == "__main__":
    sys.exit(main())
