"""The SD card of ``scripts/image-build``, looked at from outside and readied for QEMU.

:func:`check_layout` reads the card as a Raspberry Pi's firmware and Debian would: its
partition table, the FAT partition's firmware, kernel, device trees, ``config.txt`` (its
per-board sections) and ``cmdline.txt``, the SPI overlay applied to the Pi 4's device
tree (SPI0 on GPIO 10 and 11 only), the initramfs against what each board's device
tree needs to reach the SD card (:func:`initramfs_lacks`), the root's ``fstab``, and
the compressed image against its checksum. Each finding is a short note; the first
thing wrong raises :class:`BootCheckFailed`.

:func:`boot_copy` makes what :class:`target.kiosk_vm.KioskVM` boots: a copy of the card,
:data:`CARD_GROWTH` larger than the image (as a real card is), with the boot test's
additions written into its root (a root shell on the serial console, the fault switch,
the software renderer's drop-in), a venue's edit on its FAT partition, and the kernel,
initramfs and command line taken from that partition.
Everything is read and written in the image at the partitions' offsets (mtools'
``@@offset``, debugfs's ``?offset=``): no loop device, no mount.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from target.kiosk_vm import BootCheckFailed

CARD = "table-card"
SECTOR = 512
FAT_LABEL = "RASPIFIRM"
ROOT_LABEL = "RASPIROOT"
CHECKOUT = Path(__file__).resolve().parents[2]
# The Pi 4's firmware (start4.elf, fixup4.dat) and the Pi 3's (bootcode.bin, start.elf, fixup.dat).
FIRMWARE = ("start4.elf", "fixup4.dat", "bootcode.bin", "start.elf", "fixup.dat", "config.txt", "cmdline.txt",
            "overlays/table-spi-leds.dtbo", "table/README.txt", "table/table.toml", "table/hardware.toml")
DEVICE_TREES = ("bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb", "bcm2837-rpi-3-b-plus.dtb", "bcm2837-rpi-3-b.dtb")
# config.txt's lines by section: raspi-firmware's own (before any section) count as [all].
CONFIG_LINES = {
    "all": ("arm_64bit=1", "upstream_kernel=1", "disable_overscan=1", "dtoverlay=table-spi-leds", "enable_uart=0"),
    # The SPI clock follows the core clock: held still, the LED strip's timing holds.
    "pi4": ("core_freq_min=500",),
    "pi3": ("core_freq=250",),
}
# The LED strip's frame as NeoPixel_SPI writes it in one spidev transfer, at its largest:
# the config's most LEDs (table/hardware/config.py), 4 colours (RGBW), 8 SPI bytes per
# colour byte, and 64 reset bytes before and after.
MAX_LEDS = 4096
LED_FRAME_BYTES = MAX_LEDS * 4 * 8 + 2 * 64
SPI_PINS = (10, 11)  # MOSI, SCLK: the strip's data and clock; the overlay muxes no other pin
SPI_CHIP_SELECT = 1  # cs-gpios: GPIO 1 (ID_SC), never wired; without it spi-bcm2835 takes GPIO 8
# The root's check before it is mounted (fsck.repair=yes): util-linux's fsck runs e2fsck
# as fsck.ext4, and both must be in the initramfs, or a power cut's root goes unchecked.
INITRAMFS_FSCK = ("fsck", "e2fsck", "fsck.ext4")
SPI0 = "/soc/spi@7e204000"
# The boot test's copy of the card is this much larger than the image, as a card larger
# than the image is: the first boot grows the root into it (table-grow-root.service).
CARD_GROWTH = 2**30
VENUE_EDIT = "# set on the card's FAT partition before its first boot (the boot test)"
# What only the boot test adds to its copy of the card: path in the root, contents.
TEST_FILES = {
    "/etc/systemd/system/serial-getty@ttyAMA0.service.d/boot-test.conf": """\
# Boot test copy only: a root shell on the serial console, for the test to look inside.
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --noclear --keep-baud 115200,38400,9600 %I $TERM
""",
    "/etc/systemd/system/table.service.d/test-faults.conf": """\
# Boot test copy only: SIGUSR1 hangs the table loop, so the test can see the service
# watchdog restart it. Never install this on a table.
[Service]
Environment=TABLE_TEST_FAULTS=hang-on-sigusr1
""",
    "/etc/systemd/system/table.service.d/test-display.conf": """\
