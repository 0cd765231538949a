"""The boot test: the SD card boots under QEMU straight into the table.

``scripts/image-build --keep-img`` makes the card (docs/kiosk.md, *The SD card*); the test
checks its layout as a Raspberry Pi 4 would read it (:func:`target.card.check_layout`),
makes a copy with its own console and drop-ins and a venue's edit on the FAT partition
(:func:`target.card.boot_copy`), and QEMU boots that copy with the kernel, initramfs and
command line from its FAT partition, a virtio GPU (the DRM device SDL's KMS/DRM driver
opens) and a virtio keyboard (the simulated stations' keys). The test looks only from
outside, through the serial console's root shell and QEMU's monitor. Each step prints
``boot: STEP ... ok (N s): what was seen``; the first failing step ends the test with one
sentence. The steps: the card's layout; READY=1 as ``table`` with the unit's hardening
intact; the venue's settings copied from the FAT partition at the first boot; the first
frame is the lobby; a game played on the keyboard is journaled; SIGKILL restarts into
the same game; the watchdog restarts a hung loop; a power cut mid-game and a second
boot resume the game; a unit with a ``DeviceAllow`` line removed makes the READY check
fail with a sentence naming the unit.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pygame
import pytest
from target.card import CARD, CARD_GROWTH, ROOT_LABEL, TEST_FILES, VENUE_EDIT, boot_copy, check_layout, partitions
from target.kiosk_vm import (
    MEAN_TOLERANCE,
    PIXEL_SHARE_TOLERANCE,
    SCREEN,
    BootCheckFailed,
    KioskVM,
    compare,
    have_qemu,
    wait_failed_start,
    wait_ready,
)

from table.display.screens import LobbyScreen

CHECKOUT = Path(__file__).resolve().parents[2]
SCREENS = CHECKOUT / "docs" / "screens"
# Under TCG emulation on 2 shared cores the guest is 10 to 20 times slower than a Pi.
BOOT_TIMEOUT = 600
READY_TIMEOUT = 420
# Mesa draws in software (softpipe) there: a full 1920x1080 frame takes seconds.
FRAME_TIMEOUT = 180
# Seconds between a long step's "still going" lines.
HEARTBEAT = 50
# The drop-in that breaks the unit: DeviceAllow without the display's class (char-drm).
BROKEN_DROPIN = """[Service]
DeviceAllow=
DeviceAllow=char-gpiochip rw
DeviceAllow=char-spi rw
DeviceAllow=char-input r
DeviceAllow=char-alsa rw
DeviceAllow=char-ttyACM rw
DeviceAllow=char-ttyUSB rw
"""
HARDENING = {
    "User": "table", "DevicePolicy": "closed", "NoNewPrivileges": "yes", "ProtectSystem": "strict",
    "ProtectHome": "yes", "PrivateTmp": "yes", "PrivateNetwork": "yes", "PrivateUsers": "yes",
    "MemoryDenyWriteExecute": "yes", "RestrictAddressFamilies": "AF_UNIX AF_NETLINK", "LockPersonality": "yes",
    "RestrictRealtime": "yes", "ProtectKernelTunables": "yes", "ProtectClock": "yes", "WatchdogUSec": "30s",
}


# ``table`` as the card runs it, with the games the wheel registers: the test's
# environment may have more installed (the test game), whose line the card's lobby lacks.
SHIPPED_TABLE = """\
import sys
from importlib.metadata import distribution
import table.games.contract as contract
shipped = {e.name for e in distribution("game-table").entry_points if e.group == contract.ENTRY_POINTS}
every = contract.entry_points
contract.entry_points = lambda group: [(n, v) for n, v in every(group)
                                       if group != contract.ENTRY_POINTS or n in shipped]
