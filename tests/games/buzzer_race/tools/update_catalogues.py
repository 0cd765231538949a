"""Rewrite buzzer_race/locale/<lang>.po from the package's source, keeping translations.

Run after changing a marked message (``_``, ``N_``, ``ngettext``, or a line of
``screen.toml``); then translate what is new in ``de.po`` (``en.po`` is filled with the
English message ids). Uses the table's own catalogue tools, so a game's catalogue has
the table's format.
"""

from __future__ import annotations

from pathlib import Path

from table.common.pofile import extract_file, format_po, merge, message_sources, read_po

PACKAGE = Path(__file__).resolve().parents[1] / "buzzer_race"
HEADER = ("Project-Id-Version: table-buzzer-race\nLanguage: {lang}\nMIME-Version: 1.0\n"
          "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n"
          "Plural-Forms: nplurals=2; plural=(n != 1);\n")


def main() -> None:
    template = []
    for source in message_sources(PACKAGE):
        template += extract_file(source, f"buzzer_race/{source.relative_to(PACKAGE).as_posix()}")
    for lang in ("en", "de"):
        po = PACKAGE / "locale" / f"{lang}.po"
        old = read_po(po) if po.exists() else []
        entries = merge(template, old, HEADER.format(lang=lang))
        if lang == "en":  # English message ids are the English text
            for e in entries[1:]:
                e.msgstr = [e.msgid] if e.plural is None else [e.msgid, e.plural]
        po.write_text(format_po(entries), encoding="utf-8")
        missing = sum(1 for e in entries[1:] if not e.translated)
        print(f"{po.name}: {len(entries) - 1} messages, {missing} untranslated")


if __name__ == "__main__":
    main()
