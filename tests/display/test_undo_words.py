"""The notice after the table menu's undo says what was taken back: whose input, and
which (a button press, a knob push or turn), in any game, in the table's language."""

from __future__ import annotations

from table.common import i18n
from table.display.screens import undone_words
from table.games.base import Action, GameSetup
from table.play.session import UNDO, Session


def test_the_undo_notice_names_the_input_it_takes_back() -> None:
    session = Session.start("umtata", GameSetup("umtata", stations=(0, 1), names=("Ada", "")), seed=3)
    assert undone_words(session) == "the last move"  # nothing yet: the notice says "Nothing to undo"
    assert session.apply(Action("press", 1.0, 0))  # Ada calls Tataaa!
    assert undone_words(session) == "Ada's button press"
    assert session.apply(Action("push", 2.0, 1))  # the other station locks its guess
    assert undone_words(session) == "Station 2's knob push"  # no name entered: the station's
    i18n.set_language("de")
    try:
        assert undone_words(session) == "Knopfdruck von Station 2"
        assert session.apply(Action(UNDO, 3.0))
        assert undone_words(session) == "Buzzer-Druck von Ada"  # next in line to be taken back
    finally:
        i18n.set_language("en")
