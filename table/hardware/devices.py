"""Can the kiosk's service open the devices the configured hardware needs?

``table.service`` runs the table as the unprivileged user ``table`` with the groups of
its ``SupplementaryGroups=``. A device node it cannot open fails late and quietly (a
bridge that never answers, a dark strip), so ``table check-config --kiosk`` and ``table
selftest`` ask here first. For each device the configuration needs
(:func:`configured_needs`: the GPIO chip, ``/dev/spidev0.N``, ``/dev/i2c-1``, the
bridge's serial port, the camera, the display's DRM nodes, the sound card) the check
(:func:`check_devices`) names the node, its owner, group and mode, and whether the
service user with the unit's groups may open it (the kernel's owner/group/other rule on
the mode bits); when it may not, the group it lacks or the udev rule that is missing;
when the node is absent, the kernel module that is not loaded or the bus that is off.
Each problem ends in one fix for the system at hand: Raspberry Pi OS (``raspi-config``
is there) or plain Debian.

Two more checks of the machine: :func:`pin_clashes` reads the firmware's boot config
(``/boot/firmware/config.txt``) for the buses and overlays that claim header pins and
refuses stations wired to them; :func:`display_library_problems` looks for the Mesa
libraries SDL's KMS/DRM driver loads (GBM, EGL, GLES 2 and a DRI driver).

Everything takes ``root`` (default ``/``): the tests point it at a scratch tree with
real device nodes, ``/etc/passwd``, ``/etc/group``, ``/sys/module`` and a boot config.
The service's groups are read from the installed unit (with its drop-ins) or, before
``table install``, from the shipped one, so that the check and the unit never drift.
"""

from __future__ import annotations

import ctypes.util
import os
import re
import stat
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from table.common.datafiles import package_path
from table.hardware.config import HardwareConfig
from table.hardware.pinmap import pin_uses

SERVICE_USER = "table"
UNIT_NAME = "table.service"
INSTALLED_UNIT = f"/etc/systemd/system/{UNIT_NAME}"
MODULES_LOAD_FILE = "/etc/modules-load.d/table-i2c.conf"
"""What ``table install`` puts in place so that ``i2c-dev`` is loaded at every boot."""
UDEV_RULES = "/etc/udev/rules.d/99-table.rules"
BOOT_CONFIGS = ("/boot/firmware/config.txt", "/boot/config.txt")
"""Where the firmware's config is (Bookworm and later, then older systems)."""
RASPI_CONFIG = "/usr/bin/raspi-config"
TABLE_SPI_OVERLAY = "/boot/firmware/overlays/table-spi-leds.dtbo"
"""The SD card's overlay: SPI0 on GPIO 10 and 11 only, for the LED strip."""

READ = 4
WRITE = 2


@dataclass(frozen=True)
class Need:
    """A device node (or a glob of nodes) the configuration needs.

    ``key``: what in the configuration asks for it, for messages; ``group``: the group
    the node belongs to where the system is set up right; ``module``: the kernel module
    that makes the node (as ``/sys/module`` names it), None when built in or unknown;
    ``ours``: the rule giving it to ``group`` is in the table's own udev rules (plain
    Debian has none)."""

    key: str
    pattern: str
    group: str
    access: int = READ | WRITE
    module: str | None = None
    ours: bool = False
    what: str = ""


@dataclass(frozen=True)
class Node:
    """One node as the check found it, and whether the service may open it."""

    path: str
    owner: str
    group: str
    mode: int
    ok: bool
    lacks: str | None = None  # the node's group, which the service is not in
    target: str | None = None  # where a symlink (a by-id path) leads

    def facts(self) -> str:
        via = f" -> {self.target}" if self.target else ""
        return f"{self.path}{via} {self.owner}:{self.group} {self.mode:04o}"


