"""Stations on the Raspberry Pi's own pins, through gpiozero.

* Buttons and knob switches: ``gpiozero.InputDevice`` with the pull-up on, and the
  pin's ``when_changed(ticks, state)`` - the kernel's edge timestamp - feeding the
  pure :class:`~table.hardware.buttons.StationCore` (gpiozero's ``Button`` is not
  used because its callbacks carry no timestamp and its debounce reports late).
* Encoders: ``gpiozero.RotaryEncoder`` with ``max_steps=0`` (unbounded); its step
  count is read on every ``when_rotated`` and the difference is reported.
* Absolute switches: four ``InputDevice`` lines decoded by
  :class:`~table.hardware.knobs.AbsoluteDecoder`.
* Potentiometers: ``gpiozero.MCP3008`` read ``pot_poll_hz`` times a second,
  quantised by :class:`~table.hardware.knobs.SectorQuantiser`.
* Button LEDs: ``gpiozero.LED`` (on, off, blink).

The pin factory (lgpio, on every Pi) is built here and passed to every device - never
set globally. Tests pass a ``MockFactory``. RPi.GPIO (and its drop-in rpi-lgpio) is not
offered: gpiozero stamps its edges when the callback runs, which misorders presses.

The lgpio factory works on Raspberry Pi OS's kernel and on Debian's alike: its chip is
the one the kernel labels as the Pi's pin controller (:func:`find_pin_controller`), and
the board revision gpiozero wants comes from the device tree's model when the kernel
gives none (:func:`board_revision`). lgpio is imported only through
:func:`import_lgpio`, which first gives it a writable directory for its pipe.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from table.common.errors import TableError
from table.hardware.buttons import StationCore, Timing, pump_until_stopped
from table.hardware.config import HardwareConfig
from table.hardware.interfaces import InputSink, LedState, StationInput, Stations
from table.hardware.knobs import AbsoluteDecoder, SectorQuantiser, TickMapper

log = logging.getLogger("table.hardware.gpio")

NO_GPIO = (
    "GPIO is not available on this machine ({why}); on a laptop or PC run the simulator "
    "with 'table sim' (or set input.backend = \"sim\" in hardware.toml), or use the serial I/O bridge"
)


LG_WD = "LG_WD"
"""The environment variable lgpio's C library takes its working directory from (see
:func:`lgpio_workdir`)."""

PI_PIN_CONTROLLERS = ("pinctrl-bcm2711", "pinctrl-bcm2835", "pinctrl-rp1")
"""The labels the kernel gives the gpiochip behind the Pi's 40-pin header: Pi 4 (and 400,
CM4), Pi 1-3 and Zero, and the Pi 5's RP1. Raspberry Pi OS and Debian's kernels agree."""

# Revision codes gpiozero's board info knows, for a kernel that gives none (Debian's:
# no Revision line in /proc/cpuinfo, no /system node in the device tree). New-style
# codes (bit 23) carry the model type in bits 4-11, the SoC in bits 12-15 and the board
# revision in bits 0-3; memory and maker are not known here and read as 1 GB and Sony,
# which nothing of the table uses. The first pattern that matches the device tree's
# model wins, so the longer names come first.
_MODEL_TYPES: tuple[tuple[str, int, int], ...] = (
    (r"Raspberry Pi 500\b", 0x19, 4),
    (r"Raspberry Pi Compute Module 5 Lite", 0x1A, 4),
    (r"Raspberry Pi Compute Module 5", 0x18, 4),
    (r"Raspberry Pi 5\b", 0x17, 4),
    (r"Raspberry Pi 400\b", 0x13, 3),
    (r"Raspberry Pi Compute Module 4S", 0x15, 3),
    (r"Raspberry Pi Compute Module 4", 0x14, 3),
    (r"Raspberry Pi 4\b", 0x11, 3),
    (r"Raspberry Pi 3 Model B Plus", 0x0D, 2),
    (r"Raspberry Pi 3 Model A Plus", 0x0E, 2),
    (r"Raspberry Pi Compute Module 3 Plus", 0x10, 2),
    (r"Raspberry Pi Compute Module 3", 0x0A, 2),
    (r"Raspberry Pi 3\b", 0x08, 2),
    (r"Raspberry Pi Zero 2", 0x12, 2),
    (r"Raspberry Pi Zero W", 0x0C, 0),
    (r"Raspberry Pi Zero\b", 0x09, 0),
    (r"Raspberry Pi 2\b", 0x04, 1),
    (r"Raspberry Pi Model B Plus", 0x03, 0),
    (r"Raspberry Pi Model A Plus", 0x02, 0),
)
# With no model either, the pin controller tells the family; every one of these has the
# 40-pin header with the same GPIO numbers, which is all the table's pin names need.
_LABEL_TYPES = {"pinctrl-rp1": (0x17, 4), "pinctrl-bcm2711": (0x11, 3), "pinctrl-bcm2835": (0x08, 2)}


def _revision_code(model_type: int, soc: int, board_revision: int = 0) -> int:
    return 0x800000 | (2 << 20) | (soc << 12) | (model_type << 4) | (board_revision & 0xF)


def kernel_revision(root: Path = Path("/")) -> int | None:
    """The board revision code the kernel gives (as gpiozero reads it), or None."""
    try:
        raw = (root / "proc/device-tree/system/linux,revision").read_bytes()
        if len(raw) == 4:
            return int.from_bytes(raw, "big")
    except OSError:
        pass
    try:
        cpuinfo = (root / "proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return None
    found = re.search(r"^Revision\s*:\s*([0-9a-fA-F]+)\s*$", cpuinfo, re.MULTILINE)
    if found is None:
        return None
    code = found.group(1).lower()
    return int(code[-4:] if code.startswith("100") else code, 16)  # "100..": over-volted old-style


def board_revision(label: str, root: Path = Path("/")) -> int:
    """A revision code for gpiozero's board info: the kernel's, else one made from the
    device tree's model ("Raspberry Pi 4 Model B Rev 1.4"), else from the pin
    controller's ``label``."""
    code = kernel_revision(root)
    if code is not None:
        return code
    try:
        model = (root / "proc/device-tree/model").read_text(errors="replace").strip("\0 \n")
    except OSError:
        model = ""
    for pattern, model_type, soc in _MODEL_TYPES:
        if re.match(pattern, model):
            rev = re.search(r"\bRev 1\.(\d+)", model)
            return _revision_code(model_type, soc, int(rev.group(1)) if rev else 0)
    model_type, soc = _LABEL_TYPES[label]
    return _revision_code(model_type, soc)


