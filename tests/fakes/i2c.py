"""An I2C bus for Adafruit's CircuitPython drivers, without a Pi: it answers at the
addresses it is given and records every write, so a test can see what reached the bus."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class FakeI2C:
    """``busio.I2C`` as far as the SSD1306 and TCA9548A drivers use it."""

    def __init__(self, devices: Iterable[int] = (0x70, 0x3C)) -> None:
        self.devices = set(devices)
        self.writes: list[tuple[int, bytes]] = []
        self.locked = False

    def try_lock(self) -> bool:
        if self.locked:
            return False
        self.locked = True
        return True

    def unlock(self) -> None:
        self.locked = False

    def scan(self) -> list[int]:
        return sorted(self.devices)

    def writeto(self, address: int, buffer: Any, *, start: int = 0, end: int | None = None) -> None:
        if address not in self.devices:
            raise OSError(121, "Remote I/O error")
        self.writes.append((address, bytes(buffer[start:end])))

    def readfrom_into(self, address: int, buffer: Any, *, start: int = 0, end: int | None = None) -> None:
        if address not in self.devices:
            raise OSError(121, "Remote I/O error")

    def writeto_then_readfrom(self, address: int, out: Any, into: Any, **_: Any) -> None:
        self.writeto(address, out)
        self.readfrom_into(address, into)

    def frames(self, address: int = 0x3C) -> list[bytes]:
        """The whole-screen writes to ``address`` (data prefix 0x40, then 1,024 bytes)."""
        return [data for a, data in self.writes if a == address and len(data) > 64 and data[0] == 0x40]
