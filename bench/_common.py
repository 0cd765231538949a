"""Shared bits for the bench scripts: percentiles and the machine line."""

from __future__ import annotations

import os
import platform
import statistics


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def median(values: list[float]) -> float:
    return statistics.median(values)


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"
