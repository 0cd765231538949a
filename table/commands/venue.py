"""``table venue``: the organiser's wall view and leaderboard for every table (docs/venue.md)."""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any

from table.commands import COMMANDS, named_path
from table.venue.settings import SettingsError, add_broker_arguments, load_section, merged, port_of, read_password

log = logging.getLogger(__name__)


def _import(db: Path, specs: list[str]) -> int:
    """Add the finished games of tables' journals (``TABLE=JOURNAL``) to the venue's file."""
    from table.play.journal import JournalError, open_existing
    from table.venue import contract
    from table.venue.follow import JournalFollower, UnreadableGame
    from table.venue.store import VenueStore

    store = VenueStore(db)
    try:
        for spec in specs:
            table, sep, path = spec.partition("=")
            if not sep or not path:
                raise SettingsError(f"--import takes TABLE=JOURNAL, not {spec!r}")
            open_existing(path).close()  # one clear sentence for a missing or foreign file
            follower = JournalFollower(path, table)
            added = total = 0
            try:
                for game in follower.finished_games(0.0, follower.first_position(float("inf"))):
                    total += 1
                    try:
                        payload = follower.result_message(game).payload
                    except UnreadableGame as exc:
                        sys.stderr.write(f"{table}: game {game} of {path} left out: {exc}\n")
                        continue
                    # The bounds a received result must keep (it may be old): the venue would set it aside.
                    problem = contract.stored_problem(payload, time.time())
                    if problem is not None:
                        sys.stderr.write(f"{table}: game {game} of {path} left out: {problem}\n")
                        continue
                    added += store.add_result(payload)
            except JournalError:
                raise
            finally:
                follower.close()
            print(f"{table}: {added} new result(s) of {total} finished game(s) from {path}")
    finally:
        store.close()
    return 0


def _hours(value: Any) -> float:
    hours = float(value)
    if not 0 < hours <= 24 * 366:  # NaN fails too
        raise SettingsError(f"hours must be more than 0 and at most a year's, not {value!r}")
    return hours


def cmd_venue(args: argparse.Namespace) -> int:
    named_path(args.config, what="settings file")
    values = merged(load_section(Path(args.config) if args.config else None, "venue"), {
        "broker": args.broker, "port": args.port, "username": args.username, "password_file": args.password_file,
        "tls": True if args.tls else None, "ca_file": args.ca_file, "http_host": args.http_host,
        "http_port": args.http_port, "db": args.db, "hours": args.hours,
    })
    db = Path(values.get("db", "venue.db"))
    if args.import_journal:
        return _import(db, args.import_journal)
    from table.kiosk.signals import sigterm_stops
    from table.venue.server import VenueConfig, serve

    config = VenueConfig(
        db=db,
        host=str(values.get("broker", "127.0.0.1")),
        port=port_of(values.get("port", 1883), "port"),
        username=values.get("username"),
        password=read_password(values.get("password_file")),
        tls=bool(values.get("tls", False)),
        ca_file=Path(values["ca_file"]) if values.get("ca_file") else None,
        http_host=str(values.get("http_host", "0.0.0.0")),
        http_port=port_of(values.get("http_port", 8080), "http_port"),
        hours=_hours(values.get("hours", 12.0)),
    )

    def ready(address: Any) -> None:
        sys.stderr.write(f"table venue: the page is on http://{address[0]}:{address[1]}/ "
                         f"(broker {config.host}:{config.port}, results in {config.db})\n")
        sys.stderr.flush()

    stop = threading.Event()
    with sigterm_stops(stop):
        serve(config, stop, on_ready=ready)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("venue", help=COMMANDS["venue"].help)
    p.add_argument("--config", metavar="FILE", help="settings file with a [venue] section")
    p.add_argument("--db", help="the venue's SQLite file (default: venue.db here)")
    add_broker_arguments(p, broker="the broker's address (default 127.0.0.1)", port="the broker's port (default 1883)",
                         user="MQTT user (read-only in the shipped ACL)")
    p.add_argument("--http-host", help="address the page listens on (default 0.0.0.0: the local network)")
    p.add_argument("--http-port", type=int, help="port of the page (default 8080)")
    p.add_argument("--hours", type=float, help="the evening: results of this many hours count (default 12)")
    p.add_argument("--import", dest="import_journal", action="append", metavar="TABLE=JOURNAL",
                   help="add the finished games of a table's journal to the venue's file, and exit")
    p.set_defaults(func=cmd_venue)
