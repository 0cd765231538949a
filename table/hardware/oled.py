"""The stations' private displays: SSD1306 OLEDs (128 x 64) on the Pi's I2C bus,
each behind its own channel of a TCA9548A multiplexer (every such OLED answers at
0x3C or 0x3D, so four of them need the multiplexer to be told apart).

Adafruit's CircuitPython drivers run on Blinka (``adafruit-circuitpython-ssd1306``,
which draws into ``adafruit-circuitpython-framebuf``, and
``adafruit-circuitpython-tca9548a``); they are imported only in :meth:`OledDisplays.start`,
so the table imports everywhere. The tests hand the real driver classes a fake bus
(``i2c=``), an object with ``try_lock``, ``unlock``, ``scan``, ``writeto`` and
``readfrom_into`` like ``busio.I2C``.

A station's display fails alone. The multiplexer driver's channel locks the whole bus
and then selects its channel; if that select raises, the driver never unlocks the bus
and every later transaction spins for ever. The channels here (:func:`_safe_channel`)
release the bus whatever the select or deselect does. A display that stops answering
is logged once, retried with a growing pause (at most :data:`RETRY_MAX` seconds apart,
re-initialised each time, as it may have lost power), logged once more when it is
back, and given the newest picture. :meth:`OledDisplays.close` takes at most
:data:`CLOSE_BUDGET` seconds, whatever the bus does.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from table.common.errors import TableError
from table.hardware.config import StationDisplay
from table.hardware.interfaces import MonoPicture, StationDisplays

log = logging.getLogger(__name__)

RETRY_FIRST = 0.25
"""Seconds before the first retry of a display that failed."""
RETRY_MAX = 1.0
"""The longest pause between retries: a display is back within this of its bus."""
CLOSE_BUDGET = 0.5
"""Seconds :meth:`OledDisplays.close` may take (SIGTERM must end the daemon in a second)."""


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


@dataclass
class _Health:
    """One display's state: answering, or failing since a time with the next retry due."""

    ok: bool = True
    reason: str = ""
    retry_at: float = 0.0
    pause: float = RETRY_FIRST
    newest: MonoPicture | None = field(default=None, repr=False)


def _safe_channel(tca9548a: Any, mux: Any, channel: int) -> Any:
    """Channel ``channel`` of the multiplexer driver ``mux``, as the driver's own channel
    class but with a lock that is always released: the select is written after the bus
    is locked, and if it raises the bus is unlocked before the error goes on; the
    deselect on unlock always ends in the bus's unlock."""

    class SafeChannel(tca9548a.TCA9548A_Channel):  # type: ignore[misc]
        def try_lock(self) -> bool:
            bus = self.tca.i2c
            if not bus.try_lock():
                return False
            try:
                bus.writeto(self.tca.address, self.channel_switch)
            except BaseException:
                bus.unlock()
                raise
            return True

        def unlock(self) -> None:
            bus = self.tca.i2c
            try:
                bus.writeto(self.tca.address, b"\x00")
            finally:
                bus.unlock()

    return SafeChannel(mux, channel)


