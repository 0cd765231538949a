"""The one rule for a player's or a station's name, wherever a name enters or leaves.

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

import unicodedata
from typing import Any

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


def unnamed(station: int) -> str:
    """What a player who entered no name is called: the station's name, the same in
    every language (a colour word would add up every "Blue" of the evening as one person)."""
    return f"Station {station + 1}"


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
