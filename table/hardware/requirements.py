"""What each backend needs from the machine, checked before any library is touched.

The hardware libraries fail late and obscurely when something is missing (Blinka's
``board`` without ``gpiod`` on a Pi 4 or 5, ``neopixel`` without ``rpi_ws281x``, a PIO
device the service may not open), so ``table check-config`` and ``table selftest`` ask
here first and name the missing module or device in one sentence.

Two sets of checks:

* **modules** (:func:`module_problems`): the Python modules the configured pin factory
  and LED backend import on a Raspberry Pi, looked up with
  :func:`importlib.util.find_spec` (nothing is imported, so this runs on any machine);
* **the kiosk** (:func:`kiosk_problems`): what cannot work under ``table.service``, which
  runs as the unprivileged ``table`` user with ``DevicePolicy=closed`` and no
  capabilities. ``rpi_ws281x`` (the ``neopixel`` backend on a Pi 1-4) drives the LEDs
  through ``/dev/mem`` and DMA, which needs root, so it is refused there with the
  backend to use instead; devices are checked only on a Pi, where they exist.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from table.hardware.config import HardwareConfig

PI_EXTRA = "install the table with its pi extra: pip install 'game-table[pi]'"


def extra_hint(extra: str) -> str:
    """How to install the table's ``extra`` (``pi``, or ``neopixel`` / ``pi5`` beside it)."""
    if extra == "pi":
        return PI_EXTRA
    return f"install the table with its pi and {extra} extras: pip install 'game-table[pi,{extra}]'"


@dataclass(frozen=True)
class Module:
    """A Python module a backend imports on a Pi, the distribution that brings it, and
    the table's extra that installs that distribution."""

    name: str
    distribution: str
    extra: str = "pi"


BLINKA = (Module("board", "adafruit-blinka"), Module("gpiod", "gpiod"))
"""Blinka's ``board`` needs libgpiod's Python binding on a Pi 4 and a Pi 5."""

PIN_FACTORY_MODULES: dict[str, tuple[Module, ...]] = {
    "lgpio": (Module("lgpio", "lgpio"),),
    "mock": (),
}

LED_MODULES: dict[str, tuple[Module, ...]] = {
    "spi": (*BLINKA, Module("neopixel_spi", "adafruit-circuitpython-neopixel-spi")),
    # Their own extras: rpi_ws281x is published as source only (a compiler on every
    # install), the Pi 5 driver as release candidates only.
    "neopixel": (*BLINKA, Module("neopixel", "adafruit-circuitpython-neopixel", "neopixel"),
                 Module("_rpi_ws281x", "rpi_ws281x", "neopixel")),
    "pi5": (*BLINKA, Module("neopixel", "adafruit-circuitpython-neopixel", "pi5"),
            Module("adafruit_raspberry_pi5_neopixel_write", "adafruit-blinka-raspberry-pi5-neopixel", "pi5")),
    "serial": (Module("serial", "pyserial"),),
    "sim": (),
    "none": (),
}

DISPLAY_MODULES: tuple[Module, ...] = (
    *BLINKA,
    Module("adafruit_ssd1306", "adafruit-circuitpython-ssd1306"),
    Module("adafruit_framebuf", "adafruit-circuitpython-framebuf"),
    Module("adafruit_tca9548a", "adafruit-circuitpython-tca9548a"),
)
"""What the stations' private displays import (:mod:`table.hardware.oled`)."""

PI5_PIO_DEVICE = "/dev/pio0"
"""The RP1 PIO block the Pi 5 LED driver programs (the unit allows it, udev gives it to gpio)."""


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def module_problems(cfg: HardwareConfig) -> list[str]:
    """One sentence per Python module the configured backends need and this machine lacks."""
    problems: list[str] = []
    needed: list[tuple[str, Module]] = []
    if cfg.backend == "gpio":
        factory = f'input.pin_factory = "{cfg.pin_factory}"'
        needed += [(factory, m) for m in PIN_FACTORY_MODULES.get(cfg.pin_factory, ())]
    needed += [(f'leds.backend = "{cfg.leds.backend}"', m) for m in LED_MODULES.get(cfg.leds.backend, ())]
    if cfg.private_displays:
        first = min(cfg.private_displays)
        needed += [(f"S{first + 1}.display", m) for m in DISPLAY_MODULES]
    seen: set[str] = set()
    for what, module in needed:
        if module.name in seen or _installed(module.name):
            continue
        seen.add(module.name)
        problems.append(f"{cfg.source}: {what} needs the Python module {module.name} "
                        f"(from {module.distribution}), which is not installed: {extra_hint(module.extra)}")
    return problems


def kiosk_problems(cfg: HardwareConfig, *, on_pi: bool, root: Path = Path("/"), camera: str = "",
                   sound: bool = False) -> list[str]:
    """One sentence per backend that cannot work under the kiosk's unit (see the module doc).

    ``on_pi``: also check the machine (:func:`table.hardware.devices.machine_problems`: the
    devices the backends open, for the service's user and groups; the pins the firmware's
    boot config claims; the display's libraries), which means something only on a Pi.
    ``root``: the system to check (a scratch tree in tests); ``camera`` and ``sound``:
    table.toml's ``[tray] camera`` and ``[sound] enabled``.
    """
    problems: list[str] = []
    if cfg.leds.backend == "neopixel":
        problems.append(
            f'{cfg.source}: leds.backend = "neopixel" drives the LEDs through /dev/mem with rpi_ws281x, which '
            'needs root, and the kiosk runs as the unprivileged table user: use backend = "spi" '
            '(data on GPIO 10, buses.spi = true) on any Pi, or "pi5" on a Pi 5')
    if not on_pi:
        return problems
    from table.hardware.devices import machine_problems

    problems += machine_problems(cfg, root=root, camera=camera, sound=sound)
    return problems


def is_raspberry_pi() -> bool:
    """True when the device tree names a Raspberry Pi."""
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False
