"""Packages of the wheel; everything else about the project is in pyproject.toml.

Besides the ``table`` package tree, the wheel carries two top-level folders as packages
of their own, read at run time through importlib.resources so that an installed table
needs no checkout:

- ``config/`` as ``table.defaults``: the default config and data (table.datafiles);
- ``systemd/`` as ``table.system``: the kiosk's unit, drop-ins and udev rules
  (``table install``);
- ``docs/kiosk.md`` in ``table.docs``: the kiosk's manual, which the unit names.

They hold no code (no ``__init__.py``): the program reaches them as
``importlib.resources.files("table") / "defaults"`` and so on, and an editable install
reads the top-level folders themselves (``table.datafiles.package_path``).
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["table", "table.*"]), "table.defaults", "table.system", "table.docs"],
    package_dir={"table.defaults": "config", "table.system": "systemd", "table.docs": "docs"},
    package_data={
        "table.defaults": ["*.toml", "*/*.toml", "*/*.npz", "*/*.md"],
        "table.system": ["*.service", "*/*.conf", "*/*.rules"],
        "table.docs": ["kiosk.md"],
    },
)
