"""Knob decoding that does not depend on a library: absolute switches, potentiometers,
and the mapping of a pin library's edge ticks onto the table clock.

* :class:`AbsoluteDecoder` - a 16-position rotary switch on 4 data lines, in plain
  binary or Gray code. While the pointer moves, the lines do not change all at once
  (a binary switch passing 7 -> 8 may show 15 or 0 for a moment), so a sector is
  only accepted once the lines have been stable for ``stable`` seconds.
* :class:`SectorQuantiser` - a potentiometer's 0..1 reading cut into sectors with
  hysteresis: the reading has to go past a border by ``hysteresis`` (a fraction of
  a sector) before the sector changes, so a pointer resting on a border (and the
  ADC's noise) does not make the sector flicker.
* :class:`TickMapper` - edge timestamps from lgpio (or a microcontroller) come on the
  library's own clock; this maps them onto the table clock with an offset
  estimated from the smallest observed (arrival - edge) difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Code = Literal["binary", "gray"]


def gray_to_binary(g: int) -> int:
    """Decode a reflected Gray code value."""
    b = g
    shift = g >> 1
    while shift:
        b ^= shift
        shift >>= 1
    return b


def binary_to_gray(b: int) -> int:
    return b ^ (b >> 1)


def lines_to_value(lines: Sequence[bool]) -> int:
    """Data lines (least significant first, True = line active) as an integer."""
    value = 0
    for i, bit in enumerate(lines):
        if bit:
            value |= 1 << i
    return value


def decode_sector(lines: Sequence[bool], code: Code) -> int:
    raw = lines_to_value(lines)
    return gray_to_binary(raw) if code == "gray" else raw


@dataclass
class AbsoluteDecoder:
    """Stable sector of an absolute rotary switch (see the module doc).

    ``update(lines, t)`` feeds the lines' levels after a change at ``t``;
    ``poll(now)`` returns ``(sector, t_stable)`` once a new sector has held for
    ``stable`` seconds (``t_stable`` is when the lines reached it), else ``None``.
    """

    code: Code = "gray"
    stable: float = 0.020
    sectors: int = 16
    current: int | None = None
    _candidate: int | None = None
    _since: float = 0.0

    def update(self, lines: Sequence[bool], t: float) -> None:
        self.update_sector(decode_sector(lines, self.code) % self.sectors, t)

    def update_sector(self, sector: int, t: float) -> None:
        """The lines read ``sector`` from ``t`` on (already decoded, e.g. by the I/O
        bridge, which sends every reading and leaves the settling to this class)."""
        if sector != self._candidate:
            self._candidate, self._since = sector, t

    def poll(self, now: float) -> tuple[int, float] | None:
        if self._candidate is None or self._candidate == self.current:
            return None
        if now - self._since >= self.stable:
            self.current = self._candidate
            return self.current, self._since
        return None

    def wakeup(self) -> float | None:
        if self._candidate is None or self._candidate == self.current:
            return None
        return self._since + self.stable


@dataclass
class SectorQuantiser:
    """A 0..1 reading as one of ``sectors`` sectors, with hysteresis at the borders."""

    sectors: int = 16
    hysteresis: float = 0.25
    current: int | None = None

    def update(self, value: float) -> int:
        v = min(1.0, max(0.0, value))
        raw = min(self.sectors - 1, int(v * self.sectors))
        if self.current is None:
            self.current = raw
            return raw
        width = 1.0 / self.sectors
        low = self.current * width - self.hysteresis * width
        high = (self.current + 1) * width + self.hysteresis * width
        if low <= v <= high:
            return self.current
        self.current = raw
        return raw


@dataclass
class TickMapper:
    """Maps a pin library's edge ticks (seconds on its clock) to table time.

    Each callback gives (edge ticks, arrival time on the table clock). The arrival
    is never earlier than the edge, so the smallest ``arrival - ticks`` seen is the
    best estimate of the clock offset (off by the shortest interrupt latency,
    about 10 µs on a Pi). A new estimate is only taken when the caller says the
    table is quiet (``adjust=True``: no input waiting to be ordered), because
    changing the offset between two edges of the same race could swap them;
    within a race, differences between edges are kept exactly. A jump of the
    library's clock by more than ``jump`` seconds (a wall clock being set)
    restarts the estimate; a jump forward does so even while a race is open,
    since an edge can never be stamped later than it arrives (a bridge that
    rebooted while its old clock was behind, say).
    """

    jump: float = 1.0
    offset: float | None = None

    def to_table(self, ticks: float, arrival: float, adjust: bool = True) -> float:
        d = arrival - ticks
        if (
            self.offset is None
            or d < self.offset - self.jump
            or (adjust and (d < self.offset or d > self.offset + self.jump))
        ):
            self.offset = d
        return ticks + self.offset