# Boot test copy only: QEMU's virtio GPU has no 3D, so Mesa draws in software. Its
# default (llvmpipe) compiles code at run time, which MemoryDenyWriteExecute=yes
# forbids; softpipe does not, so the unit's hardening stays as shipped.
[Service]
Environment=GALLIUM_DRIVER=softpipe
""",
    # The test's shell reads the kernel log quietly: only the test's own lines on the console.
    "/etc/sysctl.d/10-boot-test-quiet.conf": "kernel.printk = 3 4 1 3\n",
}


@dataclass(frozen=True)
class Partition:
    start: int  # bytes
    size: int  # bytes
    kind: str
    bootable: bool


def run(*cmd: str | Path, check: bool = True) -> str:
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, check=False)
    if check and done.returncode != 0:
        raise BootCheckFailed(f"{Path(str(cmd[0])).name} failed: {(done.stderr or done.stdout).strip()[-300:]}")
    return done.stdout


@cache
def partitions(img: Path) -> tuple[Partition, ...]:
    """The card's partitions, read once per image (every mtools and debugfs call needs
    an offset, and the test never repartitions a card)."""
    table = json.loads(run(shutil.which("sfdisk") or "/usr/sbin/sfdisk", "-J", img))["partitiontable"]
    if table.get("label") != "dos":
        raise BootCheckFailed(f"the card's partition table is {table.get('label')}, not an MBR (dos)")
    return tuple(Partition(p["start"] * SECTOR, p["size"] * SECTOR, p["type"], bool(p.get("bootable")))
                 for p in table["partitions"])


def fat(img: Path) -> str:
    """mtools' name for the card's FAT partition."""
    return f"{img}@@{partitions(img)[0].start}"


def ext4(img: Path) -> str:
    """debugfs's name for the card's root partition."""
    return f"{img}?offset={partitions(img)[1].start}"


def fat_read(img: Path, name: str) -> str:
    return run("mtype", "-i", fat(img), f"::/{name}")


def fat_copy_out(img: Path, name: str, to: Path) -> None:
    run("mcopy", "-n", "-i", fat(img), f"::/{name}", to)


def boot_files(img: Path) -> tuple[str, str]:
    """The kernel and the initramfs config.txt names (``kernel=``, ``initramfs``)."""
    kernel = initramfs = ""
    for line in fat_read(img, "config.txt").splitlines():
        words = line.split()
        if line.startswith("kernel="):
            kernel = line.removeprefix("kernel=").strip()
        elif words[:1] == ["initramfs"] and len(words) >= 2:
            initramfs = words[1]
    if not kernel or not initramfs:
        raise BootCheckFailed("config.txt names no kernel= or no initramfs")
    return kernel, initramfs


@cache
def initramfs_tool() -> ModuleType:
    """``tools/card/initramfs_modules.py``, the image builder's reading of the device
    trees, imported from the checkout (it is not part of the installed table)."""
    path = CHECKOUT / "tools" / "card" / "initramfs_modules.py"
    spec = importlib.util.spec_from_file_location("initramfs_modules", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def config_sections(text: str) -> dict[str, list[str]]:
    """config.txt's lines by section (``[pi4]``...); lines before any section are ``all``'s."""
    sections: dict[str, list[str]] = {"all": []}
    section = "all"
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            sections.setdefault(section, [])
        elif line:
            sections[section].append(line)
    return sections


def spi_claims(tree: bytes) -> tuple[str, list[int], list[int], list[str]]:
    """SPI0 in ``tree`` (a .dtb with the overlay applied): its status, the GPIO pins and
    functions its pinctrl-0 claims, and its chip selects (``cs-gpios`` entries as
    "GPIO n" on the pin controller, anything else as found)."""
    tool = initramfs_tool()
    root = tool.parse_fdt(tree, "the Pi 4's device tree with the SPI overlay")
    nodes = {n.path: n for n in tool.walk(root)}
    spi = nodes.get(SPI0)
    if spi is None:
        raise BootCheckFailed(f"the Pi 4's device tree has no {SPI0}")
    by_phandle = {n.cells("phandle")[0]: n for n in nodes.values() if "phandle" in n.props}
    pins: list[int] = []
    functions: list[int] = []
    for phandle in spi.cells("pinctrl-0"):
        group = by_phandle.get(phandle)
        if group is None:
            raise BootCheckFailed(f"{SPI0}'s pinctrl-0 names a missing node ({phandle})")
        pins += group.cells("brcm,pins")
        functions += group.cells("brcm,function")
    pin_controllers = {"brcm,bcm2835-gpio", "brcm,bcm2711-gpio"}
    controller = next((n.cells("phandle")[0] for n in nodes.values()
                       if "phandle" in n.props and pin_controllers & set(n.strings("compatible"))), None)
    chip_selects: list[str] = []
    cells = spi.cells("cs-gpios") if "cs-gpios" in spi.props else []
    for i in range(0, len(cells) - len(cells) % 3, 3):
        phandle, line, _flags = cells[i:i + 3]
        chip_selects.append(f"GPIO {line}" if phandle == controller else f"line {line} of node {phandle}")
    chip_selects += [p for p in spi.props if p == "cs-gpio"]  # the old, single form
    return (spi.strings("status") or ["okay"])[0], pins, functions, chip_selects


def root_file(img: Path, path: str) -> str:
    """A text file of the card's root (debugfs at the partition's offset)."""
    text = run("debugfs", "-R", f"cat {path}", ext4(img))
    if not text:
        raise BootCheckFailed(f"the card's root has no {path} (or it is empty)")
    return text


def initramfs_lacks(img: Path, work: Path, initramfs: str) -> tuple[list[str], dict[str, Any]]:
    """The modules the boards' device trees on the FAT partition need to reach the SD card
    (with the kernel's module lists from the root, read as the image builder reads them)
    that the initramfs lacks, and each board's needs."""
    tool = initramfs_tool()
    kernel_name, _ = boot_files(img)
    version = kernel_name.removeprefix("vmlinuz-")
    modules = f"/usr/lib/modules/{version}"
    lists = [root_file(img, f"{modules}/{name}") for name in ("modules.alias", "modules.dep", "modules.builtin")]
    trees = {}
    for name in tool.BOARD_TREES:
        fat_copy_out(img, name, work / name)
        trees[name] = (work / name).read_bytes()
    try:
        kernel = tool.Kernel.read(*lists)
        top, per_board = tool.needed_modules(trees, kernel)
    except tool.TreeError as error:
        raise BootCheckFailed(str(error)) from None
    fat_copy_out(img, initramfs, work / "initrd.img")
    present = {tool.module_name(n) for n in initramfs_names(work / "initrd.img") if ".ko" in Path(n).name}
    return [m for m in kernel.closure(top) if m not in present], per_board


def initramfs_names(initrd: Path) -> list[str]:
    """The file names in Debian's initramfs: newc cpio archives one after the other, each
    plain or compressed (zstd, gzip or xz). Debian 13 puts the modules, compressed
    already, in a plain first archive and everything else (busybox, the scripts, fsck)
    in a compressed second one."""
    data, at, names = initrd.read_bytes(), 0, []
    while at < len(data):
        while at < len(data) and data[at] == 0:  # the padding between archives
            at += 1
        head = data[at:at + 6]
        if head == b"070701":
            at = _cpio_names(data, at, names)
            continue
        if head[:4] == b"\x28\xb5\x2f\xfd":
            command = ["zstd", "-dc"]
        elif head[:2] == b"\x1f\x8b":
            command = ["gzip", "-dc"]
        elif head == b"\xfd7zXZ\x00":
            command = ["xz", "-dc"]
        else:
            break
        # The compressed archive runs to the end of the file.
        rest = subprocess.run(command, input=data[at:], capture_output=True, check=True).stdout
        data, at = rest, 0
    return names


def _cpio_names(data: bytes, at: int, names: list[str]) -> int:
    """Adds the names of the newc cpio archive at ``at`` to ``names``; where it ends."""
    while data[at:at + 6] == b"070701":
        name_size, file_size = int(data[at + 94:at + 102], 16), int(data[at + 54:at + 62], 16)
        name = data[at + 110:at + 110 + name_size - 1].decode()
        at = (at + 110 + name_size + 3) & ~3
        at = (at + file_size + 3) & ~3
        if name == "TRAILER!!!":
            break
        names.append(name)
    return at


def check_layout(out: Path, work: Path) -> list[str]:
    """The card in ``out`` (``table-card.img`` with its ``.img.xz`` and checksum), as notes."""
    img = out / f"{CARD}.img"
    notes = []
    done = subprocess.run(["sha256sum", "-c", f"{CARD}.img.xz.sha256"], cwd=out, capture_output=True, text=True,
                          timeout=600, check=False)
    if done.returncode != 0:
        raise BootCheckFailed(f"{CARD}.img.xz does not match its checksum: {done.stdout.strip()}")
    notes.append(f"{CARD}.img.xz {(out / f'{CARD}.img.xz').stat().st_size // 2**20} MiB matches its sha256")

    parts = partitions(img)
    if len(parts) != 2:
        raise BootCheckFailed(f"the card has {len(parts)} partitions, not 2 (FAT, root)")
    boot, root = parts
    if boot.kind != "c" or not boot.bootable or boot.start % 2**20:
        raise BootCheckFailed(f"partition 1 is not a bootable, aligned FAT32 (LBA) partition: {boot}")
    if root.kind != "83" or root.start < boot.start + boot.size or root.start + root.size > img.stat().st_size:
        raise BootCheckFailed(f"partition 2 is not a Linux partition after the FAT one, inside the image: {root}")
    notes.append(f"MBR: FAT32 {boot.size // 2**20} MiB at {boot.start // 2**20} MiB (bootable), "
                 f"Linux {root.size // 2**20} MiB")

    label = run("mlabel", "-s", "-i", fat(img), "::")
    if FAT_LABEL not in label:
        raise BootCheckFailed(f"the FAT partition's label is not {FAT_LABEL}: {label.strip()}")
    listing = set(run("mdir", "-/", "-b", "-i", fat(img), "::").split())
    files = {name.removeprefix("::/") for name in listing}
    kernel, initramfs = boot_files(img)
    missing = [f for f in (*FIRMWARE, *DEVICE_TREES, kernel, initramfs) if f not in files]
    if missing:
        raise BootCheckFailed(f"the FAT partition lacks {', '.join(missing)}")
    notes.append(f"FAT {FAT_LABEL}: {len(files)} files, with {', '.join(FIRMWARE[:2])}, {kernel}, {initramfs} "
                 f"and the device trees {', '.join(DEVICE_TREES)}")

    sections = config_sections(fat_read(img, "config.txt"))
    absent = [f"[{section}] {line}" for section, lines in CONFIG_LINES.items() for line in lines
              if line not in sections.get(section, [])]
    if absent:
        raise BootCheckFailed(f"config.txt lacks {', '.join(absent)}")
    uart = [line for lines in sections.values() for line in lines if line.startswith("enable_uart")]
    if uart[-1:] != ["enable_uart=0"]:
        raise BootCheckFailed(f"config.txt's last enable_uart line is {uart[-1:] or 'missing'}: the UART would "
                              "take GPIO 14 and 15 from the shipped wiring's station 4")
    cmdline = fat_read(img, "cmdline.txt")
    words = cmdline.split()
    if len(cmdline.strip().splitlines()) != 1 or f"root=LABEL={ROOT_LABEL}" not in words or "rootwait" not in words:
        raise BootCheckFailed(f"cmdline.txt is not one line naming root=LABEL={ROOT_LABEL} with rootwait: {cmdline!r}")
    bufsiz = [int(w.split("=", 1)[1]) for w in words if w.startswith("spidev.bufsiz=") and w[14:].isdigit()]
    if not bufsiz or bufsiz[-1] < LED_FRAME_BYTES:
        raise BootCheckFailed(f"cmdline.txt's spidev.bufsiz ({bufsiz or 'none'}) is below the largest LED frame, "
                              f"{LED_FRAME_BYTES} bytes ({MAX_LEDS} RGBW LEDs)")
    notes.append("config.txt: " + "; ".join(f"[{s}] {', '.join(lines)}" for s, lines in CONFIG_LINES.items())
                 + f", kernel={kernel}, initramfs {initramfs}; cmdline.txt: {cmdline.strip()}")

    trees = work / "trees"
    trees.mkdir(exist_ok=True)
    fat_copy_out(img, "bcm2711-rpi-4-b.dtb", trees / "pi4.dtb")
    fat_copy_out(img, "overlays/table-spi-leds.dtbo", trees / "spi-leds.dtbo")
    model = run("fdtget", trees / "pi4.dtb", "/", "model").strip()
    if "Raspberry Pi 4" not in model:
        raise BootCheckFailed(f"bcm2711-rpi-4-b.dtb describes {model!r}")
    run("fdtoverlay", "-i", trees / "pi4.dtb", "-o", trees / "pi4-spi.dtb", trees / "spi-leds.dtbo")
    status = run("fdtget", trees / "pi4-spi.dtb", SPI0, "status").strip()
    children = run("fdtget", "-l", trees / "pi4-spi.dtb", SPI0).split()
    if status != "okay" or not any(c.startswith("spidev@0") for c in children):
        raise BootCheckFailed(f"with table-spi-leds the Pi 4's SPI0 is {status!r} with {children} (no spidev@0)")
    _, pins, functions, chip_selects = spi_claims((trees / "pi4-spi.dtb").read_bytes())
    if sorted(pins) != list(SPI_PINS) or set(functions) != {4} or chip_selects != [f"GPIO {SPI_CHIP_SELECT}"]:
        raise BootCheckFailed(f"with table-spi-leds SPI0 claims GPIO {pins} (functions {functions}) and "
                              f"chip selects {', '.join(chip_selects) or 'none'}, not GPIO {SPI_PINS[0]} and "
                              f"{SPI_PINS[1]} alone (ALT0) with its chip select on GPIO {SPI_CHIP_SELECT} "
                              "(without one, spi-bcm2835 takes GPIO 8 or fails on a Pi 4)")
    notes.append(f"device tree {model!r}: table-spi-leds applies, SPI0 okay with spidev@0, "
                 f"claiming GPIO {SPI_PINS[0]} and {SPI_PINS[1]} (ALT0), chip select GPIO {SPI_CHIP_SELECT}")

    lacking, per_board = initramfs_lacks(img, work, initramfs)
    if lacking:
        raise BootCheckFailed(f"the initramfs lacks {', '.join(lacking)}, which the boards' device trees need "
                              "to reach the SD card (tools/card/initramfs_modules.py)")
    names = {Path(n).name for n in initramfs_names(work / "initrd.img")}
    missing_fsck = [f for f in INITRAMFS_FSCK if f not in names]
    if missing_fsck:
        raise BootCheckFailed(f"the initramfs lacks {', '.join(missing_fsck)}")
    boards = "; ".join(f"{needs.model}: {', '.join(needs.modules)}" for needs in per_board.values())
    notes.append(f"initramfs: {len(names)} files, with every module the device trees need ({boards}) "
                 f"and {', '.join(INITRAMFS_FSCK)}")

    fstab = run("debugfs", "-R", "cat /etc/fstab", ext4(img))
    if f"LABEL={ROOT_LABEL}" not in fstab or f"LABEL={FAT_LABEL}" not in fstab or "/boot/firmware" not in fstab:
        raise BootCheckFailed(f"the root's /etc/fstab does not mount both partitions by label: {fstab!r}")
    label = run("debugfs", "-R", "stats", ext4(img))
    if f"Filesystem volume name:   {ROOT_LABEL}" not in label:
        raise BootCheckFailed(f"the root partition is not labelled {ROOT_LABEL}")
    notes.append(f"root ext4 {ROOT_LABEL}: fstab mounts / and /boot/firmware by label")
    return notes


def boot_copy(out: Path, into: Path, work: Path, files: dict[str, str] | None = None) -> None:
    """``into``/disk.img (the card with the test's additions: ``files``, by default
    :data:`TEST_FILES`; :data:`CARD_GROWTH` larger than the image), vmlinuz, initrd.img,
    cmdline.txt."""
    files = TEST_FILES if files is None else files
    into.mkdir(parents=True, exist_ok=True)
    img = into / "disk.img"
    run("cp", "--sparse=always", out / f"{CARD}.img", img)
    with img.open("r+b") as disk:  # sparse: the growth costs no space here
        disk.truncate(img.stat().st_size + CARD_GROWTH)
    kernel, initramfs = boot_files(img)
    for name, local in ((kernel, "vmlinuz"), (initramfs, "initrd.img"), ("cmdline.txt", "cmdline.txt")):
        (into / local).unlink(missing_ok=True)
        fat_copy_out(img, name, into / local)
    # A venue's edit, made on the FAT partition as on any computer before the first boot.
    table_toml = work / "table.toml"
    table_toml.write_text(fat_read(img, "table/table.toml") + "\n" + VENUE_EDIT + "\n")
    run("mcopy", "-o", "-i", fat(img), table_toml, "::/table/table.toml")
    commands = []
    for n, (path, text) in enumerate(files.items()):
        source = work / f"test-file-{n}"
        source.write_text(text)
        source.chmod(0o644)
        commands += [f"mkdir {Path(path).parent}", f"write {source} {path}"]
    script = work / "debugfs-commands"
    script.write_text("\n".join(commands) + "\n")
    # mkdir of a folder that exists says so and goes on; a failed write is checked below.
    run("debugfs", "-w", "-f", script, ext4(img))
    for path in files:
        if "Inode:" not in run("debugfs", "-R", f"stat {path}", ext4(img), check=False):
            raise BootCheckFailed(f"debugfs did not write {path} into the copy of the card")
