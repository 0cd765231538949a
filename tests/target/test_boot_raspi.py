"""The SD card boots as a Raspberry Pi boots it, as far as QEMU can show: ``-M raspi3b``.

The card is the one ``scripts/image-build --keep-img`` makes (the virt boot test's, when
it ran before in the same session; ``TABLE_BOOT_IMAGE=DIR`` names one). A copy gets the
test's console and its sandbox script (:mod:`target.raspi_vm`), the venue's edit for a board
without an LED strip (no overlay gives it SPI here), is grown to a power of
two for QEMU's SD card model, and QEMU's ``raspi3b`` machine (a Pi 3 Model B: BCM2837,
4 Cortex-A53 cores, 1 GiB) boots it with the card's own kernel, initramfs and Pi 3
device tree from its FAT partition, the whole card on the SD host, and a USB serial
adapter on the DWC2 USB host whose other end is a fake Pico held by the test. The
steps, each printed as ``boot: STEP ... ok (N s): what was seen``:

1. the console's root shell (the mini UART, as on a Pi 3), the card's root found on the
   SD card by its label;
2. ``table.service`` sends ``READY=1`` as ``table``; without a display it can drive
   (below) the table runs as it does on any machine without one, and says so;
3. inside the unit's own sandbox (a transient service with every sandbox setting of
   ``systemctl cat table.service``: ``User=table``, its groups, ``DevicePolicy=closed``
   and the ``DeviceAllow=`` lines, ...): the Pico bridge's USB serial port through the
   table's :class:`SerialBridge` (HELLO, a state report, a button LED, a press from the
   fake Pico), a V4L2 camera (``vivid``) through the dice reader's OpenCV capture, and
   the I2C bus when the kernel made one. The camera shows a labelled tray photo through
   vivid's loopback (:data:`target.raspi_vm.FEED_PHOTO`, run as root beside the sandbox);
   the frame read must be the photo, and the dice read from it are printed beside the
   photo's label (a difference is reported, not failed: the frame is checked);
4. what the display is: ``/dev/dri`` and the table's own line about it.

The console's whole log is kept (``TABLE_RASPI_LOG=FILE``, else the test's folder; its
path is printed). docs/kiosk.md (*The card on QEMU's Raspberry Pi 3*) says what this
covers of a Pi and what it does not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from fakes.bridge import FakeBridge
from target.card import CARD, boot_copy
from target.kiosk_vm import BootCheckFailed, have_qemu, wait_ready
from target.raspi_vm import (
    FEEDER_SCRIPT,
    MACHINE,
    PHOTO_IN_CARD,
    RASPI_TEST_FILES,
    SANDBOX_SCRIPT,
    TRAY_PHOTO,
    VIVID_OPTIONS,
    RaspiVM,
    have_raspi_qemu,
    in_sandbox,
    raspi_copy,
    tray_label,
)
from target.test_boot import Steps

CHECKOUT = Path(__file__).resolve().parents[2]
# raspi3b emulates 4 cores on the build machine's 2, shared with the other jobs.
BOOT_TIMEOUT = 900
READY_TIMEOUT = 600
DEVICE_TIMEOUT = 180
# The feeder stops by itself after this long should the test not stop it.
FEED_SECONDS = 900
FEED_LOG = "/run/table-boot-feed.log"
PYTHON = "/opt/table/venv/bin/python"
# The table's own words when it finds no display (table/commands/run.py).
NO_DISPLAY = "no display found: running the simulator headless"

RASPI_TEST = os.environ.get("TABLE_BOOT_TEST", "1") != "0"


def find_card(image: Path | None, base: Path) -> Path | None:
    """The folder of a built card: ``image`` when it holds one, else the one the virt
    boot test built earlier in this pytest session (under ``base``)."""
    if image is not None and (image / f"{CARD}.img").exists():
        return image
    built = sorted(base.glob(f"*/image/{CARD}.img"))
    return built[0].parent if built else None


def build_card(steps: Steps, image: Path) -> None:
    proc = subprocess.Popen(["bash", str(CHECKOUT / "scripts" / "image-build"), "--keep-img", str(image)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd="/")
    assert proc.stdout is not None
    tail: list[str] = []
    for line in proc.stdout:
        tail = [*tail[-40:], line.rstrip()]
        if line.startswith("image: "):
            steps.say("  " + line.rstrip())
    if proc.wait(timeout=60 * 60) != 0:
        raise BootCheckFailed(f"the image builder failed: {' / '.join(tail)[-800:]}")


def node(vm: RaspiVM, path: str) -> str:
    """``path``'s owner, group and mode in the guest."""
    return vm.out(f"stat -c '%n %U:%G %a' {path}")


