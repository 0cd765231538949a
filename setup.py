"""Packages of the wheel; everything else about the project is in pyproject.toml.

Besides the ``table`` package tree, the wheel carries two top-level folders as packages
of their own, read at run time through importlib.resources so that an installed table
needs no checkout:

- ``config/`` as ``table.defaults``: the default config and data (table.datafiles);
- ``systemd/`` as ``table.system``: the kiosk's unit, drop-ins and udev rules
  (``table install``);
- ``docs/kiosk.md`` in ``table.docs``: the kiosk's manual, which the unit names;
- ``firmware/`` as ``table.firmware``: the I/O bridge's MicroPython files, which
  ``table firmware`` shows and copies for ``mpremote`` (never imported by the table).

They hold no code (no ``__init__.py``): the program reaches them as
``importlib.resources.files("table") / "defaults"`` and so on, and an editable install
reads the top-level folders themselves (``table.datafiles.package_path``).
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["table", "table.*"]), "table.defaults", "table.system", "table.docs",
              "table.firmware"],
    package_dir={"table.defaults": "config", "table.system": "systemd", "table.docs": "docs",
                 "table.firmware": "firmware"},
    package_data={
        "table.defaults": ["*.toml", "*/*.toml", "*/*.npz", "*/*.md", "*/*.json"],
        "table.system": ["*.service", "*/*.conf", "*/*.rules"],
        "table.docs": ["kiosk.md"],
        # The venue's payload schema and page (read through importlib.resources).
        "table.venue": ["*.json", "*.html"],
        "table.firmware": ["*.py"],
    },
)