@dataclass(frozen=True)
class DeviceCheck:
    """The verdict on one :class:`Need`: the nodes found, and the problem with its fix."""

    need: Need
    nodes: tuple[Node, ...]
    problem: str | None = None
    fix: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        """``node owner:group mode: ok``, or the problem and its fix (the self-test's detail)."""
        if self.ok:
            more = f" (and {len(self.nodes) - 1} more)" if len(self.nodes) > 1 else ""
            return f"{self.nodes[0].facts()}{more}: ok"
        return f"{self.problem}; fix: {self.fix}"

    def sentence(self, source: str) -> str:
        """The problem as ``check-config`` prints it: one sentence naming the file and key."""
        return f"{source}: {self.need.key}: {self.problem}; {self.fix}"


# --- the machine under root ---------------------------------------------------------------


@dataclass
class Machine:
    """What the checks read of the system under ``root`` (``/`` or a scratch tree)."""

    root: Path = Path("/")

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def _entries(self, name: str) -> list[list[str]]:
        try:
            lines = self.path(f"/etc/{name}").read_text(errors="replace").splitlines()
        except OSError:
            return []
        return [line.split(":") for line in lines if line and not line.startswith("#") and line.count(":") >= 2]

    def group_gids(self) -> dict[str, int]:
        return {e[0]: int(e[2]) for e in self._entries("group") if e[2].isdigit()}

    def group_name(self, gid: int) -> str:
        return next((name for name, g in self.group_gids().items() if g == gid), str(gid))

    def user(self, name: str) -> tuple[int, int] | None:
        """(uid, primary gid) of ``name``, or None when there is no such user."""
        for e in self._entries("passwd"):
            if e[0] == name and len(e) > 3 and e[2].isdigit() and e[3].isdigit():
                return int(e[2]), int(e[3])
        return None

    def user_name(self, uid: int) -> str:
        return next((e[0] for e in self._entries("passwd") if len(e) > 2 and e[2] == str(uid)), str(uid))

    @property
    def raspberry_pi_os(self) -> bool:
        """Raspberry Pi OS (its ``raspi-config`` is there), else plain Debian."""
        return self.path(RASPI_CONFIG).exists()

    def module_loaded(self, module: str) -> bool:
        """Whether the kernel module is loaded or built in (``/sys/module``, ``/proc/modules``,
        the kernel's ``modules.builtin``)."""
        name = module.replace("-", "_")
        if self.path(f"/sys/module/{name}").exists():
            return True
        try:
            if any(line.split(" ", 1)[0] == name for line in self.path("/proc/modules").read_text().splitlines()):
                return True
        except OSError:
            pass
        release = os.uname().release if self.root.resolve() == Path("/") else "*"
        for builtin in self.root.glob(f"lib/modules/{release}/modules.builtin"):
            try:
                names = {Path(line.strip()).name.removesuffix(".ko").replace("-", "_")
                         for line in builtin.read_text().splitlines()}
            except OSError:
                continue
            if name in names:
                return True
        return False

    def boot_config(self) -> tuple[str, list[str]]:
        """(the boot config's path, its lines); ("", []) when there is none."""
        for where in BOOT_CONFIGS:
            try:
                return where, self.path(where).read_text(errors="replace").splitlines()
            except OSError:
                continue
        return "", []

    def resolve(self, absolute: str) -> tuple[Path, str | None]:
        """The node behind ``absolute`` (a by-id symlink is followed inside ``root``), and
        the absolute path it leads to when it is a link."""
        p = self.path(absolute)
        seen = 0
        target: str | None = None
        while p.is_symlink() and seen < 16:
            link = os.readlink(p)
            absolute = link if link.startswith("/") else os.path.normpath(os.path.join(os.path.dirname(absolute), link))
            target = absolute
            p = self.path(absolute)
            seen += 1
        return p, target


# --- the service's credentials ---------------------------------------------------------------


def unit_groups(text: str) -> tuple[str, ...]:
    """The ``SupplementaryGroups=`` of a unit's text, in order (an empty assignment resets)."""
    groups: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("SupplementaryGroups="):
            value = line.split("=", 1)[1].split()
            groups = [] if not value else groups + [g for g in value if g not in groups]
    return tuple(groups)


def shipped_unit() -> Path:
    return package_path("system") / UNIT_NAME


