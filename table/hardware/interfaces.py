"""The contracts between the table loop and whatever reads and lights the table.

Everything above this layer (the loop, the sessions, the screens) sees stations and
an hourglass only through these types; the backends behind them are chosen by the
config and injected:

* :class:`Stations` - the buttons and knobs of every station (gpio via gpiozero,
  the serial I/O bridge, the simulator, a script in tests).
* :class:`Hourglass` - the LED hourglass (a NeoPixel strip or matrix, the serial
  bridge, the simulator drawing on screen).

Nothing here imports a Pi library: real libraries are imported lazily inside the
backends, so this module (and the whole table) imports on any machine.

Times: every :class:`StationInput` carries ``t``, seconds on the table's monotonic
clock (``time.monotonic()`` of the daemon process) at which the input *happened* -
for a press, the kernel's (or the microcontroller's) edge timestamp mapped onto
that clock, never the moment a callback ran.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

RGB = tuple[int, int, int]
"""A pixel colour, each channel 0..255 (before brightness and current limiting)."""

InputKind = Literal["press", "turn", "push", "long_push"]
"""What a station did: its big button (press), its knob (turn), the knob's switch
released after a short push (push) or held for the long-push time (long_push)."""

LedState = Literal["on", "off", "blink"]
"""A station button's LED: on / blink mean the station may act now, off that it may not."""

PRESS: InputKind = "press"
TURN: InputKind = "turn"
PUSH: InputKind = "push"
LONG_PUSH: InputKind = "long_push"

KnobValue = dict[str, int]
"""``{"delta": n}`` for an encoder (signed steps, clockwise positive) or
``{"sector": s, "sectors": 16}`` for an absolute switch / potentiometer."""


@dataclass(frozen=True)
class StationInput:
    """One input from one station, already debounced and ordered.

    * ``kind`` - "press" | "turn" | "push" | "long_push".
    * ``station`` - 0-based station index in seating order.
    * ``t`` - table-clock seconds when it happened (the edge time for press/push).
    * ``value`` - ``None`` for press/push/long_push; for turn ``{"delta": n}``
      (relative encoder) or ``{"sector": s, "sectors": 16}`` (absolute knob).
    * ``tie`` - for a press: the other stations whose presses lie within the tie
      window of this one (empty when the press is clearly ordered). The loop may
      ignore it; engines decide ties from ``t`` with their own tie window.

    Inputs reach the sink in non-decreasing ``t`` order (the backend holds each
    input for the settle window so that late-delivered earlier edges can overtake
    it); an input that arrives after a later one has already been delivered is still
    passed on (a press is then counted as ``unordered`` in
    :meth:`Stations.diagnostics`; edges later than the settle window count as
    ``late_edges``).
    """

    kind: InputKind
    station: int
    t: float
    value: KnobValue | None = None
    tie: tuple[int, ...] = field(default=())


InputSink = Callable[[StationInput], None]


