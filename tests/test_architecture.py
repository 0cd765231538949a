"""The table's architecture holds: no import cycles, and the layers of docs/architecture.md.

The layers and the forbidden imports are import-linter contracts in pyproject.toml
(``[tool.importlinter]``); scripts/run-tests runs ``lint-imports`` too. Imports inside
functions and under ``TYPE_CHECKING`` count: a cycle that only runs late is still one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The groups of modules that import each other, directly or round a loop (the
    strongly connected components with more than one module; Tarjan's, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        while work:
            module, imported = work[-1]
            step = next(imported, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.find_modules_directly_imported_by(step)))))
                elif step in on_stack:
                    low[module] = min(low[module], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_cycle_finder_finds_a_loop_and_nothing_else() -> None:
    graph = grimp.ImportGraph()
    for name in ("a", "b", "c", "d"):
        graph.add_module(name)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="c")
    graph.add_import(importer="c", imported="a")
    graph.add_import(importer="d", imported="a")
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_table_has_no_import_cycles() -> None:
    graph = grimp.build_graph("table", cache_dir=None)
    found = cycles(graph)
    assert not found, "modules that import each other: " + "; ".join(" <-> ".join(group) for group in found)


def test_the_layers_and_forbidden_imports_hold(tmp_path: Path) -> None:
    # In a child process: import-linter configures logging, which would switch off the
    # table's loggers for the tests after this one. From an empty folder, so that the
    # table analysed is the one the tests import.
    lint = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(PYPROJECT)!r}, no_cache=True, no_logo=True))")
    done = subprocess.run([sys.executable, "-c", lint], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
