"""A fake of the ``lgpio`` module (lg 0.2.2) over a made-up kernel, for gpiozero's real
``LGPIOFactory``.

It keeps what the real module and its C library do with the calls gpiozero makes
(read from lgpio's own source, ``lgpio.py`` and ``src/lgGpio.c``):

* **import**: the library settles its working directory (``$LG_WD``, relative to the
  current one, else the current directory), moves the process there, makes its
  notification pipe ``.lgd-nfy<handle>`` in it and opens it; a directory it cannot
  write leaves no pipe and the import fails with ``FileNotFoundError``, as the real
  one does. Handle slots are shared by the pipe and the chips, lowest free first.
* **handles**: ``gpiochip_open(n)`` returns ``slot | n << 16`` and every call masks
  the slot out again; a closed or unknown handle is ``unknown handle``.
* **lines**: a line number outside the chip fails (``bad GPIO number``, or ``GPIO
  operation not permitted`` for a claim); a line held by another request (another
  handle, another process, a kernel driver) is ``GPIO busy`` (an alert claim:
  ``bad event request``); the same handle re-claiming a line frees it first; freeing
  a line never claimed is ``GPIO not allocated``; ``gpio_read`` claims a free line as
  an input, ``gpio_write`` and ``tx_pwm`` claim it as an output.
* **errors**: negative codes, raised as ``lgpio.error(<text>)`` while
  ``exceptions`` is true (its ``str`` is the text's ``repr``, as in the real one).
* **alerts**: an edge of a line claimed for alerts (``FakeKernel.drive``) becomes a
  message ``(chip, gpio, level, tick_ns)`` waiting in the pipe; :meth:`FakeLgpio.deliver`
  hands messages, in any order the test chooses, to the callback thread, which calls
  every callback of that chip and line as the real thread does.

Arguments are checked as the SWIG wrapper checks them (an ``int`` where C takes one).
Debounce is recorded but not modelled: driving a line with a debounce set fails the
test rather than pretend.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import os
import queue
import sys
import threading
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# the module's constants (lgpio.py, lg 0.2.2)
SET_ACTIVE_LOW, SET_OPEN_DRAIN, SET_OPEN_SOURCE = 4, 8, 16
SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = 32, 64, 128
RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3
OKAY = 0
BAD_PATHNAME = -3
BAD_HANDLE = -5
NOT_PERMITTED = -7
BAD_EVENT_REQUEST = -72
BAD_GPIO_NUMBER = -73
CANNOT_OPEN_CHIP = -78
GPIO_BUSY = -79
GPIO_NOT_ALLOCATED = -80
UNEGPECTED_ERROR = -85
BAD_GPIOCHIP = -89
BAD_DEBOUNCE_MICS = -98
BAD_PWM_FREQ = -102
BAD_PWM_DUTY = -103

ERROR_TEXT = {
    BAD_PATHNAME: "can't open pathname",
    BAD_HANDLE: "unknown handle",
    NOT_PERMITTED: "GPIO operation not permitted",
    BAD_EVENT_REQUEST: "bad event request",
    BAD_GPIO_NUMBER: "bad GPIO number",
    CANNOT_OPEN_CHIP: "can not open gpiochip",
    GPIO_BUSY: "GPIO busy",
    GPIO_NOT_ALLOCATED: "GPIO not allocated",
    UNEGPECTED_ERROR: "unexpected error",
    BAD_GPIOCHIP: "bad gpiochip",
    BAD_DEBOUNCE_MICS: "bad debounce microseconds",
    BAD_PWM_FREQ: "bad PWM frequency",
    BAD_PWM_DUTY: "bad PWM dutycycle",
}

# the line mode lgpio keeps per line (LG_CHIP_BIT_*), shown in gpio_get_mode's bits 8-11
LG_INPUT, LG_OUTPUT, LG_ALERT = 1, 2, 4
# the kernel's side of gpio_get_mode (xMakeStatus)
K_USED, K_OUTPUT, K_INPUT, K_RISING, K_FALLING = 1, 2, 1 << 16, 1 << 17, 1 << 18
LINE_FLAG_BITS = SET_ACTIVE_LOW | SET_OPEN_DRAIN | SET_OPEN_SOURCE | SET_PULL_UP | SET_PULL_DOWN | SET_PULL_NONE
MAX_DEBOUNCE_MICROS = 5_000_000
TX_BUF = 10


class error(Exception):
    """The real ``lgpio.error``: ``value`` is the text, ``str`` its repr."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __str__(self) -> str:
        return repr(self.value)


