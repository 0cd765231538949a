"""The one rule for a player's or a station's name, wherever a name enters or leaves,
and the one name of a player who entered none (:func:`unnamed`).

Used by the config check (``[table] names``, ``[table] station_names``), the lobby's
name entry, the relay reading the journal, and the venue receiving a table's
messages, so a name refused at one edge is refused at every other.

A name is shown on a station's panel, the TV and the venue's wall, next to other
text. It may hold:

* letters, digits, punctuation, symbols and spaces of any script, combining marks
  on a letter;
* emoji sequences: an emoji with a variation selector (U+FE0E, U+FE0F) or a skin
  tone (U+1F3FB-U+1F3FF), and emoji joined by a zero-width joiner (U+200D), such as
  a family.

It may not hold:

* control characters, line or paragraph separators, unassigned or private-use code
  points, surrogates;
* direction controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C): they
  reverse the text around the name and move the marks beside it;
* other invisible format characters (zero-width space, word joiner, BOM, tags...),
  or a zero-width joiner that does not join two emoji;
* nothing visible: empty, only spaces, only marks, only invisible letters (the
  Hangul fillers, U+3164 and kin).

Its length is counted in what a reader sees as characters: a code point, except that
marks, variation selectors, skin tones and whatever a zero-width joiner joins count
with the character before them. At most ``limit`` such characters, and at most four
times as many code points (so no sequence is unbounded).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from table.common.i18n import LANGUAGES, N_, _, in_language

LIMIT = 24
"""The most characters (as counted above) a name may have where no stricter limit applies."""

ZWJ = "\u200d"
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_SELECTORS = frozenset("\ufe0e\ufe0f")
_SKIN_TONES = frozenset(chr(c) for c in range(0x1F3FB, 0x1F400))
# Letters that draw nothing (the Hangul fillers, the Braille blank): a name of them is blank.
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_REFUSED_CATEGORIES = {"Cc": "a control character", "Cs": "a lone surrogate", "Co": "a private-use character",
                       "Cn": "an unassigned character", "Zl": "a line separator", "Zp": "a paragraph separator"}


UNNAMED = N_("Station {number}")
"""The name of a player who entered none, by their station's number (from 1): their
seat ("Station 4"; German says "Station" too, as "Platz 4" would read as a rank on the
final ranking). Never a colour: a venue's wall would add up every "Blue" of the
evening as one person."""


def unnamed(station: int, language: str | None = None) -> str:
    """What the player at ``station`` (from 0) is called when they entered no name: the
    one placeholder of every screen, the final ranking, the journal, the venue's messages
    and its wall, in the language in force (or ``language``).

    The lobby writes it into the game's setup when the game starts, so the journal and
    the venue carry the words the screens showed, whatever language reads them later."""
    words = _(UNNAMED) if language is None else in_language(language, UNNAMED)
    return words.format(number=station + 1)


@lru_cache(maxsize=1)  # no arguments: one pattern
def _unnamed_pattern() -> re.Pattern[str]:
    forms = {in_language(code, UNNAMED) for code in LANGUAGES}
    alternatives = ("".join(re.escape(part) for part in form.split()).replace(re.escape("{number}"), r"\d+")
                    for form in sorted(forms))
    return re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)


def is_unnamed(name: str) -> bool:
    """Whether ``name`` reads as the placeholder of :func:`unnamed` in any of the table's
    languages, for any number ("Station 4", "station 12", "STATION  0"): a name a venue
    lists (``[table] names``) must not, or its player could not be told from an unnamed one."""
    folded = "".join(name.split())  # spaces do not tell two names apart on a screen
    return _unnamed_pattern().fullmatch(folded) is not None


def _emoji(ch: str) -> bool:
    """A character a zero-width joiner may join: a symbol (the emoji are symbols)."""
    return unicodedata.category(ch) in ("So", "Sk")


def _joins_emoji(text: str, i: int) -> bool:
    """Whether the zero-width joiner at ``i`` stands between two emoji (a selector or a
    skin tone may follow the first)."""
    j = i - 1
    while j >= 0 and (text[j] in _SELECTORS or text[j] in _SKIN_TONES):
        j -= 1
    after = text[i + 1] if i + 1 < len(text) else ""
    return j >= 0 and _emoji(text[j]) and bool(after) and _emoji(after) and after not in _SKIN_TONES


def shown_length(text: str) -> int:
    """``text``'s length as a reader counts it (see the module docstring)."""
    count = 0
    joined = False
    for ch in text:
        if ch == ZWJ:
            joined = True
            continue
        if ch in _SELECTORS or ch in _SKIN_TONES or unicodedata.category(ch) in ("Mn", "Me"):
            continue
        if not joined:
            count += 1
        joined = False
    return count


def name_problem(name: Any, limit: int = LIMIT) -> str | None:
    """Why ``name`` cannot be a name (one phrase, to follow "the name ..."), or None."""
    if not isinstance(name, str):
        return f"must be text, not {type(name).__name__}"
    if len(name) > 4 * limit:
        return f"is longer than {limit} characters"
    visible = False
    for i, ch in enumerate(name):
        if ch in BIDI_CONTROLS:
            return f"holds a direction control (U+{ord(ch):04X}), which reverses the text around it"
        category = unicodedata.category(ch)
        what = _REFUSED_CATEGORIES.get(category)
        if what is not None:
            return f"holds {what} (U+{ord(ch):04X})"
        if category == "Cf":
            if ch == ZWJ and _joins_emoji(name, i):
                continue
            return f"holds an invisible character (U+{ord(ch):04X})"
        if category in ("Mn", "Me", "Zs") or ch in _INVISIBLE_LETTERS or ch in _SELECTORS:
            continue
        visible = True
    if not visible:
        return "is empty" if not name else "shows nothing (only spaces or invisible characters)"
    if shown_length(name) > limit:
        return f"is longer than {limit} characters"
    return None


def shown_name(name: Any, station: int, limit: int = LIMIT) -> str:
    """``name`` if it is one (:func:`name_problem`), trimmed of outer spaces; else
    :func:`unnamed` for ``station``: what a table or the venue shows in its place."""
    if name_problem(name, limit) is None:
        return str(name).strip()
    return unnamed(station)
