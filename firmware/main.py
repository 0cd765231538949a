# The I/O bridge on a Raspberry Pi Pico (MicroPython 1.22 or newer). Copy
# firmware/*.py to the Pico (see docs/serial-bridge.md, "Updating the firmware");
# it starts on power-up and talks to the table over the USB serial port.
# Wiring is in config.py.
#
# Why it is built this way:
# * Every input pin has a *hard* interrupt: it runs the moment the edge is seen (a
#   few microseconds), takes the tick count and the edge direction the port latched,
#   and stores them in preallocated arrays (bridge_logic.EdgeRing.put) - nothing is
#   allocated, so it may run in the interrupt itself.
# * Interrupts are never switched off for long: the LED strip is driven by a PIO
#   state machine fed by DMA (MicroPython's neopixel module would disable interrupts
#   for about 30 us per pixel and stamp every edge of a frame at its end).
# * Only the main loop extends the tick count into the 64-bit clock (no race).
# * Ctrl-C stays enabled on the console, so `mpremote` can stop the program to copy
#   new files; binary LED frames never carry a raw Ctrl-C byte (they are escaped).

import sys
import time

import machine
import rp2
from bridge_logic import Bridge, EdgeRing

import config


class ButtonLeds:
    def __init__(self, pins):
        self.pins = [None if p is None else machine.Pin(p, machine.Pin.OUT, value=0) for p in pins]

    def set(self, station, on):
        pin = self.pins[station]
        if pin is not None:
            pin.value(1 if on else 0)


@rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT, autopull=True, pull_thresh=24)
def _ws2812():
    # 10 cycles per bit at 8 MHz: 1.25 us. A 1 is high for 0.875 us, a 0 for 0.375 us.
    wrap_target()
    label("bitloop")
    out(x, 1).side(0)[2]
    jmp(not_x, "do_zero").side(1)[1]
    jmp("bitloop").side(1)[4]
    label("do_zero")
    nop().side(0)[4]
    wrap()


class PioStrip:
    """WS2812 pixels through PIO; a frame goes out by DMA while the CPU (and its
    interrupts) carry on."""

    def __init__(self, gpio, n, sm_id=0):
        import array

        self.n = n
        self.sm = rp2.StateMachine(sm_id, _ws2812, freq=8_000_000, sideset_base=machine.Pin(gpio))
        self.sm.active(1)
        # the state machine's TX FIFO and its DMA request line (RP2040 datasheet, 3.7 / 2.5.3.1)
        self.fifo = (0x50200000 if sm_id < 4 else 0x50300000) + 0x10 + 4 * (sm_id % 4)
        self.dreq = (sm_id // 4) * 8 + sm_id % 4
        self.words = array.array("I", [0] * n)
        self.dma = None
        try:
            self.dma = rp2.DMA()
        except (AttributeError, OSError):  # an older MicroPython: sm.put, still with interrupts on
            pass

    def show(self, rgb):
        words = self.words
        n = min(self.n, len(rgb) // 3)
        if self.dma is not None:
            while self.dma.active():  # the previous frame is still going out
                pass
        for i in range(n):
            j = 3 * i
            # bytes 2, 1, 3 of the pixel, top 24 bits first: a GRB strip's order. Fixed on
            # purpose: the table arranges the bytes for any other [leds] pixel_order.
            words[i] = (rgb[j + 1] << 24) | (rgb[j] << 16) | (rgb[j + 2] << 8)
        for i in range(n, self.n):
            words[i] = 0
        if self.dma is None:
            self.sm.put(words)
            return
        ctrl = self.dma.pack_ctrl(size=2, inc_write=False, treq_sel=self.dreq)
        self.dma.config(read=words, write=self.fifo, count=self.n, ctrl=ctrl, trigger=True)


class UsbSerial:
    """Non-blocking bytes over the USB serial port (sys.stdin.buffer / sys.stdout)."""

    def __init__(self):
        import select

        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)
        self.stdin = sys.stdin.buffer

    def read_available(self):
        out = bytearray()
        while len(out) < 2048 and self.poll.poll(0):
            got = self.stdin.read(1)
            if not got:
                break
            out.extend(got)
        return bytes(out)

    def write(self, text):
        sys.stdout.write(text)


def random_30():
    """A random 30-bit number (the RP2040's ring oscillator feeds os.urandom): this
    boot's id, which is also the number of its first line."""
    try:
        import os

        data = os.urandom(4)
        return (data[0] << 22 | data[1] << 14 | data[2] << 6 | data[3] >> 2) & 0x3FFFFFFF
    except (ImportError, AttributeError):
        import random

        return random.getrandbits(30)


def build(io, strip=None, ticks_us=time.ticks_us):
    """Wire config.py's pins to a Bridge: hard interrupts into an EdgeRing."""
    ring = EdgeRing()
    stations = config.STATIONS
    from bridge_logic import slots_of

    pins = []
    for k, (gpio, _, _) in enumerate(slots_of(stations)):
        pin = machine.Pin(gpio, machine.Pin.IN, machine.Pin.PULL_UP)

        def on_edge(p, k=k, put=ring.put, ticks=ticks_us):
            put(k, p.irq().flags(), p.value(), ticks())

        pin.irq(on_edge, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING, hard=True)
        pins.append(pin)
    levels = [p.value() for p in pins]  # after the interrupts are on: nothing falls between
    bridge = Bridge(stations, io.write, ring, levels, ticks_us(),
                    ButtonLeds([s.get("led") for s in stations]), strip, getattr(config, "CODE", "gray"),
                    boot=random_30())
    bridge.pins = pins  # the pins must stay referenced for their interrupts to fire
    return bridge


def make_strip():
    if getattr(config, "LED_PIN", None) is None:
        return None
    return PioStrip(config.LED_PIN, config.LED_COUNT)


def run(io=None, strip=None, passes=None):
    """The main loop; ``passes`` limits it for tests (None: forever). Ctrl-C (from
    mpremote) ends it: the LEDs go dark and the console is free for updates."""
    if io is None:
        io = UsbSerial()
    if strip is None:
        strip = make_strip()
    bridge = build(io, strip)
    bridge.hello()
    n = 0
    try:
        while passes is None or n < passes:
            n += 1
            data = io.read_available()
            if data:
                bridge.feed(data)
            bridge.service(time.ticks_us)
            time.sleep_ms(1)
    except KeyboardInterrupt:
        for station in range(bridge.count):
            bridge.leds.set(station, False)
        if strip is not None:
            strip.show(bytes(3 * strip.n))
        for pin in bridge.pins:
            pin.irq(None)
    return bridge


if __name__ == "__main__":
    run()
