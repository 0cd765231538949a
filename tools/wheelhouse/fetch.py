"""Download the target's wheels on the build machine, as pip on the target would pick them.

    python tools/wheelhouse/fetch.py --dest DIR --find-links BUILT --python 3.13.5 --glibc 2.41 REQ...

pip resolves ``REQ...`` (the table's wheel with its ``pi`` extra) for CPython on 64-bit
ARM Linux and downloads every wheel into ``DIR``, natively and at full speed, where pip
inside an emulated arm64 root takes many minutes. Two things make it the target's choice
rather than the build machine's:

- the wheels' tags: ``--platform`` for every ``manylinux`` glibc level up to the target's
  (``--glibc``), ``--python-version``, ``--implementation cp`` and the ``cp3NN`` ABI;
- the requirements' environment markers (``platform_machine == 'aarch64'``,
  ``python_version < '3.12'``, ...), which pip evaluates for the machine it runs on even
  with ``--platform``: here pip runs with the target's marker environment instead.

``BUILT`` holds wheels built elsewhere (in the arm64 root) for projects that publish only
their source; pip takes them from there. When a requirement has no wheel for the target
on PyPI nor in ``BUILT``, the script prints ``needs-build: REQUIREMENT`` (the requirement
as pip saw it, with its version range) and exits with status 3, so that the caller can
build it on the target and run the script again. Any other failure exits with pip's
status, pip's own output above it.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

# Run in a child interpreter: pip with the target's marker environment. pip evaluates
# every marker through its vendored packaging's default_environment().
CHILD = """
import json, sys
import pip._vendor.packaging.markers as markers
target = json.loads(sys.argv[1])
markers.default_environment = lambda: dict(target)
from pip._internal.cli.main import main
sys.exit(main(sys.argv[2:]))
"""
MISSING = re.compile(r"No matching distribution found for (.+)")
# The oldest glibc manylinux wheels for 64-bit ARM name (manylinux2014 = manylinux_2_17).
OLDEST_GLIBC_MINOR = 17


def marker_environment(python: str) -> dict[str, str]:
    """PEP 508's marker variables for CPython ``python`` (3.13.5) on Linux aarch64."""
    major_minor = ".".join(python.split(".")[:2])
    return {
        "implementation_name": "cpython",
        "implementation_version": python,
        "os_name": "posix",
        "platform_machine": "aarch64",
        "platform_release": "",
        "platform_system": "Linux",
        "platform_version": "",
        "python_full_version": python,
        "platform_python_implementation": "CPython",
        "python_version": major_minor,
        "sys_platform": "linux",
    }


def pip_arguments(dest: str, find_links: str, python: str, glibc: str, requirements: list[str]) -> list[str]:
    """pip download's arguments for the target's wheels."""
    major, minor = glibc.split(".")[:2]
    if major != "2":
        raise SystemExit(f"fetch: a glibc of version {glibc} is not one manylinux knows")
    # linux_aarch64: the wheels built on the target itself (PyPI takes no such wheel).
    platforms = ["linux_aarch64", "manylinux2014_aarch64"] + [f"manylinux_2_{m}_aarch64"
                                                              for m in range(OLDEST_GLIBC_MINOR, int(minor) + 1)]
    version = "".join(python.split(".")[:2])
    args = ["download", "--dest", dest, "--only-binary=:all:", "--implementation", "cp",
            "--python-version", ".".join(python.split(".")[:2]), "--abi", f"cp{version}",
            "--find-links", find_links, "--progress-bar", "off", "--retries", "10", "--timeout", "60",
            "--disable-pip-version-check"]
    for platform in platforms:
        args += ["--platform", platform]
    return [*args, *requirements]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", required=True)
    parser.add_argument("--find-links", required=True, help="a folder of wheels built for the target")
    parser.add_argument("--python", required=True, help="the target's Python version, as 3.13.5")
    parser.add_argument("--glibc", required=True, help="the target's glibc version, as 2.41")
    parser.add_argument("requirements", nargs="+")
    args = parser.parse_args()
    environment = json.dumps(marker_environment(args.python))
    command = [sys.executable, "-c", CHILD, environment,
               *pip_arguments(args.dest, args.find_links, args.python, args.glibc, args.requirements)]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    print(done.stdout, end="", flush=True)
    if done.returncode == 0:
        return 0
    missing = MISSING.search(done.stdout)
    if missing:
        # "lgpio>=0.2.2 (from game-table[pi])": the requirement is the first word.
        print(f"needs-build: {missing.group(1).split(' (from ')[0]}")
        return 3
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
