"""An I2C bus for Adafruit's CircuitPython drivers, without a Pi: it answers at the
addresses it is given and records every write, so a test can see what reached the bus.

Faults as a real bus shows them: :attr:`FakeI2C.vanished` (every address answers
ENXIO, as with the cable pulled), :attr:`FakeI2C.fault` (called before each transfer
with the address and data; it may raise, e.g. ETIMEDOUT, or block), and the lock is
``busio.I2C``'s: one holder at a time, released only by ``unlock``."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable
from typing import Any


class FakeI2C:
    """``busio.I2C`` as far as the SSD1306 and TCA9548A drivers use it."""

    def __init__(self, devices: Iterable[int] = (0x70, 0x3C)) -> None:
        self.devices = set(devices)
        self.writes: list[tuple[int, bytes]] = []
        self.locked = False
        self.vanished = False
        self.fault: Callable[[int, bytes], None] | None = None

    def try_lock(self) -> bool:
        if self.locked:
            return False
        self.locked = True
        return True

    def unlock(self) -> None:
        self.locked = False

    def scan(self) -> list[int]:
        return sorted(self.devices)

    def _transfer(self, address: int, data: bytes) -> None:
        if self.vanished:
            raise OSError(errno.ENXIO, os.strerror(errno.ENXIO))
        if self.fault is not None:
            self.fault(address, data)
        if address not in self.devices:
            raise OSError(121, "Remote I/O error")

    def writeto(self, address: int, buffer: Any, *, start: int = 0, end: int | None = None) -> None:
        data = bytes(buffer[start:end])
        self._transfer(address, data)
        self.writes.append((address, data))

    def readfrom_into(self, address: int, buffer: Any, *, start: int = 0, end: int | None = None) -> None:
        self._transfer(address, b"")

    def writeto_then_readfrom(self, address: int, out: Any, into: Any, **_: Any) -> None:
        self.writeto(address, out)
        self.readfrom_into(address, into)

    def frames(self, address: int = 0x3C) -> list[bytes]:
        """The whole-screen writes to ``address`` (data prefix 0x40, then 1,024 bytes)."""
        return [data for a, data in self.writes if a == address and len(data) > 64 and data[0] == 0x40]
