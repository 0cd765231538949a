"""A checker compiled once from a JSON schema: the venue's validation without a generic validator.

``table venue`` checks every message against ``schema.json``. A generic validator
walks the schema for every message (resolving each ``$ref`` again) and cost about nine
tenths of the handling of a message; :func:`compile_schema` turns the schema into
nested Python closures once, so a check costs a few microseconds per field.

Only the keywords the venue's schema uses are supported (:data:`KEYWORDS`, plus
annotations such as ``title``); :func:`compile_schema` raises :class:`SchemaUnsupported`
for any other, so a schema that grows a keyword fails at once instead of being checked
in part. The meaning is JSON Schema 2020-12's as the ``jsonschema`` package reads it
(the tests compare the two on random payloads): ``integer`` is a whole number (``2.0``
included), ``number`` any int or float, and a boolean is neither; ``pattern`` is
searched with :func:`re.search`; ``const`` and ``enum`` never take a boolean for a
number; ``$ref`` (to ``#/$defs/...`` only) applies beside the keywords next to it.

A check returns ``None`` for a valid value, else the path to the first problem found and
one sentence about it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

Path = tuple[str | int, ...]
Problem = tuple[Path, str]
Check = Callable[[Any], "Problem | None"]

KEYWORDS = frozenset({
    "$ref", "type", "const", "enum", "minimum", "maximum", "minLength", "maxLength", "pattern",
    "required", "properties", "additionalProperties", "propertyNames", "items", "minItems", "maxItems",
    "oneOf", "allOf",
})
ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description"})


class SchemaUnsupported(ValueError):
    """The schema uses something this checker does not implement."""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "number": _is_number,
    "integer": lambda v: _is_number(v) and (isinstance(v, int) or v.is_integer()),
}


def _same(a: Any, b: Any) -> bool:
    """JSON equality of a value and one of the schema's scalar constants: a boolean equals
    only a boolean, a string only a string, a number any number of the same value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False  # the schema's constants are scalars (checked when compiled)
    return bool(a == b)


def _in(path: str | int, problem: Problem | None) -> Problem | None:
    return None if problem is None else ((path, *problem[0]), problem[1])


