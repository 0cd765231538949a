"""LED hourglass backends: WS2812 strips and matrices through Adafruit's PixelBuf family.

Which backend on which Pi (``[leds] backend`` in ``hardware.toml``):

* ``neopixel`` - ``adafruit-circuitpython-neopixel`` (rpi_ws281x underneath) on
  GPIO 10, 12, 18 or 21: Raspberry Pi 1 to 4, as root. It does not work on a Pi 5.
  Installed by the table's ``neopixel`` extra (rpi_ws281x is built with a compiler).
* ``spi`` - ``adafruit-circuitpython-neopixel-spi`` on SPI0 MOSI (GPIO 10): any Pi,
  no root. Each frame must reach the strip in one SPI transfer (see :func:`open_spi_pixels`),
  which for more than about 165 LEDs needs ``spidev.bufsiz`` raised on the kernel command line.
* ``pi5`` - ``neopixel`` with the Pi 5 PIO driver
  (``Adafruit-Blinka-Raspberry-Pi5-Neopixel``) on any GPIO of a Pi 5. Installed by
  the table's ``pi5`` extra (the driver is published as release candidates only).
* ``serial`` - the I/O bridge's microcontroller drives them (``serial_bridge.py``).
* ``sim`` / ``none`` - drawn by the simulator / no LEDs.

Every backend gets device-independent frames from
:func:`table.hardware.hourglass.hourglass_frame` and applies brightness and the
current limit itself (:func:`table.hardware.hourglass.limit_frame`), so a power
supply sized for ``max_milliamps`` is never overloaded.
"""

from __future__ import annotations

import errno
import importlib.util
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
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

    A frame the driver fails to send is dropped and the table goes on. Each distinct
    failure is logged once (with its traceback, unless ``explain`` turns it into a
    sentence), not once per frame: at 30 frames a second a repeated traceback would
    bury the journal.
    """

    def __init__(
        self, pixels: Any, layout: HourglassLayout, brightness: float, max_milliamps: float | None,
        explain: Callable[[Exception], str | None] | None = None,
    ) -> None:
        self.pixels = pixels
        self.layout = layout
        self.brightness = brightness
        self.max_milliamps = max_milliamps
        self.explain = explain
        self._closed = False
        self._reported: set[str] = set()
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
        except Exception as exc:  # a driver hiccup must not stop the table
            self._report(exc)

    def _report(self, exc: Exception) -> None:
        sentence = self.explain(exc) if self.explain is not None else None
        key = sentence or f"{type(exc).__name__}: {exc}"
        if key in self._reported:
            return
        self._reported.add(key)
        if sentence is not None:
            log.error("%s", sentence)
        else:
            log.warning("the LEDs could not be updated (logged once)", exc_info=exc)

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


SPIDEV_BUFSIZ = Path("/sys/module/spidev/parameters/bufsiz")
"""The kernel's spidev buffer: the most bytes one SPI transfer may carry (``spidev.bufsiz``)."""
KERNEL_DEFAULT_BUFSIZ = 4096
"""The kernel's default ``spidev.bufsiz`` (drivers/spi/spidev.c), assumed when the file is unreadable."""
CMDLINE = "/boot/firmware/cmdline.txt"


