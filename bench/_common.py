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


def cpu_model() -> str:
    """The processor's name as lscpu gives it (``model name`` of /proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown processor"


def machine() -> str:
    return (f"{cpu_model()}, {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.system()}")
