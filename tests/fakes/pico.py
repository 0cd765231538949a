"""A firmware test bench: the I/O bridge's own logic (``firmware/bridge_logic.py``)
on a simulated Pico, wired to the table's real :class:`SerialBridge`, all in
virtual time.

What is simulated, and why:

* **Pins and interrupts.** A physical edge latches the pin's IRQ flags; the hard
  interrupt runs ``irq_latency_us`` later (random within the range), or when the core
  next has interrupts enabled, and then does exactly what ``firmware/main.py``'s
  handler does: ``EdgeRing.put(slot, flags, level, ticks_us())``. Pins whose
  interrupts become due together run in pin-number order, as on the RP2040.
* **LED-write blackout.** ``blackout_per_led_us`` models a strip driver that switches
  interrupts off while it writes (MicroPython's ``neopixel``: about 30 us per pixel);
  the firmware's PIO + DMA strip has none (0), it only costs main-loop time
  (``show_cost_per_led_us``).
* **Clock.** ``ticks_us()`` is the 30-bit counter, starting a few seconds before it
  wraps; the main loop runs every millisecond when there is work.
* **USB.** Bytes written by the firmware reach the table ``usb_us`` later plus a
  random extra of up to ``table_late_us`` (a busy table); the stream keeps its order.
  The table's writes reach the firmware ``usb_us`` later.

Table time is Pico time (seconds) plus ``TABLE_OFFSET``.
"""

from __future__ import annotations

import heapq
import importlib.util
import itertools
import random
from collections.abc import Callable
from types import ModuleType
from typing import Any

from table.common.datafiles import package_path
from table.hardware.buttons import Timing
from table.hardware.interfaces import StationInput
from table.hardware.serial_bridge import SerialBridge

FIRMWARE = package_path("firmware")  # shipped in the wheel as table/firmware
TABLE_OFFSET = 5000.0
PERIOD = 1 << 30
INF = 1 << 62


def load_logic() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_bridge_logic", FIRMWARE / "bridge_logic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LOGIC = load_logic()


class SimStrip:
    def __init__(self, n: int) -> None:
        self.n = n
        self.shown = 0
        self.last = b""

    def show(self, rgb: bytes) -> None:
        self.shown += 1
        self.last = bytes(rgb)


class SimLeds:
    def __init__(self, n: int) -> None:
        self.on = [False] * n

    def set(self, station: int, on: bool) -> None:
        self.on[station] = on


class TablePort:
    """The table's end of the USB cable: what it writes reaches the Pico later."""

    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.closed = False

    def write(self, data: bytes) -> int:
        if not self.closed:
            self.rig.to_pico(bytes(data))
        return len(data)

    def close(self) -> None:
        self.closed = True


