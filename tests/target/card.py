"""The SD card of ``scripts/image-build``, looked at from outside and readied for QEMU.

:func:`check_layout` reads the card as a Raspberry Pi 4's firmware and Debian would: its
partition table, the FAT partition's firmware, kernel, device trees, ``config.txt`` and
``cmdline.txt``, the SPI overlay applied to the Pi 4's device tree, the initramfs's disk
drivers, the root's ``fstab``, and the compressed image against its checksum. Each
finding is a short note; the first thing wrong raises :class:`BootCheckFailed`.

:func:`boot_copy` makes what :class:`target.kiosk_vm.KioskVM` boots: a copy of the card
with the boot test's additions written into its root (a root shell on the serial
console, the fault switch, the software renderer's drop-in), a venue's edit on its FAT
partition, and the kernel, initramfs and command line taken from that partition.
Everything is read and written in the image at the partitions' offsets (mtools'
``@@offset``, debugfs's ``?offset=``): no loop device, no mount.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from target.kiosk_vm import BootCheckFailed

CARD = "table-card"
SECTOR = 512
FAT_LABEL = "RASPIFIRM"
ROOT_LABEL = "RASPIROOT"
FIRMWARE = ("start4.elf", "fixup4.dat", "config.txt", "cmdline.txt", "overlays/pi4-spidev.dtbo",
            "table/README.txt", "table/table.toml", "table/hardware.toml")
DEVICE_TREES = ("bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb", "bcm2711-rpi-cm4-io.dtb")
CONFIG_LINES = ("arm_64bit=1", "upstream_kernel=1", "disable_overscan=1", "dtoverlay=pi4-spidev")
# The Pi 4's SD card (emmc2: sdhci-iproc) and QEMU's disk, as modules in the initramfs
# (Debian's kernel has mmc_block and virtio_pci built in).
INITRAMFS_MODULES = ("sdhci-iproc.ko", "sdhci-pltfm.ko", "sdhci.ko", "bcm2835.ko", "virtio_blk.ko", "ext4.ko")
# The root's check before it is mounted (fsck.repair=yes): util-linux's fsck runs e2fsck
# as fsck.ext4, and both must be in the initramfs, or a power cut's root goes unchecked.
INITRAMFS_FSCK = ("fsck", "e2fsck", "fsck.ext4")
SPI0 = "/soc/spi@7e204000"
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

    config = [line.strip() for line in fat_read(img, "config.txt").splitlines()]
    absent = [line for line in CONFIG_LINES if line not in config]
    if absent:
        raise BootCheckFailed(f"config.txt lacks {absent}")
    cmdline = fat_read(img, "cmdline.txt")
    words = cmdline.split()
    if len(cmdline.strip().splitlines()) != 1 or f"root=LABEL={ROOT_LABEL}" not in words or "rootwait" not in words:
        raise BootCheckFailed(f"cmdline.txt is not one line naming root=LABEL={ROOT_LABEL} with rootwait: {cmdline!r}")
    notes.append(f"config.txt: {'; '.join(CONFIG_LINES)}, kernel={kernel}, initramfs {initramfs}; "
                 f"cmdline.txt: {cmdline.strip()}")

    trees = work / "trees"
    trees.mkdir(exist_ok=True)
    fat_copy_out(img, "bcm2711-rpi-4-b.dtb", trees / "pi4.dtb")
    fat_copy_out(img, "overlays/pi4-spidev.dtbo", trees / "spidev.dtbo")
    model = run("fdtget", trees / "pi4.dtb", "/", "model").strip()
    if "Raspberry Pi 4" not in model:
        raise BootCheckFailed(f"bcm2711-rpi-4-b.dtb describes {model!r}")
    run("fdtoverlay", "-i", trees / "pi4.dtb", "-o", trees / "pi4-spi.dtb", trees / "spidev.dtbo")
    status = run("fdtget", trees / "pi4-spi.dtb", SPI0, "status").strip()
    children = run("fdtget", "-l", trees / "pi4-spi.dtb", SPI0).split()
    if status != "okay" or not any(c.startswith("spidev@0") for c in children):
        raise BootCheckFailed(f"with pi4-spidev the Pi 4's SPI0 is {status!r} with {children} (no spidev@0)")
    notes.append(f"device tree {model!r}: pi4-spidev applies, SPI0 okay with spidev@0")

    fat_copy_out(img, initramfs, work / "initrd.img")
    names = {Path(n).name for n in initramfs_names(work / "initrd.img")}
    lacking = [m for m in INITRAMFS_MODULES if m not in names and m + ".xz" not in names and m + ".zst" not in names]
    lacking += [f for f in INITRAMFS_FSCK if f not in names]
    if lacking:
        raise BootCheckFailed(f"the initramfs lacks {', '.join(lacking)}")
    notes.append(f"initramfs: {len(names)} files, with {', '.join(m.removesuffix('.ko') for m in INITRAMFS_MODULES)} "
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
    :data:`TEST_FILES`), vmlinuz, initrd.img, cmdline.txt."""
    files = TEST_FILES if files is None else files
    into.mkdir(parents=True, exist_ok=True)
    img = into / "disk.img"
    run("cp", "--sparse=always", out / f"{CARD}.img", img)
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
