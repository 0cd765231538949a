"""Whether the kiosk's service may open its devices, checked against real device nodes.

The scratch root holds character devices made with ``os.mknod`` (the real major and
minor numbers: ttyACM 166, i2c-dev 89, spidev 153, gpiochip 254, DRM 226, ALSA 116,
video4linux 81) with the owners and modes the distributions give them, its own
``/etc/passwd`` and ``/etc/group``, ``/sys/module`` and a boot config. Every verdict of
the checker is then proven against the kernel: a forked child takes the service's user
and the unit's groups (``setgroups``, ``setresgid``, ``setresuid``) and opens the node.
Opening a node whose driver is absent here fails with ENXIO or ENODEV *after* the
permission check, so "refused" is EACCES and nothing else. Making nodes and changing
user needs root (CI has it); elsewhere these tests skip.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from table.common.datafiles import defaults_dir
from table.hardware import devices, requirements
from table.hardware.config import HardwareConfig, LedConfig, SerialConfig, StationWiring, load_hardware

HERE = Path(__file__).resolve().parent
ENCODERS_DISPLAYS = HERE / "wiring_examples" / "pi5-encoders-displays.toml"
ENCODERS_SPI = HERE / "wiring_examples" / "pi-encoders.toml"
SHIPPED = defaults_dir() / "hardware.toml"

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="making device nodes and changing user needs root")

TABLE_UID = 990
GIDS = {"table": 990, "gpio": 997, "spi": 996, "i2c": 995, "dialout": 20, "video": 44, "input": 105,
        "render": 106, "audio": 29, "root": 0}
NODES = {  # name -> (major, minor)
    "ttyACM0": (166, 0), "i2c-1": (89, 1), "spidev0.0": (153, 0), "gpiochip0": (254, 0),
    "dri/card0": (226, 0), "snd/controlC0": (116, 0), "video0": (81, 0), "pio0": (250, 0),
}
ALL_MESA = {"libgbm.so.1", "libEGL.so.1", "libGLESv2.so.2"}


def fake_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc/passwd").write_text(f"root:x:0:0:root:/root:/bin/bash\n"
                                     f"table:x:{TABLE_UID}:{GIDS['table']}::/var/lib/table:/usr/sbin/nologin\n")
    (root / "etc/group").write_text("".join(f"{name}:x:{gid}:\n" for name, gid in GIDS.items()))
    (root / "dev").mkdir()
    (root / "sys/module").mkdir(parents=True)
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text("arm_64bit=1\ndtoverlay=vc4-kms-v3d\n")
    return root


def mknod(root: Path, name: str, group: str, mode: int, owner: int = 0) -> Path:
    major, minor = NODES[name]
    path = root / "dev" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mknod(path, stat.S_IFCHR | mode, os.makedev(major, minor))
    os.chown(path, owner, GIDS[group])
    os.chmod(path, mode)  # mknod's mode passes through the umask
    return path


def install_unit(root: Path, groups: str) -> None:
    """The installed unit: the shipped one with other ``SupplementaryGroups=``."""
    text = devices.shipped_unit().read_text()
    lines = [f"SupplementaryGroups={groups}" if line.startswith("SupplementaryGroups=") else line
             for line in text.splitlines()]
    unit = root / devices.INSTALLED_UNIT.lstrip("/")
    unit.parent.mkdir(parents=True, exist_ok=True)
    unit.write_text("\n".join(lines) + "\n")


def kernel_opens(path: Path, uid: int, gid: int, groups: Iterable[int], write: bool = True) -> bool:
    """Whether the kernel lets ``uid`` with primary ``gid`` and ``groups`` open ``path``.

    The node's folder is opened here, as root, and the child opens the node relative to
    it: pytest's temporary folders are closed to other users (mode 0700), and only the
    node's own permissions are under test."""
    folder = os.open(path.parent, os.O_PATH | os.O_DIRECTORY)
    pid = os.fork()
    if pid == 0:  # the child: become the service's user, try, report in the exit status
        code = 3
        try:
            os.setgroups(list(groups))
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
            try:
                fd = os.open(path.name, (os.O_RDWR if write else os.O_RDONLY) | os.O_NONBLOCK | os.O_NOCTTY,
                             dir_fd=folder)
                os.close(fd)
                code = 0
            except OSError as exc:
                code = 1 if exc.errno in (errno.EACCES, errno.EPERM) else 0
        finally:
            os._exit(code)
    os.close(folder)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 1), status
    return os.WEXITSTATUS(status) == 0