class OledDisplays(StationDisplays):
    """SSD1306 displays by station, as ``hardware.toml`` wires them (``display = {...}``
    in a ``[[station]]``). ``i2c``: the bus to use instead of the Pi's (tests).

    A whole picture is 1,025 bytes on the bus: about 90 ms at I2C's standard 100 kHz,
    25 ms at 400 kHz. So :meth:`show` only hands the picture over and a thread of its own
    writes it (``background=False``: at once, in the caller, and :meth:`pump` does the
    retries); a station whose display is still being written gets only its newest
    picture afterwards. :meth:`flush` waits until everything handed over is on the bus
    or set aside for a failing display's retry. ``clock``: the time retries are
    planned in (tests pass virtual time with ``background=False``).
    """

    def __init__(self, displays: Mapping[int, StationDisplay], i2c: Any = None, *,
                 background: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.wiring = dict(displays)
        self.stations = tuple(sorted(displays))
        self._i2c = i2c
        self._drivers: dict[int, Any] = {}
        self._health: dict[int, _Health] = {}
        self.failures = 0
        self.background = background
        self.clock = clock
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
                    bus = _safe_channel(adafruit_tca9548a, muxes[d.mux_address], d.mux_channel)
                self._drivers[station] = adafruit_ssd1306.SSD1306_I2C(d.width, d.height, bus, addr=d.address)
                self._health[station] = _Health()
            except (OSError, ValueError) as exc:
                self.close()
                raise TableError(f"{where}) does not answer on the I2C bus ({exc}): check its four wires "
                                 "and `table wiring`") from None
        if self.background:
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name="station-displays", daemon=True)
            self._thread.start()

    def show(self, station: int, picture: MonoPicture) -> None:
        health = self._health.get(station)
        if health is None:
            return
        if self._thread is None:
            health.newest = picture
            if health.ok or self.clock() >= health.retry_at:
                self._write(station, picture)
            return
        with self._wake:
            if health.ok:
                self._pending[station] = picture
            else:
                health.newest = picture  # goes out at the next retry
            self._wake.notify_all()

    def failing(self) -> dict[int, str]:
        """The stations whose display is not answering, with why."""
        return {s: h.reason for s, h in self._health.items() if not h.ok}

    def pump(self, now: float | None = None) -> float | None:
        """Retry every failing display that is due at ``now`` (``background=False``; the
        thread does this by itself). Returns when the next retry is due, if any."""
        now = self.clock() if now is None else now
        for station, health in list(self._health.items()):
            if not health.ok and now >= health.retry_at and health.newest is not None:
                self._write(station, health.newest)
        return self._next_retry()

    def _next_retry(self) -> float | None:
        due = [h.retry_at for h in self._health.values() if not h.ok and h.newest is not None]
        return min(due) if due else None

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every picture handed over is written (or set aside for a failing
        display's retry); False if that took longer than ``timeout`` seconds."""
        with self._wake:
            return self._wake.wait_for(lambda: not self._pending and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._wake:
                while True:
                    if self._stopping:
                        return
                    if self._pending:
                        station, picture = next(iter(self._pending.items()))
                        del self._pending[station]
                        break
                    retry = self._next_retry()
                    now = self.clock()
                    if retry is not None and now >= retry:
                        station = min(self._health, key=lambda s: (self._health[s].ok, self._health[s].retry_at))
                        newest = self._health[station].newest
                        assert newest is not None
                        picture = newest
                        break
                    self._wake.wait(None if retry is None else retry - now)
                self._busy = True
            try:
                self._write(station, picture)
            finally:
                with self._wake:
                    self._busy = False
                    self._wake.notify_all()

    def _write(self, station: int, picture: MonoPicture) -> None:
        """Put ``picture`` on ``station``'s display; a failure changes its health (logged
        once per change), never raises."""
        driver, health = self._drivers[station], self._health[station]
        health.newest = picture
        try:
            if not health.ok:
                driver.init_display()  # it may have lost power while it was away
            driver.buffer[1:] = framebuffer_bytes(picture)  # byte 0 is the driver's data prefix
            driver.show()
        except Exception as exc:  # any driver or bus error: this display fails alone
            self.failures += 1
            reason = str(exc) or type(exc).__name__
            now = self.clock()
            if health.ok:
                log.warning("S%d's display stopped taking pictures (%s); retrying it until it answers",
                            station + 1, reason)
                log.debug("S%d's display failed", station + 1, exc_info=True)
                health.ok, health.pause = False, RETRY_FIRST
            else:
                health.pause = min(health.pause * 2, RETRY_MAX)
            health.reason, health.retry_at = reason, now + health.pause
            return
        if not health.ok:
            log.info("S%d's display answers again", station + 1)
            health.ok, health.reason, health.pause = True, "", RETRY_FIRST

    def close(self) -> None:
        """Blank the displays that answer and release the bus, in at most
        :data:`CLOSE_BUDGET` seconds: with a bus that hangs, the work is left to a
        daemon thread and the displays keep their last picture."""
        thread, self._thread = self._thread, None
        if thread is None:
            self._blank()
            return
        began = time.monotonic()
        self.flush(CLOSE_BUDGET / 2)
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        thread.join(timeout=max(0.0, CLOSE_BUDGET / 2 - (time.monotonic() - began)))
        if not thread.is_alive():
            blanking = threading.Thread(target=self._blank, name="station-displays-off", daemon=True)
            blanking.start()
            blanking.join(timeout=max(0.0, CLOSE_BUDGET - (time.monotonic() - began)))
            if not blanking.is_alive():
                return
        log.warning("the station displays' I2C bus did not answer in time; they keep their last picture")

    def _blank(self) -> None:
        drivers, self._drivers = dict(self._drivers), {}
        for station, driver in drivers.items():
            if not self._health.get(station, _Health()).ok:
                continue
            try:
                driver.fill(0)
                driver.show()
                driver.poweroff()
            except Exception as exc:
                log.warning("S%d's display could not be blanked: %s", station + 1, exc)