def wait_node(vm: RaspiVM, pattern: str, timeout: float) -> list[str]:
    """The device nodes matching the shell glob ``pattern`` once udev made one (or [])."""
    deadline = time.monotonic() + timeout
    while True:
        _, text = vm.sh(f"udevadm settle -t 10; ls -1 {pattern} 2>/dev/null")
        found = text.split()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(3)


def press_when_asked(fake: FakeBridge, stop: threading.Event) -> None:
    """The fake Pico's station 1 presses its button once the table has asked who is there."""
    while not stop.is_set() and fake.hello_requests == 0:
        time.sleep(0.1)
    if stop.wait(2):
        return
    now = int(time.monotonic() * 1e6)
    fake.send("B", 0, 1, now)
    fake.send("B", 0, 0, now + 120_000)


@pytest.mark.slow
@pytest.mark.skipif(not RASPI_TEST, reason="TABLE_BOOT_TEST=0 skips the boot tests")
@pytest.mark.skipif(os.environ.get("TABLE_LONG_CHECKS") == "0", reason="TABLE_LONG_CHECKS=0 leaves the long checks out")
@pytest.mark.skipif(os.geteuid() != 0, reason="the image builder needs root (mmdebstrap, chroot)")
@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the image builder needs a Debian host")
@pytest.mark.skipif(not have_qemu() or not have_raspi_qemu(),
                    reason=f"needs qemu-system-aarch64 with the {MACHINE} machine (packaging/debian-test.txt)")
