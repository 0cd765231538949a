"""Reading gettext ``.po`` catalogues and writing ``.mo`` files, with the standard library only.

The table's catalogues (``table/common/locale/<lang>.po``) are compiled to ``.mo`` by the wheel
build (``setup.py``, which loads this file on its own, so it imports nothing from the
table), and in memory for an editable install that has no build step. Supported: the
header, ``msgctxt``, ``msgid_plural``/``msgstr[n]``, multi-line strings, comments and
the ``fuzzy`` flag (fuzzy entries are left out, as ``msgfmt`` does).
"""

from __future__ import annotations

import ast
import struct
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


class PoError(ValueError):
    """A catalogue that cannot be read: the file, line and what is wrong."""


@dataclass
class Entry:
    """One message: ``msgid`` (and its plural and context) with its translations."""

    msgid: str
    msgstr: list[str] = field(default_factory=lambda: [""])
    plural: str | None = None
    context: str | None = None
    fuzzy: bool = False
    comments: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str | None, str]:
        return self.context, self.msgid

    @property
    def translated(self) -> bool:
        return not self.fuzzy and all(self.msgstr)


def _unquote(text: str, where: str) -> str:
    text = text.strip()
    if not (len(text) >= 2 and text[0] == text[-1] == '"'):
        raise PoError(f"{where}: expected a quoted string, found {text!r}")
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError) as exc:
        raise PoError(f"{where}: bad string {text!r} ({exc})") from None
    return str(value)


def parse_po(text: str, name: str = "catalogue") -> list[Entry]:
    """The entries of a ``.po`` file's text, the header (empty ``msgid``) first if present."""
    entries: list[Entry] = []
    current: dict[str, str] = {}
    flags: list[str] = []
    comments: list[str] = []
    last: str | None = None

    def finish() -> None:
        nonlocal current, flags, comments, last
        if "msgid" in current:
            plurals = sorted((k for k in current if k.startswith("msgstr[")), key=lambda k: int(k[7:-1]))
            msgstr = [current[k] for k in plurals] if plurals else [current.get("msgstr", "")]
            entries.append(Entry(current["msgid"], msgstr, current.get("msgid_plural"), current.get("msgctxt"),
                                 "fuzzy" in flags, comments))
        elif current:
            raise PoError(f"{name}: an entry without msgid")
        current, flags, comments, last = {}, [], [], None

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{name}:{number}"
        if not line:
            continue
        if line.startswith("#,"):
            if "msgid" in current:
                finish()
            flags += [f.strip() for f in line[2:].split(",")]
            continue
        if line.startswith("#"):
            if "msgid" in current:
                finish()
            comments.append(line)
            continue
        if line.startswith('"'):
            if last is None:
                raise PoError(f"{where}: a string continues nothing")
            current[last] += _unquote(line, where)
            continue
        keyword, _, rest = line.partition(" ")
        if keyword not in ("msgctxt", "msgid", "msgid_plural", "msgstr") and not (
                keyword.startswith("msgstr[") and keyword.endswith("]")):
            raise PoError(f"{where}: unknown keyword {keyword!r}")
        if keyword in ("msgctxt", "msgid") and "msgid" in current and any(k.startswith("msgstr") for k in current):
            finish()
        if keyword in current:
            raise PoError(f"{where}: {keyword} twice in one entry")
        current[keyword] = _unquote(rest, where)
        last = keyword
    finish()
    return entries


def read_po(path: Path) -> list[Entry]:
    return parse_po(path.read_text(encoding="utf-8"), str(path))


