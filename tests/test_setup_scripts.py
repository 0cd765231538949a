"""The Quick start's setup says what it does and skips the install when nothing changed.

scripts/setup-env runs in a copy of the checkout's setup files whose ``.venv/bin/python``
is a stand-in that records its arguments, so the test sees which pip steps ran without
installing anything (a real install takes a minute; the skip logic is what is tested).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
GAME = "tests/games/buzzer_race"
"""The test game, which the dev setup installs besides the table."""
GAME_INSTALL = f"-m pip install -q --no-deps -e {GAME}"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("sha256sum") is None,
                                reason="the setup scripts need bash and coreutils")


def make_copy(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    for name in ("setup-env", "table"):
        shutil.copy2(CHECKOUT / "scripts" / name, root / "scripts" / name)
    for name in ("pyproject.toml", "setup.py"):
        shutil.copy2(CHECKOUT / name, root / name)
    (root / GAME).mkdir(parents=True)
    shutil.copy2(CHECKOUT / GAME / "pyproject.toml", root / GAME / "pyproject.toml")
    (root / "packaging").mkdir()
    for name in ("debian-run.txt", "debian-test.txt", "debian-target-host.txt", "debian-pi.txt"):
        (root / "packaging" / name).write_text("# no Debian packages in this copy\n")
    (root / "packaging" / "npm-test.txt").write_text("# no npm packages in this copy\n")
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    fake = bin_dir / "python"
    fake.write_text(f'#!/bin/sh\necho "$*" >> "{root}/pip-calls"\n')
    fake.chmod(0o755)
    table = bin_dir / "table"
    table.write_text('#!/bin/sh\necho "table $*"\n')
    table.chmod(0o755)
    return root


def setup_env(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHON=sys.executable)
    env.pop("TABLE_SETUP_QUIET", None)
    return subprocess.run(["bash", str(root / "scripts" / "setup-env"), *args], capture_output=True,
                          text=True, env=env, timeout=60, check=True)


def pip_calls(root: Path) -> list[str]:
    calls = root / "pip-calls"
    lines = calls.read_text().splitlines() if calls.exists() else []
    calls.unlink(missing_ok=True)
    return lines


def test_second_run_skips_the_install_and_says_so(tmp_path: Path) -> None:
    root = make_copy(tmp_path)
    first = setup_env(root, "dev")
    assert pip_calls(root) == ["-m pip install -q --upgrade pip", "-m pip install -q -e .[dev]", GAME_INSTALL]
    # One line per phase, and how to reach the table command afterwards.
    assert "setup: updating pip" in first.stderr
    assert "setup: installing the table (extras: dev)" in first.stderr
    assert "setup: installing the test game" in first.stderr
    assert "setup: installed" in first.stderr
    assert "scripts/table" in first.stderr and f"{root}/.venv/bin" in first.stderr
    assert first.stdout == ""

    second = setup_env(root, "dev")
    assert pip_calls(root) == []
    assert "install skipped" in second.stderr
    assert "scripts/table" in second.stderr

    # Without "dev" (scripts/run-table after scripts/run-tests) the dev tools already there do.
    setup_env(root)
    assert pip_calls(root) == []


def test_a_changed_dependency_file_or_a_new_extra_reinstalls(tmp_path: Path) -> None:
    root = make_copy(tmp_path)
    setup_env(root)
    assert pip_calls(root)[-1] == "-m pip install -q -e ."  # without dev, no test game
    setup_env(root, "dev")  # dev was never installed: install it
    assert pip_calls(root)[-2:] == ["-m pip install -q -e .[dev]", GAME_INSTALL]
    with open(root / "pyproject.toml", "a") as f:
        f.write("\n# a change\n")
    setup_env(root)  # the dev extra installed before is kept
    assert pip_calls(root)[-2:] == ["-m pip install -q -e .[dev]", GAME_INSTALL]
    setup_env(root)
    assert pip_calls(root) == []
    with open(root / GAME / "pyproject.toml", "a") as f:
        f.write("\n# a change to the test game's entry point\n")
    setup_env(root)
    assert pip_calls(root)[-2:] == ["-m pip install -q -e .[dev]", GAME_INSTALL]
    (root / ".venv" / "bin" / "table").unlink()  # a broken venv is repaired
    setup_env(root)
    assert pip_calls(root)[-2:] == ["-m pip install -q -e .[dev]", GAME_INSTALL]


def test_a_failed_install_shows_pips_output(tmp_path: Path) -> None:
    root = make_copy(tmp_path)
    (root / ".venv" / "bin" / "python").write_text('#!/bin/sh\necho "pip says: no network" >&2\nexit 1\n')
    env = dict(os.environ, PYTHON=sys.executable)
    done = subprocess.run(["bash", str(root / "scripts" / "setup-env")], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 2
    assert "pip says: no network" in done.stderr
    assert "installing the table's Python packages failed" in done.stderr
    assert not (root / ".venv" / ".table-install-stamp").exists()



def fake_tools(root: Path, npm_fails: bool = False) -> dict[str, str]:
    """An environment whose PATH starts with stand-ins: dpkg knows no package, apt-get
    and npm record their arguments (npm "installs" by writing the package's manifest,
    or fails as without a registry), and present-tool is a command that is there."""
    bin_dir = root / "fake-bin"
    bin_dir.mkdir()
    scripts = {
        "dpkg": "exit 1\n",
        "apt-get": f'echo "apt-get $*" >> "{root}/tool-calls"\n',
        "present-tool": "exit 0\n",
        "npm": (f'echo "npm $*" >> "{root}/tool-calls"\n'
                + ('echo "npm error network: the registry is unreachable" >&2\nexit 1\n' if npm_fails else
                   'for spec in "$@"; do case "$spec" in *@*.*) name="${spec%@*}"\n'
                   '  mkdir -p "build/npm/node_modules/$name"\n'
                   '  echo "{\\"version\\": \\"${spec##*@}\\"}" > "build/npm/node_modules/$name/package.json"\n'
                   ';; esac; done\n')),
    }
    for name, body in scripts.items():
        (bin_dir / name).write_text("#!/bin/sh\n" + body)
        (bin_dir / name).chmod(0o755)
    return dict(os.environ, PYTHON=sys.executable, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def tool_calls(root: Path) -> list[str]:
    calls = root / "tool-calls"
    lines = calls.read_text().splitlines() if calls.exists() else []
    calls.unlink(missing_ok=True)
    return lines


def test_the_dev_setup_installs_the_tests_npm_packages_into_build_once(tmp_path: Path) -> None:
    root = make_copy(tmp_path)
    (root / "packaging" / "npm-test.txt").write_text("# pinned\n@scope/port@1.23.0\nplain@2.0.1\n")
    env = fake_tools(root)
    run = ["bash", str(root / "scripts" / "setup-env"), "dev"]
    first = subprocess.run(run, capture_output=True, text=True, env=env, timeout=60, check=True)
    (npm,) = [c for c in tool_calls(root) if c.startswith("npm ")]
    assert npm.startswith("npm install --prefix build/npm --no-save ")  # never global
    assert npm.endswith(" @scope/port@1.23.0 plain@2.0.1")
    assert "setup: installing npm packages into build/npm" in first.stderr
    subprocess.run(run, capture_output=True, text=True, env=env, timeout=60, check=True)
    assert tool_calls(root) == []  # both there at their versions
    (root / "packaging" / "npm-test.txt").write_text("@scope/port@1.24.0\nplain@2.0.1\n")
    subprocess.run(run, capture_output=True, text=True, env=env, timeout=60, check=True)
    assert [c.split()[-2:] for c in tool_calls(root)] == [["@scope/port@1.24.0", "plain@2.0.1"]]
    subprocess.run(["bash", str(root / "scripts" / "setup-env")], capture_output=True, text=True, env=env,
                   timeout=60, check=True)
    assert tool_calls(root) == []  # without the development tools: no npm


def test_an_unreachable_npm_registry_is_said_and_the_setup_goes_on(tmp_path: Path) -> None:
    root = make_copy(tmp_path)
    (root / "packaging" / "npm-test.txt").write_text("@scope/port@1.23.0\n")
    done = subprocess.run(["bash", str(root / "scripts" / "setup-env"), "dev"], capture_output=True, text=True,
                          env=fake_tools(root, npm_fails=True), timeout=60)
    assert done.returncode == 0  # the table needs no npm package; the test that does fails
    assert "the registry is unreachable" in done.stderr
    assert "setup: npm could not install @scope/port@1.23.0 (its output is above)" in done.stderr


def test_a_debian_package_whose_command_is_there_is_not_installed(tmp_path: Path) -> None:
    root = make_copy(tmp_path)
    (root / "packaging" / "debian-test.txt").write_text("# list\nneeded-one\nbundled present-tool\n"
                                                        "other absent-tool-xyz\n")
    done = subprocess.run(["bash", str(root / "scripts" / "setup-env"), "dev"], capture_output=True, text=True,
                          env=fake_tools(root), timeout=60, check=True)
    said = [line for line in done.stderr.splitlines() if "Debian packages" in line]
    assert len(said) == 1 and "needed-one other" in said[0] and "bundled" not in said[0]

def test_scripts_table_runs_the_venvs_table(tmp_path: Path) -> None:
    root = make_copy(tmp_path)
    done = subprocess.run(["bash", str(root / "scripts" / "table"), "wiring", "--help"], capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout.strip() == "table wiring --help"


def make_run_tests_copy(tmp_path: Path) -> Path:
    """A checkout whose setup does nothing and whose python (and Python 3.13 script)
    record where and how they ran."""
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(CHECKOUT / "scripts" / "run-tests", root / "scripts" / "run-tests")
    (root / "scripts" / "setup-env").write_text("#!/bin/sh\nexit 0\n")
    (root / "scripts" / "setup-env").chmod(0o755)
    (root / "scripts" / "trixie-tests").write_text(f'echo "$PWD|trixie-tests $*|" >> "{root}/python-calls"\n')
    (root / "tests" / "games" / "umtata").mkdir(parents=True)
    (root / "tests" / "games" / "umtata" / "test_engine.py").write_text("")
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    fake = bin_dir / "python"
    fake.write_text(f'#!/bin/sh\necho "$PWD|$*|${{PYTHONDONTWRITEBYTECODE:-}}" >> "{root}/python-calls"\n')
    fake.chmod(0o755)
    return root


def run_tests(root: Path, cwd: Path, *args: str,
              long_checks: str = "0") -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", TABLE_LONG_CHECKS=long_checks)
    done = subprocess.run(["bash", str(root / "scripts" / "run-tests"), *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=60)
    calls = root / "python-calls"
    lines = calls.read_text().splitlines() if calls.exists() else []
    calls.unlink(missing_ok=True)
    return done, [line.split("|") for line in lines]


def pytest_words(root: Path, call: list[str]) -> list[str]:
    words = call[1].split()
    assert words[:5] == ["-m", "pytest", "-c", f"{root}/pyproject.toml", "--rootdir"]
    return words


def test_run_tests_runs_the_whole_suite_from_an_empty_folder_then_the_linters(tmp_path: Path) -> None:
    """Without the long checks (no root, or TABLE_LONG_CHECKS=0) the whole suite runs
    here, from an empty folder, then the linters."""
    root = make_run_tests_copy(tmp_path)
    done, calls = run_tests(root, tmp_path, "-x")
    assert done.returncode == 0, done.stderr
    where = calls[0][0]
    assert where != str(root) and where != str(tmp_path)
    words = pytest_words(root, calls[0])
    assert "-x" in words and words[-1] == f"{root}/tests" and "--fast" not in words
    rest = [c[1] for c in calls[1:]]
    assert rest[0].startswith("-m ruff check") and rest[1] == "-m mypy"
    assert rest[2].startswith("-m mypy --strict tests/games/")  # the example plugin
    assert "lint_imports_command" in rest[3] and rest[3].endswith("pyproject.toml")
    assert len(rest) == 4


def test_with_the_long_checks_the_suite_runs_once_on_python_3_13(tmp_path: Path) -> None:
    """With the long checks (as root on Debian: CI) four jobs run side by side: the target
    check and the SD card (pytest of tests/target), the whole suite but tests/target on
    Python 3.13 (scripts/trixie-tests), and here the fast tier and then the linters; a
    last line adds up their results."""
    root = make_run_tests_copy(tmp_path)
    done, calls = run_tests(root, tmp_path, "-x", long_checks="1")
    assert done.returncode == 0, done.stderr
    target = f"{root}/tests/target"
    runs = [c for c in calls if c[1].startswith("-m pytest")]
    assert len(runs) == 3
    for where, _, _ in runs:
        assert where != str(root) and where != str(tmp_path)
    temps = {w[w.index("--basetemp") + 1] for w in (pytest_words(root, r) for r in runs)}
    assert len(temps) == 3
    by_last = {pytest_words(root, r)[-1]: pytest_words(root, r) for r in runs}
    assert set(by_last) == {target, f"{target}/test_boot_raspi.py", f"{root}/tests"}
    card = by_last[f"{target}/test_boot_raspi.py"]
    assert f"{target}/test_boot.py" in card and f"{target}/test_boot_screens.py" in card
    assert f"--ignore={target}/test_boot.py" in by_last[target]
    assert f"--ignore={target}/test_boot_raspi.py" in by_last[target]
    assert "--fast" in by_last[f"{root}/tests"] and all("-x" in w for w in by_last.values())
    assert [c[1] for c in calls if c[1].startswith("trixie-tests")] == ["trixie-tests -x"]
    rest = [c[1] for c in calls if not c[1].startswith(("-m pytest", "trixie-tests"))]
    assert rest[0].startswith("-m ruff check") and rest[1] == "-m mypy"
    assert rest[2].startswith("-m mypy --strict tests/games/")  # the example plugin
    assert "lint_imports_command" in rest[3]
    assert rest[4].startswith(f"{target}/closing_lines.py")
    # The fast tier runs before the linters, in the same job.
    order = [c[1] for c in calls]
    assert order.index(next(c for c in order if "--fast" in c.split())) < order.index("-m mypy")


def test_a_failing_test_still_shows_the_linters_verdict(tmp_path: Path) -> None:
    """A red run still runs ruff, mypy and import-linter (their verdict is not hidden by
    the failure), and ends with the tests' status, in every mode but --fast."""
    for long_checks in ("0", "1"):
        root = make_run_tests_copy(tmp_path / long_checks)
        fake = root / ".venv" / "bin" / "python"
        # pytest fails (status 1); everything else the fake runs succeeds.
        fake.write_text(fake.read_text() + 'case "$*" in "-m pytest"*) exit 1 ;; esac\nexit 0\n')
        done, calls = run_tests(root, tmp_path, long_checks=long_checks)
        assert done.returncode == 1, done.stderr
        called = [c[1] for c in calls]
        assert any(c.startswith("-m ruff check") for c in called) and "-m mypy" in called
        assert any("lint_imports_command" in c for c in called)