@dataclass(frozen=True)
class Service:
    """The kiosk service's user and groups, as systemd will run it."""

    uid: int | None
    gid: int | None
    groups: tuple[str, ...]
    unit: str  # the file the groups come from, for messages
    installed: bool
    shipped_groups: tuple[str, ...]

    def gids(self, machine: Machine) -> set[int]:
        known = machine.group_gids()
        out = {known[g] for g in self.groups if g in known}
        if self.gid is not None:
            out.add(self.gid)
        return out


def service(machine: Machine, unit: Path | None = None) -> Service:
    """The service's credentials: the user ``table`` from ``/etc/passwd`` and the groups of
    ``unit``, else of the installed unit and its drop-ins, else of the shipped unit."""
    shipped = unit_groups(shipped_unit().read_text())
    installed = machine.path(INSTALLED_UNIT)
    if unit is None and installed.is_file():
        text = installed.read_text()
        for dropin in sorted(machine.path(f"{INSTALLED_UNIT}.d").glob("*.conf")):
            text += "\n" + dropin.read_text()
        groups, where, is_installed = unit_groups(text), INSTALLED_UNIT, True
    else:
        source = unit or shipped_unit()
        groups, where, is_installed = unit_groups(source.read_text()), str(source), False
    user = machine.user(SERVICE_USER)
    return Service(uid=user[0] if user else None, gid=user[1] if user else None, groups=groups,
                   unit=where, installed=is_installed, shipped_groups=shipped)


def group_fix(svc: Service, group: str) -> str:
    """The one fix for a service that lacks ``group``."""
    if svc.installed and group in svc.shipped_groups:
        return (f"add {group} to SupplementaryGroups=: sudo table install puts the current {UNIT_NAME}, "
                "which has it, in place")
    return (f"add {group} to SupplementaryGroups= of {UNIT_NAME} (sudo systemctl edit table: "
            f"[Service] then SupplementaryGroups={group})")


# --- what the configuration needs ---------------------------------------------------------------


def configured_needs(cfg: HardwareConfig, *, camera: str = "", sound: bool = False,
                     display: bool = True) -> list[Need]:
    """The device nodes the configuration needs (``camera``: table.toml's ``[tray] camera``;
    ``sound``: ``[sound] enabled``; ``display``: the kiosk draws on the screen)."""
    needs: list[Need] = []
    if cfg.backend == "gpio":
        needs.append(Need('input.backend = "gpio"', "/dev/gpiochip*", "gpio", ours=True, what="the GPIO pins"))
    spi: set[int] = set()
    if cfg.leds.backend == "spi":
        spi.add(0)
    if cfg.backend == "gpio" and any(s.knob == "potentiometer" for s in cfg.stations):
        spi.add(cfg.mcp3008_chip_select)
    for cs in sorted(spi):
        key = 'leds.backend = "spi"' if cs == 0 and cfg.leds.backend == "spi" else 'knob = "potentiometer"'
        needs.append(Need(key, f"/dev/spidev0.{cs}", "spi", module="spidev", ours=True, what="SPI0"))
    if cfg.leds.backend == "pi5":
        needs.append(Need('leds.backend = "pi5"', "/dev/pio0", "gpio", module="rp1_pio", ours=True,
                          what="the Pi 5's PIO block"))
    if cfg.private_displays:
        needs.append(Need(f"S{min(cfg.private_displays) + 1}.display", "/dev/i2c-1", "i2c", module="i2c_dev",
                          ours=True, what="the I2C bus"))
    if cfg.backend == "serial" or cfg.leds.backend == "serial":
        key = 'input.backend = "serial"' if cfg.backend == "serial" else 'leds.backend = "serial"'
        needs.append(Need(f"{key} ([serial] port)", cfg.serial.port, "dialout", what="the I/O bridge"))
    if camera.startswith("usb"):
        number = camera.partition(":")[2] or "0"
        needs.append(Need(f'[tray] camera = "{camera}"', f"/dev/video{number}", "video", module="uvcvideo",
                          what="the USB camera"))
    elif camera == "pi":
        needs.append(Need('[tray] camera = "pi"', "/dev/media*", "video", what="the Pi camera"))
        needs.append(Need('[tray] camera = "pi"', "/dev/dma_heap/*", "video", what="the Pi camera's buffers"))
    if display:
        needs.append(Need("the kiosk's display", "/dev/dri/card*", "video", module="vc4", what="the display"))
    if sound:
        needs.append(Need("[sound] enabled", "/dev/snd/*", "audio", module="snd", what="the sound card"))
    return needs


