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

import csv
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
FEEDER_SCRIPT = "/usr/local/lib/table-boot-test/feed_photo.py"
"""Where the test's copy of the card holds :data:`FEED_PHOTO` (test copy only)."""
TRAY_PHOTO = Path(__file__).resolve().parents[1] / "dice" / "data" / "teach" / "venue-08.jpg"
"""The labelled tray photo the virtual camera shows (its faces in ``labels.csv`` beside it)."""
PHOTO_IN_CARD = "/usr/local/lib/table-boot-test/tray.jpg"
"""Where the test's copy of the card holds :data:`TRAY_PHOTO`."""
VIVID_OPTIONS = "node_types=0x101 num_inputs=1 input_types=0x03 num_outputs=1 output_types=0x01"
"""``vivid``'s module options: a capture node with one HDMI input and an output node with
one HDMI output (the pair its loopback joins)."""
FACE_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

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
PHOTO_BOUND = 6.0  # mean absolute difference (0-255) of the 64x64 shrunk frame and photo
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
    # argv: the device, the tray photo the camera shows, its label (faces, sorted).
    import cv2
    import numpy as np

    from table.dice.capture import open_source
    from table.dice.reader import DiceReader

    photo = cv2.imread(sys.argv[3], cv2.IMREAD_COLOR)
    label = sys.argv[4]

    def small(image):
        return cv2.resize(image, (64, 64), interpolation=cv2.INTER_AREA).astype(np.int16)

    source = open_source(path)
    try:
        # The first frames are vivid's own pattern until the feeder has followed the
        # format this capture set: grab until one is the photo, or give up.
        started = time.monotonic()
        grabs, best, frame = 0, None, None
        while time.monotonic() - started < 240:
            got = source.grab()
            grabs += 1
            if got is None:
                continue
            difference = float(np.abs(small(got) - small(photo)).mean())
            if best is None or difference < best:
                best = difference
            if difference <= PHOTO_BOUND:
                frame = got
                break
        if frame is None:
            sys.exit(f"the camera {path} never showed the tray photo in {grabs} grabs: the closest frame "
                     f"differs by {best} on average (at most {PHOTO_BOUND} is the photo)")
        seconds = time.monotonic() - started
        dice = DiceReader().read(cv2.resize(frame, (photo.shape[1], photo.shape[0]), interpolation=cv2.INTER_AREA))
        read = ",".join(str(f) for f in sorted(d.face for d in dice)) or "no dice"
        print(f"frame {frame.shape[1]}x{frame.shape[0]} {frame.dtype} after {grabs} grabs ({seconds:.0f} s): "
              f"the tray photo, mean difference {best:.1f} (at most {PHOTO_BOUND}); "
              f"dice read {read}, the photo's label {label}", flush=True)
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