class _Compiler:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.defs: Mapping[str, Any] = root.get("$defs", {})
        self.compiled: dict[str, Check] = {}

    def ref(self, target: str) -> Check:
        if not target.startswith("#/$defs/") or target[8:] not in self.defs:
            raise SchemaUnsupported(f"$ref {target!r}: only '#/$defs/NAME' of this schema is supported")
        name = target[8:]
        if name not in self.compiled:
            # Placeholder first: a definition that refers to itself resolves at check time.
            self.compiled[name] = lambda v: self.compiled[name](v)
            self.compiled[name] = self.node(self.defs[name])
        return self.compiled[name]

    def node(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return lambda v: None
        if schema is False:
            return lambda v: ((), f"{_short(v)} is not allowed here")
        if not isinstance(schema, Mapping):
            raise SchemaUnsupported(f"a schema must be an object or a boolean, not {schema!r}")
        unknown = sorted(k for k in schema if k not in KEYWORDS and k not in ANNOTATIONS and not k.startswith("x-"))
        if unknown:
            raise SchemaUnsupported(f"the keyword {unknown[0]!r} is not supported")
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(self.ref(schema["$ref"]))
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            tests = [_TYPES[n] for n in names]
            wanted = " or ".join(repr(n) for n in names)
            test = tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests))
            checks.append(lambda v: None if test(v) else ((), f"{_short(v)} is not of type {wanted}"))
        if "const" in schema:
            checks.append(self._const(schema["const"]))
        if "enum" in schema:
            checks.append(self._enum(list(schema["enum"])))
        checks += self._numbers(schema) + self._strings(schema) + self._objects(schema) + self._arrays(schema)
        if "allOf" in schema:
            checks += [self.node(s) for s in schema["allOf"]]
        if "oneOf" in schema:
            checks.append(self._one_of([self.node(s) for s in schema["oneOf"]]))
        if len(checks) == 1:
            return checks[0]

        def check_all(v: Any) -> Problem | None:
            for c in checks:
                problem = c(v)
                if problem is not None:
                    return problem
            return None
        return check_all

    @staticmethod
    def _scalar(value: Any) -> Any:
        if isinstance(value, (dict, list)):
            raise SchemaUnsupported("const and enum of arrays or objects are not supported")
        return value

    def _const(self, const: Any) -> Check:
        const = self._scalar(const)
        return lambda v: None if _same(v, const) else ((), f"{_short(const)} was expected")

    def _enum(self, options: list[Any]) -> Check:
        options = [self._scalar(o) for o in options]
        return lambda v: None if any(_same(v, o) for o in options) else ((), f"{_short(v)} is not one of {options!r}")

    @staticmethod
    def _numbers(schema: Mapping[str, Any]) -> list[Check]:
        out: list[Check] = []
        if "minimum" in schema:
            low = schema["minimum"]
            out.append(lambda v: ((), f"{_short(v)} is less than the minimum of {low!r}")
                       if _is_number(v) and v < low else None)
        if "maximum" in schema:
            high = schema["maximum"]
            out.append(lambda v: ((), f"{_short(v)} is greater than the maximum of {high!r}")
                       if _is_number(v) and v > high else None)
        return out

    @staticmethod
    def _strings(schema: Mapping[str, Any]) -> list[Check]:
        out: list[Check] = []
        if "minLength" in schema:
            shortest = int(schema["minLength"])
            out.append(lambda v: ((), f"{_short(v)} is too short")
                       if isinstance(v, str) and len(v) < shortest else None)
        if "maxLength" in schema:
            longest = int(schema["maxLength"])
            out.append(lambda v: ((), f"{_short(v)} is too long")
                       if isinstance(v, str) and len(v) > longest else None)
        if "pattern" in schema:
            pattern = re.compile(schema["pattern"])
            out.append(lambda v: ((), f"{_short(v)} does not match {pattern.pattern!r}")
                       if isinstance(v, str) and not pattern.search(v) else None)
        return out

    def _objects(self, schema: Mapping[str, Any]) -> list[Check]:
        out: list[Check] = []
        if "required" in schema:
            required = list(schema["required"])

            def check_required(v: Any) -> Problem | None:
                if isinstance(v, dict):
                    for name in required:
                        if name not in v:
                            return (), f"{name!r} is a required property"
                return None
            out.append(check_required)
        props = {k: self.node(s) for k, s in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        others: Check | None = None if extra is True else self.node(extra)
        names = self.node(schema["propertyNames"]) if "propertyNames" in schema else None
        if props or others is not None or names is not None:
            def check_members(v: Any) -> Problem | None:
                if not isinstance(v, dict):
                    return None
                for key, value in v.items():
                    if names is not None and names(key) is not None:
                        return (key,), f"the name {_short(key)} is not allowed"
                    check = props.get(key)
                    if check is None:
                        if others is None:
                            continue
                        if extra is False:
                            return (), f"Additional properties are not allowed ({key!r} was unexpected)"
                        check = others
                    problem = check(value)
                    if problem is not None:
                        return (key, *problem[0]), problem[1]
                return None
            out.append(check_members)
        return out

    def _arrays(self, schema: Mapping[str, Any]) -> list[Check]:
        out: list[Check] = []
        if "minItems" in schema:
            fewest = int(schema["minItems"])
            out.append(lambda v: ((), f"{_short(v)} is too short")
                       if isinstance(v, list) and len(v) < fewest else None)
        if "maxItems" in schema:
            most = int(schema["maxItems"])
            out.append(lambda v: ((), f"a list of {len(v)} is too long (at most {most})")
                       if isinstance(v, list) and len(v) > most else None)
        if "items" in schema:
            item = self.node(schema["items"])

            def check_items(v: Any) -> Problem | None:
                if isinstance(v, list):
                    for i, x in enumerate(v):
                        problem = item(x)
                        if problem is not None:
                            return (i, *problem[0]), problem[1]
                return None
            out.append(check_items)
        return out

    @staticmethod
    def _one_of(options: list[Check]) -> Check:
        def check_one(v: Any) -> Problem | None:
            matched = 0
            for c in options:
                if c(v) is None:
                    matched += 1
                    if matched > 1:
                        return (), f"{_short(v)} is valid under more than one of the given schemas"
            return None if matched == 1 else ((), f"{_short(v)} is not valid under any of the given schemas")
        return check_one


def compile_schema(root: Mapping[str, Any], definition: str | None = None) -> Check:
    """The check of ``root`` (a whole schema), or of its ``$defs`` entry ``definition``.

    Raises :class:`SchemaUnsupported` when the schema uses anything not implemented here.
    """
    compiler = _Compiler(root)
    check = compiler.ref(f"#/$defs/{definition}") if definition is not None else compiler.node(root)
    for name in compiler.defs:  # every definition is compiled, used or not: none is left unchecked
        compiler.ref(f"#/$defs/{name}")
    return check


def where(path: Path) -> str:
    """A problem's path as the venue writes it (``players/1/score``; ``the message`` for the top)."""
    return "/".join(str(p) for p in path) or "the message"