# --- the check ------------------------------------------------------------------------------


def _nodes(machine: Machine, pattern: str) -> list[tuple[str, Path, str | None]]:
    """(absolute path, file under root, symlink target) of the character devices matching."""
    out: list[tuple[str, Path, str | None]]
    if any(c in pattern for c in "*?["):
        parent = os.path.dirname(pattern)
        found = sorted(machine.path(parent).glob(os.path.basename(pattern)),
                       key=lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)])
        out = [(f"{parent}/{p.name}", p, None) for p in found]
    else:
        p, target = machine.resolve(pattern)
        out = [(pattern, p, target)]
    return [(a, p, t) for a, p, t in out if p.exists() and stat.S_ISCHR(p.stat().st_mode)]


def may_open(st: os.stat_result, uid: int | None, gids: set[int], access: int) -> bool:
    """The kernel's rule for an unprivileged process: the owner's bits if it owns the node,
    else the group's if it is in the node's group, else the others'."""
    mode = st.st_mode
    if uid is not None and st.st_uid == uid:
        bits = (mode >> 6) & 7
    elif st.st_gid in gids:
        bits = (mode >> 3) & 7
    else:
        bits = mode & 7
    return bits & access == access


def _node(machine: Machine, svc: Service, need: Need, absolute: str, p: Path, target: str | None) -> Node:
    st = p.stat()
    group = machine.group_name(st.st_gid)
    ok = may_open(st, svc.uid, svc.gids(machine), need.access)
    lacks = None
    if not ok and st.st_gid != 0 and ((st.st_mode >> 3) & 7) & need.access == need.access:
        lacks = group
    return Node(absolute, machine.user_name(st.st_uid), group, stat.S_IMODE(st.st_mode), ok, lacks, target)


def _access_problem(machine: Machine, svc: Service, need: Need, node: Node) -> tuple[str, str]:
    rw = "read and write" if need.access & WRITE else "read"
    if node.lacks is not None:
        return (f"{node.facts()} lets only its group {rw}, and the table service is not in {node.lacks}",
                group_fix(svc, node.lacks))
    fix = f"give it to the group {need.group} with a udev rule"
    if need.ours:
        fix += f" (sudo table install installs {UDEV_RULES}, which has it), then reboot"
    else:
        fix += f" (GROUP=\"{need.group}\", MODE=\"0660\" in {UDEV_RULES}), then reboot"
    return f"{node.facts()} is closed to the table service (no group it is in may {rw} it)", fix


def _spi_on(machine: Machine) -> bool:
    return any(claim.bus == "spi0" for claim in firmware_claims(machine))