def lgpio_workdir(environ: MutableMapping[str, str] | None = None) -> str:
    """Give lgpio a writable working directory before it is first imported; returns it.

    lgpio's C library makes its notification pipe (``.lgd-nfy<handle>``) at import, in
    ``$LG_WD`` or else the current directory, and changes the process's directory to
    that one. From a read-only directory the import fails. An ``LG_WD`` already set is
    kept; otherwise the service's runtime or state directory (systemd's
    ``$RUNTIME_DIRECTORY``, ``$STATE_DIRECTORY``: the first of a list), else a private
    temporary directory removed at exit.
    """
    env = os.environ if environ is None else environ
    if env.get(LG_WD):
        return env[LG_WD]
    for var in ("RUNTIME_DIRECTORY", "STATE_DIRECTORY"):
        first = env.get(var, "").split(":")[0]
        if first and os.path.isabs(first) and os.path.isdir(first):
            env[LG_WD] = first
            return first
    private = tempfile.mkdtemp(prefix="table-lgpio-")
    atexit.register(shutil.rmtree, private, True)
    env[LG_WD] = private
    return private


def import_lgpio() -> Any:
    """``import lgpio`` with :func:`lgpio_workdir` set first and the current directory
    given back afterwards (the C library moves the process into its directory; the
    pipe it opened keeps working, its later paths are absolute)."""
    if "lgpio" not in sys.modules and importlib.util.find_spec("lgpio") is not None:
        lgpio_workdir()  # not on a machine without lgpio: the import below says so
    cwd = os.getcwd()
    try:
        import lgpio
    finally:
        if os.getcwd() != cwd:
            os.chdir(cwd)
    return lgpio


