"""Errors that the command line turns into one clear sentence and exit status 2."""

from __future__ import annotations


class TableError(Exception):
    """A problem the person at the keyboard can fix: bad file, bad option, bad wiring.

    The message is one sentence that names the file (and key or line) and what is
    wrong. ``table.cli`` prints it as ``table: <message>`` and exits with status 2.
    """

    exit_status = 2
