"""Bring the catalogues up to date with the source: ``python tools/i18n/update_catalogues.py``.

Collects every message marked with ``_``, ``N_``, ``ngettext`` or ``pgettext`` in
``table/`` and rewrites ``table/common/locale/<lang>.po`` for each language, keeping the
translations already there and dropping messages the source no longer has. English
message ids are the English text, so ``en.po`` gets each id as its own translation;
``de.po`` shows new messages with an empty ``msgstr`` to be translated by hand
(``tests/common/test_i18n.py`` fails until every one is).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("pofile", ROOT / "table" / "common" / "pofile.py")
assert spec is not None and spec.loader is not None
pofile = importlib.util.module_from_spec(spec)
sys.modules["pofile"] = pofile
spec.loader.exec_module(pofile)

HEADER = {
    "en": "Project-Id-Version: game-table\nLanguage: en\nMIME-Version: 1.0\n"
          "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n"
          "Plural-Forms: nplurals=2; plural=(n != 1);\n",
    "de": "Project-Id-Version: game-table\nLanguage: de\nMIME-Version: 1.0\n"
          "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n"
          "Plural-Forms: nplurals=2; plural=(n != 1);\n",
}


def main() -> int:
    template = []
    for path in sorted((ROOT / "table").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        template += pofile.extract_source(path.read_text(encoding="utf-8"), rel)
    for lang, header in HEADER.items():
        po = ROOT / "table" / "common" / "locale" / f"{lang}.po"
        old = pofile.read_po(po) if po.exists() else []
        entries = pofile.merge(template, old, header)
        if lang == "en":
            for e in entries[1:]:
                e.msgstr = [e.msgid] if e.plural is None else [e.msgid, e.plural]
                e.fuzzy = False
        po.write_text(pofile.format_po(entries), encoding="utf-8")
        missing = sum(1 for e in entries[1:] if not e.translated)
        print(f"{po.relative_to(ROOT)}: {len(entries) - 1} messages, {missing} untranslated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