def find_pin_controller(lgpio: Any, root: Path = Path("/")) -> tuple[int, str]:
    """The number and label of the gpiochip behind the Pi's header, asked of lgpio over
    ``/dev/gpiochip*``, or one sentence naming the chips and labels seen."""
    numbers = sorted(int(p.name[8:]) for p in (root / "dev").glob("gpiochip*") if p.name[8:].isdigit())
    seen: list[str] = []
    for number in numbers:
        try:
            handle = lgpio.gpiochip_open(number)
        except lgpio.error as exc:
            seen.append(f"gpiochip{number} (not opened: {getattr(exc, 'value', exc)})")
            continue
        try:
            _, lines, _, label = lgpio.gpio_get_chip_info(handle)
        finally:
            lgpio.gpiochip_close(handle)
        if label in PI_PIN_CONTROLLERS:
            return number, str(label)
        seen.append(f"gpiochip{number} {label!r} ({lines} lines)")
    found = ", ".join(seen) if seen else "no /dev/gpiochip* at all"
    raise TableError(NO_GPIO.format(
        why=f"no Raspberry Pi pin controller ({', '.join(PI_PIN_CONTROLLERS)}) among the GPIO chips: {found}"))


def make_lgpio_factory(root: Path = Path("/")) -> Any:
    """gpiozero's ``LGPIOFactory`` on the Pi's pin controller, found by its label, with a
    board revision even where the kernel gives none (see :func:`board_revision`).

    gpiozero needs the revision twice: to choose the chip (which is passed here instead)
    and for the board info that turns pin names into GPIO numbers; the subclass answers
    the second from :func:`board_revision`.
    """
    lgpio = import_lgpio()
    from gpiozero.pins.lgpio import LGPIOFactory

    chip, label = find_pin_controller(lgpio, root)
    revision = board_revision(label, root)

    class TableLGPIOFactory(LGPIOFactory):  # type: ignore[misc]  # gpiozero is untyped
        def _get_revision(self) -> int:
            return revision

    return TableLGPIOFactory(chip=chip)


def make_pin_factory(name: str, *, root: Path = Path("/")) -> Any:
    """The gpiozero pin factory called ``name`` in the config, or one clear sentence.

    ``root`` is where ``/dev`` and ``/proc`` are looked for (tests give a made-up one).
    """
    try:
        if name == "lgpio":
            return make_lgpio_factory(root)
        if name == "mock":
            from gpiozero.pins.mock import MockFactory

            return MockFactory()
    except TableError:
        raise
    except ImportError as exc:
        raise TableError(NO_GPIO.format(why=f"the {name} library is not installed: {exc.name}")) from None
    except Exception as exc:  # lgpio raises its own error (a chip it may not open, no pipe)
        raise TableError(NO_GPIO.format(why=str(exc) or type(exc).__name__)) from None
    raise TableError(f"unknown pin factory {name!r}; use lgpio")


def _spi_needs_global_factory(factory: Any) -> None:
    """gpiozero's SPI bus classes ask for ``Device.pin_factory`` even when a factory
    is passed in; give them ours if none is set (the only global we touch)."""
    from gpiozero import Device

    if Device.pin_factory is None:
        Device.pin_factory = factory


