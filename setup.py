"""Packages of the wheel; everything else about the project is in pyproject.toml.

Besides the ``table`` package tree, the wheel carries two top-level folders as packages
of their own, read at run time through importlib.resources so that an installed table
needs no checkout:

- ``config/`` as ``table.defaults``: the default config and data (table.common.datafiles);
- ``systemd/`` as ``table.system``: the kiosk's unit, drop-ins and udev rules
  (``table install``);
- ``docs/kiosk.md`` in ``table.docs``: the kiosk's manual, which the unit names;
- ``firmware/`` as ``table.firmware``: the I/O bridge's MicroPython files, which
  ``table firmware`` shows and copies for ``mpremote`` (never imported by the table).

The language catalogues (``table/common/locale/*.po``, the shared words, and each game's
own ``table/games/<game>/locale/*.po``) are compiled to ``.mo`` files during the build
(:class:`BuildWithCatalogues`, with ``table/common/pofile.py`` loaded on its own: the build
imports nothing else of the table), and both ship, so an installed table reads the
compiled catalogues and its tests can still read the source.

They hold no code (no ``__init__.py``): the program reaches them as
``importlib.resources.files("table") / "defaults"`` and so on, and an editable install
reads the top-level folders themselves (``table.common.datafiles.package_path``).
"""

import importlib.util
import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
CATALOGUES = sorted({po.parent for po in (HERE / "table").rglob("locale/*.po")})
"""Every ``locale`` folder of the table's packages (the shared words', each game's)."""
SCREEN_FACTS = sorted({facts.parent for facts in (HERE / "table").rglob("screen.toml")})
"""Every screen package with a facts file (``table.display.games.ScreenFacts``)."""


class BuildWithCatalogues(build_py):
    """``build_py`` that also compiles every catalogue's ``<lang>.po`` to ``<lang>.mo``."""

    def run(self) -> None:
        super().run()
        spec = importlib.util.spec_from_file_location("table_pofile", HERE / "table" / "common" / "pofile.py")
        assert spec is not None and spec.loader is not None
        pofile = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = pofile  # dataclasses look their module up while defining
        spec.loader.exec_module(pofile)
        for locale in CATALOGUES:
            out = Path(self.build_lib) / locale.relative_to(HERE)
            out.mkdir(parents=True, exist_ok=True)
            for po in sorted(locale.glob("*.po")):
                pofile.compile_po(po, out / f"{po.stem}.mo")


setup(
    cmdclass={"build_py": BuildWithCatalogues},
    packages=[*find_packages(include=["table", "table.*"]), "table.defaults", "table.system", "table.docs",
              "table.firmware"],
    package_dir={"table.defaults": "config", "table.system": "systemd", "table.docs": "docs",
                 "table.firmware": "firmware"},
    package_data={
        # PEP 561: the table's type hints hold for the games written against it elsewhere.
        "table": ["py.typed"],
        "table.defaults": ["*.toml", "*/*.toml", "*/*.npz", "*/*.onnx", "*/*.md", "*/*.json"],
        "table.system": ["*.service", "*/*.conf", "*/*.rules"],
        "table.docs": ["kiosk.md"],
        # The venue's payload schema and page (read through importlib.resources).
        "table.venue": ["*.json", "*.html"],
        "table.firmware": ["*.py"],
        # The files `table new-game` writes a new game from (templates, never imported).
        "table.commands": ["game_template/*.tmpl", "game_template/*/*.tmpl", "game_template/*/*/*.tmpl"],
        # The catalogues' sources (the build adds the compiled .mo beside them).
        **{".".join(locale.parent.relative_to(HERE).parts): ["locale/*.po"] for locale in CATALOGUES},
        # Each game screen's facts (its card, sounds, variant names), read beside its module.
        **{".".join(folder.relative_to(HERE).parts): ["screen.toml"] for folder in SCREEN_FACTS},
    },
)