def test_run_tests_paths_replace_the_tests_folder_and_count_from_the_callers_folder(tmp_path: Path) -> None:
    root = make_run_tests_copy(tmp_path)
    _, calls = run_tests(root, root, "tests/games/umtata")
    assert calls[0][1].split()[-1] == f"{root}/tests/games/umtata"
    _, calls = run_tests(root, root / "tests" / "games", "-k", "umtata", "umtata/test_engine.py::test_x")
    assert calls[0][1].split()[-3:] == ["-k", "umtata", f"{root}/tests/games/umtata/test_engine.py::test_x"]
    done, calls = run_tests(root, root, "tests/umtata")
    assert done.returncode == 2 and calls == []
    assert done.stderr.strip() == f"run-tests: there is no test file or folder tests/umtata (looked in {root})"


def test_run_tests_quiet_keeps_the_summary_line(tmp_path: Path) -> None:
    # pyproject.toml's addopts has -q already; a second -q would hide "N passed".
    root = make_run_tests_copy(tmp_path)
    _, calls = run_tests(root, root, "-q")
    assert "-q" not in calls[0][1].split()


def test_run_tests_fast_runs_the_tier_without_linters_and_says_how_long(tmp_path: Path) -> None:
    root = make_run_tests_copy(tmp_path)
    done, calls = run_tests(root, root, "--fast")
    assert done.returncode == 0, done.stderr
    assert len(calls) == 1  # no ruff, no mypy
    _, pytest, dont_write = calls[0]
    assert "--fast" in pytest.split() and pytest.split()[-1] == f"{root}/tests"
    assert dont_write == ""  # compiled tests are kept: recompiling costs more than the tier
    assert "run-tests: the fast tier took" in done.stderr


