"""``table install`` / ``table uninstall`` against a scratch root, never this machine's /etc.

The scratch root looks like a fresh Debian image with a desktop: a few accounts, the
distribution's units, a graphical default target and a login prompt on tty1. With
root privileges (as in CI) the real ``useradd --prefix`` and ``systemctl --root``
run on it; otherwise only the dry runs are checked.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from table.cli import main
from table.kiosk.install import GROUPS, Installer

SYSTEM_UNITS = next(
    (p for p in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")) if p.is_dir()), None
)
as_root = pytest.mark.skipif(
    os.geteuid() != 0 or SYSTEM_UNITS is None or shutil.which("useradd") is None
    or shutil.which("systemctl") is None,
    reason="needs root, useradd and systemctl (CI has them) to change a scratch root",
)


def scratch_root(tmp_path: Path) -> Path:
    root = tmp_path / "image"
    etc = root / "etc"
    etc.mkdir(parents=True)
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (etc / "shadow").write_text("root:*:19000:0:99999:7:::\n")
    (etc / "group").write_text("root:x:0:\nvideo:x:44:\naudio:x:29:\ninput:x:105:\nrender:x:106:\n")
    (etc / "gshadow").write_text("root:*::\nvideo:!::\naudio:!::\ninput:!::\nrender:!::\n")
    if SYSTEM_UNITS is not None:
        shutil.copytree(SYSTEM_UNITS, root / "usr/lib/systemd/system", symlinks=True)
    system = etc / "systemd/system"
    (system / "getty.target.wants").mkdir(parents=True)
    (system / "getty.target.wants/getty@tty1.service").symlink_to("/usr/lib/systemd/system/getty@.service")
    (system / "default.target").symlink_to("/usr/lib/systemd/system/graphical.target")
    return root


def snapshot(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if rel.endswith("-") and rel.startswith("etc/"):
            continue  # shadow's backup copies (passwd-, group-, ...)
        if p.is_symlink():
            out[rel] = "-> " + os.readlink(p)
        elif p.is_file():
            out[rel] = p.read_text(errors="replace")
        else:
            out[rel] = "<dir>"
    return out


def forbidden(cmd: Sequence[str]) -> str:
    raise AssertionError(f"a dry run ran {list(cmd)}")


def test_dry_run_on_this_machine_touches_nothing() -> None:
    out = io.StringIO()
    Installer(dry_run=True, run=forbidden, out=out).install()
    text = out.getvalue()
    assert text.startswith("Dry run: installing the game table kiosk")
    assert "table.service" in text


def test_dry_run_on_a_scratch_root_changes_nothing(tmp_path: Path) -> None:
    root = scratch_root(tmp_path)
    before = snapshot(root)
    out = io.StringIO()
    Installer(root=root, dry_run=True, run=forbidden, out=out).install()
    assert snapshot(root) == before
    text = out.getvalue()
    for expected in ("would create the system group gpio", "would create the system user table",
                     "would install /etc/systemd/system/table.service", "would enable table.service",
                     "would set the default target to multi-user.target", "would disable getty@tty1.service",
                     "would install /etc/table/table.toml"):
        assert expected in text, expected


def test_cli_dry_run_exit_status_and_bad_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = scratch_root(tmp_path)
    assert main(["install", "--dry-run", "--root", str(root)]) == 0
    assert "would enable table.service" in capsys.readouterr().out
    assert main(["uninstall", "--dry-run", "--root", str(root / "nowhere")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_refuses_to_change_the_system_without_root(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["install"]) == 2
    assert "run it as root" in capsys.readouterr().err


@as_root
def test_install_twice_then_uninstall_twice(tmp_path: Path) -> None:
    root = scratch_root(tmp_path)
    before = snapshot(root)

    out = io.StringIO()
    Installer(root=root, out=out).install()
    first = out.getvalue()
    assert "created the system user table" in first
    passwd = (root / "etc/passwd").read_text()
    assert passwd.count("\ntable:") == 1 and "/var/lib/table" in passwd
    group = (root / "etc/group").read_text()
    for g in GROUPS:
        assert any(line.startswith(f"{g}:") and line.endswith("table") for line in group.splitlines()), g
    system = root / "etc/systemd/system"
    assert (system / "table.service").is_file()
    assert (system / "multi-user.target.wants/table.service").is_symlink()
    assert os.readlink(system / "default.target").endswith("multi-user.target")
    assert not (system / "getty.target.wants/getty@tty1.service").exists()
    assert os.readlink(system / "ctrl-alt-del.target") == "/dev/null"
    assert (root / "etc/systemd/logind.conf.d/table-kiosk.conf").is_file()
    assert (root / "etc/udev/rules.d/99-table.rules").is_file()
    assert (root / "etc/modules-load.d/table-i2c.conf").read_text().splitlines()[-1] == "i2c-dev"
    assert "dialout" in GROUPS
    assert (root / "etc/table/table.toml").is_file()
    assert (root / "var/lib/table").is_dir()

    # The owner edits the config; a second install keeps it and changes nothing at all.
    config = root / "etc/table/table.toml"
    config.write_text(config.read_text() + "\n# edited by the owner\n")
    installed = snapshot(root)
    out = io.StringIO()
    Installer(root=root, out=out).install()
    assert "Nothing to do: the kiosk is already installed." in out.getvalue()
    assert snapshot(root) == installed

    out = io.StringIO()
    Installer(root=root, out=out).uninstall()
    assert "removed the user table" in out.getvalue()
    after = snapshot(root)
    kept = {k: v for k, v in after.items() if not k.startswith(("etc/table", "var"))}
    assert kept == before, set(kept.items()) ^ set(before.items())
    assert "edited by the owner" in after["etc/table/table.toml"]

    out = io.StringIO()
    Installer(root=root, out=out).uninstall(purge=True)
    assert "removed /etc/table" in out.getvalue()
    assert snapshot(root) == {**before, "var": "<dir>", "var/lib": "<dir>"}
    out = io.StringIO()
    Installer(root=root, out=out).uninstall()
    assert "Nothing to do: the kiosk is not installed." in out.getvalue()


@as_root
def test_purge_removes_the_cards_linked_settings_and_their_generations(tmp_path: Path) -> None:
    """On the SD card /etc/table is a link to one generation in /etc/table.d (the card's
    settings service swaps it); --purge removes the link and the generations."""
    root = scratch_root(tmp_path)
    Installer(root=root, out=io.StringIO()).install()
    live = root / "etc/table"
    generation = root / "etc/table.d/1-20261207-abc"
    generation.parent.mkdir()
    live.rename(generation)
    live.symlink_to(generation.relative_to(live.parent))
    out = io.StringIO()
    Installer(root=root, out=out).uninstall(purge=True)
    assert "removed /etc/table" in out.getvalue()
    assert not live.is_symlink() and not live.exists() and not (root / "etc/table.d").exists()


@as_root
def test_an_existing_table_user_leaves_only_the_groups_install_put_it_in(tmp_path: Path) -> None:
    """A ``table`` user of the owner's, already in ``video``: install adds the other groups
    (``dialout`` among them), uninstall takes exactly those away again and keeps the user."""
    root = scratch_root(tmp_path)
    etc = root / "etc"
    with (etc / "passwd").open("a") as f:
        f.write("table:x:990:990::/var/lib/table:/usr/sbin/nologin\n")
    with (etc / "shadow").open("a") as f:
        f.write("table:!:19000:0:99999:7:::\n")
    group = (etc / "group").read_text().replace("video:x:44:", "video:x:44:table") + "table:x:990:\n"
    (etc / "group").write_text(group)
    (etc / "gshadow").write_text((etc / "gshadow").read_text().replace("video:!::", "video:!::table")
                                 + "table:!::\n")
    before = (etc / "group").read_text()
    out = io.StringIO()
    Installer(root=root, out=out).install()
    assert "added table to the groups gpio, spi, i2c, dialout, input, render, audio" in out.getvalue()
    lines = (etc / "group").read_text().splitlines()
    assert any(line.startswith("dialout:") and line.endswith("table") for line in lines)
    out = io.StringIO()
    Installer(root=root, out=out).uninstall()
    assert "took table out of the groups" in out.getvalue()
    assert "table:x:990" in (etc / "passwd").read_text()
    after = {line for line in (etc / "group").read_text().splitlines()}
    assert after == set(before.splitlines())
