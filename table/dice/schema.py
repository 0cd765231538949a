"""One typed schema for the dice reader's settings: each setting is a dataclass field.

Contract: a setting is declared once, with :func:`knob`, as a field of a frozen
dataclass: its default, its check (:mod:`table.common.checks`: ``None`` when a value
is fine, else the end of a sentence) and, when the file's spelling or type differs from
the field's, its key and a function turning the checked value into the field's value.
:func:`read_table` checks one TOML table against a dataclass's fields, adding one line per
problem (``file: section.key: what is wrong (did you mean 'x'?)``) and returning the
field values that passed. Nothing else holds a default: the shipped ``reader.toml``
only names what differs from them or what an owner is expected to change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, field, fields
from pathlib import Path
from typing import Any

from table.common.checks import Check, check_section

Read = Callable[[Any, Path], Any]
"""(checked value, the settings file) -> the field's value."""


def knob(
    default: Any = MISSING,
    check: Check | None = None,
    *,
    key: str | None = None,
    section: str | None = None,
    read: Read | None = None,
    factory: Callable[[], Any] | None = None,
) -> Any:
    """A dataclass field that is a setting of the file: ``default`` (or ``factory``),
    ``check`` for the file's value, the file's ``key`` (default: the field's name), its
    ``section`` when the dataclass spans several tables of the file, and ``read``
    (checked value and the settings file -> field value; default: the value itself)."""
    meta = {"check": check, "key": key, "section": section, "read": read}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def settings_fields(cls: type, section: str | None = None) -> dict[str, Field[Any]]:
    """The file's keys of dataclass ``cls`` (in ``section``, when given) and the fields
    they set; fields without a check are not in the file."""
    out: dict[str, Field[Any]] = {}
    for f in fields(cls):
        if f.metadata.get("check") is not None and (section is None or f.metadata.get("section") == section):
            out[f.metadata.get("key") or f.name] = f
    return out


def default_of(cls: type, name: str) -> Any:
    """The default of field ``name`` of dataclass ``cls`` (for messages and docs)."""
    f = next(f for f in fields(cls) if f.name == name)
    return f.default_factory() if f.default is MISSING and f.default_factory is not MISSING else f.default


def read_table(
    source: Path, section: str, value: Any, known: Mapping[str, Field[Any]], problems: list[str]
) -> dict[str, Any]:
    """Field values (by field name) for the keys of table ``[section]`` that pass their
    checks (``known``: from :func:`settings_fields`); every unknown key and every bad
    value adds one line to ``problems``."""
    clean = check_section(str(source), section, value, {k: f.metadata["check"] for k, f in known.items()}, problems)
    out: dict[str, Any] = {}
    for key, v in clean.items():
        f = known[key]
        read: Read | None = f.metadata.get("read")
        out[f.name] = read(v, source) if read is not None else v
    return out