class Rig:
    """One simulated Pico running the firmware logic, one SerialBridge, one clock."""

    def __init__(
        self,
        stations: list[dict[str, Any]],
        *,
        seed: int = 1,
        code: str = "gray",
        timing: Timing | None = None,
        irq_latency_us: tuple[int, int] = (2, 12),
        blackout_per_led_us: float = 0.0,
        show_cost_per_led_us: float = 3.0,
        leds: int = 0,
        fps: float = 30.0,
        usb_us: int = 1000,
        table_late_us: int = 0,
    ) -> None:
        self.rng = random.Random(seed)
        self.config = stations
        self.code = code
        self.irq_latency_us = irq_latency_us
        self.blackout_per_led_us = blackout_per_led_us
        self.show_cost_per_led_us = show_cost_per_led_us
        self.led_count = leds
        self.frame_every_us = int(1e6 / fps) if leds else 0
        self.usb_us = usb_us
        self.table_late_us = table_late_us
        self.now = 0  # Pico microseconds since the rig began
        self._events: list[tuple[int, int, str, Any]] = []
        self._seq = itertools.count()
        self.table_now = TABLE_OFFSET
        self.bridge = SerialBridge("sim", len(stations), timing or Timing(), clock=lambda: self.table_now)
        self.got: list[StationInput] = []
        self.bridge._sink = self.got.append
        self._table_next: float | None = None
        self._frames = self._make_frames() if leds else []
        self._frame_k = 0
        self.frames_offered = 0
        self._boot()
        self.connect()

    # --- the Pico ------------------------------------------------------------------

    def _boot(self) -> None:
        """Power-up: a fresh firmware with its clock starting again."""
        self.epoch = self.now  # the Pico's clock counts from here
        self.tick0 = PERIOD - 3_000_000  # the counter wraps three seconds after boot
        self.slots = LOGIC.slots_of(self.config)
        self.pin_slot = {gpio: k for k, (gpio, _, _) in enumerate(self.slots)}
        if not hasattr(self, "levels"):
            self.levels = {gpio: 1 for gpio, _, _ in self.slots}  # pull-ups: open
        self.latched = {gpio: 0 for gpio in self.levels}
        self.isr_due: dict[int, int] = {}
        self.blackout_until = 0
        self.busy_until = 0
        self.usb_in = b""
        self.ring = LOGIC.EdgeRing()
        self.strip = SimStrip(self.led_count) if self.led_count else None
        self.leds = SimLeds(len(self.config))
        self.fw = LOGIC.Bridge(self.config, self._fw_write, self.ring,
                               [self.levels[g] for g, _, _ in self.slots], self.ticks_us(),
                               self.leds, self.strip, self.code)
        self.fw_out: list[str] = []
        self.plugged = True
        self.fw.hello()
        self.next_pass_at = INF
        self._want_pass(self.now)
        self._last_to_table = 0

    def ticks_us(self) -> int:
        return (self.tick0 + self.now - self.epoch) % PERIOD

    def pico_us(self, rig_us: int) -> int:
        """The firmware clock value of rig time ``rig_us`` (for checks)."""
        return rig_us - self.epoch

    def _fw_write(self, text: str) -> None:
        self.fw_out.append(text)

    # --- events --------------------------------------------------------------------

    def _schedule(self, at: int, kind: str, payload: Any) -> None:
        heapq.heappush(self._events, (at, next(self._seq), kind, payload))

    def edge(self, at_us: int, gpio: int, level: int) -> None:
        """The outside world moves ``gpio`` to ``level`` at rig time ``at_us``."""
        assert at_us >= self.now, "the bench cannot change the past"
        self._schedule(at_us, "line", (gpio, level))

    def press(self, at_us: int, gpio: int, down: bool, bounce: int = 0, span_us: int = 4000) -> None:
        """A contact closing (``down``) or opening at ``at_us`` with ``bounce`` extra edges."""
        level = 0 if down else 1
        self.edge(at_us, gpio, level)
        times = sorted(self.rng.randrange(at_us + 10, at_us + span_us) for _ in range(bounce - bounce % 2))
        lv = level
        for t in times:
            lv = 1 - lv
            self.edge(t, gpio, lv)

    def run_until(self, until_us: int) -> None:
        while self._events and self._events[0][0] <= until_us:
            at, _, kind, payload = heapq.heappop(self._events)
            self._table_until(at)
            self.now = max(self.now, at)
            getattr(self, "_on_" + kind)(payload)
        self._table_until(until_us)
        self.now = max(self.now, until_us)

    def _table_until(self, at_us: int) -> None:
        """Run the table's pump at its wake-ups up to rig time ``at_us``."""
        limit = TABLE_OFFSET + at_us / 1e6
        while self._table_next is not None and self._table_next <= limit:
            self.table_now = max(self.table_now, self._table_next)
            self._table_next = self.bridge.pump()
        self.table_now = max(self.table_now, limit)

    def _on_line(self, payload: tuple[int, int]) -> None:
        gpio, level = payload
        if self.levels[gpio] == level:
            return
        self.levels[gpio] = level
        if not self.plugged:
            return  # no power: nothing sees it
        self.latched[gpio] |= LOGIC.IRQ_RISING if level else LOGIC.IRQ_FALLING
        if gpio not in self.isr_due:
            lo, hi = self.irq_latency_us
            at = max(self.now + self.rng.randint(lo, hi), self.blackout_until)
            self.isr_due[gpio] = at
            self._schedule(at, "isr", gpio)

    def _on_isr(self, gpio: int) -> None:
        if not self.plugged or gpio not in self.isr_due:
            return
        if self.now < self.blackout_until:  # interrupts went off meanwhile: wait for them
            self.isr_due[gpio] = self.blackout_until
            self._schedule(self.blackout_until, "isr", gpio)
            return
        del self.isr_due[gpio]
        flags, self.latched[gpio] = self.latched[gpio], 0
        # what main.py's hard interrupt handler does:
        self.ring.put(self.pin_slot[gpio], flags, self.levels[gpio], self.ticks_us())
        self._wake_pico()

    def _want_pass(self, at: int) -> None:
        if at < self.next_pass_at:
            self.next_pass_at = at
            self._schedule(at, "pass", at)

    def _wake_pico(self) -> None:
        """Something arrived (an edge, bytes): a pass comes at the next millisecond."""
        self._want_pass(self.now + 1000 - (self.now - self.epoch) % 1000)

    def _on_pass(self, at: int) -> None:
        if at != self.next_pass_at or not self.plugged:
            return
        self.next_pass_at = INF
        if self.now < self.busy_until:
            self._want_pass(self.busy_until)
            return
        data, self.usb_in = self.usb_in, b""
        if data:
            shown = self.strip.shown if self.strip else 0
            self.fw.feed(data)
            if self.strip is not None and self.strip.shown > shown:
                n = self.strip.n * (self.strip.shown - shown)
                self.blackout_until = self.now + int(self.blackout_per_led_us * n)
                self.busy_until = self.now + int(max(self.blackout_per_led_us, self.show_cost_per_led_us) * n)
        if self.busy_until > self.now:  # the rest of the pass runs after the frame went out
            self._flush()
            self._want_pass(self.busy_until)
            return
        self.fw.service(self.ticks_us)
        self._flush()
        if self.ring.head[0] != self.ring.tail or self.usb_in:
            self._want_pass(self.now + 1000)
        else:  # idle: the next heartbeat or state line after edges (edges and bytes wake it earlier)
            due = self.fw.last_heartbeat + LOGIC.HEARTBEAT_US
            if self.fw.proof_due is not None:
                due = min(due, self.fw.proof_due)
            self._want_pass(max(self.now + 1000, due + self.epoch))

    def _flush(self) -> None:
        if self.fw_out:
            text, self.fw_out = "".join(self.fw_out), []
            self._send_to_table(text.encode())

    # --- the cable -------------------------------------------------------------------

    def _send_to_table(self, data: bytes) -> None:
        at = self.now + self.usb_us + (self.rng.randint(0, self.table_late_us) if self.table_late_us else 0)
        at = max(at, self._last_to_table)  # a byte stream keeps its order
        self._last_to_table = at
        self._schedule(at, "to_table", (data, self.generation))

    def _on_to_table(self, payload: tuple[bytes, int]) -> None:
        data, generation = payload
        if generation != self.generation or not self.bridge.connected.is_set():
            return
        self.bridge.receive(data)
        self._table_next = self.bridge.pump()

    def to_pico(self, data: bytes) -> None:
        at = self.now + self.usb_us
        self._schedule(at, "to_pico", (data, self.generation))

    def _on_to_pico(self, payload: tuple[bytes, int]) -> None:
        data, generation = payload
        if generation != self.generation or not self.plugged:
            return
        self.usb_in += data
        self._wake_pico()

    generation = 0

    def connect(self) -> None:
        """The table opens the port (sends HELLO? and the button LEDs)."""
        self.bridge.attach(TablePort(self))
        self._table_next = self.bridge.pump()

    def unplug(self) -> None:
        """The cable is pulled: the table's next read fails, the Pico loses power."""
        self.generation += 1
        self.plugged = False
        self.bridge._lost("unplugged")

    def replug(self) -> None:
        """Power comes back: the Pico boots; the table reopens the port."""
        self.generation += 1
        self._boot()
        self.connect()

    # --- LED animation ----------------------------------------------------------------

    def _make_frames(self) -> list[list[tuple[int, int, int]]]:
        n = self.led_count
        return [[((i * 7 + k * 13) % 256, (i + k * 5) % 256, (k * 40 + i) % 256) for i in range(n)]
                for k in range(30)]

    def animate(self, until_us: int) -> None:
        """The table sends a new frame every 1/fps s up to ``until_us``."""
        if not self.frame_every_us:
            return
        for at in range(self.now - self.now % self.frame_every_us + self.frame_every_us, until_us,
                        self.frame_every_us):
            self._schedule(at, "frame", None)

    def _on_frame(self, _: Any) -> None:
        self._frame_k = (self._frame_k + 1) % len(self._frames)
        self.frames_offered += 1
        self.bridge.send_frame(self._frames[self._frame_k])

    # --- results ----------------------------------------------------------------------

    def presses(self) -> list[tuple[int, float]]:
        """(station, time on the rig's clock in seconds) of every press delivered."""
        return [(i.station, i.t - TABLE_OFFSET) for i in self.got if i.kind == "press"]


def one_ms_pairs(rig: Rig, gpios: list[int], pairs: int, *, every_us: int = 80_000, hold_us: int = 35_000,
                 max_bounce: int = 6, start_us: int = 200_000) -> list[Any]:
    """Schedule ``pairs`` presses of two buttons 1 ms apart (random order, bouncy) and
    run the rig through them; returns the pairs for :func:`misordered_pairs`."""
    from fakes.presses import Pair

    out = []
    t = start_us
    rng = rig.rng
    for _ in range(pairs):
        a, b = rng.sample(range(len(gpios)), 2)
        for station, t0 in ((a, t), (b, t + 1000)):
            rig.press(t0, gpios[station], True, rng.randrange(0, max_bounce + 1))
            rig.press(t0 + hold_us, gpios[station], False, rng.randrange(0, max_bounce + 1))
        rig.animate(t + every_us - 10_000)
        rig.run_until(t + every_us - 10_000)
        out.append(Pair(a, b, t / 1e6, ()))
        t += every_us + rng.randrange(-5000, 5000)
    rig.run_until(t + 500_000)
    return out


def drive(rig: Rig, steps: list[Callable[[], None]]) -> None:
    for step in steps:
        step()
