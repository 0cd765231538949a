"""Ubongo's tie-break lines stay short in German (its own catalogue)."""

from __future__ import annotations

from importlib import resources

from table.common.pofile import parse_po


def _german() -> str:
    return (resources.files("table.games.ubongo") / "locale" / "de.po").read_text(encoding="utf-8")


TIE_BREAKS = ("complete tie: {names} share the win",
              "most gems of one colour ({n}); {names} are tied on every colour and share the win",
              "{tied_names} tied on the best colour ({tied}); the {which} colour decided {a} to {b}: {names} wins",
              "{tied_names} tied on the best colour ({tied}); the {which} colour decided {a} to {b}: "
              "{names} share the win (tied on every colour)")
"""Ubongo's tie-break lines (the message ids of the game's reason for the win)."""


def test_german_tie_break_lines_are_short() -> None:
    """Under the winner's name, beside the ranking that names everyone: a German tie-break
    line says only what decided, in under 70 characters with four players' names."""
    names = "Player 1, Player 2, Player 3 und Player 4"
    values = {"names": names, "tied_names": names, "tied": "4, 4, 4, 4", "which": "5.", "a": 3, "b": 2,
              "n": 4, "depth": 4}
    entries = {e.msgid: e for e in parse_po(_german(), "de.po")}
    for msgid in TIE_BREAKS:
        for form in entries[msgid].msgstr:
            line = form.format(**values)
            assert len(line) <= 70, f"{len(line)}: {line}"
