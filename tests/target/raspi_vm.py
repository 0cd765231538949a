"""The SD card booted as a Raspberry Pi 3 boots it, on QEMU's ``raspi3b`` machine.

QEMU's ``raspi3b`` models the BCM2837 board closely enough for Debian's kernel with the
card's own Pi 3 device tree: the SD host (the card is the whole image on QEMU's SD
card model, ``-drive if=sd``), the GPIO block, the mailbox to the firmware, the PL011
and mini UARTs, and the DWC2 USB host (a USB serial adapter on it stands in for the
Pico bridge). What the Pi's firmware does before Linux runs (``start.elf`` reading
``config.txt``, loading the kernel, initramfs and device tree) is done by QEMU's own
loader, with the files :func:`raspi_copy` takes from the card's FAT partition.

QEMU 7.2 (Debian 12's) has no model of the BCM2835 I2C controller nor of the display
pipeline (HVS, pixel valves, HDMI) that ``vc4`` drives; the kernel finds registers that
read as zero there. The boot test says what that means for each.

:class:`RaspiVM` is :class:`target.kiosk_vm.KioskVM` with that machine: the console is
the mini UART (``ttyS1``, the Pi 3's ``serial0`` on GPIO 14/15; the PL011 belongs to the
Bluetooth chip in the device tree, so the kernel gives it no terminal), and a fake Pico
is a pseudo-terminal the test holds (``tests/fakes/bridge.py``) behind QEMU's USB serial
adapter (an FTDI chip: ``ftdi_sio``, ``/dev/ttyUSB0`` in the guest).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

from target.card import ext4, fat, fat_copy_out, fat_read, run
from target.kiosk_vm import QEMU, BootCheckFailed, KioskVM

MACHINE = "raspi3b"
DEVICE_TREE = "bcm2837-rpi-3-b.dtb"
"""The Pi 3 Model B's device tree on the card's FAT partition (``raspi3b`` is that board)."""
SANDBOX_SCRIPT = "/usr/local/lib/table-boot-test/open_device.py"
"""Where the test's copy of the card holds :data:`OPEN_DEVICE` (test copy only)."""

# What only this test adds to its copy of the card (path in the root, contents).
RASPI_TEST_FILES = {
    "/etc/systemd/system/serial-getty@ttyS1.service.d/boot-test.conf": """\
# Boot test copy only: a root shell on the Pi 3's serial console (the mini UART), for
# the test to look inside.
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --noclear --keep-baud 115200,38400,9600 %I $TERM
""",
    # The test's shell reads the kernel log quietly: only the test's own lines on the console.
    "/etc/sysctl.d/10-boot-test-quiet.conf": "kernel.printk = 3 4 1 3\n",
}

OPEN_DEVICE = '''\
"""Boot test copy only: opens one device as the table does, inside table.service's
sandbox (the test starts it with systemd-run and the unit's own settings), and prints
what it saw in one line. Any failure is a traceback and a non-zero exit."""
import os
import queue
import sys
import time

what, path = sys.argv[1], sys.argv[2]
print(f"uid {os.getuid()} groups {sorted(os.getgroups())}", flush=True)
if what == "serial":
    from table.hardware.serial_bridge import SerialBridge

    got = queue.Queue()
    bridge = SerialBridge(path, 4)
    bridge.start(got.put)
    try:
        deadline = time.monotonic() + 90
        while bridge.hello is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if bridge.hello is None:
            sys.exit(f"no HELLO from the bridge on {path}: {bridge.diagnostics()}")
        bridge.set_leds({0: "blink"})
        press = got.get(timeout=90)
        diag = bridge.diagnostics()
        print(f"bridge {bridge.hello} on {path}; {press.kind} from station {press.station + 1}; "
              f"{diag['lines']} lines, {diag['state_reports']} state reports, "
              f"{diag['malformed_total']} malformed", flush=True)
    finally:
        bridge.stop()
elif what == "camera":
    from table.dice.capture import open_source

    source = open_source(path)
    try:
        frame = None
        for _ in range(10):  # the first reads of a V4L2 device may come back empty
            frame = source.grab()
            if frame is not None:
                break
        if frame is None:
            sys.exit(f"the camera {path} opened but gave no frame")
        print(f"frame {frame.shape[1]}x{frame.shape[0]} {frame.dtype}, mean {frame.mean():.1f}, "
              f"{len(set(map(tuple, frame[::16, ::16].reshape(-1, 3).tolist())))} colours", flush=True)
    finally:
        source.close()
elif what == "i2c":
    import errno
    import fcntl

    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.ioctl(fd, 0x0703, 0x3C)  # I2C_SLAVE: the stations' SSD1306 address
        try:
            os.read(fd, 1)
            result = "a read from 0x3c answered"
        except OSError as exc:
            result = f"a read from 0x3c failed: {errno.errorcode.get(exc.errno, exc.errno)}"
        print(f"opened {path}; {result}", flush=True)
    finally:
        os.close(fd)
else:
    sys.exit(f"unknown device kind {what}")
'''