def test_the_closing_lines_name_each_jobs_failed_tests(tmp_path: Path) -> None:
    """The end of CI's log is often all anyone reads: a job's failures are named there,
    in pytest's own short-summary words, under the job's counts."""
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_two.py").write_text("def test_good():\n    pass\n\n"
                                       "def test_bad():\n    assert 1 == 2, 'the table did not resume'\n")
    logs = tmp_path / "logs"
    logs.mkdir()
    # A real pytest run with the project's options (-rfEs gives the FAILED lines).
    run = subprocess.run([sys.executable, "-m", "pytest", "-c", str(CHECKOUT / "pyproject.toml"), "--rootdir",
                          str(tests), str(tests)], capture_output=True, text=True, cwd=tmp_path, check=False)
    (logs / "host.log").write_text(run.stdout)
    (logs / "py3.13.log").write_text("....\n4 passed in 1.00s\n")
    done = subprocess.run([sys.executable, str(CHECKOUT / "tests" / "target" / "closing_lines.py"), str(logs),
                           "12"], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "run-tests: host: 1 failed, 1 passed"
    assert lines[1].startswith("run-tests: host:   FAILED ") and "test_two.py::test_bad" in lines[1]
    assert "the table did not resume" in lines[1]
    assert lines[2:] == ["run-tests: py3.13: 4 passed", "run-tests: the whole suite's jobs took 12 s",
                         "run-tests: 5 passed, 1 failed, 0 skipped"]
