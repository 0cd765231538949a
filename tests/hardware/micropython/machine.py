# The RP2040's machine module at its lowest edge, for the firmware run in a real
# MicroPython (tests/hardware/test_hw_firmware_micropython.py) and, the same code, in
# CPython. Written in the subset both run: no typing, no dataclasses.
#
# What it enforces as the port does: GPIO numbers 0..29; pin.irq() with no arguments
# returns the pin's irq object unchanged; an edge reaches the handler only for a trigger
# it was registered for, with flags() latched. A hard handler runs as the port runs it,
# with the heap locked (micropython.heap_lock(): MicroPython's hard interrupt does the
# same), so any allocation in it fails; around it gc.mem_alloc() counts what it took.

import sys

if sys.implementation.name == "micropython":
    import gc

    import micropython
else:  # CPython (whatever module of that name it may have): no heap to lock
    micropython = None

GPIO_COUNT = 30  # GP0..GP29
_ASK = object()
PINS = {}  # GPIO number -> Pin, for the run to drive
# The hard handlers' bill: [bytes allocated, handler calls]. Checked after the run.
HEAP = [0, 0]
LOCK_HEAP = [True]  # False only for the check's check (counting without the lock)


class _Irq:
    def __init__(self):
        self.latched = 0

    def flags(self):
        return self.latched


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, gpio, mode=0, pull=None, value=None):
        if not isinstance(gpio, int) or gpio < 0 or gpio >= GPIO_COUNT:
            raise ValueError("invalid pin")
        self.gpio = gpio
        self.mode = mode
        self.level = 1 if pull == Pin.PULL_UP else (value or 0)
        self.handler = None
        self.trigger = 0
        self.hard = False
        self._irq = _Irq()
        PINS[gpio] = self

    def value(self, v=None):
        if v is None:
            return self.level
        if self.mode == Pin.OUT:  # an input's line stays where the outside holds it
            self.level = 1 if v else 0
        return None

    def irq(self, handler=_ASK, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        # With no argument the port only returns the irq object (the handler's call
        # p.irq().flags() allocates nothing); None as the handler switches it off.
        if handler is not _ASK:
            self.handler, self.trigger, self.hard = handler, trigger, hard
        return self._irq

    def drive(self, level):
        """The outside world moves the line: the edge latches its flag, and a handler
        registered for that edge runs (a hard one with the heap locked)."""
        if level == self.level:
            return
        self.level = level
        edge = Pin.IRQ_RISING if level else Pin.IRQ_FALLING
        if self.handler is None or not self.trigger & edge:
            return
        self._irq.latched = edge
        if micropython is None or not self.hard:
            self.handler(self)
            return
        gc.disable()
        before = gc.mem_alloc()
        if LOCK_HEAP[0]:
            micropython.heap_lock()
        try:
            self.handler(self)
        finally:
            if LOCK_HEAP[0]:
                micropython.heap_unlock()
        taken = gc.mem_alloc() - before
        gc.enable()
        HEAP[0] += taken
        HEAP[1] += 1