# The [Service] settings of table.service that make its sandbox (who, which devices,
# which files, which system calls); the rest (how it starts, restarts, logs) is not the
# sandbox's business.
SANDBOX_KEYS = frozenset({
    "User", "Group", "SupplementaryGroups", "UMask", "Environment", "WorkingDirectory", "StateDirectory",
    "StateDirectoryMode", "ConfigurationDirectory", "ConfigurationDirectoryMode",
    "DevicePolicy", "DeviceAllow", "NoNewPrivileges", "CapabilityBoundingSet", "AmbientCapabilities",
    "ProtectSystem", "ProtectHome", "PrivateTmp", "PrivateMounts", "PrivateNetwork", "IPAddressDeny",
    "RestrictAddressFamilies", "ProtectKernelTunables", "ProtectKernelModules", "ProtectKernelLogs",
    "ProtectControlGroups", "ProtectClock", "ProtectHostname", "ProtectProc", "RestrictNamespaces",
    "RestrictRealtime", "RestrictSUIDSGID", "LockPersonality", "MemoryDenyWriteExecute", "RemoveIPC",
    "PrivateUsers", "KeyringMode", "SystemCallArchitectures", "SystemCallFilter", "SystemCallErrorNumber",
})


class RaspiVM(KioskVM):
    """One ``raspi3b`` run of the card copy in ``image_dir`` (disk.img resized for the
    SD model, vmlinuz, initrd.img, cmdline.txt and the Pi 3's device tree), with a USB
    serial adapter whose other end is the pseudo-terminal ``pico`` (a path QEMU opens)."""

    console_tty = "ttyS1"

    def kernel_command_line(self) -> str:
        # Under emulation udev names the card's partitions minutes after systemd starts
        # waiting: the default 90 s for /boot/firmware's device ends in emergency mode.
        # QEMU models the Pi's watchdog, which counts the host's time, and PID 1 of a
        # guest 10 to 40 times slower than a Pi pings it too late: the card's
        # RuntimeWatchdogSec=15 reset the board again and again before the table started.
        return super().kernel_command_line() + " systemd.default_device_timeout_sec=900 systemd.watchdog_sec=off"

    def __init__(self, image_dir: Path, work: Path, log: Path, pico: Path) -> None:
        super().__init__(image_dir, work, log)
        self.pico = pico

    def qemu_command(self) -> list[str]:
        # The machine is fixed: 4 Cortex-A53 cores and 1 GiB, as a Pi 3 B.
        return [QEMU, "-M", MACHINE,
                "-kernel", str(self.image_dir / "vmlinuz"), "-initrd", str(self.image_dir / "initrd.img"),
                "-dtb", str(self.image_dir / DEVICE_TREE), "-append", self.kernel_command_line(),
                "-drive", f"file={self.image_dir / 'disk.img'},if=sd,format=raw",
                "-chardev", f"serial,id=pico,path={self.pico}",
                "-device", "usb-serial,chardev=pico",
                "-display", "none", "-nodefaults",
                "-chardev", f"socket,id=console,path={self.serial_path},server=on,wait=off",
                # serial_hd(0) is the PL011, serial_hd(1) the mini UART: the console.
                "-serial", "null", "-serial", "chardev:console",
                "-qmp", f"unix:{self.qmp_path},server=on,wait=off"]


