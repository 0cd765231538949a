"""docs/kiosk.md's Raspberry Pi OS recipe, line by line, as the target check runs it.

The recipe is the first shell block under the heading *From a fresh Raspberry Pi OS Lite
card to the kiosk*. Each of its lines gets one way to run in the Debian 13 arm64 root
(scripts/target-check reads them from this script, so the check runs what the page says,
not a copy of it):

- ``network``: run in the root with its network (``apt-get update``; ``apt-get install``
  of the line's packages that Debian has, with ``--no-upgrade`` so that the cached root's
  packages stay the ones it was made with);
- ``stand-in``: only Raspberry Pi OS can run it (an ``apt-get install`` of packages only
  Raspberry Pi's archive has): the check logs the stand-in from packaging/raspi-only.txt;
- ``offline``: run in the root with its network cut (the config.txt line, the venv, pip
  from the wheelhouse, ``table install``, ``table check-config``);
- ``mount`` / ``umount``: the USB stick: the check binds the wheelhouse where the stick's
  ``table-wheelhouse`` folder would be, and takes it away again;
- ``reboot``: not run (systemd does not run in the root; the SD card's boot test boots).

Every command loses its ``sudo`` (the check runs as root inside the root). A line this
script does not know is an error, so the page cannot gain a step the check skips.

    python3 tests/target/recipe.py docs/kiosk.md packaging/raspi-only.txt

prints one line per recipe line: the kind, a tab, what to run (or the stand-in), a tab,
the line as the page gives it. No field is ever empty (a shell's ``read`` would merge two
tabs).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

HEADING = "### From a fresh Raspberry Pi OS Lite card to the kiosk"
KINDS = ("network", "stand-in", "offline", "mount", "umount", "reboot")
# Lines run as written (less sudo) with the network cut, by their start.
OFFLINE_STARTS = (
    "sudo python3 -m venv ",
    "sudo /opt/table/venv/bin/pip install --no-index ",
    "sudo /opt/table/venv/bin/table ",
)
CONFIG_LINE = re.compile(r"^echo (dtoverlay=[\w,=-]+) \| sudo tee -a /boot/firmware/config\.txt$")
APT_INSTALL = re.compile(r"^sudo apt-get install -y ([a-z0-9][a-z0-9 .+-]*)$")


class RecipeError(Exception):
    """The page's recipe cannot be found, or holds a line the check cannot run."""


@dataclass(frozen=True)
class Step:
    """One recipe line: how the check runs it (``kind``), what it runs, the line itself."""

    kind: str
    run: str
    line: str


def recipe_lines(page: str) -> list[str]:
    """The recipe's command lines: the first fenced block after the heading."""
    at = page.find(HEADING + "\n")
    if at < 0:
        raise RecipeError(f"the page has no heading {HEADING!r}")
    match = re.search(r"^```[a-z]*\n(.*?)^```$", page[at:], flags=re.M | re.S)
    if match is None:
        raise RecipeError("the recipe's section has no fenced block")
    return [line.strip() for line in match.group(1).splitlines() if line.strip()]


def stand_ins(raspi_only: str) -> dict[str, str]:
    """packaging/raspi-only.txt: what only Raspberry Pi OS has -> what stands in for it."""
    out: dict[str, str] = {}
    for line in raspi_only.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, why = line.strip().partition(" ")
            out[name] = why.strip()
    return out


def apt_packages(line: str) -> list[str]:
    """The packages of an ``apt-get install -y`` line of the recipe (none for other lines)."""
    match = APT_INSTALL.match(_command(line))
    return match.group(1).split() if match else []


def _command(line: str) -> str:
    """The line without its trailing comment (the page says there when a line applies)."""
    return line.split(" #", 1)[0].strip()


def _unsudo(command: str) -> str:
    return re.sub(r"(^|\| )sudo ", r"\1", command)


def plan(lines: list[str], raspi_only: dict[str, str]) -> list[Step]:
    """How the check runs each recipe line; :class:`RecipeError` names a line it cannot."""
    steps: list[Step] = []
    for line in lines:
        command = _command(line)
        if command == "sudo apt-get update":
            steps.append(Step("network", "apt-get update", line))
        elif packages := apt_packages(line):
            debian = [p for p in packages if p not in raspi_only]
            if debian:
                steps.append(Step("network", "apt-get install -y --no-upgrade " + " ".join(debian), line))
            else:
                steps.append(Step("stand-in", "; ".join(f"{p}: {raspi_only[p]}" for p in packages), line))
        elif CONFIG_LINE.match(command) or command.startswith(OFFLINE_STARTS):
            steps.append(Step("offline", _unsudo(command), line))
        elif command == "sudo mount /dev/sda1 /mnt":
            steps.append(Step("mount", "/mnt", line))
        elif command == "sudo umount /mnt":
            steps.append(Step("umount", "/mnt", line))
        elif command == "sudo reboot":
            steps.append(Step("reboot", "not run", line))
        else:
            raise RecipeError(f"the target check does not know how to run the recipe's line {line!r}")
    return steps


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: recipe.py KIOSK_MD RASPI_ONLY_TXT", file=sys.stderr)
        return 2
    page, raspi_only = (Path(a).read_text() for a in argv)
    try:
        steps = plan(recipe_lines(page), stand_ins(raspi_only))
    except RecipeError as exc:
        print(f"recipe: {exc}", file=sys.stderr)
        return 1
    for step in steps:
        print(f"{step.kind}\t{step.run}\t{step.line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
