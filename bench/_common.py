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


PI_SYSBENCH = {"Pi 5": 2737.49, "Pi 4": 1477.83, "Pi Zero 2 W": 687.45 * 1.0 / 1.4}
"""Published single-core ``sysbench cpu`` scores (sysbench 1.0.20, primes up to 10,000,
events a second): the Pi 5 and Pi 4 as measured at
https://leoncode.co.uk/articles/raspberry-pi-benchmarks; the Zero 2 W is not measured
there, so its figure is that page's Pi 3 B+ (the same Cortex-A53 core at 1.4 GHz)
scaled to the Zero 2 W's 1.0 GHz."""


def per_core() -> str:
    """This machine's single-core ``sysbench cpu`` score, measured now, and the factor
    that turns a time measured here into a Pi's by the published scores (score here /
    score there; one line, which says so when sysbench is not installed)."""
    import shutil
    import subprocess

    if shutil.which("sysbench") is None:
        return "per-core score: sysbench not installed (apt install sysbench), no Pi factors"
    out = subprocess.run(["sysbench", "cpu", "--threads=1", "--time=5", "run"], capture_output=True, text=True,
                         check=True).stdout
    score = next(float(line.split(":")[1]) for line in out.splitlines() if "events per second" in line)
    factors = ", ".join(f"{name} x{score / pi:.2f}" for name, pi in PI_SYSBENCH.items())
    return (f"per-core score (sysbench cpu, 1 thread): {score:.0f} events/s here; a time here becomes a Pi's "
            f"times: {factors}")