FEED_PHOTO = '''\
"""Boot test copy only, run as root beside the sandbox: makes vivid's capture show a
picture through its video loopback. The capture's HDMI input is connected to the
HDMI output, and the picture, in the capture's current format (the reader sets its
own), is queued on the output over and over; when the capture's format changes the
output follows. argv: capture node, output node, picture, seconds to run."""
import fcntl
import mmap
import os
import struct
import sys
import time

import cv2
import numpy as np

# ioctl numbers of <linux/videodev2.h> on a 64-bit kernel, the structs packed by hand.
G_FMT, S_FMT, QUERYCTRL, QUERYMENU, S_CTRL = 0xC0D05604, 0xC0D05605, 0xC0445624, 0xC02C5625, 0xC008561C
REQBUFS, QUERYBUF, QBUF, DQBUF = 0xC0145608, 0xC0585609, 0xC058560F, 0xC0585611
STREAMON, STREAMOFF = 0x40045612, 0x40045613
CAPTURE, OUTPUT, MMAP, NEXT_CTRL, MENU = 1, 2, 1, 0x80000000, 3
BGR24, RGB24, YUYV = 0x33524742, 0x33424752, 0x56595559

capture_path, output_path, picture, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])


def fourcc(value):
    return value.to_bytes(4, "little").decode(errors="replace")


def get_format(fd, kind):
    buf = bytearray(208)
    struct.pack_into("I", buf, 0, kind)
    fcntl.ioctl(fd, G_FMT, buf)
    return struct.unpack_from("6I", buf, 8)  # width, height, fourcc, field, bytes per line, size


def set_format(fd, kind, width, height, pixels, field):
    buf = bytearray(208)
    struct.pack_into("I", buf, 0, kind)
    struct.pack_into("4I", buf, 8, width, height, pixels, field)
    fcntl.ioctl(fd, S_FMT, buf)
    return struct.unpack_from("6I", buf, 8)


def controls(fd):
    found, wanted = {}, NEXT_CTRL
    while True:
        buf = bytearray(68)
        struct.pack_into("I", buf, 0, wanted)
        try:
            fcntl.ioctl(fd, QUERYCTRL, buf)
        except OSError:
            return found
        ident, kind = struct.unpack_from("2I", buf, 0)
        low, high = struct.unpack_from("2i", buf, 40)
        found[bytes(buf[8:40]).split(b"\\0")[0].decode()] = (ident, kind, low, high)
        wanted = ident | NEXT_CTRL


def menu_item(fd, ident, low, high, name):
    for index in range(low, high + 1):
        buf = bytearray(44)
        struct.pack_into("2I", buf, 0, ident, index)
        try:
            fcntl.ioctl(fd, QUERYMENU, buf)
        except OSError:
            continue
        if name(bytes(buf[8:40]).split(b"\\0")[0].decode()):
            return index
    return None


def set_control(fd, ident, value):
    fcntl.ioctl(fd, S_CTRL, bytearray(struct.pack("Ii", ident, value)))


def frame_bytes(image, width, height, pixels, stride):
    shown = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
    if pixels == BGR24:
        rows = shown.reshape(height, width * 3)
    elif pixels == RGB24:
        rows = shown[:, :, ::-1].reshape(height, width * 3)
    elif pixels == YUYV:
        yuv = cv2.cvtColor(shown, cv2.COLOR_BGR2YUV)
        packed = np.empty((height, width, 2), np.uint8)
        packed[:, :, 0] = yuv[:, :, 0]
        packed[:, 0::2, 1] = yuv[:, 0::2, 1]
        packed[:, 1::2, 1] = yuv[:, 1::2, 2]
        rows = packed.reshape(height, width * 2)
    else:
        sys.exit(f"feeder: the capture asks for {fourcc(pixels)}, which the feeder cannot make")
    if stride > rows.shape[1]:
        rows = np.pad(rows, ((0, 0), (0, stride - rows.shape[1])))
    return np.ascontiguousarray(rows).tobytes()


def v4l2_buffer(index, used=0, field=0):
    buf = bytearray(88)
    struct.pack_into("5I", buf, 0, index, OUTPUT, used, 0, field)
    struct.pack_into("I", buf, 60, MMAP)
    return buf


image = cv2.imread(picture, cv2.IMREAD_COLOR)
if image is None:
    sys.exit(f"feeder: {picture} is not a picture")
capture = os.open(capture_path, os.O_RDWR)
found = controls(capture)
said = []
# The text vivid writes over its frames, and cropping, composing and scaling on both
# sides: off, before the reader opens. The loop then copies the output's frames as they
# are, at the input's and output's size (their HDMI timings, 1280x720): whatever size
# a reader asks for, it gets that one, as from an HDMI input without a scaler.
shown_at = os.open(output_path, os.O_RDWR)
for fd, name, value in ((capture, "OSD Text Mode", "None"), (capture, "Enable Capture Cropping", 0),
                        (capture, "Enable Capture Composing", 0), (capture, "Enable Capture Scaler", 0),
                        (shown_at, "Enable Output Cropping", 0), (shown_at, "Enable Output Composing", 0),
                        (shown_at, "Enable Output Scaler", 0)):
    ident, kind, low, high = (found if fd == capture else controls(fd)).get(name, (None, 0, 0, 0))
    if ident is not None:
        if kind == MENU:
            value = menu_item(fd, ident, low, high, lambda item, v=value: item == v)
        set_control(fd, ident, value)
        said.append(f"{name} {value}")
os.close(shown_at)
# Older kernels have one "Loop Video" switch; newer ones a menu of what each input is
# connected to (the test pattern, nothing, an output).
loop = [n for n in found if n == "Loop Video" or n.endswith("Is Connected To")]
if not loop:
    sys.exit(f"feeder: vivid has no loopback control on {capture_path}: {sorted(found)}")
ident, kind, low, high = found[loop[0]]
value = 1 if kind != MENU else menu_item(capture, ident, low, high, lambda item: item.startswith("Output"))
if value is None:
    sys.exit(f"feeder: {loop[0]!r} offers no output to connect to")
set_control(capture, ident, value)
said.append(f"{loop[0]!r} {value}")
print("controls: " + ", ".join(said), flush=True)

output, maps, current, data, shown = None, [], None, b"", 0
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    width, height, pixels, field = get_format(capture, CAPTURE)[:4]
    if (width, height, pixels, field) != current:
        if output is not None:
            fcntl.ioctl(output, STREAMOFF, struct.pack("I", OUTPUT))
            for m in maps:
                m.close()
            maps = []
            os.close(output)
        output = os.open(output_path, os.O_RDWR)
        ow, oh, op, of, stride, size = set_format(output, OUTPUT, width, height, pixels, field)
        if (ow, oh, op, of) != (width, height, pixels, field):
            sys.exit(f"feeder: the output took {ow}x{oh} {fourcc(op)} field {of} for the capture's "
                     f"{width}x{height} {fourcc(pixels)} field {field}")
        data = frame_bytes(image, width, height, pixels, stride)
        buf = bytearray(struct.pack("4IB3x", 3, OUTPUT, MMAP, 0, 0))
        fcntl.ioctl(output, REQBUFS, buf)
        for index in range(struct.unpack_from("I", buf, 0)[0]):
            info = v4l2_buffer(index)
            fcntl.ioctl(output, QUERYBUF, info)
            m = mmap.mmap(output, struct.unpack_from("I", info, 72)[0], offset=struct.unpack_from("I", info, 64)[0])
            m[: len(data)] = data
            maps.append(m)
            fcntl.ioctl(output, QBUF, v4l2_buffer(index, len(data), field))
        fcntl.ioctl(output, STREAMON, struct.pack("I", OUTPUT))
        current = (width, height, pixels, field)
        print(f"showing {width}x{height} {fourcc(pixels)} field {field} ({size} bytes a frame)", flush=True)
    # Each buffer the output hands back goes in again: the queue is never empty.
    info = v4l2_buffer(0)
    fcntl.ioctl(output, DQBUF, info)
    fcntl.ioctl(output, QBUF, v4l2_buffer(struct.unpack_from("I", info, 0)[0], len(data), current[3]))
    shown += 1
print(f"{shown} frames shown", flush=True)
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
    Pi 3's device tree from the card, the test's sandbox script, photo feeder and tray
    photo written into it, and the disk grown to
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
    folder = str(Path(SANDBOX_SCRIPT).parent)
    lines = [f"mkdir {folder}"]
    for name, target, content in (("open_device.py", SANDBOX_SCRIPT, OPEN_DEVICE.encode()),
                                  ("feed_photo.py", FEEDER_SCRIPT, FEED_PHOTO.encode()),
                                  ("tray.jpg", PHOTO_IN_CARD, TRAY_PHOTO.read_bytes())):
        local = work / name
        local.write_bytes(content)
        local.chmod(0o644)  # debugfs gives the file this mode: the sandbox's user reads it
        lines.append(f"write {local} {target}")
    commands = work / "debugfs-script"
    commands.write_text("\n".join(lines) + "\n")
    run("debugfs", "-w", "-f", commands, ext4(img))
    for target in (SANDBOX_SCRIPT, FEEDER_SCRIPT, PHOTO_IN_CARD):
        if "Inode:" not in run("debugfs", "-R", f"stat {target}", ext4(img), check=False):
            raise BootCheckFailed(f"debugfs did not write {target} into the copy of the card")
    return (f"{DEVICE_TREE} ({model}) from {where}; the image grown from {size // 2**20} to "
            f"{power // 2**20} MiB for the SD model; {leds}")


def tray_label(photo: Path = TRAY_PHOTO) -> str:
    """The faces of the dice in ``photo`` by its folder's ``labels.csv``, as numbers in
    ascending order joined by commas (how the camera step prints what it read)."""
    with (photo.parent / "labels.csv").open(newline="") as table:
        faces = [FACE_WORDS[row["face"]] for row in csv.DictReader(table) if row["filename"] == photo.name]
    if not faces:
        raise BootCheckFailed(f"{photo.parent / 'labels.csv'} has no dice for {photo.name}")
    return ",".join(str(face) for face in sorted(faces))


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
