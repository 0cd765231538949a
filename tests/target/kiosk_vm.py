"""The kiosk image booted under ``qemu-system-aarch64``, seen only from outside.

:class:`KioskVM` starts QEMU on a copy of the SD card made by ``scripts/image-build``
(with the boot test's additions, :mod:`target.card`), the kernel, initramfs and command
line taken from the card's FAT partition as a Pi's firmware takes them, and talks to it
through two sockets: the serial console (the test's copy logs root in on ``ttyAMA0``;
:meth:`KioskVM.sh` runs one shell command there and returns its output and status) and
QMP, QEMU's monitor (:meth:`KioskVM.screendump`, :meth:`KioskVM.keys`). Nothing runs
inside the guest that a venue's card would not have, apart from that console shell and
the fault switch's drop-in.

:func:`wait_ready` is the boot test's first check: the table service reached
``READY=1`` (systemd calls a ``Type=notify`` unit active only then). When it does not,
it raises :class:`BootCheckFailed` with one sentence naming the unit that did not start
and the last line its program logged in a run that ended; :func:`wait_failed_start`
waits for a unit's start to fail and gives the same sentence.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

QEMU = "qemu-system-aarch64"
SCREEN = (1920, 1080)
PROMPT = "root@table:~# "
# How far the booted lobby may be from the headless one (docs/kiosk.md says why): the
# same code and fonts draw both, so only the display path may differ (scaling, dithering).
MEAN_TOLERANCE = 2.0
PIXEL_SHARE_TOLERANCE = 0.01


class BootCheckFailed(AssertionError):
    """A boot check did not hold; the message is one sentence saying what."""


class KioskVM:
    """One QEMU run of the image in ``image_dir`` (disk.img, vmlinuz, initrd.img and the
    card's cmdline.txt: what the Pi's firmware reads from the card's FAT partition).

    ``log`` is the file the serial console is copied to (the guest's whole boot).
    """

    def __init__(self, image_dir: Path, work: Path, log: Path) -> None:
        self.image_dir = image_dir
        self.work = work
        self.log_path = log
        self.serial_path = work / "serial.sock"
        self.qmp_path = work / "qmp.sock"
        self.proc: subprocess.Popen[bytes] | None = None
        self.buffer = b""
        self.lock = threading.Condition()
        self.serial: socket.socket | None = None
        self.qmp: socket.socket | None = None
        self.qmp_file: Any = None
        self.counter = 0

    # -- QEMU --------------------------------------------------------------------------
    console_tty = "ttyAMA0"
    """The guest's serial console (the machine's first UART)."""

    def kernel_command_line(self) -> str:
        """The card's own command line (its cmdline.txt, copied beside the disk) with the
        console on QEMU's serial port; quiet, so that it carries the test's shell, not
        the kernel's chatter."""
        card = self.image_dir / "cmdline.txt"
        line = card.read_text().split() if card.exists() else ["root=/dev/vda", "rw"]
        line = [w for w in line if not w.startswith(("console=", "quiet", "loglevel="))]
        return " ".join([*line, f"console={self.console_tty}", "quiet", "systemd.show_status=false"])

    def qemu_command(self) -> list[str]:
        """QEMU's command line: the machine, the card's kernel and disk, the console and
        the monitor on the sockets :meth:`start` connects to."""
        return [QEMU, "-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "2048",
                "-kernel", str(self.image_dir / "vmlinuz"), "-initrd", str(self.image_dir / "initrd.img"),
                "-append", self.kernel_command_line(),
                "-drive", f"file={self.image_dir / 'disk.img'},if=virtio,format=raw",
                "-device", f"virtio-gpu-pci,xres={SCREEN[0]},yres={SCREEN[1]}",
                "-device", "virtio-keyboard-pci",
                "-nic", "none", "-display", "none", "-nodefaults",
                "-chardev", f"socket,id=console,path={self.serial_path},server=on,wait=off",
                "-serial", "chardev:console",
                "-qmp", f"unix:{self.qmp_path},server=on,wait=off"]

    def start(self) -> None:
        for path in (self.serial_path, self.qmp_path):
            path.unlink(missing_ok=True)
        cmd = self.qemu_command()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        while not (self.serial_path.exists() and self.qmp_path.exists()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                out = self.proc.stdout.read().decode(errors="replace") if self.proc.stdout else ""
                raise BootCheckFailed(f"QEMU did not start: {out.strip()[-300:]}")
            time.sleep(0.1)
        self.serial = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.serial.connect(str(self.serial_path))
        self.buffer = b""
        threading.Thread(target=self._read_serial, args=(self.serial,), daemon=True).start()
        self.qmp = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.qmp.connect(str(self.qmp_path))
        self.qmp_file = self.qmp.makefile("rwb")
        self._qmp_reply()  # the greeting
        self.qmp_command("qmp_capabilities")

    def _read_serial(self, sock: socket.socket) -> None:
        with open(self.log_path, "ab") as log:
            while True:
                try:
                    data = sock.recv(65536)
                except OSError:
                    data = b""
                with self.lock:
                    if not data:
                        self.lock.notify_all()
                        return
                    log.write(data)
                    log.flush()
                    self.buffer += data
                    self.lock.notify_all()

    def kill(self) -> None:
        """Pull the plug: QEMU is killed, the guest gets no chance to write anything."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self._close()

    def _close(self) -> None:
        for s in (self.serial, self.qmp):
            if s is not None:
                with contextlib.suppress(OSError):
                    s.close()
        self.serial = self.qmp = None

    def wait_exit(self, timeout: float) -> None:
        assert self.proc is not None
        try:
            self.proc.wait(timeout)
        finally:
            self.kill()

    # -- QMP ---------------------------------------------------------------------------
    def _qmp_reply(self) -> dict[str, Any]:
        while True:
            line = self.qmp_file.readline()
            if not line:
                raise BootCheckFailed("QEMU's monitor closed its socket")
            msg = json.loads(line)
            if "event" not in msg:
                return dict(msg)

    def qmp_command(self, name: str, **arguments: Any) -> Any:
        self.qmp_file.write(json.dumps({"execute": name, "arguments": arguments}).encode() + b"\n")
        self.qmp_file.flush()
        reply = self._qmp_reply()
        if "error" in reply:
            raise BootCheckFailed(f"QEMU's monitor refused {name}: {reply['error'].get('desc')}")
        return reply.get("return")

    def screendump(self, path: Path) -> np.ndarray:
        """The display as QEMU shows it, saved as PPM at ``path``; returned as RGB pixels."""
        path.unlink(missing_ok=True)
        self.qmp_command("screendump", filename=str(path))
        return read_ppm(path)

    def keys(self, keys: list[str], hold_ms: int = 80, gap_s: float = 0.6) -> None:
        """Press ``keys`` on the virtio keyboard one at a time (each a QEMU qcode: "1", "a")."""
        for key in keys:
            self.qmp_command("send-key", keys=[{"type": "qcode", "data": key}], **{"hold-time": hold_ms})
            time.sleep(gap_s)

    # -- the serial console ------------------------------------------------------------
    def expect(self, pattern: str, timeout: float) -> re.Match[bytes]:
        """Wait for ``pattern`` (a regular expression) on the console; consume up to it."""
        rx = re.compile(pattern.encode())
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                m = rx.search(self.buffer)
                if m:
                    self.buffer = self.buffer[m.end():]
                    return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(pattern)
                if self.proc is not None and self.proc.poll() is not None:
                    raise BootCheckFailed(f"QEMU exited (status {self.proc.returncode}) while waiting for {pattern!r}")
                self.lock.wait(min(left, 1.0))

    def login(self, timeout: float) -> float:
        """Wait for the console's root shell; returns the seconds it took."""
        start = time.monotonic()
        try:
            self.expect(re.escape(PROMPT), timeout)
        except TimeoutError:
            raise BootCheckFailed(f"the guest's console gave no shell within {timeout:.0f} s "
                                  f"({self.machine_state()}); its last lines: {self.console_tail()!r} "
                                  f"(the boot log is {self.log_path})") from None
        assert self.serial is not None
        # No echo, no colours, no line editing: output is only what the commands print.
        self.serial.sendall(b"stty -echo -onlcr cols 500; export TERM=dumb PAGER=cat SYSTEMD_PAGER=cat "
                            b"SYSTEMD_COLORS=0; bind 'set enable-bracketed-paste off' 2>/dev/null\n")
        time.sleep(1.0)
        self.sh("true", timeout=60)
        return time.monotonic() - start

    def machine_state(self) -> str:
        """QEMU's run state (``running``; ``io-error`` when a write to the disk failed
        on the host and QEMU paused the guest) and the space left beside the disk."""
        try:
            status = self.qmp_command("query-status").get("status", "?")
        except (BootCheckFailed, OSError, ValueError, AttributeError) as exc:
            status = f"unknown: {exc}"
        free = shutil.disk_usage(self.image_dir).free / 2**30
        return f"QEMU's state: {status}; {free:.1f} GiB free beside the disk image"

    def console_tail(self, lines: int = 8) -> str:
        """The console's last non-empty lines not yet consumed, joined by " / " (CI's log
        keeps the failure's sentence, not the boot log's file)."""
        with self.lock:
            text = self.buffer.decode(errors="replace")
        kept = [line.strip() for line in re.split(r"[\r\n]+", text) if line.strip()]
        return " / ".join(kept[-lines:])[-1200:]

    def sh(self, command: str, timeout: float = 120) -> tuple[int, str]:
        """Run ``command`` in the console's shell; its exit status and output (stderr too)."""
        assert self.serial is not None
        self.counter += 1
        n = self.counter
        # The markers are split in the typed line, so only the printed ones match.
        line = f"echo '@@B''{n}@@'; ( {command} ) 2>&1; echo \"@@E''{n}:$?@@\"\n"
        line = line.replace("@@E''", "@@E\"\"")
        self.serial.sendall(line.encode())
        try:
            # A program may reset the terminal (echo, CR LF) behind the shell's back.
            self.expect(f"@@B{n}@@\r?\n", timeout)
            m = self.expect(f"(?s)(.*?)@@E{n}:(\\d+)@@", timeout)
        except TimeoutError:
            raise BootCheckFailed(f"the guest's shell did not finish {command!r} within {timeout:.0f} s") from None
        return int(m.group(2)), m.group(1).decode(errors="replace").replace("\r", "")

    def out(self, command: str, timeout: float = 120) -> str:
        """``command``'s output; a failing command is a failed check."""
        status, text = self.sh(command, timeout)
        if status != 0:
            raise BootCheckFailed(f"{command!r} failed in the guest with status {status}: {text.strip()[-300:]}")
        return text.strip()


def read_ppm(path: Path) -> np.ndarray:
    """A binary PPM (P6, 8 bits) as an array of rows of RGB pixels."""
    data = path.read_bytes()
    fields: list[bytes] = []
    pos = 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    pos += 1
    if fields[0] != b"P6" or fields[3] != b"255":
        raise BootCheckFailed(f"{path} is not an 8-bit binary PPM")
    width, height = int(fields[1]), int(fields[2])
    return np.frombuffer(data[pos:pos + width * height * 3], dtype=np.uint8).reshape(height, width, 3)


def service_state(vm: KioskVM, unit: str) -> dict[str, str]:
    text = vm.out(f"systemctl show {unit} -p ActiveState -p SubState -p Result -p MainPID -p NRestarts "
                  "-p ExecMainStatus -p InvocationID")
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def wait_ready(vm: KioskVM, timeout: float, unit: str = "table.service",
               after_invocation: str | None = None) -> dict[str, str]:
    """Wait until ``unit`` is active (for ``Type=notify``: it sent ``READY=1``).

    ``after_invocation``: an invocation that does not count (the one before a restart).
    Raises :class:`BootCheckFailed` naming the unit, its state and why its program
    stopped (:func:`not_ready`).
    """
    deadline = time.monotonic() + timeout
    state: dict[str, str] = {}
    while time.monotonic() < deadline:
        state = service_state(vm, unit)
        if state.get("ActiveState") == "active" and state.get("InvocationID") != after_invocation:
            return state
        time.sleep(3)
    raise not_ready(vm, unit, state, f"within {timeout:.0f} s")


def wait_failed_start(vm: KioskVM, timeout: float, unit: str = "table.service") -> BootCheckFailed:
    """Wait for ``unit`` to fail to start (its first run ended without ``READY=1``) and
    return the READY check's failure (:func:`not_ready`). It waits for that event, not
    for a time: on a loaded machine the first run may take minutes to get as far as its
    error. Raises :class:`BootCheckFailed` when the unit becomes active instead, or
    neither happens within ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        state = service_state(vm, unit)
        if state.get("ActiveState") == "active":
            raise BootCheckFailed(f"{unit} reported READY=1 (it was expected to fail)")
        if state.get("ActiveState") == "failed" or int(state.get("NRestarts") or 0) >= 1:
            return not_ready(vm, unit, state, "before its first run ended")
        if time.monotonic() > deadline:
            raise BootCheckFailed(f"{unit} neither started nor failed within {timeout:.0f} s: "
                                  f"{state.get('ActiveState')}/{state.get('SubState')}")
        time.sleep(3)


def not_ready(vm: KioskVM, unit: str, state: dict[str, str], when: str) -> BootCheckFailed:
    """The READY check's failure: one sentence naming ``unit``, its state, its restarts,
    the failed units and the last line its program logged in a run that ended (after a
    failed start systemd starts it again, and the new run's first lines say nothing of
    why the last one stopped)."""
    ident = vm.sh(f"systemctl show {unit} -p SyslogIdentifier --value")[1].strip() or unit.split(".")[0]
    # The run going on now (while systemd waits to restart, the invocation is the ended one).
    running = state.get("ActiveState") in ("activating", "active") and state.get("SubState") != "auto-restart"
    current = state.get("InvocationID", "") if running else ""
    _, text = vm.sh(f"journalctl -b --no-pager -t {ident} -o json --output-fields=MESSAGE,_SYSTEMD_INVOCATION_ID "
                    "-n 200")
    last_ended = last_any = ""
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("MESSAGE")
        if isinstance(message, str) and message.strip():
            last_any = message
            if entry.get("_SYSTEMD_INVOCATION_ID") != current:
                last_ended = message
    last = last_ended or last_any
    if not last:
        _, last = vm.sh(f"journalctl -u {unit} -b --no-pager -o cat -n 40 | grep -v '^ *$' | tail -n 1")
    failed = vm.sh("systemctl list-units --failed --plain --no-legend | cut -d' ' -f1 | tr '\\n' ' '")[1].strip()
    return BootCheckFailed(
        f"{unit} did not start (it never reported READY=1 {when}: "
        f"{state.get('ActiveState')}/{state.get('SubState')}, result {state.get('Result')}, "
        f"{state.get('NRestarts')} restarts; failed units: {failed or 'none'}); "
        f"its last log line: {last.strip()[-240:]!r}")


def compare(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean absolute difference per channel (0-255) and the share of pixels off by more than 48."""
    if a.shape != b.shape:
        raise BootCheckFailed(f"the pictures differ in size: {a.shape[1]}x{a.shape[0]} and {b.shape[1]}x{b.shape[0]}")
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16))
    return float(diff.mean()), float((diff.max(axis=2) > 48).mean())


def have_qemu() -> bool:
    return shutil.which(QEMU) is not None
