"""Test doubles at the GPIO edge, built on gpiozero's own mock pins.

* :class:`TimedMockPin` - a ``MockPin`` whose edges carry a timestamp chosen by the
  test (``edge(state, ticks)``), delivered whenever the test says, so edge time and
  delivery time can differ and arrive out of order as on a busy Pi.
* :class:`FakeMCP3008` - the slave side of an MCP3008 on gpiozero's mock software
  SPI: answers single-ended conversions of ``channels[i]`` (0..1 of the reference).
* :func:`timed_factory` - a ``MockFactory`` that makes ``TimedMockPin`` pins.
* :class:`VirtualClock` - the table clock, moved by hand.
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin, MockSPIDevice
from gpiozero.pins.pi import PiPin


class VirtualClock:
    """A table clock that only moves when the test moves it."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class TimedMockPin(MockPin):
    """A mock input pin whose edges carry the test's own timestamps.

    ``held = True`` before the pin is opened makes it read low even after the
    pull-up is switched on: a button already held down when the table starts.
    """

    held = False

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        if self.held:
            self._change_state(False)

    def edge(self, state: bool, ticks: float) -> None:
        """Set the line to ``state`` and deliver the edge now, stamped ``ticks``.

        Unlike ``drive_high``/``drive_low`` this also delivers an edge whose level
        equals the last one (a real GPIO can report such edges during bounce).
        """
        assert self._function == "input"
        self._change_state(bool(state))
        wanted = {"both": (True, False), "rising": (True,), "falling": (False,), "none": ()}[self._edges]
        if bool(state) in wanted and self._when_changed is not None:
            PiPin._call_when_changed(self, ticks, bool(state))


def timed_factory() -> MockFactory:
    return MockFactory(pin_class=TimedMockPin)


class FakeMCP3008(MockSPIDevice):
    """An MCP3008 ADC answering on gpiozero's mock SPI pins (CE0 by default).

    The master clocks in a start bit, the single/differential bit and three channel
    bits; the chip then answers with one sampling bit, a null bit and ten result
    bits, most significant first.
    """

    def __init__(self, factory: Any, select_pin: int = 8) -> None:
        super().__init__(11, 10, 9, select_pin, pin_factory=factory)
        self.channels = [0.0] * 8
        self._phase = "wait_start"
        self._request: list[int] = []

    def on_start(self) -> None:
        super().on_start()
        self._phase = "wait_start"
        self._request = []

    def on_bit(self) -> None:
        bit = self.rx_buf[-1]
        if self._phase == "wait_start":
            if bit:
                self._phase = "request"
            return
        if self._phase == "request":
            self._request.append(bit)
            if len(self._request) == 4:  # single/diff bit and three channel bits
                channel = self._request[1] << 2 | self._request[2] << 1 | self._request[3]
                level = max(0.0, min(1.0, self.channels[channel]))
                self.tx_word(round(level * 1023), 12)  # sample bit, null bit, 10 bits
                self._phase = "answer"