def raspi_copy(boot_dir: Path, work: Path) -> str:
    """Readies :func:`target.card.boot_copy`'s copy in ``boot_dir`` for ``raspi3b``: the
    Pi 3's device tree and the test's sandbox script from the card, and the disk grown to
    the next power of two (QEMU's SD card model takes no other size; the partitions
    stay as they are). Returns what it did, in words."""
    img = boot_dir / "disk.img"
    where = "the FAT partition"
    try:
        fat_copy_out(img, DEVICE_TREE, boot_dir / DEVICE_TREE)
    except BootCheckFailed:
        # A card for the Pi 4 alone: the kernel package's copy in the root.
        kernels = [w for w in run("debugfs", "-R", "ls -p /usr/lib", ext4(img)).replace("/", " ").split()
                   if w.startswith("linux-image-")]
        if not kernels:
            raise BootCheckFailed(f"the card has no {DEVICE_TREE}, on its FAT partition or in its root") from None
        source = f"/usr/lib/{sorted(kernels)[-1]}/broadcom/{DEVICE_TREE}"
        run("debugfs", "-R", f"dump {source} {boot_dir / DEVICE_TREE}", ext4(img))
        if not (boot_dir / DEVICE_TREE).exists():
            raise BootCheckFailed(f"the card has no {DEVICE_TREE}, on its FAT partition or in its root") from None
        where = f"the root's {source} (the FAT partition has none)"
    model = run("fdtget", boot_dir / DEVICE_TREE, "/", "model").strip()
    if "Raspberry Pi 3 Model B" not in model:
        raise BootCheckFailed(f"{DEVICE_TREE} on the card describes {model!r}")
    # The seed the Pi's firmware puts into the device tree's /chosen (as QEMU's virt
    # machine does into its own): without it the emulated board's kernel waits minutes
    # for entropy, and systemd's units that need random numbers (journald, udev) time out.
    run("fdtput", "-t", "bx", boot_dir / DEVICE_TREE, "/chosen", "rng-seed", *(f"{b:02x}" for b in os.urandom(64)))
    # The board's revision code, which the firmware also writes there and gpiozero reads
    # (/proc/device-tree/system/linux,revision; arm64's /proc/cpuinfo has none): QEMU's
    # raspi3b is a Pi 3 Model B, 0xa02082, as a real Pi 3's firmware would say.
    run("fdtput", "-c", boot_dir / DEVICE_TREE, "/system")
    run("fdtput", "-t", "x", boot_dir / DEVICE_TREE, "/system", "linux,revision", "a02082")
    # The venue's edit for a board without an LED strip: QEMU's loader applies no
    # device-tree overlay (the firmware does that on a Pi), so there is no
    # /dev/spidev0.0 for the shipped SPI strip, and this board has no strip: none.
    hardware = fat_read(img, "table/hardware.toml")
    edited = re.sub(r'(?m)^backend = "(spi|pi5)".*$', 'backend = "none"  # the raspi3b boot test: no LED strip',
                    hardware)
    leds = "the shipped LED backend kept"
    if edited != hardware:
        (work / "hardware.toml").write_text(edited)
        run("mcopy", "-o", "-i", fat(img), work / "hardware.toml", "::/table/hardware.toml")
        leds = 'table/hardware.toml on the FAT partition edited: leds.backend -> "none"'
    size = img.stat().st_size
    power = 1 << (size - 1).bit_length()
    if power != size:
        os.truncate(img, power)  # a raw image grows as a sparse file: what qemu-img resize does
    script = work / "open_device.py"
    script.write_text(OPEN_DEVICE)
    script.chmod(0o644)
    commands = work / "debugfs-script"
    folder = str(Path(SANDBOX_SCRIPT).parent)
    commands.write_text(f"mkdir {folder}\nwrite {script} {SANDBOX_SCRIPT}\n")
    run("debugfs", "-w", "-f", commands, ext4(img))
    if "Inode:" not in run("debugfs", "-R", f"stat {SANDBOX_SCRIPT}", ext4(img), check=False):
        raise BootCheckFailed(f"debugfs did not write {SANDBOX_SCRIPT} into the copy of the card")
    return (f"{DEVICE_TREE} ({model}) from {where}; the image grown from {size // 2**20} to "
            f"{power // 2**20} MiB for the SD model; {leds}")


def sandbox_settings(unit_text: str) -> list[str]:
    """``systemd-run`` options (``-p KEY=VALUE``) that give a transient unit the sandbox
    of the unit ``systemctl cat`` printed as ``unit_text`` (its drop-ins included, in
    order: an empty assignment resets a list as it does in the unit)."""
    options: list[str] = []
    section = ""
    for raw in unit_text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        key, _, value = line.partition("=")
        if section == "[Service]" and key.strip() in SANDBOX_KEYS:
            options += ["-p", f"{key.strip()}={value.strip()}"]
    if not any(o.startswith("DevicePolicy=") for o in options):
        raise BootCheckFailed("the unit as systemctl cat shows it has no DevicePolicy= line")
    return options


def in_sandbox(unit_text: str, *command: str) -> str:
    """A shell line that runs ``command`` in a transient service with the sandbox of
    the unit (:func:`sandbox_settings`), waits for it and passes its output and status."""
    words = ["systemd-run", "--quiet", "--wait", "--pipe", "--collect", "--service-type=exec",
             *sandbox_settings(unit_text), *command]
    return " ".join(shlex.quote(w) for w in words)


def have_raspi_qemu() -> bool:
    """QEMU here knows the ``raspi3b`` machine (QEMU 6.0 and later)."""
    try:
        done = subprocess.run([QEMU, "-machine", "help"], capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return False
    return any(line.split()[:1] == [MACHINE] for line in done.stdout.splitlines())
