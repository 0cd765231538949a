"""What the languages cost: loading a catalogue, looking words up, and painting every
screen of every game in German against English.

Run: python bench/bench_i18n.py   (headless; about half a minute)

Each figure comes with a baseline measured in the same run and the ratio: a catalogue
load against reading the compiled ``.mo`` (what an installed wheel does), a lookup
against a dictionary lookup, German screens against the same screens in English.
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gettext

import pygame
from _common import machine, median

from table.common import i18n
from table.common.pofile import mo_bytes, parse_po

ROOT = Path(__file__).resolve().parent.parent


def timed(fn: object, repeat: int) -> float:
    """Median seconds of ``repeat`` calls."""
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        runs.append(time.perf_counter() - t)
    return median(runs)


def main() -> int:
    print(f"machine: {machine()}")
    po_text = (ROOT / "table" / "common" / "locale" / "de.po").read_text(encoding="utf-8")
    mo = mo_bytes(parse_po(po_text))
    from_mo = timed(lambda: gettext.GNUTranslations(io.BytesIO(mo)), 50)
    from_po = timed(lambda: gettext.GNUTranslations(io.BytesIO(mo_bytes(parse_po(po_text)))), 50)
    print(f"catalogue load: .mo {from_mo * 1e3:.2f} ms, .po compiled in memory {from_po * 1e3:.2f} ms "
          f"(ratio {from_po / from_mo:.1f}; once per language per process)")

    i18n.set_language("de")
    words = ["Paused", "Game over", "Turn: choose · Push: take", "not in the catalogue"]
    table = dict.fromkeys(words, "x")
    n = 100_000
    lookup = timed(lambda: [i18n._(w) for w in words * (n // len(words))], 5) / n
    plain = timed(lambda: [table.get(w, w) for w in words * (n // len(words))], 5) / n
    print(f"lookup: _() {lookup * 1e9:.0f} ns, dict.get {plain * 1e9:.0f} ns (ratio {lookup / plain:.1f})")

    pygame.display.init()
    pygame.font.init()
    from display.textfit import game_screens

    for size in ((1920, 1080), (1280, 720)):
        cost: dict[str, list[float]] = {"en": [], "de": []}
        # English before and after German: the machine's load drifts, the mean of both is the baseline.
        for lang in ("en", "de", "en"):
            i18n.set_language(lang)
            screens = list(game_screens())
            surface = pygame.Surface(size)
            for _, paint in screens:  # warm the text and map caches
                paint(surface)
            cost[lang].append(timed(lambda screens=screens, surface=surface: [p(surface) for _, p in screens], 5)
                              / len(screens))
        en, de = sum(cost["en"]) / 2, cost["de"][0]
        print(f"{size[0]}x{size[1]}: every game screen painted from scratch ({len(screens)} screens): "
              f"English {en * 1e3:.2f} ms, German {de * 1e3:.2f} ms a screen (ratio {de / en:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
