"""A fake I/O bridge microcontroller on the master side of a real pseudo-terminal.

The table opens the pty's slave through pyserial exactly as it opens a Pico's
``/dev/ttyACM0``; the port path given to the table is a symlink (like udev's
``/dev/serial/by-id/...``), so :meth:`FakeBridge.unplug` (close the master: the
table's next read fails) and :meth:`FakeBridge.replug` (a new pty behind the same
symlink) behave like pulling and re-inserting the USB cable.

It speaks protocol 4 like the firmware: every line ends in its number (from a
start given per boot), the last lines are kept and sent again on ``ST? <n> <count>``,
and its state line counts each station's presses. ``protocol=3`` or ``2`` make an
old bridge (no numbers; protocol 2 with XOR checksums too).
"""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from pathlib import Path

from table.hardware.bridge_protocol import (
    COUNT_PERIOD,
    FRAME_START,
    PROTOCOL_VERSION,
    SEQ_PERIOD,
    TABLE_VERBS,
    Framer,
    MalformedLine,
    Message,
    decode,
    decode_frame,
    decode_old,
    encode,
    encode_old,
)


class FakeBridge:
    def __init__(self, link: Path, stations: int = 4, firmware: str = "fake-1.0",
                 protocol: int = PROTOCOL_VERSION, ack: bool = True, boot: int = 1000) -> None:
        """``protocol`` 2: an old bridge, with protocol 2's XOR checksums both ways."""
        self.link = link
        self.stations = stations
        self.firmware = firmware
        self.protocol = protocol
        self.received: list[bytes] = []
        self.leds: dict[int, str] = {}
        self.led_lines: list[tuple[int, str]] = []  # every L line, in order (stop() turns them off)
        self.frames: list[list[tuple[int, int, int]]] = []
        self.hello_requests = 0
        self.state_requests = 0
        self.ack = ack  # acknowledge LED frames (flow control)
        self.held: dict[int, tuple[int, int]] = {}  # station -> (button, switch) for the state report
        self.bad_frames = 0
        self.boot = boot
        self.seq = boot  # a boot's lines count from its id
        self.history: dict[int, bytes] = {}
        self.presses = [0] * stations
        self.last_press = [0] * stations
        self.resend_requests: list[tuple[int, int]] = []
        self.latest_us = self.proved_us = 0  # the latest edge's clock, and the latest proven
        self._send_lock = threading.Lock()  # the reader thread answers while a test sends
        self._master = -1
        self._slave = -1
        self._reader: threading.Thread | None = None
        self._running = False
        self.replug()

    # --- the cable ---------------------------------------------------------------------

    def replug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        tmp = self.link.with_suffix(".new")
        if tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        os.replace(tmp, self.link)
        self._master, self._slave = master, slave
        self._running = True
        self._reader = threading.Thread(target=self._read_loop, args=(master,), daemon=True)
        self._reader.start()

    def unplug(self) -> None:
        self._running = False
        if self._reader is not None:
            self._reader.join(timeout=2)
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1

    def close(self) -> None:
        if self._master >= 0:
            self.unplug()

    # --- talking -----------------------------------------------------------------------

    def send_raw(self, data: bytes, proof: bool = True) -> None:
        """Write ``data``; after edge lines (protocol 4) a state line follows, 20 ms after
        the latest edge on the fake's clock, as the firmware sends one after every burst:
        it tells the table that nothing before it is missing."""
        if proof and self.protocol >= 4 and self.latest_us > self.proved_us:
            self.proved_us = self.latest_us
            data += self.state_line(self.latest_us + 20_000)
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._master, view)
            except BlockingIOError:
                time.sleep(0.001)
                continue
            view = view[n:]

    def line(self, verb: str, *fields: object) -> bytes:
        """The next line (numbered and kept, for protocol 4), not yet sent."""
        if self.protocol < 4:
            return (encode if self.protocol == 3 else encode_old)(verb, *fields)
        with self._send_lock:
            if verb in ("B", "S", "R", "A"):
                station, level, us = (int(f) for f in fields)  # type: ignore[call-overload]
                self.latest_us = max(self.latest_us, us)
                if verb in ("B", "S"):  # the state line follows the edges sent
                    button, switch = self.held.get(station, (0, 0))
                    self.held[station] = (level, switch) if verb == "B" else (button, level)
                if verb == "B" and level == 1:
                    self.presses[station] = (self.presses[station] + 1) % COUNT_PERIOD
                    self.last_press[station] = us
            data = encode(verb, *fields, self.seq)
            self.history[self.seq] = data
            self.history.pop(self.seq - 256, None)
            self.seq = (self.seq + 1) % SEQ_PERIOD
        return data

    def send(self, verb: str, *fields: object) -> None:
        self.send_raw(self.line(verb, *fields))

    def hello(self) -> None:
        if self.protocol < 4:
            self.send("HELLO", self.protocol, self.firmware, self.stations)
        else:
            self.send("HELLO", self.protocol, self.firmware, self.stations, self.boot, int(time.monotonic() * 1e6))

    def state_line(self, us: int | None = None) -> bytes:
        """The state line (held buttons from ``held``), numbered, not yet sent."""
        fields: list[object] = [int(time.monotonic() * 1e6) if us is None else us, min(self.history, default=self.seq)]
        for station in range(self.stations):
            button, switch = self.held.get(station, (0, 0))
            fields += [button, switch, -1, self.presses[station], self.last_press[station]]
        return self.line("T", *fields)

    def state(self) -> None:
        if self.protocol >= 4:
            self.send_raw(self.state_line())
            return
        for station in range(self.stations):  # an old bridge: one line per station
            button, switch = self.held.get(station, (0, 0))
            self.send("ST", station, button, switch, -1, int(time.monotonic() * 1e6))

    def _read_loop(self, master: int) -> None:
        framer = Framer()
        while self._running:
            ready, _, _ = select.select([master], [], [], 0.02)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            for record in framer.feed(chunk):
                self._handle(record)

    def _handle(self, line: bytes) -> None:
        self.received.append(line)
        if line.startswith(FRAME_START):
            try:
                seq, pixels = decode_frame(line)
            except MalformedLine:
                self.bad_frames += 1
                return
            self.frames.append(pixels)
            if self.ack:
                self.send("K", seq)
            return
        msg: Message | None
        if self.protocol >= 3:
            try:
                msg = decode(line, TABLE_VERBS if self.protocol >= 4 else {**TABLE_VERBS, "ST?": 0})
            except MalformedLine:
                return
        else:
            msg = decode_old(line, TABLE_VERBS)
            if msg is None:
                return
        if msg.verb == "HELLO?":
            self.hello_requests += 1
            self.hello()
            self.state()
        elif msg.verb == "ST?":
            self.state_requests += 1
            first, count = int(msg.fields[0]), int(msg.fields[1])
            self.resend_requests.append((first, count))
            self.send_raw(b"".join(self.history.get((first + k) % SEQ_PERIOD, b"") for k in range(count)),
                          proof=False)
            self.state()
        elif msg.verb == "L":
            self.leds[int(msg.fields[0])] = msg.fields[1]
            self.led_lines.append((int(msg.fields[0]), msg.fields[1]))


def wait_for(condition: object, timeout: float = 30.0) -> bool:
    """Poll ``condition()`` until it is true or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.005)
    return bool(condition())  # type: ignore[operator]
