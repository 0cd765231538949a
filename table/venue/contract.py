"""The venue contract: MQTT topics and versioned JSON payloads (docs/venue.md).

Everything a table publishes lives under ``venue/v1/<table>/``:

* ``status`` (retained, QoS 1): is the table online, its current game, round,
  players and scores, when it last saw an input, and the health of its camera, LEDs
  and stations. The relay's last will is an ``online: false`` status on this topic.
* ``games/<game>/events`` (QoS 1): one message per journaled action of a game, with
  the round and scores after it and the engine's events it caused.
* ``results/<game>`` (retained, QoS 1): a finished game's players, scores and winners.

Every payload carries ``v`` (the contract's version), ``type``, ``table`` and, for
game messages, the journal's game id, start time and sequence number, so a
consumer can drop a second delivery of the same message: ``(table, game, started,
seq)`` names an event and ``(table, game, started)`` a result.

:func:`validate` checks a payload against ``schema.json`` (shipped in this package).
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

VERSION = 1
ROOT = f"venue/v{VERSION}"
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
# Largest payload a consumer accepts; a table's biggest message is a few kilobytes.
MAX_PAYLOAD = 64 * 1024


class ContractError(ValueError):
    """A payload or topic that does not follow the venue contract."""


def check_table_id(table: str) -> str:
    """Return ``table`` if it can be a topic level and an MQTT user name, else raise."""
    if not TABLE_ID.match(table):
        raise ContractError(
            f"the table id {table!r} must be 1 to 32 letters, digits, '-' or '_' (it names MQTT topics and users)"
        )
    return table


def status_topic(table: str) -> str:
    return f"{ROOT}/{table}/status"


def event_topic(table: str, game: int) -> str:
    return f"{ROOT}/{table}/games/{game}/events"


def result_topic(table: str, game: int) -> str:
    return f"{ROOT}/{table}/results/{game}"


def table_of(topic: str) -> str | None:
    """The table id a topic belongs to (None if it is not a venue topic)."""
    parts = topic.split("/")
    if len(parts) < 3 or f"{parts[0]}/{parts[1]}" != ROOT:
        return None
    return parts[2] if TABLE_ID.match(parts[2]) else None


@cache
def schema() -> dict[str, Any]:
    """The JSON schema of every payload (``table/venue/schema.json``)."""
    text = resources.files("table.venue").joinpath("schema.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema())


def validate(payload: object) -> None:
    """Raise :class:`ContractError` (one sentence) when ``payload`` breaks the schema."""
    errors = sorted(_validator().iter_errors(payload), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        where = "/".join(str(p) for p in err.absolute_path) or "the message"
        raise ContractError(f"{where}: {err.message}")


def encode(payload: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON, the wire form."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode("utf-8")


def decode(raw: bytes, topic: str) -> dict[str, Any]:
    """Parse and check one message; raises :class:`ContractError` with a reason.

    Beyond the schema, the table named in the payload must be the table of the
    topic (the broker's ACL lets a table write only its own topics, so this ties a
    payload to the table that sent it).
    """
    if len(raw) > MAX_PAYLOAD:
        raise ContractError(f"{len(raw)} bytes is larger than the {MAX_PAYLOAD} a venue message may be")
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ContractError(f"not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise ContractError("not a JSON object")
    validate(payload)
    if payload["table"] != table_of(topic):
        raise ContractError(f"a message for table {payload['table']!r} arrived on {topic}")
    return payload
