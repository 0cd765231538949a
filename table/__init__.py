"""The game table: a daemon that turns a table into a party game table."""

__version__ = "0.1.0"