def _missing_fix(machine: Machine, need: Need) -> tuple[str, str]:
    """(why the node is missing, the fix) for the system at hand."""
    rpi = machine.raspberry_pi_os
    where = machine.boot_config()[0] or BOOT_CONFIGS[0]
    pattern = need.pattern
    if need.module == "i2c_dev":
        if not machine.module_loaded("i2c_dev"):
            if machine.path(MODULES_LOAD_FILE).is_file():
                return "the kernel module i2c-dev is not loaded", "load it: sudo modprobe i2c-dev"
            return ("the kernel module i2c-dev is not loaded (Debian does not load it by itself)",
                    f"load it at every boot: echo i2c-dev | sudo tee {MODULES_LOAD_FILE} "
                    "(sudo table install puts that file in place), then sudo modprobe i2c-dev")
        if rpi:
            return "the I2C bus is switched off", "switch it on: sudo raspi-config nonint do_i2c 0, then reboot"
        return "the I2C bus is switched off", f"add dtparam=i2c_arm=on to {where}, then reboot"
    if need.module == "spidev":
        if _spi_on(machine) and not machine.module_loaded("spidev"):
            return "the kernel module spidev is not loaded", "load it: sudo modprobe spidev"
        if rpi:
            return "SPI is switched off", "switch it on: sudo raspi-config nonint do_spi 0, then reboot"
        # The card's own overlay takes only the strip's two pins; Debian's takes all of SPI0.
        leds_only = need.key.startswith("leds.") and machine.path(TABLE_SPI_OVERLAY).exists()
        overlay = "table-spi-leds" if leds_only else "pi4-spidev"
        return "SPI is switched off", f"add dtoverlay={overlay} to {where}, then reboot"
    if need.pattern == "/dev/pio0":
        return "this is not a Raspberry Pi 5 with a current kernel", 'on a Pi 1-4 use leds.backend = "spi"'
    if need.group == "dialout":
        return ("nothing is plugged in there", "plug the I/O bridge in, or set [serial] port to its "
                "/dev/serial/by-id/ path (ls -l /dev/serial/by-id)")
    if pattern == "/dev/gpiochip*":
        return "this kernel offers no GPIO character device", "run the table on a Raspberry Pi"
    if need.module == "uvcvideo":
        return "no USB camera is there", "plug the camera in, or set [tray] camera to the camera's number"
    if need.what.startswith("the Pi camera"):
        return ("no camera on the camera connector was found",
                f"check the ribbon cable and camera_auto_detect=1 in {where}, then reboot")
    if need.module == "vc4":
        if rpi:
            return "the display driver is off", f"add dtoverlay=vc4-kms-v3d to {where}, then reboot"
        return "the display driver is not loaded", "load it: sudo modprobe vc4"
    if need.module == "snd":
        return "there is no sound card", f"add dtparam=audio=on to {where} and reboot, or set [sound] enabled = false"
    return "it does not exist", f"connect {need.what or 'the device'}"


def check_need(machine: Machine, svc: Service, need: Need) -> DeviceCheck:
    """The verdict on one device the configuration needs."""
    found = _nodes(machine, need.pattern)
    nodes = tuple(_node(machine, svc, need, a, p, t) for a, p, t in found)
    if not nodes:
        why, fix = _missing_fix(machine, need)
        return DeviceCheck(need, nodes, f"{need.pattern} is missing: {why}", fix)
    bad = next((n for n in nodes if not n.ok), None)
    if bad is not None:
        problem, fix = _access_problem(machine, svc, need, bad)
        return DeviceCheck(need, nodes, problem, fix)
    return DeviceCheck(need, nodes)


def check_devices(needs: Sequence[Need], root: Path = Path("/"), unit: Path | None = None) -> list[DeviceCheck]:
    """The verdict on every device in ``needs`` for the service user under ``root``
    (``unit``: read the groups from this unit file instead of the installed or shipped one)."""
    machine = Machine(root)
    svc = service(machine, unit)
    return [check_need(machine, svc, need) for need in needs]


def group_problems(needs: Sequence[Need], root: Path = Path("/"), unit: Path | None = None) -> list[str]:
    """The groups, checked without the nodes: each configured device's group is in the
    unit's ``SupplementaryGroups=`` (a bridge unplugged today is plugged in at the venue),
    and, once the unit is installed, every group it names exists (else systemd refuses
    to start the table)."""
    machine = Machine(root)
    svc = service(machine, unit)
    problems: list[str] = []
    for group in dict.fromkeys(n.group for n in needs):
        if group not in svc.groups:
            users = ", ".join(n.key for n in needs if n.group == group)
            problems.append(f"{svc.unit}: {users} needs the group {group}, which the table service does not "
                            f"have; {group_fix(svc, group)}")
    if svc.installed:
        known = machine.group_gids()
        for group in svc.groups:
            if group not in known:
                problems.append(f"{svc.unit}: the group {group} of SupplementaryGroups= does not exist, so "
                                "systemd will not start the table: sudo table install creates it")
    return problems


# --- pins the firmware claims ---------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """Header pins a line of the boot config hands to a bus or driver."""

    line: str
    bus: str
    pins: frozenset[int]


