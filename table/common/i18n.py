"""The table's languages: every string a player sees or hears goes through gettext.

The shared words are in ``table/common/locale/<lang>.po`` (English message ids, one
catalogue per language); each game brings its own words in a catalogue of its own
(:func:`add_catalogue`, done for every registered game by ``table.games.contract.games``),
consulted after the shared one. The wheel build compiles the catalogues to ``.mo`` beside
them (``setup.py``), and an editable install, which has no build step, compiles a ``.po``
in memory the first time its language is used. The table speaks one language at a time: :func:`set_language`
switches it for the whole process (the lobby's language line, ``[table] language`` in
table.toml), and every screen draws its text through :func:`_` at paint time, so a
switch shows on the next frame. Screens that cache pictures include :func:`language`
in their keys.

Engines stay pure and language-free: the words their public views carry (a player's
next step, what just happened, why a game was won) are *messages*: an English message id
marked with :func:`N_` (or :func:`N_plural`) and the parameters that fill its
``{fields}``, as JSON data (``table.games.base.Message``). The renderers word them in
the language in force with :func:`word`; the JSON report and the venue get them in
English (:func:`format_message` without a catalogue). Command-line messages stay English.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES: tuple[str, ...] = ("en", "de")
"""The languages the table has catalogues for; the first is the default."""

LANGUAGE_NAMES: dict[str, str] = {"en": "English", "de": "Deutsch"}
"""Each language in its own words (what the lobby shows, never translated)."""

DOMAIN = "table"

_current = LANGUAGES[0]


def language() -> str:
    """The language in force (``"en"`` or ``"de"``)."""
    return _current


def set_language(code: str) -> None:
    """Switch the whole table to ``code``; ``ValueError`` for a language without a catalogue."""
    global _current
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r} (known: {', '.join(LANGUAGES)})")
    _current = code


def next_language(code: str) -> str:
    """The language after ``code`` in :data:`LANGUAGES` (what a knob push in the lobby picks)."""
    return LANGUAGES[(LANGUAGES.index(code) + 1) % len(LANGUAGES)] if code in LANGUAGES else LANGUAGES[0]


_catalogues: list[str] = ["table.common"]
"""Packages whose ``locale/<lang>.po`` (or compiled ``.mo``) hold words, consulted in
this order: the table's own first, then each game's that brings one."""


def add_catalogue(package: str) -> None:
    """Consult ``package``'s ``locale/`` after the catalogues already known (a game's own
    words); adding one twice changes nothing."""
    if package not in _catalogues:
        _catalogues.append(package)
        translations.cache_clear()


@cache
def translations(code: str) -> gettext.NullTranslations:
    """Every known catalogue of ``code`` chained, the table's first (:func:`add_catalogue`);
    English message ids pass through where none has a translation."""
    chain: gettext.NullTranslations | None = None
    for package in _catalogues:
        found = _catalogue(package, code)
        if chain is None:
            chain = found
        else:
            chain.add_fallback(found)
    return chain if chain is not None else gettext.NullTranslations()


def _catalogue(package: str, code: str) -> gettext.NullTranslations:
    """``package``'s catalogue of ``code``: the compiled ``.mo`` of an installed wheel,
    else the ``.po`` compiled in memory, else nothing."""
    folder = resources.files(package) / "locale"
    mo = folder / f"{code}.mo"
    if mo.is_file():
        return gettext.GNUTranslations(io.BytesIO(mo.read_bytes()))
    po = folder / f"{code}.po"
    if po.is_file():
        from table.common.pofile import mo_bytes, parse_po

        return gettext.GNUTranslations(io.BytesIO(mo_bytes(parse_po(po.read_text(encoding="utf-8"), str(po)))))
    return gettext.NullTranslations()


def _(message: str) -> str:
    """``message`` (an English message id) in the language in force."""
    return translations(_current).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the language in force."""
    return translations(_current).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in ``context`` (a short word whose translation depends on where it stands)."""
    return translations(_current).pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogues without translating it now (engines' view
    strings, tables of labels): whoever shows it later passes it through :func:`_`."""
    return message


def N_plural(singular: str, plural: str) -> tuple[str, str]:
    """Mark the two forms of a counted message for the catalogues without translating
    them now (what :func:`N_` is for :func:`ngettext`); whoever shows the message picks
    the form for its count."""
    return singular, plural


MessageData = str | Mapping[str, Any] | None
"""A message as views carry it: ``{"id": msgid, "params": {...}}``, with ``"plural"``
and ``"count"`` for a counted one; a parameter may itself be a message. A bare string
is a message id without parameters; ``None`` or an empty id is no message."""


def _same(message: str) -> str:
    return message


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def format_message(
    message: MessageData,
    gettext: Callable[[str], str] = _same,
    ngettext: Callable[[str, str, int], str] = _english_plural,
) -> str:
    """``message`` in words: its id looked up with ``gettext`` (or its forms with
    ``ngettext`` for its count), its ``{fields}`` filled from its parameters, each
    parameter that is a message worded first the same way. Without catalogue functions
    it is the English the message ids are written in (what the JSON report prints).
    A message whose fields its parameters do not fill is shown unfilled, never raised."""
    if message is None:
        return ""
    if isinstance(message, str):
        return gettext(message) if message else ""
    ident = message.get("id")
    if not isinstance(ident, str) or not ident:
        return ""
    raw = message.get("params")
    params = {
        str(k): format_message(v, gettext, ngettext) if _is_message(v) else v
        for k, v in (raw.items() if isinstance(raw, Mapping) else ())
    }
    plural, count = message.get("plural"), message.get("count")
    text = ngettext(ident, plural, count) if isinstance(plural, str) and isinstance(count, int) else gettext(ident)
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError):
        return text


def _is_message(value: object) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("id"), str)


def word(message: MessageData) -> str:
    """A view's message (see :data:`MessageData`) in the language in force."""
    return format_message(message, _, ngettext)


def in_language(code: str, message: str) -> str:
    """``message`` in language ``code``, whatever the table speaks now."""
    return translations(code).gettext(message)