def spidev_bufsiz(path: Path | None = None) -> int:
    """The running kernel's ``spidev.bufsiz``, or its default when it cannot be read."""
    try:
        value = int((path or SPIDEV_BUFSIZ).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return KERNEL_DEFAULT_BUFSIZ
    return value if value > 0 else KERNEL_DEFAULT_BUFSIZ


def bufsiz_for(frame_bytes: int) -> int:
    """The ``spidev.bufsiz`` to ask for: a power of two, at least 65536, that holds the frame."""
    size = 65536
    while size < frame_bytes:
        size *= 2
    return size


def spi_frame_bytes(pixels: Any) -> int:
    """The bytes NeoPixel_SPI sends per ``show()``: its reset, 8 per colour bit, its reset."""
    return 2 * len(pixels._reset) + len(pixels._spibuf)


def open_spi_pixels(cfg: LedConfig) -> tuple[Any, Callable[[Exception], str | None]]:
    """NeoPixel_SPI on Blinka's ``board.SPI()``, sending each frame in one SPI transfer.

    A WS2812 strip latches whatever it has when its data line rests low for about 50
    microseconds, and the bus rests between two SPI transfers for as long as the program
    takes, so a frame split in two can show as a torn picture. NeoPixel_SPI sends the
    whole frame (24 bytes per LED between two 64-byte resets) in one ``write()``, but
    Blinka's Linux SPI passes it to Adafruit_PureIO, which cuts every write into 4096-byte
    ``SPI_IOC_MESSAGE`` transfers: 7,328 bytes for 300 LEDs go out as two. Here PureIO's
    chunk size is set to what the kernel takes in one transfer (``spidev.bufsiz``, read
    from sysfs), so a frame that fits goes out whole. One that does not is still sent in
    pieces the kernel accepts, and one warning names the kernel parameter that fixes it.

    Returns the driver and the ``explain`` for :class:`PixelBufHourglass`: a refused
    transfer (``EMSGSIZE``, the kernel's buffer is smaller than assumed) becomes one
    sentence naming the fix.
    """
    import board
    import neopixel_spi

    bus = board.SPI()
    pixels = neopixel_spi.NeoPixel_SPI(
        bus, cfg.hourglass_layout().pixels, brightness=1.0, auto_write=False, pixel_order=cfg.pixel_order
    )
    frame = spi_frame_bytes(pixels)
    limit = spidev_bufsiz()
    fix = f"spidev.bufsiz={bufsiz_for(frame)}"
    # busio.SPI -> Blinka's generic Linux SPI -> Adafruit_PureIO.spi.SPI, which cuts writes into chunk_size bytes.
    port = getattr(getattr(bus, "_spi", None), "_spi", None)
    if port is not None and hasattr(port, "chunk_size"):
        port.chunk_size = limit
    else:
        log.warning("the SPI driver is not the one expected (Blinka on Adafruit_PureIO): the LED frames "
                    "may be sent in pieces")
    if frame > limit:
        log.warning("the LED frame is %d bytes but the kernel takes at most %d in one SPI transfer "
                    "(spidev.bufsiz), so each frame goes out in %d pieces and the strip can show a torn "
                    "picture: add %s to the kernel command line (%s) and reboot",
                    frame, limit, -(-frame // limit), fix, CMDLINE)

    def explain(exc: Exception) -> str | None:
        if isinstance(exc, OSError) and exc.errno == errno.EMSGSIZE:
            return (f"the kernel refused an LED frame of {frame} bytes in one SPI transfer (EMSGSIZE: more "
                    f"than spidev's buffer), so the LEDs stay dark: add {fix} to the kernel command line "
                    f"({CMDLINE}) and reboot")
        return None

    return pixels, explain


def open_pixelbuf(cfg: LedConfig) -> tuple[Any, Callable[[Exception], str | None] | None]:
    """The PixelBuf driver the config asks for and its failures' ``explain`` (see
    :class:`PixelBufHourglass`), or one clear sentence why not.

    A missing Python module is named with the table's extra that brings it (``pi``, and
    ``neopixel`` or ``pi5`` for those backends), before anything is imported.
    """
    from table.hardware.requirements import LED_MODULES, extra_hint

    for module in LED_MODULES.get(cfg.backend, ()):
        if not _installed(module.name):
            why = f"{module.name} (from {module.distribution}) is not installed: {extra_hint(module.extra)}"
            raise TableError(NO_LEDS.format(backend=cfg.backend, why=why))
    count = cfg.hourglass_layout().pixels
    try:
        if cfg.backend in ("neopixel", "pi5"):
            import neopixel

            return neopixel.NeoPixel(
                _board_pin(cfg.pin), count, brightness=1.0, auto_write=False, pixel_order=cfg.pixel_order
            ), None
        if cfg.backend == "spi":
            return open_spi_pixels(cfg)
    except ImportError as exc:
        raise TableError(NO_LEDS.format(backend=cfg.backend, why=f"{exc.name} is not installed")) from None
    except Exception as exc:  # Blinka raises NotImplementedError/RuntimeError off a Pi
        raise TableError(NO_LEDS.format(backend=cfg.backend, why=str(exc) or type(exc).__name__)) from None
    raise TableError(f"the LED backend {cfg.backend!r} has no PixelBuf driver")


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


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

        return BridgeHourglass(bridge, layout, cfg.brightness, cfg.current_limit, pixel_order=cfg.pixel_order)
    pixels, explain = open_pixelbuf(cfg)
    return PixelBufHourglass(pixels, layout, cfg.brightness, cfg.current_limit, explain)