@dataclass
class Line:
    """One line of a chip: who holds it and how, and its electrical level."""

    owner: int | None = None  # the handle slot whose request holds it
    consumer: str = ""  # a kernel driver or another process holding it
    mode: int = 0  # LG_INPUT / LG_OUTPUT / LG_ALERT while this library holds it
    flags: int = 0  # the line flags of the request
    edges: int = 0  # the alert's event flags
    output: int = 0
    driven: int | None = None  # what the outside world drives; None: the pull decides
    debounce_us: int = 0

    @property
    def level(self) -> int:
        if self.mode & LG_OUTPUT:
            return self.output
        if self.driven is not None:
            return self.driven
        return 1 if self.flags & SET_PULL_UP else 0


@dataclass
class FakeChip:
    """A gpiochip as the kernel shows it: ``/dev/gpiochip<number>``, its label, its lines."""

    number: int
    label: str
    lines: int
    busy: dict[int, str] = field(default_factory=dict)  # line -> consumer (kernel drivers)
    openable: bool = True  # False: the node exists but this user may not open it
    line: list[Line] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.line = [Line(consumer=self.busy.get(i, "")) for i in range(self.lines)]

    @property
    def name(self) -> str:
        return f"gpiochip{self.number}"


@dataclass(frozen=True)
class Alert:
    """One message of the notification pipe."""

    tick_ns: int
    chip: int
    gpio: int
    level: int


class FakeKernel:
    """The chips, and the edges waiting in the notification pipe.

    ``read_only`` directories (and everything under them) refuse new files, like a
    read-only mount - the process runs as root here, so permissions would not.
    """

    def __init__(self, chips: Iterable[FakeChip], read_only: Iterable[Path] = ()) -> None:
        self.chips = {c.number: c for c in chips}
        self.read_only = [Path(p).resolve() for p in read_only]
        self.pending: list[Alert] = []
        self.lock = threading.Lock()

    def make_nodes(self, root: Path) -> None:
        """Create ``root/dev/gpiochip<n>`` for every chip."""
        (root / "dev").mkdir(parents=True, exist_ok=True)
        for number in self.chips:
            (root / "dev" / f"gpiochip{number}").touch()

    def writable(self, directory: Path) -> bool:
        d = directory.resolve()
        return d.is_dir() and not any(d == ro or ro in d.parents for ro in self.read_only)

    def drive(self, chip: int, gpio: int, level: int | None, tick_ns: int) -> None:
        """The outside world drives the line to ``level`` (None: lets go) at ``tick_ns``;
        a line claimed for alerts on that edge queues a message."""
        with self.lock:
            line = self.chips[chip].line[gpio]
            assert line.debounce_us == 0, "the fake does not model lgpio's debounce"
            before = line.level
            line.driven = level
            after = line.level
            edge = RISING_EDGE if after else FALLING_EDGE
            if line.mode & LG_ALERT and after != before and line.edges & edge:
                self.pending.append(Alert(tick_ns, chip, gpio, after))