# The pins each firmware switch and overlay takes, from Raspberry Pi's overlay README
# (raspberrypi/firmware, boot/overlays/README) unless said otherwise; ``params`` name the
# overlay parameters that move a pin (the default is replaced by the given GPIO).
SPI0 = frozenset({7, 8, 9, 10, 11})  # CE1, CE0, MISO, MOSI, SCLK
DTPARAMS: dict[str, tuple[str, frozenset[int]]] = {
    "spi": ("spi0", SPI0),
    "i2c_arm": ("i2c1", frozenset({2, 3})),
    "i2c": ("i2c1", frozenset({2, 3})),  # an alias of i2c_arm
    "i2c1": ("i2c1", frozenset({2, 3})),  # an alias of i2c_arm
    "i2s": ("i2s", frozenset({18, 19, 20, 21})),  # PCM CLK, FS, DIN, DOUT
}


@dataclass(frozen=True)
class Overlay:
    bus: str
    pins: tuple[int, ...]
    params: tuple[str, ...] = ()  # parameter names moving pins[i], in order
    no_miso: int | None = None  # the pin ",no_miso" leaves free


OVERLAYS: dict[str, Overlay] = {
    "spi0-0cs": Overlay("spi0", (9, 10, 11), no_miso=9),
    "spi0-1cs": Overlay("spi0", (8, 9, 10, 11), ("cs0_pin",), no_miso=9),
    "spi0-2cs": Overlay("spi0", (8, 7, 9, 10, 11), ("cs0_pin", "cs1_pin"), no_miso=9),
    "spi1-1cs": Overlay("spi1", (18, 19, 20, 21), ("cs0_pin",)),
    "spi1-2cs": Overlay("spi1", (18, 17, 19, 20, 21), ("cs0_pin", "cs1_pin")),
    "spi1-3cs": Overlay("spi1", (18, 17, 16, 19, 20, 21), ("cs0_pin", "cs1_pin", "cs2_pin")),
    # Debian's raspi-firmware: SPI0 with both chip selects for the mainline device tree.
    "pi4-spidev": Overlay("spi0", (7, 8, 9, 10, 11)),
    # The table's SD card: SPI0's MOSI and SCLK only, for the LED strip (docs/kiosk.md).
    "table-spi-leds": Overlay("spi0", (10, 11)),
    "i2c-gpio": Overlay("i2c-gpio", (23, 24), ("i2c_gpio_sda", "i2c_gpio_scl")),
    "w1-gpio": Overlay("1-wire", (4,), ("gpiopin",)),
    "pwm": Overlay("pwm", (18,), ("pin",)),
    "pwm-2chan": Overlay("pwm", (18, 19), ("pin", "pin2")),
    "gpio-ir": Overlay("gpio-ir", (18,), ("gpio_pin",)),
    "gpio-shutdown": Overlay("gpio-shutdown", (3,), ("gpio_pin",)),
    "uart2": Overlay("uart2", (0, 1)),
    "uart3": Overlay("uart3", (4, 5)),
    "uart4": Overlay("uart4", (8, 9)),
    "uart5": Overlay("uart5", (12, 13)),
}
I2S_PREFIXES = ("hifiberry-", "iqaudio-")  # sound cards on the I2S pins


