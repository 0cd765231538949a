"""The caches are bounded, and freed memory goes back to the system."""

from __future__ import annotations

import ast
from pathlib import Path

import table
from table.common.memory import give_back

ROOT = Path(table.__file__).resolve().parent

# Caches without a size of their own: their keys are few by construction (the registered
# games, the languages, the data files in force, nothing at all).
FINITE_KEYS = {
    ("table/display/moments.py", "_luminance_tables"),
    ("table/display/games/__init__.py", "renderer_of"),
    ("table/display/games/__init__.py", "read_screen_facts"),  # one file per installed game's screen
    ("table/display/games/umtata/map.py", "_read_map"),
    ("table/common/checks.py", "_toml_token"),  # no arguments: one pattern
    ("table/common/datafiles.py", "defaults_dir"),
    ("table/common/datafiles.py", "editable_source"),
    ("table/common/i18n.py", "translations"),
    ("table/games/contract.py", "games"),
    ("table/games/umtata/board.py", "_map_data"),
    ("table/games/umtata/board.py", "_read_board"),
    ("table/games/umtata/deck.py", "_checked_deck"),
    ("table/dice/features.py", "centre_mask"),
    ("table/dice/engines.py", "_workers"),
    ("table/dice/detect.py", "helper"),
    ("table/dice/engines.py", "library_works"),
    ("table/common/memory.py", "_trim"),
    ("table/common/config.py", "_matrix_counts"),
    ("table/venue/contract.py", "schema"),
    ("table/venue/contract.py", "_checker"),  # the whole schema and its three message types
}


def _unbounded(tree: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for dec in node.decorator_list:
            name = dec.func if isinstance(dec, ast.Call) else dec
            label = name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", "")
            if label == "cache" or (label == "lru_cache" and (
                    not isinstance(dec, ast.Call)
                    or any(isinstance(k.value, ast.Constant) and k.value.value is None for k in dec.keywords))):
                out.append(node.name)
    return out


def test_every_cache_is_bounded_or_has_few_keys() -> None:
    found = {(path.relative_to(ROOT.parent).as_posix(), name)
             for path in sorted(ROOT.rglob("*.py"))
             for name in _unbounded(ast.parse(path.read_text(encoding="utf-8")))}
    assert found <= FINITE_KEYS, sorted(found - FINITE_KEYS)


def test_giving_memory_back_is_safe_to_call_any_time() -> None:
    give_back()
    give_back()
