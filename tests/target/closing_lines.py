"""Adds up the closing lines of the whole suite's jobs (``scripts/run-tests``).

``python closing_lines.py LOGS SECONDS``: each ``LOGS/*.log`` is one job's output; its
last pytest closing line (``N passed, N skipped in 12.3s``) is read, and one line for all
of them is printed in pytest's words, after one line per job. A job with failures also
gets the lines of pytest's short summary that name them (``FAILED path::test - why``):
the end of CI's log is often all there is to read.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

WORDS = ("passed", "failed", "skipped", "errors", "error", "deselected")


def closing(text: str) -> dict[str, int]:
    """The counts of the last closing line in ``text`` (empty when there is none)."""
    closing_line = re.compile(r"\b(passed|failed|skipped|errors?)\b.* in [0-9.]+s")
    lines = [line for line in text.splitlines() if closing_line.search(line)]
    if not lines:
        return {}
    found = re.findall(r"(\d+) (passed|failed|skipped|errors?|deselected)\b", lines[-1])
    counts: dict[str, int] = {}
    for n, word in found:
        key = "error" if word.startswith("error") else word
        counts[key] = counts.get(key, 0) + int(n)
    return counts


def failures(text: str, limit: int = 10) -> list[str]:
    """The short summary's ``FAILED``/``ERROR`` lines in ``text`` (at most ``limit``, each
    cut to 400 characters)."""
    found = [line.strip() for line in text.splitlines() if re.match(r"\s*(FAILED|ERROR) \S", line)]
    return [line[:400] for line in found[:limit]]


def main(folder: Path, seconds: str) -> None:
    total = {"passed": 0, "failed": 0, "skipped": 0}
    for log in sorted(folder.glob("*.log")):
        text = log.read_text(errors="replace")
        counts = closing(text)
        words = ", ".join(f"{v} {k}" for k, v in counts.items()) or "no closing line (it stopped early)"
        print(f"run-tests: {log.stem}: {words}")
        for line in failures(text):
            print(f"run-tests: {log.stem}:   {line}")
        total["passed"] += counts.get("passed", 0)
        total["failed"] += counts.get("failed", 0) + counts.get("error", 0)
        total["skipped"] += counts.get("skipped", 0)
    print(f"run-tests: the whole suite's jobs took {seconds} s")
    print(f"run-tests: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