class GpioStations(Stations):
    """The :class:`Stations` backend on GPIO pins (see the module doc).

    ``clock`` is the table clock; ``run_thread=False`` leaves the periodic work to
    :meth:`pump`, which tests call with virtual time.
    """

    def __init__(
        self,
        cfg: HardwareConfig,
        timing: Timing | None = None,
        *,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
        run_thread: bool = True,
    ) -> None:
        self.cfg = cfg
        self.timing = timing or cfg.timing()
        self.clock = clock
        self.core = StationCore(len(cfg.stations), self.timing)
        self._factory = pin_factory
        self._run_thread = run_thread
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._sink: InputSink | None = None
        self._devices: list[Any] = []
        self._callbacks: list[Callable[..., None]] = []
        self._leds: dict[int, Any] = {}
        self._inputs: dict[tuple[int, str], Any] = {}
        self._led_states: dict[int, LedState] = {}
        self._encoders: dict[int, tuple[Any, list[int]]] = {}
        self._absolute: dict[int, tuple[list[Any], AbsoluteDecoder]] = {}
        self._pots: dict[int, tuple[Any, SectorQuantiser]] = {}
        self._ticks = TickMapper()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._next_pot_read = 0.0
        self.edges = 0
        self._last_edge = float("-inf")

    # --- Stations ---------------------------------------------------------------------

    def start(self, sink: InputSink) -> None:
        from gpiozero import LED, MCP3008, InputDevice, RotaryEncoder

        if self._factory is None:
            self._factory = make_pin_factory(self.cfg.pin_factory)
        f = self._factory
        self._sink = sink
        self._stopping = False
        try:
            for i, st in enumerate(self.cfg.stations):
                button = InputDevice(st.button, pull_up=True, pin_factory=f)
                self._devices.append(button)
                self._inputs[(i, "button")] = button
                self._watch(button, self._button_cb(i))
                if st.button_led is not None:
                    led = LED(st.button_led, pin_factory=f)
                    self._devices.append(led)
                    self._leds[i] = led
                if st.knob_switch is not None:
                    switch = InputDevice(st.knob_switch, pull_up=True, pin_factory=f)
                    self._devices.append(switch)
                    self._inputs[(i, "switch")] = switch
                    self._watch(switch, self._switch_cb(i))
                if st.knob == "encoder" and st.encoder_a is not None and st.encoder_b is not None:
                    enc = RotaryEncoder(st.encoder_a, st.encoder_b, max_steps=0, pin_factory=f)
                    self._devices.append(enc)
                    self._encoders[i] = (enc, [0])
                    rotated = self._rotated_cb(i)
                    self._callbacks.append(rotated)
                    enc.when_rotated = rotated
                elif st.knob == "absolute":
                    lines = [InputDevice(p, pull_up=True, pin_factory=f) for p in st.data]
                    self._devices.extend(lines)
                    decoder = AbsoluteDecoder(st.code, self.timing.absolute_stable)
                    self._absolute[i] = (lines, decoder)
                    for line in lines:
                        self._watch(line, self._absolute_cb(i))
                    decoder.update([bool(d.value) for d in lines], self.clock())
                elif st.knob == "potentiometer" and st.adc_channel is not None:
                    _spi_needs_global_factory(f)
                    adc = MCP3008(st.adc_channel, device=self.cfg.mcp3008_chip_select, pin_factory=f)
                    self._devices.append(adc)
                    self._pots[i] = (adc, SectorQuantiser(16, self.cfg.pot_hysteresis))
            now = self.clock()
            with self._lock:
                for i in range(len(self.cfg.stations)):
                    self.core.initial_levels(i, self._is_down(i, "button"), self._is_down(i, "switch"), now)
        except TableError:
            self.stop()
            raise
        except Exception as exc:  # gpiozero: pin in use, no such pin, SPI unavailable...
            self.stop()
            raise TableError(f"the station pins could not be opened: {exc}") from None
        if self._run_thread:
            self._thread = threading.Thread(target=self._run, name="gpio-stations", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            self._sink = None
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        for led in self._leds.values():
            with contextlib.suppress(Exception):  # already closed
                led.off()
        for dev in reversed(self._devices):
            try:
                dev.close()
            except Exception:
                log.debug("closing %r failed", dev, exc_info=True)
        self._devices.clear()
        self._callbacks.clear()
        self._inputs.clear()
        self._leds.clear()
        self._encoders.clear()
        self._absolute.clear()
        self._pots.clear()

    def set_leds(self, states: Mapping[int, LedState]) -> None:
        on_time = 0.5 / max(self.cfg.blink_hz, 0.1)
        for station, state in states.items():
            if self._led_states.get(station) == state:
                continue
            # Replaced, never mutated (diagnostics read it from other threads); kept also
            # for a button without LED, so the diagnostics show what the loop asked.
            self._led_states = {**self._led_states, station: state}
            led = self._leds.get(station)
            if led is None:
                continue
            if state == "on":
                led.on()
            elif state == "blink":
                led.blink(on_time=on_time, off_time=on_time)
            else:
                led.off()

    def arm(self, stations: Collection[int] | None, at: float | None = None) -> None:
        with self._lock:
            self.core.arm(stations, at)

    def pushes_held(self) -> dict[int, float]:
        with self._lock:
            return self.core.pushes_held()

    def diagnostics(self) -> dict[str, Any]:
        with self._lock:
            out = self.core.diagnostics(self.clock())
        out["backend"] = "gpio"
        out["pin_factory"] = type(self._factory).__name__ if self._factory is not None else None
        out["edges"] = self.edges
        out["leds"] = {str(k): v for k, v in self._led_states.items()}
        return out

    # --- callbacks (gpiozero's threads) -------------------------------------------------

    def _is_down(self, station: int, which: str) -> bool:
        device = self._inputs.get((station, which))
        return device is not None and bool(device.value)  # pull-up: value 1 while held

    def _watch(self, device: Any, callback: Callable[[Any, Any], None]) -> None:
        pin = device.pin
        pin.edges = "both"
        pin.when_changed = callback
        self._callbacks.append(callback)  # gpiozero keeps only a weak reference

    def _edge_time(self, ticks: Any) -> float:
        now = self.clock()
        # quiet for longer than edges of one race can arrive apart: safe to re-estimate
        quiet = self.core.quiet and now - self._last_edge > self.timing.hold + self.core.lateness_margin(now)
        self._last_edge = now
        try:
            return self._ticks.to_table(float(ticks), now, adjust=quiet)
        except (TypeError, ValueError):
            return now

    def _button_cb(self, station: int) -> Callable[[Any, Any], None]:
        def changed(ticks: Any, state: Any) -> None:
            with self._lock:
                self.edges += 1
                # Pull-up wiring: the line reads low (0) while the button is held.
                t = self._edge_time(ticks)
                self.core.button_edge(station, not state, t, self._last_edge)
                self._wake.notify()
        return changed

    def _switch_cb(self, station: int) -> Callable[[Any, Any], None]:
        def changed(ticks: Any, state: Any) -> None:
            with self._lock:
                self.edges += 1
                t = self._edge_time(ticks)
                self.core.knob_switch_edge(station, not state, t, self._last_edge)
                self._wake.notify()
        return changed

    def _rotated_cb(self, station: int) -> Callable[[], None]:
        def rotated() -> None:
            with self._lock:
                enc, last = self._encoders[station]
                steps = enc.steps
                delta, last[0] = steps - last[0], steps
                self.core.turn_delta(station, delta, self.clock())
                self._wake.notify()
        return rotated

    def _absolute_cb(self, station: int) -> Callable[[Any, Any], None]:
        def changed(ticks: Any, state: Any) -> None:
            with self._lock:
                self.edges += 1
                lines, decoder = self._absolute[station]
                decoder.update([bool(d.value) for d in lines], self._edge_time(ticks))
                self._wake.notify()
        return changed

    # --- periodic work ------------------------------------------------------------------

    def pump(self, now: float | None = None) -> float | None:
        """Do everything that is due at ``now``: deliver final inputs, settle absolute
        knobs, read potentiometers. Returns when to call again (table time)."""
        with self._lock:
            now = self.clock() if now is None else now
            for i, (_, decoder) in self._absolute.items():
                got = decoder.poll(now)
                if got is not None:
                    self.core.turn_sector(i, got[0], decoder.sectors, got[1])
            wake: list[float] = []
            if self._pots and now >= self._next_pot_read:
                for i, (adc, quant) in self._pots.items():
                    before = quant.current
                    sector = quant.update(float(adc.value))
                    if sector != before:
                        self.core.turn_sector(i, sector, quant.sectors, now)
                self._next_pot_read = now + 1.0 / self.cfg.pot_poll_hz
            if self._pots:
                wake.append(self._next_pot_read)
            out = self.core.poll(now)
            sink = self._sink
            nxt = self.core.next_wakeup()
            if nxt is not None:
                wake.append(nxt)
            for _, decoder in self._absolute.values():
                w = decoder.wakeup()
                if w is not None:
                    wake.append(w)
        if sink is not None:
            for item in out:
                self._deliver(sink, item)
        return min(wake) if wake else None

    def _deliver(self, sink: InputSink, item: StationInput) -> None:
        try:
            sink(item)
        except Exception:  # the loop's problem, but it must not kill the input thread
            log.exception("the input sink failed on %r", item)

    def _run(self) -> None:
        pump_until_stopped(self.pump, self._wake, lambda: self._stopping, self.clock)