def _parse_params(parts: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in parts:
        name, _, value = part.strip().partition("=")
        if name:
            out[name.strip()] = value.strip() if value else "on"
    return out


def firmware_claims(machine: Machine) -> list[Claim]:
    """The pins the boot config hands to buses and drivers. Every conditional section
    (``[pi4]``, ``[cm5]``...) counts: a card moved to another Pi keeps its config."""
    _where, lines = machine.boot_config()
    dtparams: dict[str, tuple[str, str]] = {}  # name -> (value, line): a later line wins
    claims: list[Claim] = []
    uart: str | None = None
    for raw in lines:
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("["):
            continue
        key, _, value = line.partition("=")
        key = key.strip()
        if key == "dtparam":
            for name, v in _parse_params(value.split(",")).items():
                dtparams[name] = (v, line)
        elif key == "enable_uart":
            uart = line if value.strip() == "1" else None  # a later line wins
        elif key == "dtoverlay" and value.strip():
            name, *rest = value.split(",")
            name = name.strip()
            params = _parse_params(rest)
            if name.startswith(I2S_PREFIXES):
                claims.append(Claim(line, "i2s", DTPARAMS["i2s"][1]))
                continue
            overlay = OVERLAYS.get(name)
            if overlay is None:
                continue  # no header pins, or an overlay this check does not know
            pins = list(overlay.pins)
            for i, param in enumerate(overlay.params):
                if params.get(param, "").isdigit():
                    pins[i] = int(params[param])
            if overlay.no_miso is not None and "no_miso" in params:
                pins.remove(overlay.no_miso)
            claims.append(Claim(line, overlay.bus, frozenset(pins)))
    if uart is not None:
        claims.append(Claim(uart, "uart0", frozenset({14, 15})))
    for name, (v, line) in dtparams.items():
        if name in DTPARAMS and v.lower() in ("on", "true", "yes", "1", "okay"):
            bus, claimed = DTPARAMS[name]
            claims.append(Claim(line, bus, claimed))
    return claims


def pin_clashes(cfg: HardwareConfig, root: Path = Path("/")) -> list[str]:
    """One sentence per pin of the wiring that a line of the boot config gives to a bus
    or driver: the station would read (or the strip send on) a pin the firmware has
    switched to another function. The SPI strip's own data pin is not a clash."""
    machine = Machine(root)
    where = machine.boot_config()[0]
    claims = firmware_claims(machine)
    problems: list[str] = []
    for use in pin_uses(cfg):
        if use.key == "leds.backend":
            continue  # the SPI strip's data is SPI0 MOSI: it needs the bus on
        for claim in claims:
            if use.gpio not in claim.pins:
                continue
            problems.append(f"{cfg.source}: {use.key}: GPIO {use.gpio} is taken by '{claim.line}' in {where} "
                            f"({claim.bus} has GPIO {_span(claim.pins)}), so the firmware switches it away: "
                            f"{_clash_fix(cfg, machine, claim, use.gpio)}")
            break
    return problems


def _span(pins: frozenset[int]) -> str:
    ordered = sorted(pins)
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 2:
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(str(p) for p in ordered)


def _clash_fix(cfg: HardwareConfig, machine: Machine, claim: Claim, gpio: int) -> str:
    # For the SPI strip alone, MOSI and SCLK are all the bus needs: a narrower line frees the rest.
    narrow = None
    pots = cfg.backend == "gpio" and any(s.knob == "potentiometer" for s in cfg.stations)
    if claim.bus == "spi0" and cfg.leds.backend == "spi" and not pots and gpio not in (10, 11):
        if machine.path(TABLE_SPI_OVERLAY).exists():
            narrow = "dtoverlay=table-spi-leds"
        elif machine.raspberry_pi_os:
            narrow = "dtoverlay=spi0-0cs,no_miso"
    if narrow is not None:
        return f"put '{narrow}' (SPI0 on GPIO 10 and 11 only) in place of '{claim.line}', or move the wire"
    return f"move the wire to a GPIO the firmware leaves free, or remove '{claim.line}' if nothing needs it"


# --- the display's libraries ------------------------------------------------------------------


DISPLAY_LIBRARIES = {"libgbm.so.1": "libgbm1", "libEGL.so.1": "libegl1", "libGLESv2.so.2": "libgles2"}
DRI_PACKAGE = "libgl1-mesa-dri"
DRI_GLOBS = ("usr/lib/*/dri/*_dri.so", "usr/lib/dri/*_dri.so", "usr/lib/*/gallium-pipe/*.so",
             "usr/lib/*/libgallium-*.so")


@lru_cache(maxsize=1)  # no arguments: the loader cache, read once
def _ldconfig_names() -> frozenset[str]:
    for ldconfig in ("/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"):
        try:
            out = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=30, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        return frozenset(line.split()[0] for line in out.splitlines()[1:] if line.strip())
    return frozenset()


def system_library(soname: str) -> bool:
    """Whether the dynamic loader finds ``soname`` (its cache, ``ldconfig -p``, then ctypes)."""
    if soname in _ldconfig_names():
        return True
    found = ctypes.util.find_library(soname.removeprefix("lib").split(".so")[0])
    return found == soname


def display_library_problems(root: Path = Path("/"), find: Callable[[str], bool] | None = None) -> list[str]:
    """One sentence naming what of SDL's KMS/DRM stack is missing (GBM, EGL, GLES 2, a DRI
    driver) with the apt line that brings it; empty when all is there. ``find`` answers
    whether a library is installed (default: the loader's cache; under another root,
    the files under it)."""
    machine = Machine(root)
    if find is None:
        if root.resolve() == Path("/"):
            find = system_library
        else:
            def find(soname: str) -> bool:
                return any(machine.root.glob(f"usr/lib/*/{soname}")) or any(machine.root.glob(f"usr/lib/{soname}"))
    missing = [name for name in DISPLAY_LIBRARIES if not find(name)]
    packages = [DISPLAY_LIBRARIES[name] for name in missing]
    if not any(any(machine.root.glob(g)) for g in DRI_GLOBS):
        missing.append("a DRI driver (dri/*_dri.so)")
        packages.append(DRI_PACKAGE)
    if not missing:
        return []
    return [f"the kiosk's display (SDL on KMS/DRM) needs Mesa, and {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed: sudo apt-get install {' '.join(packages)}"]


# --- all of it --------------------------------------------------------------------------------


def machine_problems(cfg: HardwareConfig, *, root: Path = Path("/"), camera: str = "", sound: bool = False,
                     unit: Path | None = None, find: Callable[[str], bool] | None = None) -> list[str]:
    """Every problem the kiosk's service will meet on this machine with ``cfg``: the
    devices, the groups, the pins the firmware claims, the display's libraries."""
    needs = configured_needs(cfg, camera=camera, sound=sound)
    checks = check_devices(needs, root, unit)
    problems = [c.sentence(cfg.source) for c in checks if not c.ok]
    reported = {n.lacks for c in checks for n in c.nodes if n.lacks}
    problems += [p for p in group_problems(needs, root, unit)
                 if not any(f"the group {g}," in p for g in reported)]
    problems += pin_clashes(cfg, root)
    problems += display_library_problems(root, find)
    return problems


def describe_open_failure(port: str, error: BaseException) -> str:
    """One sentence on why this process cannot open ``port`` (the serial bridge's log line):
    the node, its owner, group and mode, the group the process lacks and the fix."""
    errno_ = getattr(error, "errno", None)
    machine = Machine()
    p, target = machine.resolve(port)
    via = f" (-> {target})" if target else ""
    if isinstance(error, FileNotFoundError) or errno_ == 2 or not p.exists():
        return (f"the I/O bridge is not at {port}{via} (no such device): plug it in, or set [serial] port "
                "in hardware.toml to its /dev/serial/by-id/ path; retrying until it appears")
    try:
        st = p.stat()
    except OSError:
        return f"cannot open the I/O bridge at {port}{via} ({error}); retrying"
    facts = f"{port}{via} is {machine.user_name(st.st_uid)}:{machine.group_name(st.st_gid)} " \
            f"{stat.S_IMODE(st.st_mode):04o}"
    if isinstance(error, PermissionError) or errno_ in (1, 13):
        group = machine.group_name(st.st_gid)
        if st.st_gid not in os.getgroups() and st.st_gid != os.getegid():
            under_systemd = "INVOCATION_ID" in os.environ
            fix = (f"add {group} to SupplementaryGroups= of {UNIT_NAME} (sudo table install installs the unit "
                   "that has it)") if under_systemd else f"sudo usermod -aG {group} $USER, then log in again"
            return f"cannot open the I/O bridge: {facts} and this process is not in the group {group}: " \
                   f"{fix}; retrying until it can"
        return f"cannot open the I/O bridge: {facts} and this process may not open it ({error}); retrying"
    return f"cannot open the I/O bridge: {facts} ({error}); retrying"