from table.cli import main
sys.exit(main(sys.argv[1:]))
"""


def lobby_reference(out: Path, work: Path) -> np.ndarray:
    """The lobby as ``table run --headless`` draws it at the image's resolution, with the
    card's games only, as RGB rows."""
    shot = work / "headless.png"
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    command = [sys.executable, "-c", SHIPPED_TABLE, "run", "--headless", "--allow-root", "--journal",
               str(work / "ref.db"), "--seconds", "2", "--screenshot", str(shot)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd="/", timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    picture = pygame.image.load(str(shot))
    # The headless simulator adds its stations bar below and the LED column right.
    display = picture.subsurface(pygame.Rect((0, 0), SCREEN)).copy()
    pygame.image.save(display, str(out))
    return np.transpose(pygame.surfarray.array3d(display), (1, 0, 2))


def save_png(pixels: np.ndarray, path: Path) -> None:
    pygame.image.save(pygame.surfarray.make_surface(np.transpose(pixels, (1, 0, 2))), str(path))


class Steps:
    """Prints each step's result as it ends; the first failure ends the test."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    @contextmanager
    def step(self, name: str) -> Iterator[Callable[[str], None]]:
        start = time.monotonic()
        detail: list[str] = []
        ended = threading.Event()

        def heartbeat() -> None:
            # Under emulation a step can take minutes: CI's log gets a line every 50 s.
            while not ended.wait(HEARTBEAT):
                print(f"boot:   ... {name}: {time.monotonic() - start:.0f} s so far", flush=True)

        beat = threading.Thread(target=heartbeat, daemon=True)
        beat.start()
        try:
            yield detail.append
        except BootCheckFailed as exc:
            self.say(f"{name} ... FAILED ({time.monotonic() - start:.0f} s): {exc}")
            pytest.fail(f"the boot test failed at '{name}': {exc}", pytrace=False)
        finally:
            ended.set()
            beat.join()
        self.say(f"{name} ... ok ({time.monotonic() - start:.0f} s){': ' + '; '.join(detail) if detail else ''}")

    def say(self, line: str) -> None:
        self.lines.append(f"boot: {line}")
        print(f"boot: {line}", flush=True)


def wait_screen(vm: KioskVM, path: Path, timeout: float, done: Callable[[np.ndarray], bool]) -> np.ndarray:
    """Screendumps to ``path`` until ``done`` holds for one (or ``timeout`` passes); the last one."""
    deadline = time.monotonic() + timeout
    while True:
        shot = vm.screendump(path)
        if done(shot) or time.monotonic() > deadline:
            save_png(shot, path.with_suffix(".png"))
            return shot
        time.sleep(3)


def is_lobby(reference: np.ndarray) -> Callable[[np.ndarray], bool]:
    def check(shot: np.ndarray) -> bool:
        mean, share = compare(shot, reference)
        return mean <= MEAN_TOLERANCE and share <= PIXEL_SHARE_TOLERANCE
    return check


def is_a_game(reference: np.ndarray) -> Callable[[np.ndarray], bool]:
    """Something drawn (not black, not the console) that is not the lobby."""
    return lambda shot: compare(shot, reference)[0] >= 5 and len(np.unique(shot[::8, ::8].reshape(-1, 3), axis=0)) > 20


def shipped_lobby_lines() -> list[str]:
    """The lobby's lines on the image, which holds only the games the wheel registers
    (the test environment may have more installed)."""
    from importlib.metadata import distribution

    from table.display.screens import player_options
    from table.games import lobby_games
    from table.games.contract import ENTRY_POINTS

    shipped = {ep.name for ep in distribution("game-table").entry_points if ep.group == ENTRY_POINTS}
    lobby = LobbyScreen.__new__(LobbyScreen)
    lobby.games = tuple(g for g in lobby_games() if g in shipped)
    lobby._every_option = {f"option:{o.option}": o for g in lobby.games for o in player_options(g)}
    return lobby._lines()


def journal_game(vm: KioskVM) -> tuple[int, str, int, bool]:
    """The newest game in /var/lib/table: id, engine, journaled actions, finished."""
    query = ("select g.id, g.engine, (select count(*) from actions a where a.game = g.id), g.finished is not null "
             "from games g order by g.id desc limit 1")
    text = vm.out("/opt/table/venv/bin/python -c \"import sqlite3; db = sqlite3.connect("
                  "'file:/var/lib/table/journal.db?mode=ro', uri=True); "
                  f"print(*(db.execute('{query}').fetchone() or ('none',)))\"")
    words = text.split()
    if words[0] == "none":
        raise BootCheckFailed("the journal in /var/lib/table holds no game")
    return int(words[0]), words[1], int(words[2]), words[3] == "1"


def resumed_line(vm: KioskVM, invocation: str) -> str:
    """The run's log line saying which game it resumed (empty when none)."""
    return vm.out(f"journalctl -b --no-pager -o cat _SYSTEMD_INVOCATION_ID={invocation} "
                  "| grep -m1 'resumed game' || true")


def root_check(vm: KioskVM) -> str:
    """What the initramfs's check of the root said at this boot (its fsck.log): e2fsck ran
    on RASPIROOT and left it clean, or the check is a failed step."""
    status, log = vm.sh("cat /run/initramfs/fsck.log")
    said = [line.strip() for line in log.splitlines() if line.strip().startswith(f"{ROOT_LABEL}:")]
    if status != 0 or not said or "status code" in log or "No such file" in log:
        raise BootCheckFailed(f"the initramfs did not check the root file system: {log.strip()[-300:]!r}")
    return "the initramfs checked the root: " + " / ".join(said)[-200:]


# The root partition's start and size and its disk's size (sectors), its ext4's block
# count and block size: one line, as the console's shell takes it.
ROOT_SIZES = ('part=$(readlink -f "$(findmnt -no SOURCE /)"); name=${part##*/}; '
              'disk=$(basename "$(readlink -f /sys/class/block/$name/..)"); '
              'echo $(cat /sys/class/block/$name/start /sys/class/block/$name/size /sys/class/block/$disk/size) '
              """$(dumpe2fs -h "$part" 2>/dev/null | sed -n 's/^Block count: *//p; s/^Block size: *//p')""")


def root_grown(vm: KioskVM, image_root: int, first_boot: bool) -> str:
    """The root partition reaches the last whole MiB of the (enlarged) card and its ext4
    fills it; table-grow-root.service succeeded, and grew them only at the first boot."""
    start, size, disk, blocks, block = (int(w) for w in vm.out(ROOT_SIZES).split())
    end_mib, disk_mib = (start + size) * 512 // 2**20, disk * 512 // 2**20
    fs_bytes = blocks * block
    if end_mib != disk_mib or size * 512 <= image_root:
        raise BootCheckFailed(f"the root partition ends at {end_mib} MiB of the card's {disk_mib} MiB "
                              f"({size * 512 // 2**20} MiB, the image's was {image_root // 2**20} MiB)")
    if fs_bytes < size * 512 - block:
        raise BootCheckFailed(f"the root's ext4 is {fs_bytes // 2**20} MiB in its {size * 512 // 2**20} MiB partition")
    result = vm.out("systemctl show -p Result --value table-grow-root.service").strip()
    said = vm.out("journalctl -b --no-pager -o cat -u table-grow-root.service | grep 'table-grow-root:' || true")
    if result != "success":
        raise BootCheckFailed(f"table-grow-root.service ended with {result!r}: {said.strip()[-300:]}")
    if ("grown from" in said) != first_boot:
        raise BootCheckFailed(f"table-grow-root.service {'did not grow' if first_boot else 'grew'} the root "
                              f"at the {'first' if first_boot else 'second'} boot: {said.strip()[-300:]}")
    return f"root {size * 512 // 2**20} MiB to the card's end ({disk_mib} MiB), ext4 {fs_bytes // 2**20} MiB; " \
           + " / ".join(line.removeprefix("table-grow-root: ") for line in said.strip().splitlines())[-200:]


def no_login_prompt(vm: KioskVM) -> None:
    """The first console's login prompt stays off while the table runs (it only comes
    back when someone leaves the kiosk: exit status 3)."""
    _, state = vm.sh("systemctl is-active getty@tty1.service")
    if state.strip() != "inactive":
        raise BootCheckFailed(f"getty@tty1.service is {state.strip()} beside the restarted table")


def main_pid_uid(vm: KioskVM, pid: str) -> dict[str, str]:
    text = vm.out(f"grep -E '^(Uid|NoNewPrivs|CapEff|CapBnd|Seccomp):' /proc/{pid}/status")
    return {k: v.split()[0] for k, v in (line.split(":", 1) for line in text.splitlines())}


BOOT_TEST = os.environ.get("TABLE_BOOT_TEST", "1") != "0"
"""The boot test runs wherever it can (as root on a Debian host with
``qemu-system-aarch64``, as in CI); ``TABLE_BOOT_TEST=0`` skips it (docs/kiosk.md gives
its times)."""


@pytest.mark.slow
@pytest.mark.skipif(not BOOT_TEST, reason="TABLE_BOOT_TEST=0 skips the boot test")
@pytest.mark.skipif(os.environ.get("TABLE_LONG_CHECKS") == "0", reason="TABLE_LONG_CHECKS=0 leaves the long checks out")
@pytest.mark.skipif(os.geteuid() != 0, reason="the image builder needs root (mmdebstrap, chroot)")
@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the image builder needs a Debian host")
@pytest.mark.skipif(not have_qemu(), reason="needs qemu-system-aarch64 (packaging/debian-test.txt)")
def test_the_kiosk_image_boots_into_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = Path(os.environ.get("TABLE_BOOT_IMAGE", tmp_path / "image"))
    serial_log = Path(os.environ.get("TABLE_BOOT_LOG", tmp_path / "console.log"))
    with capsys.disabled():
        print()
        steps = Steps()
        run_boot_test(steps, image, tmp_path, serial_log)


def run_boot_test(steps: Steps, image: Path, work: Path, serial_log: Path) -> None:
    pygame.init()
    with steps.step("build the SD card (scripts/image-build --keep-img)") as note:
        if not (image / f"{CARD}.img").exists() or not os.environ.get("TABLE_BOOT_IMAGE"):
            # Streamed: the builder's steps (and its heartbeat on long ones) show as they come.
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
        note(f"{(image / f'{CARD}.img').stat().st_size // 2**20} MiB card")
    with steps.step("the card's layout as a Pi 4 reads it") as note:
        for line in check_layout(image, work):
            note(line)
    with steps.step("a copy for QEMU: the test's console and drop-ins, a venue edit on the FAT partition") as note:
        boot_dir = work / "boot"
        boot_copy(image, boot_dir, work)
        note(f"kernel, initramfs and cmdline.txt from the FAT partition; {len(TEST_FILES)} files written "
             "into the root with debugfs")
    with steps.step("the lobby rendered headless (table run --headless)") as note:
        reference = lobby_reference(work / "lobby-headless.png", work)
        note(f"{reference.shape[1]}x{reference.shape[0]}")

    vm = KioskVM(boot_dir, work, serial_log)
    try:
        with steps.step("boot to the serial console") as note:
            vm.start()
            note(f"console shell after {vm.login(BOOT_TIMEOUT):.0f} s")
        with steps.step("table.service reports READY=1 as table, hardening intact") as note:
            state = wait_ready(vm, READY_TIMEOUT)
            pid = state["MainPID"]
            status = main_pid_uid(vm, pid)
            table_uid = vm.out("id -u table")
            if status["Uid"] != table_uid:
                raise BootCheckFailed(f"the table runs as uid {status['Uid']}, not as table ({table_uid})")
            if status["NoNewPrivs"] != "1" or int(status["CapEff"], 16) or int(status["CapBnd"], 16):
                raise BootCheckFailed(f"the table's process keeps privileges: {status}")
            if status["Seccomp"] != "2":
                raise BootCheckFailed("the table's process runs without its system call filter")
            shown = vm.out("systemctl show table.service " + " ".join(f"-p {k}" for k in HARDENING))
            props = dict(line.split("=", 1) for line in shown.splitlines())
            # Lists (address families) in any order.
            wrong = {k: props.get(k) for k, v in HARDENING.items()
                     if sorted(props.get(k, "").split()) != sorted(v.split())}
            if wrong:
                raise BootCheckFailed(f"the running unit's hardening differs from the shipped unit: {wrong}")
            devices = vm.out("systemctl show table.service -p DeviceAllow")
            if "char-drm rw" not in devices or "char-input r" not in devices:
                raise BootCheckFailed(f"the running unit lacks its display or input devices: {devices}")
            exposure = vm.out("systemd-analyze security table.service --no-pager | tail -n 1", timeout=300)
            score = float(re.findall(r"level for table.service: ([0-9.]+)", exposure)[0])
            if score > 2.0:
                raise BootCheckFailed(f"systemd-analyze security rates the running unit {score} (above 2.0)")
            dropins = vm.out("systemctl show table.service -p DropInPaths")
            note(f"pid {pid} uid {status['Uid']} (table), NoNewPrivs 1, no capabilities, seccomp on, "
                 f"exposure {score}, {dropins}")
        with steps.step(f"the root grown to the card, {CARD_GROWTH // 2**20} MiB larger than the image (first boot)"
                        ) as note:
            note(root_grown(vm, partitions(image / f"{CARD}.img")[1].size, first_boot=True))
        with steps.step("the venue's settings from the FAT partition are in /etc/table (first boot)") as note:
            copied = vm.out("cat /var/lib/table-card/settings-copied")
            if VENUE_EDIT not in vm.out("cat /etc/table/table.toml"):
                raise BootCheckFailed("/etc/table/table.toml is not the one edited on the FAT partition")
            result = vm.out("systemctl show -p Result --value table-card-settings.service").strip()
            if result != "success":
                raise BootCheckFailed(f"table-card-settings.service ended with {result}")
            note(f"copied at {copied.strip()} by table-card-settings.service; the venue's edit is in "
                 "/etc/table/table.toml")
        with steps.step("the first frame on the display is the lobby") as note:
            shown = time.monotonic()
            shot = wait_screen(vm, work / "lobby-qemu.ppm", FRAME_TIMEOUT, is_lobby(reference))
            mean, share = compare(shot, reference)
            if mean > MEAN_TOLERANCE or share > PIXEL_SHARE_TOLERANCE:
                raise BootCheckFailed(f"the display is not the lobby after {FRAME_TIMEOUT} s: mean difference "
                                      f"{mean:.2f} (at most {MEAN_TOLERANCE}), {share:.2%} of pixels off "
                                      f"(at most {PIXEL_SHARE_TOLERANCE:.0%}); see {work}/lobby-qemu.png")
            note(f"screendump {shot.shape[1]}x{shot.shape[0]} after {time.monotonic() - shown:.0f} s, "
                 f"mean difference {mean:.3f}, {share:.4%} of pixels off by more than 48")
        with steps.step("a game played on the stations' keys is journaled in /var/lib/table") as note:
            # Stations 1 and 2 join (buttons 1, 2), station 1's knob turns right down the
            # lobby's lines to "start", and pushes (z).
            turns = shipped_lobby_lines().index("start")
            vm.keys(["1", "2", *["a"] * turns, "z"])
            # The presses count only once the countdown is over, which under emulation on a
            # loaded machine takes anything from seconds to minutes: the stations press,
            # and press again every 20 s until the journal holds a press of this game (a
            # press during the countdown only locks its button for half a second).
            deadline = time.monotonic() + 2 * FRAME_TIMEOUT
            engine, actions, finished = "none", 0, False
            while True:
                vm.keys(["1", "2"])
                pressed = time.monotonic()
                while time.monotonic() - pressed < 20:
                    time.sleep(5)
                    try:
                        game_id, engine, actions, finished = journal_game(vm)
                    except BootCheckFailed:
                        continue
                    if engine == "ubongo_shimo" and actions >= 1:
                        break
                if (engine == "ubongo_shimo" and actions >= 1) or time.monotonic() > deadline:
                    break
            if engine != "ubongo_shimo" or actions < 1 or finished:
                raise BootCheckFailed(f"the journal's newest game is {engine} with {actions} actions"
                                      f"{' (finished)' if finished else ''}, not the Ubongo Shimo game just played")
            shot = wait_screen(vm, work / "game-qemu.ppm", FRAME_TIMEOUT, is_a_game(reference))
            if not is_a_game(reference)(shot):
                raise BootCheckFailed(f"the display does not show the game after it started (see {work}/game-qemu.png)")
            note(f"game {game_id} ({engine}), {actions} actions journaled; the display shows the game "
                 f"(mean difference from the lobby {compare(shot, reference)[0]:.1f})")
        with steps.step("SIGKILL of the table's process: systemd restarts it into the same game") as note:
            before = wait_ready(vm, 60)
            vm.out("systemctl kill -s SIGKILL --kill-whom=main table.service")
            after = wait_ready(vm, READY_TIMEOUT, after_invocation=before["InvocationID"])
            line = resumed_line(vm, after["InvocationID"])
            if f"resumed game {game_id} " not in line:
                raise BootCheckFailed(f"the restarted table did not resume game {game_id} (its log: {line!r})")
            no_login_prompt(vm)
            note(f"pid {before['MainPID']} killed, pid {after['MainPID']} ready; {line}; no login prompt on tty1")
        with steps.step("the watchdog restarts a hung loop (test-only fault switch)") as note:
            before = after
            vm.out("systemctl kill -s SIGUSR1 --kill-whom=main table.service")
            hung = time.monotonic()
            after = wait_ready(vm, READY_TIMEOUT, after_invocation=before["InvocationID"])
            took = time.monotonic() - hung
            watchdog = vm.out("journalctl -b --no-pager -o cat -u table.service | grep -m1 'Watchdog timeout' || true")
            if not watchdog:
                raise BootCheckFailed("the table came back, but not through its watchdog")
            line = resumed_line(vm, after["InvocationID"])
            if f"resumed game {game_id} " not in line:
                raise BootCheckFailed(f"after the watchdog the table did not resume game {game_id} ({line!r})")
            no_login_prompt(vm)
            note(f"{watchdog}; ready again {took:.0f} s after the hang; {line}")
        with steps.step("a power cut mid-game (QEMU killed)") as note:
            vm.keys(["1"])
            time.sleep(5)
            _, _, actions_before_cut, _ = journal_game(vm)
            vm.kill()
            note(f"{actions_before_cut} actions journaled before the cut")
        with steps.step("the second boot resumes the game") as note:
            vm = KioskVM(boot_dir, work, serial_log)
            vm.start()
            vm.login(BOOT_TIMEOUT)
            checked = root_check(vm)
            state = wait_ready(vm, READY_TIMEOUT)
            line = resumed_line(vm, state["InvocationID"])
            m = re.search(r"resumed game (\d+) \(\w+\) after (\d+) journaled actions", line)
            if not m or int(m.group(1)) != game_id or int(m.group(2)) < actions_before_cut:
                raise BootCheckFailed(f"after the power cut the table did not resume game {game_id} with its "
                                      f"{actions_before_cut} actions (its log: {line!r})")
            resumed = wait_screen(vm, work / "resumed-qemu.ppm", FRAME_TIMEOUT, is_a_game(reference))
            if not is_a_game(reference)(resumed):
                raise BootCheckFailed(f"after the power cut the display does not show the game "
                                      f"(see {work}/resumed-qemu.png)")
            grown = root_grown(vm, partitions(image / f"{CARD}.img")[1].size, first_boot=False)
            note(f"{checked}; {line}; the display shows the game; {grown}")
        with steps.step("a broken unit (DeviceAllow without the display) is named") as note:
            lines = " ".join(shlex.quote(line) for line in BROKEN_DROPIN.splitlines())
            vm.out("mkdir -p /etc/systemd/system/table.service.d && printf '%s\\n' "
                   f"{lines} >/etc/systemd/system/table.service.d/broken.conf")
            assert vm.serial is not None
            vm.serial.sendall(b"systemctl reboot\n")
            # The old shell may print its prompt once more: wait for the new boot's login.
            vm.expect("automatic login", BOOT_TIMEOUT)
            vm.login(BOOT_TIMEOUT)
            # Not a fixed time: on a loaded machine the first run takes minutes to reach the
            # display, so the check waits for that run to end (or for READY=1, which fails it).
            message = str(wait_failed_start(vm, READY_TIMEOUT))
            if not message.startswith("table.service did not start"):
                raise BootCheckFailed(f"the broken unit's failure does not name it: {message}")
            if "the display cannot be opened" not in message:
                raise BootCheckFailed(f"the broken unit's failure does not say the display is missing: {message}")
            steps.say(f"  the READY check says: {message}")
            note("the READY check failed naming table.service and the display it could not open")
    finally:
        vm.kill()