class Stations(abc.ABC):
    """All stations' buttons, knobs and button LEDs.

    Implementations must override :meth:`start`, :meth:`stop`, :meth:`set_leds` and
    :meth:`diagnostics`; they may override :meth:`arm`.

    The sink is called from a backend thread; it must be quick and thread-safe (the
    loop typically puts the input on a queue). After :meth:`stop` returns the sink
    is never called again.
    """

    @abc.abstractmethod
    def start(self, sink: InputSink) -> None:
        """Open the hardware and begin delivering inputs to ``sink``.

        Raises :class:`table.common.errors.TableError` with one sentence when the hardware
        is unavailable (no GPIO on this machine, serial port missing, pin in use).
        """

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop delivering inputs, switch the button LEDs off and release the hardware.

        Safe to call twice and after a failed :meth:`start`.
        """

    @abc.abstractmethod
    def set_leds(self, states: Mapping[int, LedState]) -> None:
        """Light the button LEDs: "on", "off" or "blink" per station.

        Stations not named keep their state. Stations without an LED ignore this.
        """

    @abc.abstractmethod
    def diagnostics(self) -> dict[str, Any]:
        """JSON-compatible health figures: per-station buttons held (and for how
        long), counts of presses, bounces, false starts, late edges, malformed
        serial lines, reconnects... Used by the self-test and the status screen."""

    def arm(self, stations: Collection[int] | None, at: float | None = None) -> None:
        """Say which stations may press from table time ``at`` on.

        ``stations=None`` (the default state) means every press counts. A press from
        a station that is not armed, or whose edge time is before ``at``, is a false
        start: it is not delivered, it is counted in the diagnostics, and it may lock
        that station out for the configured false-start lockout (like quiz buzzers).
        Backends without false-start handling may ignore this call.
        """
        return None

    def pushes_held(self) -> Mapping[int, float]:
        """Stations whose knob is held down and has not yet made a long push, each with
        the table time it went down (the screen shows the long push counting). Backends
        that cannot tell report none."""
        return {}


@dataclass(frozen=True)
class HourglassLayout:
    """How the LEDs of the hourglass are arranged.

    * ``kind="strip"`` - ``count`` LEDs in a line; the first half is the top bulb
      (draining), the second half the bottom bulb (filling); ``count`` is even.
    * ``kind="matrix"`` - one or two ``width`` x ``height`` matrices. With two, the
      first is the top bulb and the second the bottom; with one, the upper half
      of the rows is the top bulb. ``order`` says how the pixels are chained:
      "serpentine" (every other row reversed) or "rows" (every row left to right).
      Pixel index 0 is the top-left of the first matrix.
    """

    kind: Literal["strip", "matrix"] = "strip"
    count: int = 60
    width: int = 8
    height: int = 8
    matrices: int = 1
    order: Literal["serpentine", "rows"] = "serpentine"

    @property
    def pixels(self) -> int:
        """How many LEDs the frame has."""
        if self.kind == "strip":
            return self.count
        return self.width * self.height * self.matrices


class Hourglass(abc.ABC):
    """An LED hourglass output: shows whole frames computed by
    :func:`table.hardware.hourglass.hourglass_frame`.

    Implementations must override :meth:`show` and :meth:`close`.
    """

    layout: HourglassLayout

    @abc.abstractmethod
    def show(self, frame: Sequence[RGB]) -> None:
        """Display one frame (one colour per LED, ``len(frame) == layout.pixels``).

        Brightness and the current limit from the config are applied here, by the
        backend, so frames stay device-independent. Never raises for a lost device
        (the serial bridge reconnects); logs instead.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Switch all LEDs off and release the device. Safe to call twice."""


class MonoPicture(Protocol):
    """A one-bit picture for a station's private display: ``width`` x ``height`` pixels,
    row by row from the top left, one byte per pixel (0: dark, anything else: lit).
    (The display layer draws them: ``table.display.station_screen.StationPicture``.)"""

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def pixels(self) -> bytes: ...


class StationDisplays(abc.ABC):
    """The private displays at the stations (one small screen each, seen only by the
    player sitting there). ``stations`` are the 0-based stations that have one.

    Implementations must override :meth:`start`, :meth:`show` and :meth:`close`.
    """

    stations: tuple[int, ...] = ()
    size: tuple[int, int] = (128, 64)

    @abc.abstractmethod
    def start(self) -> None:
        """Open the displays; raises :class:`table.common.errors.TableError` with one
        sentence when the bus or a display is missing."""

    @abc.abstractmethod
    def show(self, station: int, picture: MonoPicture) -> None:
        """Show ``picture`` (of :attr:`size`) on ``station``'s display. Never raises for
        a display that stopped answering (a loose cable): logs instead."""

    @abc.abstractmethod
    def close(self) -> None:
        """Blank the displays and release the bus. Safe to call twice."""