class _Callback:
    """What ``lgpio.callback`` returns."""

    def __init__(self, owner: FakeLgpio, chip: int, gpio: int, edge: int,
                 func: Callable[[int, int, int, int], None] | None) -> None:
        self.count = 0
        self.chip, self.gpio, self.edge = chip, gpio, edge
        self.func = self._tally if func is None else func
        self._owner = owner
        owner._callbacks.append(self)

    def cancel(self) -> None:
        if self in self._owner._callbacks:
            self._owner._callbacks.remove(self)

    def _tally(self, chip: int, gpio: int, level: int, tick: int) -> None:
        self.count += 1

    def tally(self) -> int:
        return self.count

    def reset_tally(self) -> None:
        self.count = 0


def _want_int(function: str, position: int, value: Any) -> int:
    if not isinstance(value, int):  # SWIG accepts int and its subclass bool, nothing else
        raise TypeError(f"in method '{function}', argument {position} of type 'int'")
    return int(value)


class FakeLgpio(types.ModuleType):
    """The ``lgpio`` module; made by :class:`LgpioFinder` on ``import lgpio``."""

    SET_ACTIVE_LOW, SET_OPEN_DRAIN, SET_OPEN_SOURCE = SET_ACTIVE_LOW, SET_OPEN_DRAIN, SET_OPEN_SOURCE
    SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE
    RISING_EDGE, FALLING_EDGE, BOTH_EDGES = RISING_EDGE, FALLING_EDGE, BOTH_EDGES
    OFF = LOW = CLEAR = 0
    ON = HIGH = SET = 1
    TX_PWM, TX_WAVE = 0, 1
    OKAY, BAD_HANDLE, GPIO_BUSY, GPIO_NOT_ALLOCATED = OKAY, BAD_HANDLE, GPIO_BUSY, GPIO_NOT_ALLOCATED
    error = error

    def __init__(self, kernel: FakeKernel) -> None:
        super().__init__("lgpio")
        self.exceptions = True
        self.kernel = kernel
        self._slots: dict[int, int | None] = {}  # slot -> chip number (None: the pipe)
        self._callbacks: list[_Callback] = []
        self._queue: queue.Queue[Alert | None] = queue.Queue()
        self._thread_error: BaseException | None = None
        self.env_at_import: str | None = None
        self.cwd_at_import = ""
        self.workdir = Path()
        self.pipe = Path()

    # --- import -----------------------------------------------------------------------

    def _import(self) -> None:
        """What ``import lgpio`` does: settle the working directory, open the pipe, start
        the callback thread."""
        self.env_at_import = os.environ.get("LG_WD")
        self.cwd_at_import = os.getcwd()
        wd = Path(self.cwd_at_import) / self.env_at_import if self.env_at_import else Path(self.cwd_at_import)
        self.workdir = wd
        with contextlib.suppress(OSError):  # the C library only logs this
            os.chdir(wd)  # it moves the process into its directory
        slot = self._alloc(None)
        self.pipe = wd / f".lgd-nfy{slot}"
        if self.kernel.writable(wd):
            os.mkfifo(self.pipe, 0o664)
        else:
            del self._slots[slot]
            slot = BAD_PATHNAME  # not checked by lgpio.py, which then opens ".lgd-nfy-3"
            raise FileNotFoundError(2, "No such file or directory", f".lgd-nfy{slot}")
        self._notify = slot
        self._thread = threading.Thread(target=self._run, name="lgpio-callbacks", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            msg = self._queue.get()
            try:
                if msg is None:
                    return
                for cb in list(self._callbacks):
                    if cb.chip == msg.chip and cb.gpio == msg.gpio:
                        cb.func(msg.chip, msg.gpio, msg.level, msg.tick_ns)
            except BaseException as exc:  # the real thread would die; the test must hear
                self._thread_error = exc
            finally:
                self._queue.task_done()

    def deliver(self, order: Callable[[list[Alert]], Sequence[Alert]] = list) -> list[Alert]:
        """Hand the waiting messages to the callback thread in ``order(messages)`` and
        wait until its callbacks have run; returns them as delivered."""
        with self.kernel.lock:
            waiting, self.kernel.pending = self.kernel.pending, []
        sent = list(order(waiting))
        assert sorted(sent, key=id) == sorted(waiting, key=id), "deliver each message once"
        for msg in sent:
            self._queue.put(msg)
        self._queue.join()
        if self._thread_error is not None:
            raise self._thread_error
        return sent

    def shutdown(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=5)
        self.pipe.unlink(missing_ok=True)

    # --- plumbing ---------------------------------------------------------------------

    def _alloc(self, chip: int | None) -> int:
        slot = next(i for i in range(1024) if i not in self._slots)
        self._slots[slot] = chip
        return slot

    def _status(self, value: int) -> int:
        if value < 0 and self.exceptions:
            raise error(self.error_text(value))
        return value

    def _chip(self, handle: int) -> tuple[int, FakeChip] | int:
        slot = handle & 0xFFFF
        number = self._slots.get(slot)
        if number is None:
            return BAD_HANDLE
        return slot, self.kernel.chips[number]

    def _line_op(self, name: str, handle: Any, gpio: Any,
                 op: Callable[[int, FakeChip, Line, int], int]) -> int:
        handle = _want_int(name, 1, handle)
        gpio = _want_int(name, 2, gpio)
        found = self._chip(handle)
        if isinstance(found, int):
            return self._status(found)
        slot, chip = found
        if not 0 <= gpio < chip.lines:
            return self._status(BAD_GPIO_NUMBER)
        with self.kernel.lock:
            return self._status(op(slot, chip, chip.line[gpio], gpio))

    @staticmethod
    def _held_elsewhere(slot: int, line: Line) -> bool:
        return bool(line.consumer) or (line.owner is not None and line.owner != slot)

    @staticmethod
    def _release(line: Line) -> None:
        line.owner, line.mode, line.flags, line.edges = None, 0, 0, 0

    def _request(self, slot: int, line: Line, mode: int, flags: int, busy: int) -> int:
        """The kernel's line request: refused while anyone else holds the line; the
        same handle's earlier claim is freed first (lgpio's auto free of a singleton)."""
        if self._held_elsewhere(slot, line):
            return busy
        pulls = flags & (SET_PULL_UP | SET_PULL_DOWN | SET_PULL_NONE)
        drives = flags & (SET_OPEN_DRAIN | SET_OPEN_SOURCE)
        if pulls & (pulls - 1) or drives & (drives - 1):  # the kernel refuses two at once
            return UNEGPECTED_ERROR
        line.owner, line.mode, line.flags = slot, mode, flags & LINE_FLAG_BITS
        return OKAY

    def _claim_number(self, chip: FakeChip, gpio: int) -> int | None:
        # xClaim's own check is "(unsigned)gpio > lines"; the kernel refuses gpio == lines
        if gpio < 0 or gpio > chip.lines:
            return NOT_PERMITTED
        if gpio == chip.lines:
            return UNEGPECTED_ERROR
        return None

    # --- the API gpiozero uses ----------------------------------------------------------

    def error_text(self, errnum: int) -> str:
        return ERROR_TEXT.get(errnum, "unknown error")

    def gpiochip_open(self, gpiochip: Any) -> int:
        gpiochip = _want_int("_gpiochip_open", 1, gpiochip)
        if gpiochip < 0:
            return self._status(BAD_GPIOCHIP)
        chip = self.kernel.chips.get(gpiochip)
        if chip is None or not chip.openable:
            return self._status(CANNOT_OPEN_CHIP)
        return self._alloc(gpiochip) | (gpiochip << 16)

    def gpiochip_close(self, handle: Any) -> int:
        handle = _want_int("_gpiochip_close", 1, handle)
        found = self._chip(handle)
        if isinstance(found, int):
            return self._status(found)
        slot, chip = found
        with self.kernel.lock:
            for line in chip.line:
                if line.owner == slot:
                    self._release(line)
        del self._slots[slot]
        return OKAY

    def gpio_get_chip_info(self, handle: Any) -> list[Any]:
        handle = _want_int("_gpio_get_chip_info", 1, handle)
        found = self._chip(handle)
        if isinstance(found, int):
            return [self._status(found), 0, "", ""]
        return [OKAY, found[1].lines, found[1].name, found[1].label]

    def gpio_get_mode(self, handle: Any, gpio: Any) -> int:
        def mode(slot: int, chip: FakeChip, line: Line, n: int) -> int:
            held = line.owner is not None or bool(line.consumer)
            bits = (K_USED if held else 0) | (line.flags & LINE_FLAG_BITS)
            bits |= K_OUTPUT if line.mode & LG_OUTPUT else K_INPUT
            if line.mode & LG_ALERT:
                bits |= (K_RISING if line.edges & RISING_EDGE else 0) | (K_FALLING if line.edges & FALLING_EDGE else 0)
            return bits | ((line.mode if line.owner == slot else 0) << 8)
        return self._line_op("_gpio_get_mode", handle, gpio, mode)

    def gpio_claim_input(self, handle: Any, gpio: Any, lFlags: Any = 0) -> int:
        flags = _want_int("_gpio_claim_input", 2, lFlags)

        def claim(slot: int, chip: FakeChip, line: Line, n: int) -> int:
            if line.owner == slot and line.mode & LG_INPUT:
                return OKAY  # already an input: lgpio does nothing
            if line.owner == slot:
                self._release(line)
            return self._request(slot, line, LG_INPUT, flags, GPIO_BUSY)
        return self._claim("_gpio_claim_input", handle, gpio, claim)

    def gpio_claim_output(self, handle: Any, gpio: Any, level: Any = 0, lFlags: Any = 0) -> int:
        flags = _want_int("_gpio_claim_output", 2, lFlags)
        value = _want_int("_gpio_claim_output", 4, level)

        def claim(slot: int, chip: FakeChip, line: Line, n: int) -> int:
            if line.owner == slot and line.mode & LG_OUTPUT:
                return OKAY
            if line.owner == slot:
                self._release(line)
            status = self._request(slot, line, LG_OUTPUT, flags, GPIO_BUSY)
            if status == OKAY:
                line.output = 1 if value else 0
            return status
        return self._claim("_gpio_claim_output", handle, gpio, claim)

    def _claim(self, name: str, handle: Any, gpio: Any, claim: Callable[[int, FakeChip, Line, int], int]) -> int:
        handle = _want_int(name, 1, handle)
        gpio = _want_int(name, 3, gpio)
        found = self._chip(handle)
        if isinstance(found, int):
            return self._status(found)
        slot, chip = found
        refused = self._claim_number(chip, gpio)
        if refused is not None:
            return self._status(refused)
        with self.kernel.lock:
            return self._status(claim(slot, chip, chip.line[gpio], gpio))

    def gpio_claim_alert(self, handle: Any, gpio: Any, eFlags: Any, lFlags: Any = 0,
                         notify_handle: Any = None) -> int:
        edges = _want_int("_gpio_claim_alert", 3, eFlags)
        flags = _want_int("_gpio_claim_alert", 2, lFlags)
        notify = self._notify if notify_handle is None else _want_int("_gpio_claim_alert", 5, notify_handle)
        assert notify == self._notify, "alerts go to the module's own pipe here"

        def claim(slot: int, chip: FakeChip, line: Line, n: int) -> int:
            if line.owner == slot:
                self._release(line)
            status = self._request(slot, line, LG_ALERT, flags, BAD_EVENT_REQUEST)
            if status == OKAY:
                line.edges = edges
            return status
        return self._line_op("_gpio_claim_alert", handle, gpio, claim)

    def gpio_free(self, handle: Any, gpio: Any) -> int:
        def free(slot: int, chip: FakeChip, line: Line, n: int) -> int:
            if line.owner != slot:
                return GPIO_NOT_ALLOCATED
            self._release(line)
            return OKAY
        return self._line_op("_gpio_free", handle, gpio, free)

    def gpio_read(self, handle: Any, gpio: Any) -> int:
        def read(slot: int, chip: FakeChip, line: Line, n: int) -> int:
            if line.owner != slot and self._request(slot, line, LG_INPUT, 0, GPIO_BUSY) != OKAY:
                return GPIO_NOT_ALLOCATED
            level = line.level
            return level ^ 1 if line.flags & SET_ACTIVE_LOW and not line.mode & LG_OUTPUT else level
        return self._line_op("_gpio_read", handle, gpio, read)

    def gpio_write(self, handle: Any, gpio: Any, level: Any) -> int:
        value = _want_int("_gpio_write", 3, level)

        def write(slot: int, chip: FakeChip, line: Line, n: int) -> int:
            if not (line.owner == slot and line.mode & LG_OUTPUT):
                if line.owner == slot:
                    self._release(line)
                status = self._request(slot, line, LG_OUTPUT, 0, GPIO_BUSY)
                if status != OKAY:
                    return status
            line.output = 1 if value else 0
            return OKAY
        return self._line_op("_gpio_write", handle, gpio, write)

    def gpio_set_debounce_micros(self, handle: Any, gpio: Any, debounce_micros: Any) -> int:
        micros = _want_int("_gpio_set_debounce_micros", 3, debounce_micros)
        if not 0 <= micros <= MAX_DEBOUNCE_MICROS:
            return self._status(BAD_DEBOUNCE_MICS)

        def setting(slot: int, chip: FakeChip, line: Line, n: int) -> int:
            line.debounce_us = micros
            return OKAY
        return self._line_op("_gpio_set_debounce_micros", handle, gpio, setting)

    def tx_pwm(self, handle: Any, gpio: Any, pwm_frequency: float, pwm_duty_cycle: float,
               pulse_offset: Any = 0, pulse_cycles: Any = 0) -> int:
        if pwm_frequency != 0 and not 0.1 <= pwm_frequency <= 1e4:
            return self._status(BAD_PWM_FREQ)
        if not 0 <= pwm_duty_cycle <= 100:
            return self._status(BAD_PWM_DUTY)

        def pwm(slot: int, chip: FakeChip, line: Line, n: int) -> int:
            if not (line.owner == slot and line.mode & LG_OUTPUT):
                if line.owner == slot:
                    self._release(line)
                status = self._request(slot, line, LG_OUTPUT, 0, GPIO_BUSY)
                if status != OKAY:
                    return status
            return TX_BUF - 1 if pwm_frequency else OKAY
        return self._line_op("_tx_pwm", handle, gpio, pwm)

    def callback(self, handle: Any, gpio: Any, edge: Any = RISING_EDGE,
                 func: Callable[[int, int, int, int], None] | None = None) -> _Callback:
        handle = _want_int("callback", 1, handle)
        return _Callback(self, handle >> 16, gpio, edge, func)


class LgpioFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers ``import lgpio`` with a :class:`FakeLgpio` over ``kernel``; ``modules``
    lists every one made (a failed import makes one too, as the real module runs)."""

    def __init__(self, kernel: FakeKernel) -> None:
        self.kernel = kernel
        self.modules: list[FakeLgpio] = []

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "lgpio":
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = FakeLgpio(self.kernel)
        self.modules.append(module)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        assert isinstance(module, FakeLgpio)
        module._import()

    def install(self) -> None:
        """Put the finder first and forget any ``lgpio`` (and gpiozero's module that
        imported it) so the next import goes through the fake."""
        sys.meta_path.insert(0, self)
        self._forget()

    def uninstall(self) -> None:
        for module in self.modules:
            if hasattr(module, "_thread"):
                module.shutdown()
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        self._forget()

    @staticmethod
    def _forget() -> None:
        sys.modules.pop("lgpio", None)
        sys.modules.pop("gpiozero.pins.lgpio", None)
        pins = sys.modules.get("gpiozero.pins")
        if pins is not None and hasattr(pins, "lgpio"):
            delattr(pins, "lgpio")
