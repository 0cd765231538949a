"""Bring the catalogues up to date with the source: ``python tools/i18n/update_catalogues.py``.

The table's words are in one catalogue per language for the shared code,
``table/common/locale/<lang>.po``, and one per game package under ``table/games/``:
``table/games/<game>/locale/<lang>.po`` holds the words of the game's rules package and
of its screen package ``table/display/games/<game>/`` (the game's ``Game`` names the
package as its ``catalogue``). The tool collects every message marked with ``_``,
``N_``, ``ngettext``, ``N_plural`` or ``pgettext`` in each catalogue's sources (and the
how-to-play lines and variant names of each screen's ``screen.toml``) and
rewrites the catalogue, keeping the translations already there (a message that moved
to another catalogue's sources keeps its translation too) and dropping messages its
sources no longer have. English message ids are the English text, so ``en.po`` gets
each id as its own translation; ``de.po`` shows new messages with an empty ``msgstr``
to be translated by hand (``tests/common/test_i18n.py`` fails until every one is).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "table"
spec = importlib.util.spec_from_file_location("pofile", TABLE / "common" / "pofile.py")
assert spec is not None and spec.loader is not None
pofile = importlib.util.module_from_spec(spec)
sys.modules["pofile"] = pofile
spec.loader.exec_module(pofile)

HEADER = ("Project-Id-Version: game-table\nLanguage: {lang}\nMIME-Version: 1.0\n"
          "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n"
          "Plural-Forms: nplurals=2; plural=(n != 1);\n")
LANGUAGES = ("en", "de")


def catalogues() -> dict[Path, list[Path]]:
    """Each catalogue's ``locale`` folder and the source files whose messages it holds:
    every game package's own, then the shared one with everything else in ``table/``."""
    games = [p for p in sorted((TABLE / "games").iterdir()) if (p / "__init__.py").is_file()]
    own = {game / "locale": [game, TABLE / "display" / "games" / game.name] for game in games}
    taken = [folder for folders in own.values() for folder in folders]
    out = {locale: sorted(p for folder in folders for p in pofile.message_sources(folder))
           for locale, folders in own.items()}
    out[TABLE / "common" / "locale"] = sorted(
        p for p in pofile.message_sources(TABLE) if not any(p.is_relative_to(folder) for folder in taken))
    return out


def main() -> int:
    found = catalogues()
    # Every translation there is, by language: what a moved message keeps.
    known = {lang: [e for locale in found for e in (pofile.read_po(locale / f"{lang}.po")
                                                     if (locale / f"{lang}.po").exists() else [])]
             for lang in LANGUAGES}
    for locale, sources in found.items():
        template = []
        for path in sources:
            template += pofile.extract_file(path, path.relative_to(ROOT).as_posix())
        if not template:
            continue  # a game without words of its own
        locale.mkdir(exist_ok=True)
        for lang in LANGUAGES:
            po = locale / f"{lang}.po"
            own = pofile.read_po(po) if po.exists() else []
            # Its own translation of a message first, else any other catalogue's (merge
            # keeps the last of a message it is given).
            old = [*(e for e in own if not e.translated), *(e for e in known[lang] if e.translated),
                   *(e for e in own if e.translated)]
            entries = pofile.merge(template, old, HEADER.format(lang=lang))
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
