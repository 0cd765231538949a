"""Make this machine boot into the table (the kiosk), and undo it: what ``table install``
and ``table uninstall`` run (:class:`Installer`).

Installing (as root) does, and prints, each of:

1. the groups the table's devices belong to (``gpio spi i2c dialout video input render audio``)
   exist, and a system user ``table`` (no login shell, home ``/var/lib/table``) is in them;
2. a virtual environment at ``/opt/table/venv`` (with the system's site packages, so
   Debian's ``python3-picamera2`` is importable) holds the table. The usual way is to
   install the wheel there with pip and run ``/opt/table/venv/bin/table install``, which
   finds itself already in place; from anywhere else it builds that venv from
   ``--wheel FILE``, or from the checkout an editable install came from;
3. ``/etc/table/`` holds the config (the shipped defaults, read from the installed
   package, copied only where no file is, so an owner's edits survive a re-install);
4. the unit ``table.service``, the logind and watchdog drop-ins and the udev rules are
   installed, and ``modules-load.d/table-i2c.conf`` loads ``i2c-dev`` at boot; the unit
   is enabled, the default target is ``multi-user.target`` (no desktop), the login
   prompt on the first console is disabled and Ctrl+Alt+Del no longer reboots.

Every step first looks at what is there, so a second run changes nothing and says so.
What install changed is written to ``/etc/table/install-state.json``; ``table
uninstall`` reads it and undoes exactly that (the user, groups it created, the groups it
added an existing ``table`` user to, the venv,
the unit, the drop-ins; the previous default target and console login come back).
The journal in ``/var/lib/table`` and the config in ``/etc/table`` are kept unless
``--purge`` is given.

``--root DIR`` installs into a mounted image or a test directory instead of ``/``:
accounts are changed with ``useradd --prefix``, units with ``systemctl --root``, and
the venv is not built (a venv only works at the path it was made for).
``--dry-run`` prints what would be done and touches nothing.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from table.common.datafiles import editable_source, package_path
from table.common.errors import TableError
from table.kiosk.card_settings import generations_dir

USER = "table"
GROUPS = ("gpio", "spi", "i2c", "dialout", "video", "input", "render", "audio")
UNIT = "table.service"
VENV = "/opt/table/venv"
PREFIX = "/opt/table"
CONFIG_DIR = "/etc/table"
STATE_DIR = "/var/lib/table"
STATE_FILE = "/etc/table/install-state.json"
SYSTEMD_DIR = "/etc/systemd/system"
GETTY = "getty@tty1.service"
CTRL_ALT_DEL = "ctrl-alt-del.target"
NO_LOGIN_SHELLS = ("/usr/sbin/nologin", "/sbin/nologin", "/bin/false")

# Files shipped in the package's system folder (the repository's systemd/) -> where they go.
SHIPPED_FILES = {
    "table.service": f"{SYSTEMD_DIR}/{UNIT}",
    "table-relay.service": f"{SYSTEMD_DIR}/table-relay.service",  # idle without /etc/table/relay.toml
    "logind.conf.d/table-kiosk.conf": "/etc/systemd/logind.conf.d/table-kiosk.conf",
    "system.conf.d/table-watchdog.conf": "/etc/systemd/system.conf.d/table-watchdog.conf",
    "udev/99-table.rules": "/etc/udev/rules.d/99-table.rules",
    "modules-load.d/table-i2c.conf": "/etc/modules-load.d/table-i2c.conf",  # i2c-dev at boot (Debian: never by itself)
}

Runner = Callable[[Sequence[str]], str]


def run_command(cmd: Sequence[str]) -> str:
    """Run ``cmd``; a failure becomes a :class:`TableError` naming the command."""
    try:
        done = subprocess.run(list(cmd), capture_output=True, text=True, check=False, timeout=900)
    except FileNotFoundError:
        raise TableError(f"'{cmd[0]}' is not installed on this machine, so '{' '.join(cmd)}' cannot run") from None
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise TableError(f"'{' '.join(cmd)}' failed ({detail[-1] if detail else f'status {done.returncode}'})")
    return done.stdout


def systemd_booted() -> bool:
    """Whether systemd runs this system (sd_booted(3)); false in a chroot or an image."""
    return Path("/run/systemd/system").is_dir()


@dataclass
class Installer:
    """Carries out (or, dry, describes) install and uninstall steps under ``root``."""

    root: Path = Path("/")
    dry_run: bool = False
    wheel: Path | None = None
    run: Runner = run_command
    out: TextIO = field(default_factory=lambda: sys.stdout)
    python: str = sys.executable
    changes: int = 0
    dirs_created: list[str] = field(default_factory=list)

    # -- helpers --------------------------------------------------------------------------
    @property
    def offline(self) -> bool:
        """Working on another root than the running system's."""
        return self.root.resolve() != Path("/")

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def say(self, text: str) -> None:
        self.out.write(f"  {text}\n")

    def did(self, text: str, dry_text: str | None = None) -> None:
        self.changes += 1
        self.say(f"would {dry_text or text}" if self.dry_run else text)

    def command(self, *cmd: str) -> None:
        if not self.dry_run:
            self.run(cmd)

    def prefix_args(self) -> list[str]:
        return ["--prefix", str(self.root)] if self.offline else []

    def systemctl(self, *args: str) -> None:
        cmd = ["systemctl", *([f"--root={self.root}"] if self.offline else []), *args]
        self.command(*cmd)

    # -- state ----------------------------------------------------------------------------
    def load_state(self) -> dict[str, object]:
        p = self.path(STATE_FILE)
        if not p.is_file():
            return {}
        try:
            data = json.loads(p.read_text())
        except (OSError, ValueError) as exc:
            raise TableError(f"{p} is not readable install state ({exc}); remove it and run again") from None
        return data if isinstance(data, dict) else {}

    def save_state(self, state: dict[str, object]) -> None:
        if self.dry_run:
            return
        p = self.path(STATE_FILE)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")

    # -- accounts -------------------------------------------------------------------------
    def _entries(self, name: str) -> dict[str, list[str]]:
        p = self.path(f"/etc/{name}")
        try:
            lines = p.read_text().splitlines()
        except FileNotFoundError:
            return {}
        return {line.split(":", 1)[0]: line.split(":") for line in lines if line and not line.startswith("#")}

    def groups(self) -> dict[str, list[str]]:
        return self._entries("group")

    def users(self) -> dict[str, list[str]]:
        return self._entries("passwd")

    def ensure_groups(self, state: dict[str, object]) -> None:
        existing = self.groups()
        created = list(state.get("groups_created", []))  # type: ignore[call-overload]
        for group in GROUPS:
            if group in existing:
                continue
            self.command("groupadd", "--system", *self.prefix_args(), group)
            self.did(f"created the system group {group}", f"create the system group {group}")
            created.append(group)
        state["groups_created"] = sorted(set(created))

    def ensure_user(self, state: dict[str, object]) -> None:
        users = self.users()
        if USER not in users:
            self.command(
                "useradd", "--system", "--user-group", "--no-create-home", "--home-dir", STATE_DIR,
                "--shell", self._nologin(), "--comment", "game table daemon",
                "--groups", ",".join(GROUPS), *self.prefix_args(), USER,
            )
            self.did(f"created the system user {USER} in groups {', '.join(GROUPS)}",
                     f"create the system user {USER} in groups {', '.join(GROUPS)}")
            state["user_created"] = True
            return
        groups = self.groups()
        missing = [g for g in GROUPS if g not in groups or USER not in self._members(groups[g])]
        if missing:
            self.command("usermod", "--append", "--groups", ",".join(missing), *self.prefix_args(), USER)
            self.did(f"added {USER} to the groups {', '.join(missing)}", f"add {USER} to {', '.join(missing)}")
            added = list(state.get("groups_joined", []))  # type: ignore[call-overload]
            state["groups_joined"] = sorted(set(added) | set(missing))
        else:
            self.say(f"user {USER} already exists in groups {', '.join(GROUPS)}")
        state.setdefault("user_created", False)

    @staticmethod
    def _members(entry: list[str]) -> list[str]:
        return entry[3].split(",") if len(entry) > 3 else []

    def _nologin(self) -> str:
        return next((s for s in NO_LOGIN_SHELLS if Path(s).exists()), NO_LOGIN_SHELLS[0])

    # -- venv -----------------------------------------------------------------------------
    def running_from_venv(self) -> bool:
        """Whether this very program runs from the kiosk's venv (installed there with pip)."""
        return not self.offline and Path(sys.prefix).resolve() == Path(VENV).resolve()

    def package_source(self) -> str:
        """What pip installs into the kiosk's venv: ``--wheel``, else an editable install's checkout."""
        if self.wheel is not None:
            return str(self.wheel.resolve())
        checkout = editable_source()
        if checkout is not None and (checkout / "pyproject.toml").is_file():
            return str(checkout)
        raise TableError(f"this table is installed in {sys.prefix}, not in {VENV}: install the wheel there "
                         f"first ({VENV}/bin/pip install WHEEL) and run {VENV}/bin/table install, "
                         "or give --wheel WHEEL")

    def ensure_venv(self, state: dict[str, object], extras: str) -> None:
        if self.offline:
            self.say(f"venv {VENV} not built under --root (a venv only works where it was made); "
                     "run 'table install' on the table itself")
            return
        if self.running_from_venv():
            self.say(f"the table already runs from {VENV} (pip installs updates there)")
            return
        venv = self.path(VENV)
        target = self.package_source() + (f"[{extras}]" if extras else "")
        if not (venv / "bin" / "python").exists():
            self.command(self.python, "-m", "venv", "--system-site-packages", str(venv))
            self.did(f"created the virtual environment {VENV}", f"create the virtual environment {VENV}")
            state["venv_created"] = True
        # pip decides itself whether anything is new; re-running it is how an update lands.
        self.command(str(venv / "bin" / "pip"), "install", "--quiet", "--upgrade", target)
        self.say(("would install " if self.dry_run else "installed ") + f"{target} into {VENV}")

    # -- files ----------------------------------------------------------------------------
    def ensure_file(self, src: Path, dest_abs: str, *, overwrite: bool) -> bool:
        """Copy ``src`` to ``dest_abs`` unless the same file (or, without ``overwrite``,
        any file) is there. Returns whether it wrote."""
        dest = self.path(dest_abs)
        if dest.is_file() and (not overwrite or filecmp.cmp(src, dest, shallow=False)):
            self.say(f"{dest_abs} already in place")
            return False
        verb = "updated" if dest.exists() else "installed"
        if not self.dry_run:
            missing = [p for p in dest.parents if not p.exists()]
            self.dirs_created.extend(str(p.relative_to(self.root)) for p in missing)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
            dest.chmod(0o644)
        self.did(f"{verb} {dest_abs}", f"{'update' if verb == 'updated' else 'install'} {dest_abs}")
        return True

    def ensure_config(self) -> None:
        config = package_path("defaults")
        for src in sorted(p for p in config.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            self.ensure_file(src, f"{CONFIG_DIR}/{src.relative_to(config).as_posix()}", overwrite=False)

    def ensure_system_files(self) -> bool:
        wrote = False
        for rel, dest in SHIPPED_FILES.items():
            wrote |= self.ensure_file(package_path("system") / rel, dest, overwrite=True)
        docs = package_path("docs") / "kiosk.md"
        if docs.is_file():
            wrote |= self.ensure_file(docs, f"{PREFIX}/docs/kiosk.md", overwrite=True)
        return wrote

    def ensure_state_dir(self) -> None:
        d = self.path(STATE_DIR)
        if d.is_dir():
            self.say(f"{STATE_DIR} already exists (the journal lives there)")
            return
        if not self.dry_run:
            d.mkdir(parents=True, mode=0o700)
            if not self.offline:
                shutil.chown(d, USER, USER)
        self.did(f"created {STATE_DIR} for the journal", f"create {STATE_DIR} for the journal")

    # -- units ----------------------------------------------------------------------------
    def unit_link(self, unit: str, target: str = "multi-user.target") -> Path:
        return self.path(f"{SYSTEMD_DIR}/{target}.wants/{unit}")

    def getty_enabled(self) -> bool:
        return self.path(f"{SYSTEMD_DIR}/getty.target.wants/{GETTY}").is_symlink()

    def default_target(self) -> str | None:
        link = self.path(f"{SYSTEMD_DIR}/default.target")
        return os.path.basename(os.readlink(link)) if link.is_symlink() else None

    def is_masked(self, unit: str) -> bool:
        link = self.path(f"{SYSTEMD_DIR}/{unit}")
        return link.is_symlink() and os.readlink(link) == "/dev/null"

    def ensure_units(self, state: dict[str, object], files_changed: bool) -> None:
        if files_changed and not self.offline and systemd_booted():
            self.systemctl("daemon-reload")
            self.command("udevadm", "control", "--reload")
        if self.unit_link(UNIT).is_symlink():
            self.say(f"{UNIT} already enabled")
        else:
            self.systemctl("enable", UNIT)
            self.did(f"enabled {UNIT} (starts on boot)", f"enable {UNIT}")
        current = self.default_target()
        if current == "multi-user.target":
            self.say("default target already multi-user.target (no desktop)")
        else:
            state.setdefault("previous_default_target", current)
            self.systemctl("set-default", "multi-user.target")
            self.did("set the default target to multi-user.target (no desktop, no login)",
                     "set the default target to multi-user.target")
        if self.getty_enabled():
            self.systemctl("disable", GETTY)
            self.did(f"disabled {GETTY} (the table owns the first console)", f"disable {GETTY}")
            state["getty_disabled"] = True
        else:
            self.say(f"{GETTY} already off at boot")
        if self.is_masked(CTRL_ALT_DEL):
            self.say(f"{CTRL_ALT_DEL} already masked")
        else:
            self.systemctl("mask", CTRL_ALT_DEL)
            self.did(f"masked {CTRL_ALT_DEL} (a keyboard cannot reboot the table)", f"mask {CTRL_ALT_DEL}")
            state["ctrl_alt_del_masked"] = True

    # -- the two commands -------------------------------------------------------------------
    def check_allowed(self) -> None:
        if not self.offline and not self.dry_run and os.geteuid() != 0:
            raise TableError("installing the table changes the system: run it as root (sudo table install), "
                             "or look first with --dry-run")
        for rel in SHIPPED_FILES:
            if not (package_path("system") / rel).is_file():
                raise TableError(f"this install of the table lacks its system file {rel}; reinstall the table")
        if not (package_path("defaults") / "table.toml").is_file():
            raise TableError("this install of the table lacks its default config; reinstall the table")

    def install(self, extras: str = "") -> int:
        self.check_allowed()
        where = f" into {self.root}" if self.offline else ""
        self.out.write(f"{'Dry run: ' if self.dry_run else ''}installing the game table kiosk{where}\n")
        state = self.load_state()
        self.ensure_groups(state)
        self.ensure_user(state)
        self.ensure_venv(state, extras)
        self.ensure_config()
        self.ensure_state_dir()
        changed = self.ensure_system_files()
        self.ensure_units(state, changed)
        created = state.get("dirs_created", [])
        state["dirs_created"] = sorted(set(created if isinstance(created, list) else []) | set(self.dirs_created))
        self.save_state(state)
        if self.changes == 0:
            self.out.write("Nothing to do: the kiosk is already installed.\n")
        elif not self.dry_run:
            self.out.write("Done. The table starts on the next boot (or now: systemctl start table).\n")
        return 0

    def uninstall(self, purge: bool = False) -> int:
        self.check_allowed()
        where = f" from {self.root}" if self.offline else ""
        self.out.write(f"{'Dry run: ' if self.dry_run else ''}removing the game table kiosk{where}\n")
        state = self.load_state()
        if self.unit_link(UNIT).is_symlink():
            if not self.offline and systemd_booted():
                self.systemctl("stop", UNIT)
            self.systemctl("disable", UNIT)
            self.did(f"disabled {UNIT}", f"disable {UNIT}")
        for dest in [*SHIPPED_FILES.values(), f"{PREFIX}/docs/kiosk.md"]:
            p = self.path(dest)
            if p.exists():
                if not self.dry_run:
                    p.unlink()
                self.did(f"removed {dest}", f"remove {dest}")
        if state.get("ctrl_alt_del_masked") and self.is_masked(CTRL_ALT_DEL):
            self.systemctl("unmask", CTRL_ALT_DEL)
            self.did(f"unmasked {CTRL_ALT_DEL}", f"unmask {CTRL_ALT_DEL}")
        if state.get("getty_disabled") and not self.getty_enabled():
            self.systemctl("enable", GETTY)
            self.did(f"enabled {GETTY} again (login prompt on the first console)", f"enable {GETTY}")
        previous = state.get("previous_default_target", "")
        if isinstance(previous, str) and previous and self.default_target() != previous:
            self.systemctl("set-default", previous)
            self.did(f"set the default target back to {previous}", f"set the default target back to {previous}")
        elif previous is None and self.default_target() == "multi-user.target":
            # There was no default.target link of the owner's: the distribution's default applies again.
            if not self.dry_run:
                self.path(f"{SYSTEMD_DIR}/default.target").unlink()
            self.did("removed the default target link (the distribution's default applies again)",
                     "remove the default target link")
        if not self.offline and not self.dry_run and systemd_booted():
            self.systemctl("daemon-reload")
        venv_root = self.path(PREFIX)
        if self.running_from_venv():
            self.say(f"kept {VENV}: this program runs from it (remove it afterwards with rm -r {PREFIX})")
        elif state.get("venv_created") and venv_root.exists():
            if not self.dry_run:
                shutil.rmtree(venv_root)
            self.did(f"removed {PREFIX}", f"remove {PREFIX}")
        joined = [g for g in state.get("groups_joined", []) if g in self.groups()]  # type: ignore[attr-defined]
        if not state.get("user_created") and joined and USER in self.users():
            # A user of the owner's: it leaves only the groups install put it in.
            self.command("usermod", "--remove", "--groups", ",".join(joined), *self.prefix_args(), USER)
            self.did(f"took {USER} out of the groups {', '.join(joined)} again",
                     f"take {USER} out of {', '.join(joined)}")
        if state.get("user_created") and USER in self.users():
            self.command("userdel", *self.prefix_args(), USER)
            if USER in self.groups():
                self.command("groupdel", *self.prefix_args(), USER)
            self.did(f"removed the user {USER}", f"remove the user {USER}")
        for group in state.get("groups_created", []):  # type: ignore[attr-defined]
            if group in self.groups():
                self.command("groupdel", *self.prefix_args(), group)
                self.did(f"removed the group {group}", f"remove the group {group}")
        state_file = self.path(STATE_FILE)
        if state_file.exists() and not self.dry_run:
            state_file.unlink()
        created = state.get("dirs_created", [])
        # Deepest first; a directory that still holds something (the config) stays.
        for rel in sorted(created if isinstance(created, list) else [], key=len, reverse=True):
            d = self.root / rel
            if d.is_dir() and not any(d.iterdir()) and not self.dry_run:
                d.rmdir()
        for kept in (CONFIG_DIR, STATE_DIR):
            p = self.path(kept)
            if not p.exists() and not p.is_symlink():
                continue
            if purge:
                if not self.dry_run:
                    if p.is_symlink():
                        # The SD card's settings: a link to one generation in NAME.d.
                        p.unlink()
                        shutil.rmtree(generations_dir(p), ignore_errors=True)
                    else:
                        shutil.rmtree(p)
                self.did(f"removed {kept}", f"remove {kept}")
            else:
                self.say(f"kept {kept} (use --purge to remove it)")
        if self.changes == 0:
            self.out.write("Nothing to do: the kiosk is not installed.\n")
        return 0


def default_extras() -> str:
    """The pip extras the kiosk's venv gets by default: ``pi`` on a Raspberry Pi, else none."""
    try:
        model = Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return ""
    return "pi" if "Raspberry Pi" in model else ""
