"""The game table: a daemon that turns a table into a party game table."""

import os

# pygame greets on import; a kiosk's log (journald) has no use for the banner.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

__version__ = "0.1.0"
