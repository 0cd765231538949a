"""The stations' private displays: SSD1306 OLEDs (128 x 64) on the Pi's I2C bus,
each behind its own channel of a TCA9548A multiplexer (every such OLED answers at
0x3C or 0x3D, so four of them need the multiplexer to be told apart).

Adafruit's CircuitPython drivers run on Blinka (``adafruit-circuitpython-ssd1306``,
which draws into ``adafruit-circuitpython-framebuf``, and
``adafruit-circuitpython-tca9548a``); they are imported only in :meth:`OledDisplays.start`,
so the table imports everywhere. The tests hand the real driver classes a fake bus
(``i2c=``), an object with ``try_lock``, ``unlock``, ``scan``, ``writeto`` and
``readfrom_into`` like ``busio.I2C``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from table.common.errors import TableError
from table.hardware.config import StationDisplay
from table.hardware.interfaces import MonoPicture, StationDisplays

log = logging.getLogger(__name__)


def framebuffer_bytes(picture: MonoPicture) -> bytearray:
    """``picture`` in the SSD1306's memory order (eight-row pages, one byte per column
    and page, least significant bit on top), the layout of the driver's buffer."""
    w, h = picture.width, picture.height
    out = bytearray(w * (h // 8))
    px = picture.pixels
    for y in range(h):
        bit, page = 1 << (y % 8), (y // 8) * w
        row = px[y * w:(y + 1) * w]
        for x in range(w):
            if row[x]:
                out[page + x] |= bit
    return out


class OledDisplays(StationDisplays):
    """SSD1306 displays by station, as ``hardware.toml`` wires them (``display = {...}``
    in a ``[[station]]``). ``i2c``: the bus to use instead of the Pi's (tests).

    A whole picture is 1,025 bytes on the bus: about 90 ms at I2C's standard 100 kHz,
    25 ms at 400 kHz. So :meth:`show` only hands the picture over and a thread of its own
    writes it (``background=False``: at once, in the caller); a station whose display
    is still being written gets only its newest picture afterwards. :meth:`flush` waits
    until everything handed over is on the bus.
    """

    def __init__(self, displays: Mapping[int, StationDisplay], i2c: Any = None, *,
                 background: bool = True) -> None:
        self.wiring = dict(displays)
        self.stations = tuple(sorted(displays))
        self._i2c = i2c
        self._drivers: dict[int, Any] = {}
        self.failures = 0
        self.background = background
        self._pending: dict[int, MonoPicture] = {}
        self._busy = False
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False

    def start(self) -> None:
        try:
            import adafruit_ssd1306
            import adafruit_tca9548a
        except ImportError as exc:
            raise TableError(f"the station displays need Adafruit's SSD1306 and TCA9548A drivers ({exc.name} "
                             "is missing): install the table with its pi extra") from None
        i2c = self._i2c
        if i2c is None:
            try:
                import board

                i2c = board.I2C()
            except (ImportError, NotImplementedError, RuntimeError, ValueError, OSError) as exc:
                raise TableError(f"the station displays need the Pi's I2C bus, which is not available here "
                                 f"({exc}); switch it on with raspi-config (do_i2c 0)") from None
            self._i2c = i2c
        muxes: dict[int, Any] = {}
        for station, d in sorted(self.wiring.items()):
            where = f"S{station + 1}'s display (0x{d.address:02X}"
            try:
                bus = i2c
                if d.mux_channel is not None:
                    where += f" on multiplexer channel {d.mux_channel}"
                    if d.mux_address not in muxes:
                        muxes[d.mux_address] = adafruit_tca9548a.TCA9548A(i2c, address=d.mux_address)
                    bus = muxes[d.mux_address][d.mux_channel]
                self._drivers[station] = adafruit_ssd1306.SSD1306_I2C(d.width, d.height, bus, addr=d.address)
            except (OSError, ValueError) as exc:
                self.close()
                raise TableError(f"{where}) does not answer on the I2C bus ({exc}): check its four wires "
                                 "and `table wiring`") from None
        if self.background:
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name="station-displays", daemon=True)
            self._thread.start()

    def show(self, station: int, picture: MonoPicture) -> None:
        if station not in self._drivers:
            return
        if self._thread is None:
            self._write(station, picture)
            return
        with self._wake:
            self._pending[station] = picture
            self._wake.notify_all()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every picture handed over is written; False if that took longer."""
        with self._wake:
            return self._wake.wait_for(lambda: not self._pending and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: bool(self._pending) or self._stopping)
                if self._stopping:
                    return
                station, picture = next(iter(self._pending.items()))
                del self._pending[station]
                self._busy = True
            try:
                self._write(station, picture)
            except Exception:  # a driver bug must not end the thread: later pictures still go out
                self.failures += 1
                log.exception("S%d's display: the picture could not be written", station + 1)
            finally:
                with self._wake:
                    self._busy = False
                    self._wake.notify_all()

    def _write(self, station: int, picture: MonoPicture) -> None:
        driver = self._drivers[station]
        try:
            driver.buffer[1:] = framebuffer_bytes(picture)  # byte 0 is the driver's data prefix
            driver.show()
        except OSError as exc:
            self.failures += 1
            log.warning("S%d's display did not take the picture: %s", station + 1, exc)

    def close(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            self.flush()
            with self._wake:
                self._stopping = True
                self._wake.notify_all()
            thread.join(timeout=5.0)
        for station, driver in list(self._drivers.items()):
            try:
                driver.fill(0)
                driver.show()
                driver.poweroff()
            except OSError as exc:
                log.warning("S%d's display could not be blanked: %s", station + 1, exc)
        self._drivers.clear()
