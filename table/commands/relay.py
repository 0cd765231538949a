"""``table relay``: publish this table's journal to the venue's MQTT broker (docs/venue.md)."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from table.commands import COMMANDS, named_path
from table.venue.settings import (
    SettingsError,
    add_broker_arguments,
    load_section,
    merged,
    port_of,
    read_password,
    unit_dropin,
)


def cmd_relay(args: argparse.Namespace) -> int:
    named_path(args.config, what="settings file")
    values = merged(load_section(Path(args.config) if args.config else None, "relay"), {
        "table": args.table, "broker": args.broker, "port": args.port, "username": args.username,
        "password_file": args.password_file, "tls": True if args.tls else None, "ca_file": args.ca_file,
    })
    broker = str(values.get("broker", "127.0.0.1"))
    if args.unit_dropin:
        sys.stdout.write(unit_dropin(broker))
        return 0
    if not values.get("table"):
        raise SettingsError("the relay needs the table's id: --table ID or 'table' in [relay] of the config")
    from table.kiosk.signals import sigterm_stops
    from table.venue.relay import Relay, RelayConfig

    config = RelayConfig(
        table=str(values["table"]),
        journal=Path(args.journal),
        state_dir=Path(args.state_dir),
        host=broker,
        port=port_of(values.get("port", 1883), "port"),
        username=values.get("username") or str(values["table"]),
        password=read_password(values.get("password_file")),
        tls=bool(values.get("tls", False)),
        ca_file=Path(values["ca_file"]) if values.get("ca_file") else None,
    )
    relay = Relay(config)
    # Until the broker answers nothing else is said: tell the user what the relay waits for.
    sys.stderr.write(f"table relay: publishing table {config.table}'s journal to the broker at "
                     f"{config.host}:{config.port} once it answers (stop it with Ctrl-C)\n")
    sys.stderr.flush()
    stop = threading.Event()
    with sigterm_stops(stop):
        relay.run(stop)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("relay", help=COMMANDS["relay"].help)
    p.add_argument("--config", metavar="FILE", help="settings file with a [relay] section (e.g. /etc/table/relay.toml)")
    p.add_argument("--journal", default="/var/lib/table/journal.db", help="the table's journal (opened read-only)")
    p.add_argument("--state-dir", default="/var/lib/table-relay", help="where the relay keeps its outbox position")
    p.add_argument("--table", help="this table's id (names its topics; also the MQTT user by default)")
    add_broker_arguments(p, broker="the broker's IP address", port="the broker's port (1883, or 8883 with TLS)",
                         user="MQTT user (default: the table id)")
    p.add_argument("--unit-dropin", action="store_true",
                   help="print the systemd drop-in that opens the relay's firewall to the broker, and exit")
    p.set_defaults(func=cmd_relay)
