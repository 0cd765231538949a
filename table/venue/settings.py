"""Reading the relay's and the venue's settings: a TOML file, then command-line overrides.

``/etc/table/relay.toml`` on a table (section ``[relay]``) and any file given to
``table venue --config`` (section ``[venue]``) use the same keys as the options.
Passwords are read from a file (``password_file``), never from the command line,
where every local user could see them.
"""

from __future__ import annotations

import argparse
import ipaddress
import tomllib
from pathlib import Path
from typing import Any

from table.common.checks import BoundsError, load_toml, read_text_input
from table.common.errors import TableError

KEYS = {
    "relay": {"table", "broker", "port", "username", "password_file", "tls", "ca_file"},
    "venue": {"broker", "port", "username", "password_file", "tls", "ca_file", "http_host", "http_port", "db",
              "hours"},
}
# What each setting must be in the file (the options' own types); anything else is one sentence.
TYPES: dict[str, tuple[type, ...]] = {
    "table": (str,), "broker": (str,), "port": (int,), "username": (str,), "password_file": (str,),
    "tls": (bool,), "ca_file": (str,), "http_host": (str,), "http_port": (int,), "db": (str,),
    "hours": (int, float),
}
_TYPE_WORDS = {str: "a string", int: "a whole number", bool: "true or false", float: "a number"}


class SettingsError(TableError):
    """A settings file or option that cannot be used."""


def load_section(path: Path | None, section: str) -> dict[str, Any]:
    """The ``[section]`` of ``path`` (empty without a file); unknown keys are an error.

    The file is read within the table's bounds (a regular file of at most
    ``checks.TEXT_LIMIT`` bytes, tables and arrays nested at most ``checks.MAX_NESTING``
    deep): anything else is one sentence (:class:`SettingsError`), never a traceback.
    """
    if path is None:
        return {}
    try:
        data = load_toml(read_text_input(path, "settings file"))
    except TableError as exc:
        raise SettingsError(str(exc)) from None
    except BoundsError as exc:
        raise SettingsError(f"{path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path} is not valid TOML ({exc})") from None
    body = data.get(section, {})
    if not isinstance(body, dict):
        raise SettingsError(f"{path}: [{section}] must be a table of settings")
    unknown = sorted(set(body) - KEYS[section])
    if unknown:
        known = ", ".join(sorted(KEYS[section]))
        raise SettingsError(f"{path}: [{section}] has no setting {unknown[0]!r} (known: {known})")
    for key, value in body.items():
        want = TYPES[key]
        if not isinstance(value, want) or (isinstance(value, bool) and bool not in want):
            words = " or ".join(_TYPE_WORDS[t] for t in want)
            raise SettingsError(f"{path}: [{section}] {key} must be {words}, not {type(value).__name__}")
        if key in ("port", "http_port"):
            port_of(value, f"{path}: [{section}] {key}")
    return dict(body)


def merged(file_values: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """File values with the options that were given on the command line on top."""
    out = dict(file_values)
    out.update({k: v for k, v in overrides.items() if v is not None})
    return out


def read_password(path: str | None) -> str | None:
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SettingsError(f"cannot read the password file {path} ({exc.strerror or exc})") from None


def port_of(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise SettingsError(f"{what} must be a port number from 0 to 65535, not {value!r}")
    return value


def unit_dropin(broker: str) -> str:
    """A systemd drop-in that lets the relay's unit reach ``broker`` (an IP address) only."""
    try:
        address = ipaddress.ip_address(broker)
    except ValueError:
        raise SettingsError(
            f"the broker {broker!r} must be an IP address for the relay's firewall (IPAddressAllow= takes no names)"
        ) from None
    return (
        "# Written by 'table relay --unit-dropin': the relay may reach the venue's broker, nothing else.\n"
        "[Service]\n"
        f"IPAddressAllow={address}\n"
    )


def add_broker_arguments(p: argparse.ArgumentParser, *, broker: str, port: str, user: str) -> None:
    """The options that say how to reach the broker, shared by ``table relay`` and ``table venue``."""
    p.add_argument("--broker", help=broker)
    p.add_argument("--port", type=int, help=port)
    p.add_argument("--username", help=user)
    p.add_argument("--password-file", help="file holding the MQTT password")
    p.add_argument("--tls", action="store_true", help="connect with TLS")
    p.add_argument("--ca-file", help="CA certificate that signed the broker's certificate")
