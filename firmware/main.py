# The I/O bridge on a Raspberry Pi Pico (MicroPython). Copy firmware/*.py to the
# Pico (e.g. `mpremote cp firmware/*.py :`); it starts on power-up and talks to the
# table over the USB serial port (/dev/ttyACM0). Wiring is in config.py.
#
# Every input pin has its pull-up on and its switch to GND. Pin interrupts stamp
# each edge with time.ticks_us() the moment it happens; the main loop sends the
# lines, reads the table's commands and drives the LEDs.

import sys
import time

import machine
from bridge_logic import Bridge, Clock

import config


class ButtonLeds:
    def __init__(self, pins):
        self.pins = [None if p is None else machine.Pin(p, machine.Pin.OUT, value=0) for p in pins]

    def set(self, station, on):
        pin = self.pins[station]
        if pin is not None:
            pin.value(1 if on else 0)


class UsbSerial:
    """Non-blocking access to the USB serial port (sys.stdin / sys.stdout)."""

    def __init__(self):
        import select

        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)

    def read_available(self):
        out = []
        while self.poll.poll(0):
            ch = sys.stdin.read(1)
            if not ch:
                break
            out.append(ch)
            if len(out) >= 512:
                break
        return "".join(out)

    def write(self, text):
        sys.stdout.write(text)


def build(io, strip=None):
    """Wire the pins of config.py to a Bridge; returns (bridge, clock)."""
    stations = config.STATIONS
    clock = Clock(time.ticks_us())
    bridge = Bridge(len(stations), io.write, ButtonLeds([s.get("led") for s in stations]), strip,
                    getattr(config, "CODE", "gray"))
    keep = []  # the pins must stay referenced for their interrupts to fire

    def stamp():
        return clock.extend(time.ticks_us())

    for index, st in enumerate(stations):
        for key, verb in (("button", "B"), ("switch", "S")):
            if st.get(key) is None:
                continue
            pin = machine.Pin(st[key], machine.Pin.IN, machine.Pin.PULL_UP)

            def on_edge(p, i=index, v=verb):
                bridge.edge(v, i, 0 if p.value() else 1, stamp())

            pin.irq(on_edge, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING)
            keep.append(pin)
        if st.get("encoder"):
            a_num, b_num = st["encoder"]
            a = machine.Pin(a_num, machine.Pin.IN, machine.Pin.PULL_UP)
            b = machine.Pin(b_num, machine.Pin.IN, machine.Pin.PULL_UP)

            def on_turn(_p, i=index, a=a, b=b):
                bridge.encoder(i, a.value(), b.value(), stamp())

            a.irq(on_turn, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING)
            b.irq(on_turn, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING)
            keep.extend([a, b])
        if st.get("data"):
            lines = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in st["data"]]

            def on_lines(_p, i=index, lines=lines):
                bridge.absolute_lines(i, [not line.value() for line in lines], stamp())

            for line in lines:
                line.irq(on_lines, machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING)
            keep.extend(lines)
            on_lines(None)
    bridge.keep = keep
    return bridge, clock


def make_strip():
    if getattr(config, "LED_PIN", None) is None:
        return None
    import neopixel

    return neopixel.NeoPixel(machine.Pin(config.LED_PIN), config.LED_COUNT)


def run(io=None, strip=None, passes=None):
    """The main loop; ``passes`` limits it for tests (None: forever)."""
    if io is None:
        try:
            import micropython

            micropython.kbd_intr(-1)  # a stray 0x03 on the line must not stop the program
        except ImportError:
            pass
        io = UsbSerial()
    if strip is None:
        strip = make_strip()
    bridge, clock = build(io, strip)
    bridge.hello()
    n = 0
    while passes is None or n < passes:
        n += 1
        text = io.read_available()
        if text:
            bridge.feed(text)
        bridge.poll(clock.extend(time.ticks_us()))
        time.sleep_ms(1)
    return bridge


if __name__ == "__main__":
    run()