def _quote(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{out}"'


def format_po(entries: list[Entry]) -> str:
    """The text of a ``.po`` file holding ``entries`` (in the order given)."""
    chunks = []
    for e in entries:
        lines = list(e.comments)
        if e.fuzzy:
            lines.append("#, fuzzy")
        if e.context is not None:
            lines.append(f"msgctxt {_quote(e.context)}")
        lines.append(f"msgid {_quote(e.msgid)}")
        if e.plural is not None:
            lines.append(f"msgid_plural {_quote(e.plural)}")
            lines += [f"msgstr[{i}] {_quote(s)}" for i, s in enumerate(e.msgstr)]
        elif e.msgid == "" and "\n" in e.msgstr[0]:
            lines.append('msgstr ""')
            lines += [_quote(part) for part in e.msgstr[0].splitlines(keepends=True)]
        else:
            lines.append(f"msgstr {_quote(e.msgstr[0])}")
        chunks.append("\n".join(lines))
    return "\n\n".join(chunks) + "\n"


def mo_bytes(entries: list[Entry]) -> bytes:
    """A GNU ``.mo`` file (little-endian, revision 0, no hash table) for the translated
    entries and the header; what :class:`gettext.GNUTranslations` reads."""
    pairs: dict[bytes, bytes] = {}
    for e in entries:
        if e.msgid and not e.translated:
            continue
        key = e.msgid if e.plural is None else f"{e.msgid}\0{e.plural}"
        if e.context is not None:
            key = f"{e.context}\x04{key}"
        pairs[key.encode("utf-8")] = "\0".join(e.msgstr).encode("utf-8")
    keys = sorted(pairs)
    n = len(keys)
    header = 7 * 4
    originals_at = header
    translations_at = originals_at + n * 8
    data_at = translations_at + n * 8
    blob = bytearray()
    table_o: list[int] = []
    table_t: list[int] = []
    for k in keys:
        table_o += [len(k), data_at + len(blob)]
        blob += k + b"\0"
    for k in keys:
        v = pairs[k]
        table_t += [len(v), data_at + len(blob)]
        blob += v + b"\0"
    return (struct.pack("<7I", 0x950412DE, 0, n, originals_at, translations_at, 0, 0)
            + struct.pack(f"<{2 * n}I", *table_o) + struct.pack(f"<{2 * n}I", *table_t) + bytes(blob))


def compile_po(po: Path, mo: Path) -> None:
    """Compile the catalogue ``po`` into ``mo``."""
    mo.write_bytes(mo_bytes(read_po(po)))


_MARKERS = {"_": "gettext", "N_": "gettext", "ngettext": "ngettext", "N_plural": "ngettext", "pgettext": "pgettext"}


def extract_source(source: str, name: str = "<source>") -> list[Entry]:
    """The messages marked in Python ``source``: ``_("…")``, ``N_("…")``,
    ``ngettext("…", "…", n)``, ``N_plural("…", "…")`` and ``pgettext("context", "…")`` (also as attributes, such
    as ``i18n._``), with a ``#:`` comment naming where each stands."""
    found: list[Entry] = []
    for node in ast.walk(ast.parse(source, name)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        kind = _MARKERS.get(called or "")
        if kind is None:
            continue
        args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
        where = [f"#: {name}:{node.lineno}"]
        if kind == "gettext" and args and args[0] is not None:
            found.append(Entry(args[0], comments=where))
        elif kind == "ngettext" and len(args) >= 2 and args[0] is not None and args[1] is not None:
            found.append(Entry(args[0], ["", ""], plural=args[1], comments=where))
        elif kind == "pgettext" and len(args) >= 2 and args[0] is not None and args[1] is not None:
            found.append(Entry(args[1], context=args[0], comments=where))
    return found


SCREEN_FACTS = "screen.toml"
"""The name of a screen's facts file (``table.display.games.ScreenFacts``): its
``how_to_play`` lines, its ``[variant_names]`` and its celebrations' ``words`` are
message ids, marked by standing there."""


def extract_screen_facts(text: str, name: str = "<facts>") -> list[Entry]:
    """The messages of a screen's facts file (TOML ``text``): every ``how_to_play`` line,
    every value of ``[variant_names]`` and every ``words`` of ``[celebrations]``, with a
    ``#:`` comment naming the line where each stands. A file that is not TOML raises
    ``tomllib.TOMLDecodeError``."""
    data = tomllib.loads(text)
    lines = data.get("how_to_play", [])
    names = data.get("variant_names", {})
    cheers = data.get("celebrations", {})
    found = [*(lines if isinstance(lines, list) else []), *(names.values() if isinstance(names, dict) else []),
             *(said.get("words") for said in (cheers.values() if isinstance(cheers, dict) else [])
               if isinstance(said, dict))]
    rows = text.splitlines()
    out: list[Entry] = []
    for msgid in found:
        if not isinstance(msgid, str):
            continue
        quoted = f'"{msgid}"'
        at = next((k for k, row in enumerate(rows, 1) if quoted in row), 1)
        out.append(Entry(msgid, comments=[f"#: {name}:{at}"]))
    return out


def extract_file(path: Path, name: str) -> list[Entry]:
    """The messages of one source file of a catalogue (:func:`message_sources`), named
    ``name`` in the comments: marked in Python, or standing in a screen's facts file."""
    text = path.read_text(encoding="utf-8")
    return extract_screen_facts(text, name) if path.name == SCREEN_FACTS else extract_source(text, name)


def message_sources(folder: Path) -> list[Path]:
    """The files below ``folder`` whose messages a catalogue holds: every Python module
    and every screen's facts file, sorted."""
    return sorted([*folder.rglob("*.py"), *folder.rglob(SCREEN_FACTS)])


def merge(template: list[Entry], old: list[Entry], header: str) -> list[Entry]:
    """The catalogue for ``template``'s messages, keeping ``old``'s translations (and
    flags) where the message is the same; messages no longer in the source are dropped."""
    known = {e.key: e for e in old if e.msgid}
    out = [Entry("", [header])]
    seen: dict[tuple[str | None, str], Entry] = {}
    for t in template:
        if t.key in seen:
            seen[t.key].comments += t.comments
            continue
        keep = known.get(t.key)
        entry = Entry(t.msgid, list(keep.msgstr) if keep else list(t.msgstr), t.plural, t.context,
                      keep.fuzzy if keep else False, list(t.comments))
        if t.plural is not None and len(entry.msgstr) < 2:
            entry.msgstr = [*entry.msgstr, ""][:2]
        seen[t.key] = entry
        out.append(entry)
    return out