def test_the_card_boots_on_a_raspberry_pi_3_model(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    given = os.environ.get("TABLE_BOOT_IMAGE")
    serial_log = Path(os.environ.get("TABLE_RASPI_LOG", tmp_path / "raspi-console.log"))
    with capsys.disabled():
        print()
        steps = Steps()
        steps.say(f"the console log: {serial_log}")
        run_raspi_test(steps, Path(given) if given else None, tmp_path_factory.getbasetemp(), tmp_path, serial_log)


def run_raspi_test(steps: Steps, given: Path | None, base: Path, work: Path, serial_log: Path) -> None:
    with steps.step("the SD card") as note:
        image = find_card(given, base)
        if image is None:
            image = given or work / "image"
            build_card(steps, image)
            note("built here")
        note(f"{image / f'{CARD}.img'} ({(image / f'{CARD}.img').stat().st_size // 2**20} MiB)")
    with steps.step(f"a copy for {MACHINE}: the test's console and sandbox script, the Pi 3's device tree") as note:
        boot_dir = work / "boot"
        boot_copy(image, boot_dir, work, RASPI_TEST_FILES)
        note(raspi_copy(boot_dir, work))
        note("kernel, initramfs and cmdline.txt from the FAT partition")

    known_gaps: list[str] = []
    fake = FakeBridge(work / "pico")
    vm = RaspiVM(boot_dir, work, serial_log, work / "pico")
    started = time.monotonic()
    try:
        with steps.step(f"boot on QEMU's {MACHINE} to the serial console") as note:
            vm.start()
            note(f"console shell after {vm.login(BOOT_TIMEOUT):.0f} s")
            note(vm.out("tr -d '\\0' </proc/device-tree/model"))
            note("root " + vm.out("findmnt -n -o SOURCE,FSTYPE /"))
        with steps.step("table.service reports READY=1 as table") as note:
            state = wait_ready(vm, READY_TIMEOUT)
            uid = vm.out(f"stat -c %u /proc/{state['MainPID']}")
            if uid != vm.out("id -u table"):
                raise BootCheckFailed(f"the table runs as uid {uid}, not as table")
            status = vm.out("systemctl show table.service -p StatusText --value")
            note(f"active {time.monotonic() - started:.0f} s after QEMU started; pid {state['MainPID']} as table; "
                 f"status {status!r}")
            said = vm.out("journalctl -b --no-pager -o cat -u table.service | grep -E -m3 'GPIO|display|simulat' "
                          "|| true")
            note(f"the table says: {' / '.join(said.splitlines())}")
            clashes = vm.out("journalctl -b --no-pager -o cat -u table.service | grep -F 'is taken by' || true")
            if clashes:
                # The card's own config.txt must leave the shipped wiring's pins alone.
                raise BootCheckFailed(f"the card's config.txt takes pins of its own wiring: {clashes[:600]}")
        unit = vm.out("systemctl cat table.service")

        with steps.step("the Pico bridge's USB serial port, opened in the unit's sandbox") as note:
            vm.out("modprobe ftdi_sio")
            ports = wait_node(vm, "/dev/ttyUSB*", DEVICE_TIMEOUT)
            if not ports:
                # On a loaded host QEMU's DWC2 model has come up "Not connected" once:
                # bind the host controller's driver again (what a replug does), once.
                vm.sh("cd /sys/bus/platform/drivers/dwc2 && for d in *.usb; do echo $d >unbind; sleep 2; "
                      "echo $d >bind; done", timeout=120)
                ports = wait_node(vm, "/dev/ttyUSB*", DEVICE_TIMEOUT)
                if ports:
                    note("the USB host controller was bound again once before the adapter appeared")
            if not ports:
                usb = vm.sh("lsusb 2>&1; ls /sys/bus/usb/devices; dmesg | grep -iE 'dwc2|usb|ftdi' | tail -8")[1]
                raise BootCheckFailed(f"no /dev/ttyUSB* for QEMU's USB serial adapter: {usb.strip()[-600:]}")
            port = node(vm, ports[0])
            note(port)
            groups = vm.out("systemctl show table.service -p Group -p SupplementaryGroups --value").split()
            owner_group, mode = port.split()[1].split(":")[1], port.split()[2]
            stop = threading.Event()
            presser = threading.Thread(target=press_when_asked, args=(fake, stop), daemon=True)
            presser.start()
            try:
                status, said = vm.sh(in_sandbox(unit, PYTHON, SANDBOX_SCRIPT, "serial", ports[0]), timeout=300)
            finally:
                stop.set()
                presser.join()
            if status != 0 and owner_group not in groups and not int(mode, 8) & 0o006:
                # The table's own unit cannot open the port: a gap in the shipped unit,
                # reported (xfail) once the other checks are done.
                known_gaps.append(f"table.service cannot open the bridge's port {port}: its groups "
                                  f"({' '.join(groups)}) lack {owner_group}")
                note(f"FAILS as shipped: {known_gaps[-1]}")
            elif status != 0:
                raise BootCheckFailed(f"the table's SerialBridge failed in the unit's sandbox: {said.strip()[-400:]}")
            elif (0, "blink") not in fake.led_lines:
                raise BootCheckFailed(f"the fake Pico never got the table's LED line (it got {fake.led_lines})")
            else:
                note(said.replace("\n", "; "))
                note(f"the fake Pico got {len(fake.received)} records: HELLO? {fake.hello_requests}x, "
                     f"LED lines {fake.led_lines} (off again when the bridge stops)")
        with steps.step("a V4L2 camera (vivid) showing a tray photo, read by the dice reader in the unit's "
                        "sandbox") as note:
            vm.out(f"modprobe vivid {VIVID_OPTIONS}")
            wait_node(vm, "/dev/video*", DEVICE_TIMEOUT)
            names = "/sys/class/video4linux/video*/name"
            device = f"/dev/{Path(vm.out(f'grep -l vid-cap {names} | head -n 1')).parent.name}"
            shows = f"/dev/{Path(vm.out(f'grep -l vid-out {names} | head -n 1')).parent.name}"
            note(f"{node(vm, device)}; {node(vm, shows)} loops back into it")
            # The feeder runs as root beside the sandbox (the table never writes to a
            # camera): it shows the photo on vivid's output in the format the reader set.
            vm.out(f"setsid {PYTHON} {FEEDER_SCRIPT} {device} {shows} {PHOTO_IN_CARD} {FEED_SECONDS} "
                   f"</dev/null >{FEED_LOG} 2>&1 & echo $! >{FEED_LOG}.pid")
            label = tray_label()
            index = device.removeprefix("/dev/video")
            try:
                status, said = vm.sh(in_sandbox(unit, PYTHON, SANDBOX_SCRIPT, "camera", f"usb:{index}",
                                                PHOTO_IN_CARD, label), timeout=600)
            finally:
                fed = vm.sh(f"kill $(cat {FEED_LOG}.pid) 2>/dev/null; sleep 1; cat {FEED_LOG}")[1]
            fed_lines = " / ".join(line.strip() for line in fed.splitlines() if line.strip())
            if status != 0:
                raise BootCheckFailed(f"the tray photo did not come through the camera in the unit's sandbox: "
                                      f"{said.strip()[-500:]}; the feeder: {fed_lines[-500:]}")
            note(f"the feeder ({TRAY_PHOTO.name}): {fed_lines[:400]}")
            note(said.replace("\n", "; "))
            read = said.partition("dice read ")[2].partition(", the photo's label")[0]
            if read != label:
                # The frame is the photo (checked in the sandbox); the numbers differ from
                # the build machine's only if the networks do under emulation: reported.
                note(f"REPORTED, not failed: the dice read differ from the photo's label {label} ({read or said})")
        with steps.step("the I2C bus (the stations' displays), with i2c-dev") as note:
            vm.out("modprobe i2c-dev")
            buses = wait_node(vm, "/dev/i2c-*", 30)
            _, adapters = vm.sh("grep -H . /sys/bus/i2c/devices/i2c-*/name 2>/dev/null")
            if not buses:
                note(f"no /dev/i2c-*: {MACHINE} has no I2C controller the kernel can use")
            else:
                note(f"adapters: {' / '.join(adapters.split())}")
                bus = "/dev/i2c-1" if "/dev/i2c-1" in buses else buses[0]
                bus_node = node(vm, bus)
                note(bus_node)
                status, said = vm.sh(in_sandbox(unit, PYTHON, SANDBOX_SCRIPT, "i2c", bus), timeout=300)
                bus_group, bus_mode = bus_node.split()[1].split(":")[1], bus_node.split()[2]
                if status != 0 and bus_group not in groups and not int(bus_mode, 8) & 0o006:
                    # Debian's udev has no rule giving the I2C buses to the i2c group
                    # (Raspberry Pi OS has one): a gap of the card, reported as the port's.
                    known_gaps.append(f"table.service cannot open {bus_node}: its groups lack {bus_group}")
                    note(f"FAILS as shipped: {known_gaps[-1]}")
                elif status != 0:
                    raise BootCheckFailed(f"{bus} could not be opened in the unit's sandbox: {said.strip()[-400:]}")
                else:
                    note(said.replace("\n", "; "))
        with steps.step("the display") as note:
            _, dri = vm.sh("ls -1 /dev/dri 2>&1; ls -1 /dev/fb* 2>&1")
            _, vc4 = vm.sh("dmesg | grep -iE 'vc4|drm|simple-framebuffer' | tail -n 3")
            note(f"/dev/dri and /dev/fb*: {' '.join(dri.split()) or 'none'}")
            note(f"the kernel: {' / '.join(line.strip() for line in vc4.splitlines()) or 'no display driver bound'}")
            said = vm.out(f"journalctl -b --no-pager -o cat -u table.service | grep -m1 {NO_DISPLAY!r} || true")
            if said:
                note(f"the table: {said}")
            else:
                note("the table found a display")
        boot = " ".join(vm.out("systemd-analyze 2>&1 | head -n 1 || true").split())
        steps.say(f"figures: {boot}; the console log: {serial_log}")
    finally:
        vm.kill()
        fake.close()
    if known_gaps:
        # Every other check held; the card as shipped cannot open these (the steps hold
        # them once it can).
        pytest.xfail("; ".join(known_gaps))
