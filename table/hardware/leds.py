"""LED hourglass backends: WS2812 strips and matrices through Adafruit's PixelBuf family.

Which backend on which Pi (``[leds] backend`` in ``hardware.toml``):

* ``neopixel`` - ``adafruit-circuitpython-neopixel`` (rpi_ws281x underneath) on
  GPIO 10, 12, 18 or 21: Raspberry Pi 1 to 4. It does not work on a Pi 5.
* ``spi`` - ``adafruit-circuitpython-neopixel-spi`` on SPI0 MOSI (GPIO 10): any Pi,
  the usual choice on a Pi 5.
* ``pi5`` - ``neopixel`` with the Pi 5 PIO driver
  (``Adafruit-Blinka-Raspberry-Pi5-Neopixel``) on any GPIO of a Pi 5.
* ``serial`` - the I/O bridge's microcontroller drives them (``serial_bridge.py``).
* ``sim`` / ``none`` - drawn by the simulator / no LEDs.

Every backend gets device-independent frames from
:func:`table.hardware.hourglass.hourglass_frame` and applies brightness and the
current limit itself (:func:`table.hardware.hourglass.limit_frame`), so a power
supply sized for ``max_milliamps`` is never overloaded.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from table.common.errors import TableError
from table.hardware.config import LedConfig
from table.hardware.hourglass import limit_frame
from table.hardware.interfaces import RGB, Hourglass, HourglassLayout

log = logging.getLogger("table.hardware.leds")

NO_LEDS = (
    "the {backend} LED backend is not available on this machine ({why}); "
    "set leds.backend = \"sim\" (simulator) or \"none\" in hardware.toml, or see docs/hardware.md"
)


class PixelBufHourglass(Hourglass):
    """An hourglass on any ``adafruit_pixelbuf.PixelBuf`` (NeoPixel, NeoPixel_SPI, a test's fake).

    The PixelBuf must be created with ``brightness=1.0`` and ``auto_write=False``:
    this class scales the frame itself and sends it with one ``show()``.
    """

    def __init__(
        self, pixels: Any, layout: HourglassLayout, brightness: float, max_milliamps: float | None
    ) -> None:
        self.pixels = pixels
        self.layout = layout
        self.brightness = brightness
        self.max_milliamps = max_milliamps
        self._closed = False
        if len(pixels) < layout.pixels:
            raise TableError(
                f"the LED strip has {len(pixels)} pixels but the layout needs {layout.pixels}"
            )

    def show(self, frame: Sequence[RGB]) -> None:
        if self._closed:
            return
        limited = limit_frame(frame, self.brightness, self.max_milliamps)
        try:
            for i, colour in enumerate(limited):
                self.pixels[i] = colour
            self.pixels.show()
        except Exception:  # a driver hiccup must not stop the table
            log.warning("the LEDs could not be updated", exc_info=True)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.pixels.fill((0, 0, 0))
            self.pixels.show()
            deinit = getattr(self.pixels, "deinit", None)
            if deinit is not None:
                deinit()
        except Exception:
            log.debug("closing the LEDs failed", exc_info=True)


class NullHourglass(Hourglass):
    """No LEDs (``backend = "none"``): frames are dropped."""

    def __init__(self, layout: HourglassLayout) -> None:
        self.layout = layout

    def show(self, frame: Sequence[RGB]) -> None:
        return None

    def close(self) -> None:
        return None


def _board_pin(pin: int) -> Any:
    import board  # Adafruit Blinka: raises off a Pi

    return getattr(board, f"D{pin}")


def open_pixelbuf(cfg: LedConfig) -> Any:
    """The PixelBuf driver the config asks for, or one clear sentence why not."""
    count = cfg.hourglass_layout().pixels
    try:
        if cfg.backend in ("neopixel", "pi5"):
            import neopixel

            return neopixel.NeoPixel(
                _board_pin(cfg.pin), count, brightness=1.0, auto_write=False, pixel_order=cfg.pixel_order
            )
        if cfg.backend == "spi":
            import board
            import neopixel_spi

            return neopixel_spi.NeoPixel_SPI(
                board.SPI(), count, brightness=1.0, auto_write=False, pixel_order=cfg.pixel_order
            )
    except ImportError as exc:
        raise TableError(NO_LEDS.format(backend=cfg.backend, why=f"{exc.name} is not installed")) from None
    except Exception as exc:  # Blinka raises NotImplementedError/RuntimeError off a Pi
        raise TableError(NO_LEDS.format(backend=cfg.backend, why=str(exc) or type(exc).__name__)) from None
    raise TableError(f"the LED backend {cfg.backend!r} has no PixelBuf driver")


def make_hourglass(cfg: LedConfig, bridge: Any = None) -> Hourglass:
    """The hourglass output for ``cfg.backend``. ``sim`` is the lead's simulator and is
    built by it; here it (and ``none``) gives a :class:`NullHourglass`. ``serial``
    needs the running :class:`~table.hardware.serial_bridge.SerialBridge`."""
    layout = cfg.hourglass_layout()
    if cfg.backend in ("none", "sim"):
        return NullHourglass(layout)
    if cfg.backend == "serial":
        if bridge is None:
            raise TableError("leds.backend = \"serial\" needs the serial I/O bridge (see [serial])")
        from table.hardware.serial_bridge import BridgeHourglass

        return BridgeHourglass(bridge, layout, cfg.brightness, cfg.current_limit)
    return PixelBufHourglass(open_pixelbuf(cfg), layout, cfg.brightness, cfg.current_limit)