def assert_kernel_agrees(root: Path, checks: list[devices.DeviceCheck]) -> None:
    """Every node's verdict is the kernel's, for the service's user with the unit's groups."""
    machine = devices.Machine(root)
    svc = devices.service(machine)
    assert svc.uid == TABLE_UID and svc.gid == GIDS["table"]
    for check in checks:
        for node in check.nodes:
            path = root / (node.target or node.path).lstrip("/")
            opens = kernel_opens(path, TABLE_UID, GIDS["table"], svc.gids(machine), bool(check.need.access & 2))
            assert node.ok == opens, (node, opens)


def mesa(root: Path, libraries: Iterable[str] = ALL_MESA) -> None:
    """Mesa's files under ``root``: the DRI driver and ``libraries``."""
    lib = root / "usr/lib/aarch64-linux-gnu"
    (lib / "dri").mkdir(parents=True, exist_ok=True)
    (lib / "dri/v3d_dri.so").write_bytes(b"")
    for name in libraries:
        (lib / name).write_bytes(b"")


def with_serial(cfg: HardwareConfig, port: str = "/dev/ttyACM0") -> HardwareConfig:
    return replace(cfg, backend="serial", serial=SerialConfig(port=port))


# --- a good layout --------------------------------------------------------------------------


@as_root
def test_a_good_layout_gives_no_problem_and_the_kernel_agrees(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    mesa(root)
    mknod(root, "gpiochip0", "gpio", 0o660)
    mknod(root, "i2c-1", "i2c", 0o660)
    mknod(root, "pio0", "gpio", 0o660)
    mknod(root, "dri/card0", "video", 0o660)
    mknod(root, "snd/controlC0", "audio", 0o660)
    mknod(root, "video0", "video", 0o660)
    (root / "boot/firmware/config.txt").write_text("dtoverlay=vc4-kms-v3d\ndtparam=i2c_arm=on\n")
    cfg = load_hardware(ENCODERS_DISPLAYS)
    assert cfg.private_displays and cfg.leds.backend == "pi5"
    needs = devices.configured_needs(cfg, camera="usb", sound=True)
    assert [n.pattern for n in needs] == ["/dev/gpiochip*", "/dev/pio0", "/dev/i2c-1", "/dev/video0",
                                          "/dev/dri/card*", "/dev/snd/*"]
    checks = devices.check_devices(needs, root)
    assert all(c.ok for c in checks), [c.line() for c in checks]
    assert checks[2].line() == "/dev/i2c-1 root:i2c 0660: ok"
    assert_kernel_agrees(root, checks)
    assert devices.machine_problems(cfg, root=root, camera="usb", sound=True) == []
    assert requirements.kiosk_problems(cfg, on_pi=True, root=root, camera="usb", sound=True) == []


@as_root
def test_the_spi_strip_and_the_bridge_on_a_good_layout(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    mesa(root)
    mknod(root, "gpiochip0", "gpio", 0o660)
    mknod(root, "spidev0.0", "spi", 0o660)
    mknod(root, "dri/card0", "video", 0o660)
    mknod(root, "ttyACM0", "dialout", 0o660)
    (root / "boot/firmware/config.txt").write_text("dtparam=spi=on\n")  # the stations keep off GPIO 7-11
    cfg = load_hardware(ENCODERS_SPI)
    checks = devices.check_devices(devices.configured_needs(cfg), root)
    assert all(c.ok for c in checks), [c.line() for c in checks]
    assert devices.machine_problems(cfg, root=root, find=ALL_MESA.__contains__) == []
    bridge = with_serial(cfg)
    checks = devices.check_devices(devices.configured_needs(bridge), root)
    assert [c.line() for c in checks if "tty" in c.need.pattern] == ["/dev/ttyACM0 root:dialout 0660: ok"]
    assert_kernel_agrees(root, checks)


# --- the stops found on the way to a real Pi -----------------------------------------------


@as_root
def test_the_bridge_without_dialout_is_refused_with_the_fix(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    mknod(root, "ttyACM0", "dialout", 0o660)
    install_unit(root, "gpio spi i2c video input render audio")  # the unit before dialout
    cfg = with_serial(load_hardware(ENCODERS_SPI))
    needs = devices.configured_needs(cfg)
    checks = devices.check_devices(needs, root)
    bridge = next(c for c in checks if c.need.group == "dialout")
    assert not bridge.ok
    assert bridge.nodes[0].facts() == "/dev/ttyACM0 root:dialout 0660" and bridge.nodes[0].lacks == "dialout"
    sentence = bridge.sentence(cfg.source)
    assert sentence.startswith(f'{cfg.source}: input.backend = "serial" ([serial] port): /dev/ttyACM0 root:dialout '
                               "0660 lets only its group read and write, and the table service is not in dialout; ")
    assert "add dialout to SupplementaryGroups=: sudo table install" in sentence
    assert_kernel_agrees(root, checks)
    # The kernel lets the same user in once dialout is among its groups: the fix is the fix.
    svc = devices.service(devices.Machine(root))
    assert kernel_opens(root / "dev/ttyACM0", TABLE_UID, GIDS["table"], svc.gids(devices.Machine(root)) | {20})
    problems = devices.machine_problems(cfg, root=root, find=ALL_MESA.__contains__)
    assert sum("dialout" in p for p in problems) == 1  # the groups check does not say it twice


@as_root
def test_the_shipped_unit_opens_the_bridge_also_by_its_by_id_path(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    mknod(root, "ttyACM0", "dialout", 0o660)
    by_id = root / "dev/serial/by-id"
    by_id.mkdir(parents=True)
    (by_id / "usb-Raspberry_Pi_Pico_E6614-if00").symlink_to("../../ttyACM0")
    cfg = with_serial(load_hardware(ENCODERS_SPI), "/dev/serial/by-id/usb-Raspberry_Pi_Pico_E6614-if00")
    checks = devices.check_devices(devices.configured_needs(cfg), root)
    bridge = next(c for c in checks if c.need.group == "dialout")
    assert bridge.ok and bridge.nodes[0].target == "/dev/ttyACM0"
    assert bridge.line().endswith("-> /dev/ttyACM0 root:dialout 0660: ok")
    assert_kernel_agrees(root, checks)


def test_a_unit_without_dialout_is_named_before_the_bridge_is_plugged_in(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    unit = tmp_path / "table.service"
    unit.write_text("[Service]\nUser=table\nSupplementaryGroups=gpio spi i2c video\n")
    cfg = with_serial(load_hardware(ENCODERS_SPI))
    problems = devices.group_problems(devices.configured_needs(cfg), root, unit)
    assert len(problems) == 1  # spi (the strip) and video (the display) are there
    assert any("needs the group dialout" in p and "add dialout to SupplementaryGroups=" in p for p in problems)
    assert devices.group_problems(devices.configured_needs(cfg), root) == []  # the shipped unit has it


def test_the_shipped_unit_and_the_installer_name_the_same_groups() -> None:
    from table.kiosk.install import GROUPS

    groups = devices.unit_groups(devices.shipped_unit().read_text())
    assert "dialout" in groups and set(groups) == set(GROUPS)


def test_the_module_not_loaded_and_the_fix_for_the_system_at_hand(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    cfg = load_hardware(ENCODERS_DISPLAYS)
    need = next(n for n in devices.configured_needs(cfg) if n.pattern == "/dev/i2c-1")
    check = devices.check_devices([need], root)[0]
    assert check.problem == "/dev/i2c-1 is missing: the kernel module i2c-dev is not loaded " \
                            "(Debian does not load it by itself)"
    assert check.fix is not None and "echo i2c-dev | sudo tee /etc/modules-load.d/table-i2c.conf" in check.fix
    # Once the module is loaded, the bus itself is off: Debian's and Raspberry Pi OS's switch.
    (root / "sys/module/i2c_dev").mkdir()
    check = devices.check_devices([need], root)[0]
    assert check.fix == "add dtparam=i2c_arm=on to /boot/firmware/config.txt, then reboot"
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/bin/raspi-config").write_text("#!/bin/sh\n")
    check = devices.check_devices([need], root)[0]
    assert check.fix == "switch it on: sudo raspi-config nonint do_i2c 0, then reboot"


def test_spi_switched_off_is_told_the_line_for_the_system_at_hand(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    cfg = load_hardware(ENCODERS_SPI)
    need = next(n for n in devices.configured_needs(cfg) if n.pattern == "/dev/spidev0.0")
    assert devices.check_devices([need], root)[0].fix == \
        "add dtoverlay=pi4-spidev to /boot/firmware/config.txt, then reboot"
    overlays = root / "boot/firmware/overlays"
    overlays.mkdir()
    (overlays / "table-spi-leds.dtbo").write_bytes(b"")
    assert devices.check_devices([need], root)[0].fix == \
        "add dtoverlay=table-spi-leds to /boot/firmware/config.txt, then reboot"
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/bin/raspi-config").write_text("#!/bin/sh\n")
    assert devices.check_devices([need], root)[0].fix == \
        "switch it on: sudo raspi-config nonint do_spi 0, then reboot"
    (root / "boot/firmware/config.txt").write_text("dtparam=spi=on\n")  # on, and still no node
    check = devices.check_devices([need], root)[0]
    assert check.problem == "/dev/spidev0.0 is missing: the kernel module spidev is not loaded"
    assert check.fix == "load it: sudo modprobe spidev"


def test_a_module_listed_in_proc_modules_counts_as_loaded(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    (root / "proc").mkdir()
    (root / "proc/modules").write_text("spidev 20480 0 - Live 0x0000000000000000\n")
    machine = devices.Machine(root)
    assert machine.module_loaded("spidev") and not machine.module_loaded("i2c-dev")


@as_root
def test_an_i2c_node_without_the_udev_rule_is_closed_to_every_group(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    mknod(root, "i2c-1", "root", 0o600)  # plain Debian: no rule gives it to i2c
    cfg = load_hardware(ENCODERS_DISPLAYS)
    checks = devices.check_devices(devices.configured_needs(cfg), root)
    i2c = next(c for c in checks if c.need.pattern == "/dev/i2c-1")
    assert not i2c.ok and i2c.nodes[0].lacks is None
    assert i2c.problem == "/dev/i2c-1 root:root 0600 is closed to the table service (no group it is in may " \
                          "read and write it)"
    assert i2c.fix == "give it to the group i2c with a udev rule (sudo table install installs " \
                      "/etc/udev/rules.d/99-table.rules, which has it), then reboot"
    assert_kernel_agrees(root, checks)
    assert not kernel_opens(root / "dev/i2c-1", TABLE_UID, GIDS["table"], GIDS.values())
    rules = (devices.shipped_unit().parent / "udev/99-table.rules").read_text().splitlines()
    assert 'SUBSYSTEM=="i2c-dev", GROUP="i2c", MODE="0660"' in rules


# --- pins the firmware claims -------------------------------------------------------------------


def test_the_recipes_spi_line_clashes_with_the_shipped_wiring(tmp_path: Path) -> None:
    """The shipped wiring has S2 on GPIO 7-9 (SPI LEDs need only 10 and 11); `dtparam=spi=on`
    (what `raspi-config nonint do_spi 0` writes) claims 7-11."""
    root = fake_root(tmp_path)
    cfg = load_hardware(SHIPPED)
    assert devices.pin_clashes(cfg, root) == []
    (root / "boot/firmware/config.txt").write_text("[all]\ndtparam=audio=on\ndtparam=spi=on\n")
    clashes = devices.pin_clashes(cfg, root)
    assert [c.split(":")[1].strip() for c in clashes] == \
        ["S2.button", "S2.data[0]", "S2.data[1]"]
    assert clashes[0] == (
        f"{cfg.source}: S2.button: GPIO 9 is taken by 'dtparam=spi=on' in /boot/firmware/config.txt (spi0 has "
        "GPIO 7-11), so the firmware switches it away: move the wire to a GPIO the firmware leaves free, or "
        "remove 'dtparam=spi=on' if nothing needs it")
    assert clashes[0] in requirements.kiosk_problems(cfg, on_pi=True, root=root)
    (root / "boot/firmware/config.txt").write_text("dtparam=spi=on\ndtparam=spi=off\n")  # the last line wins
    assert devices.pin_clashes(cfg, root) == []


def test_spi_leds_alone_are_told_the_narrow_line(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    (root / "boot/firmware/config.txt").write_text("dtparam=spi=on\n")
    (root / "usr/bin").mkdir(parents=True)
    (root / "usr/bin/raspi-config").write_text("#!/bin/sh\n")
    cfg = HardwareConfig(source="hw.toml", stations=(StationWiring(button=8, knob="none"),),
                         leds=LedConfig(backend="spi"))
    assert devices.pin_clashes(cfg, root) == [
        "hw.toml: S1.button: GPIO 8 is taken by 'dtparam=spi=on' in /boot/firmware/config.txt (spi0 has "
        "GPIO 7-11), so the firmware switches it away: put 'dtoverlay=spi0-0cs,no_miso' (SPI0 on GPIO 10 and "
        "11 only) in place of 'dtparam=spi=on', or move the wire"]
    (root / "boot/firmware/config.txt").write_text("dtoverlay=spi0-0cs,no_miso\n")
    assert devices.pin_clashes(cfg, root) == []


@pytest.mark.parametrize(("lines", "pins"), [
    ("dtparam=spi=on", {7, 8, 9, 10, 11}),
    ("dtparam=i2c_arm=on,spi=on", {2, 3, 7, 8, 9, 10, 11}),
    ("dtoverlay=pi4-spidev", {7, 8, 9, 10, 11}),
    ("dtoverlay=table-spi-leds", {10, 11}),
    ("dtoverlay=spi0-0cs", {9, 10, 11}),
    ("dtoverlay=spi0-0cs,no_miso", {10, 11}),
    ("dtoverlay=spi0-1cs,cs0_pin=25", {25, 9, 10, 11}),
    ("dtparam=i2c_arm=on", {2, 3}),
    ("enable_uart=1", {14, 15}),
    ("enable_uart=0", set()),
    ("enable_uart=1\nenable_uart=0", set()),  # the card: raspi-firmware's line, then its own
    ("enable_uart=0\nenable_uart=1", {14, 15}),
    ("dtoverlay=w1-gpio,gpiopin=17", {17}),
    ("dtoverlay=hifiberry-dac", {18, 19, 20, 21}),
    ("dtoverlay=vc4-kms-v3d\ndtoverlay=disable-bt", set()),
    ("# dtparam=spi=on\n#enable_uart=1", set()),
    ("[pi4]\ndtoverlay=uart3", {4, 5}),
])
def test_the_boot_config_lines_and_the_pins_they_claim(tmp_path: Path, lines: str, pins: set[int]) -> None:
    root = fake_root(tmp_path)
    (root / "boot/firmware/config.txt").write_text(lines + "\n")
    claimed: set[int] = set()
    for claim in devices.firmware_claims(devices.Machine(root)):
        claimed |= claim.pins
    assert claimed == pins


# --- the display's libraries -------------------------------------------------------------------


def test_missing_mesa_is_named_with_the_apt_line(tmp_path: Path) -> None:
    root = fake_root(tmp_path)
    problems = devices.display_library_problems(root, find={"libEGL.so.1", "libGLESv2.so.2"}.__contains__)
    assert problems == ["the kiosk's display (SDL on KMS/DRM) needs Mesa, and libgbm.so.1, a DRI driver "
                        "(dri/*_dri.so) are not installed: sudo apt-get install libgbm1 libgl1-mesa-dri"]
    mesa(root, libraries=())
    assert devices.display_library_problems(root, find=ALL_MESA.__contains__) == []
    # Under another root without a lookup, the files under it are what counts.
    assert devices.display_library_problems(root)[0].endswith("sudo apt-get install libgbm1 libegl1 libgles2")
    mesa(root)
    assert devices.display_library_problems(root) == []


# --- the self-test's first step ------------------------------------------------------------------


@as_root
def test_selftest_starts_with_the_devices(tmp_path: Path) -> None:
    from table.kiosk.selftest import devices_check

    root = fake_root(tmp_path)
    mesa(root)
    mknod(root, "gpiochip0", "gpio", 0o660)
    mknod(root, "i2c-1", "root", 0o600)
    mknod(root, "pio0", "gpio", 0o660)
    cfg = load_hardware(ENCODERS_DISPLAYS)
    results = devices_check(cfg, root=root, on_pi=True, find=ALL_MESA.__contains__)
    by_name = {r.name: r for r in results}
    assert by_name["device /dev/gpiochip*"].status == "pass"
    assert by_name["device /dev/gpiochip*"].detail == "/dev/gpiochip0 root:gpio 0660: ok"
    assert by_name["device /dev/i2c-1"].status == "fail"
    assert by_name["device /dev/i2c-1"].detail.startswith("/dev/i2c-1 root:root 0600 is closed to the table service")
    assert "fix: give it to the group i2c with a udev rule" in by_name["device /dev/i2c-1"].detail
    assert by_name["device /dev/dri/card*"].detail == ("/dev/dri/card* is missing: the display driver is not "
                                                       "loaded; fix: load it: sudo modprobe vc4")
    assert by_name["service groups"].status == "pass"
    assert by_name["display libraries"].status == "pass"
    assert [r.name for r in devices_check(cfg, root=root, on_pi=False)] == ["devices"]  # nothing installed here


# --- where the checks are called from -----------------------------------------------------------


def test_check_config_kiosk_on_a_pi_checks_the_machine_with_table_toml(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """On a Pi, ``check-config --kiosk`` hands the machine check table.toml's camera and sound
    and prints what it finds among the other problems (exit 2)."""
    from table.cli import main
    from table.commands import check_config

    seen: dict[str, object] = {}

    def machine_problems(cfg: HardwareConfig, **kwargs: object) -> list[str]:
        seen.update(kwargs)
        return [f"{cfg.source}: [serial] port: /dev/ttyACM0 root:dialout 0660 lets only its group read and write"]

    monkeypatch.setattr(check_config, "is_raspberry_pi", lambda: True)
    monkeypatch.setattr(requirements, "_installed", lambda name: True)
    monkeypatch.setattr(devices, "machine_problems", machine_problems)
    assert main(["check-config", "--kiosk"]) == 2
    err = capsys.readouterr().err
    assert "root:dialout 0660" in err and "Traceback" not in err
    assert seen == {"root": Path("/"), "camera": "", "sound": True}  # the shipped table.toml
    assert main(["check-config"]) == 0  # without --kiosk the machine is not the kiosk's
