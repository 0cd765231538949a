"""The table side of the serial I/O bridge (pyserial), and the LEDs it drives.

:class:`SerialBridge` is a :class:`~table.hardware.interfaces.Stations` backend: a
microcontroller (``firmware/``) reads the buttons and knobs, stamps every edge with
its own microsecond clock and sends protocol lines (see
:mod:`table.hardware.bridge_protocol`); the same
:class:`~table.hardware.buttons.StationCore` as on GPIO orders them.

Unplugging is normal life: a read or write error closes the port, the reader
tries to open it again every ``reconnect_every`` seconds (a port that does not open
is logged once per reason, in one sentence naming the node, its owner, group and
mode, the group this process lacks and the fix:
:func:`~table.hardware.devices.describe_open_failure`), and after a re-plug it asks
the bridge who it is and sends the button LEDs again. The bridge answers with
a state report (every input's level), which corrects what the table believes about
held buttons without reporting a press. Every line carries a CRC-16; a record that
fails it, or any other check, is counted by reason and skipped - bad input never
drops the link - and a record cut off by a pulled cable never swallows the next one.
A bridge that speaks another protocol version is named in one sentence (logged, and
``protocol_mismatch`` in :meth:`SerialBridge.diagnostics`).

Absolute knobs: the bridge sends every reading of the data lines; the same
:class:`~table.hardware.knobs.AbsoluteDecoder` as on GPIO waits until a reading is
stable, so a pointer moving between sectors reports no sector it never rested on.

LED frames go out as binary records with flow control: at most one frame is on its
way; a newer frame replaces one still waiting (counted as ``frames_replaced``), and
the bridge acknowledges each frame it has shown. So the caller never waits on the
port however slow the bridge is. Nothing here raises into the table loop after
:meth:`SerialBridge.start`.
"""

from __future__ import annotations

import collections
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from table.common.errors import TableError
from table.hardware.bridge_protocol import (
    COUNT_PERIOD,
    OLD_BRIDGE_VERBS,
    PROTOCOL_VERSION,
    STATE_FIELDS,
    Framer,
    MalformedLine,
    Message,
    Report,
    Sequencer,
    decode,
    decode_old,
    encode,
    encode_frame,
    encode_old,
    number,
    parse_report,
    version_mismatch,
)
from table.hardware.buttons import StationCore, Timing, pump_until_stopped
from table.hardware.devices import describe_open_failure
from table.hardware.hourglass import limit_frame
from table.hardware.interfaces import (
    LONG_PUSH,
    PUSH,
    RGB,
    Hourglass,
    HourglassLayout,
    InputSink,
    LedState,
    StationInput,
    Stations,
)
from table.hardware.knobs import AbsoluteDecoder, TickMapper

log = logging.getLogger("table.hardware.serial")

MAX_PENDING = 16384  # a record longer than this without a newline is thrown away
ACK_TIMEOUT = 0.5  # seconds without an acknowledgement before a frame counts as lost
HELLO_RETRY = 1.0  # seconds without a HELLO before the table asks again, also in protocol 2
RESEND_EVERY = 0.05  # seconds before a missing line is asked for again
MAX_ASKED = 16  # runs of missing lines asked for in one go
RESYNC_AFTER = 16  # lines refused in a row (numbers that do not fit) before the table asks HELLO? again
OFFSET_WINDOW = 10.0  # seconds of lines that came on time the clock mapping looks back on
RESYNC_EVERY = 0.25  # seconds between two such HELLO? (a heartbeat)
ERROR_LOG_EVERY = 10.0  # seconds between two log lines of the same bridge error (the rest counted)


class SerialBridge(Stations):
    """Stations (and LED frames) over a serial line to the I/O bridge."""

    def __init__(
        self,
        port: str,
        stations: int,
        timing: Timing | None = None,
        *,
        baud: int = 115200,
        clock: Callable[[], float] = time.monotonic,
        reconnect_every: float = 0.5,
        read_timeout: float = 0.05,
    ) -> None:
        self.port_name = port
        self.baud = baud
        self.stations = stations
        self.timing = timing or Timing()
        self.clock = clock
        self.reconnect_every = reconnect_every
        self.read_timeout = read_timeout
        self.core = StationCore(stations, self.timing)
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._write_lock = threading.Lock()
        self._port: Any = None
        self._sink: InputSink | None = None
        self._stopping = False
        self._threads: list[threading.Thread] = []
        self._ticks = TickMapper()
        self._last_us: int | None = None
        self._last_edge = float("-inf")
        self._leds: dict[int, LedState] = {}
        self.malformed: dict[str, int] = {}
        self.lines = 0
        self.connects = 0
        self.disconnects = 0
        self.frames_sent = 0
        self.frames_dropped = 0
        self.bridge_errors = 0
        self.hello: dict[str, Any] | None = None
        self.protocol_mismatch: str | None = None
        self._answered = False  # a HELLO arrived on this connection
        self._asked_at = float("-inf")
        self._failures_logged = 0
        self._open_failure: str | None = None  # why the port last failed to open (logged once)
        self.connected = threading.Event()
        self.state_reports = 0
        self.frames_replaced = 0
        self.ack_timeouts = 0
        self.frames_acked = 0
        self._frame_lock = threading.Lock()
        self._frame_seq = 0
        self._in_flight: tuple[int, float] | None = None  # (seq, sent at)
        self._waiting_frame: tuple[int, bytes] | None = None
        self._framer = Framer(MAX_PENDING)
        self._absolute = [AbsoluteDecoder("gray", self.timing.absolute_stable) for _ in range(stations)]
        # protocol 4's recovery (docs/serial-bridge.md, "Recovery")
        self._sequencer = Sequencer()
        self._asked_missing: list[tuple[int, int]] = []  # the runs of lines last asked for
        self._asked_missing_at = float("-inf")
        self._resync_asked_at = float("-inf")
        self._presses_seen: list[int | None] = [None] * stations  # button presses acted on, mod COUNT_PERIOD
        self._reconcile_next = True  # the next state line corrects the belief (a sync, or lines lost)
        self._proof_t = float("-inf")  # every line up to this table time has been acted on
        self._long_held: dict[int, StationInput] = {}  # long pushes waiting for the proof
        # each knob switch as the lines say: (down, since, known from its own edge)
        self._switch: list[tuple[bool, float, bool]] = [(False, float("-inf"), False)] * stations
        self._long_given = [False] * stations  # the current push has made its long push
        self._extra: list[StationInput] = []  # inputs made here, delivered by the next pump
        self._error_log: dict[str, list[float]] = {}  # error pattern -> [logged at, not logged since]
        self.resend_requests = 0
        self.lines_acted = 0
        self._refused_run = 0
        self._provisional = False  # the clock mapping was estimated from a late line
        self._polled = float("-inf")  # the table time the core was last polled at
        self._acted_boot: int | None = None  # the boot of the last HELLO acted on
        # (arrival, arrival - bridge clock) of lines that came on time, for the clock mapping:
        # the smallest delay of the last OFFSET_WINDOW seconds first
        self._delays: collections.deque[tuple[float, float]] = collections.deque()
        self.presses_recovered = 0
        self.presses_unrecovered = 0
        self.long_pushes_refused = 0

    # --- Stations ---------------------------------------------------------------------

    def start(self, sink: InputSink) -> None:
        try:
            import serial  # noqa: F401  (pyserial; fail here with a sentence, not in a thread)
        except ImportError:
            raise TableError("the serial I/O bridge needs pyserial (pip install pyserial)") from None
        self._sink = sink
        self._stopping = False
        for target, name in ((self._read_loop, "bridge-reader"), (self._pump_loop, "bridge-pump")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            self._sink = None
            self._wake.notify_all()
        for station in list(self._leds):
            self._write(encode("L", station, "off"))
        for thread in self._threads:
            thread.join(timeout=2)
        self._threads.clear()
        self._close_port()

    def set_leds(self, states: Mapping[int, LedState]) -> None:
        for station, state in states.items():
            if self._leds.get(station) == state:
                continue
            self._leds = {**self._leds, station: state}  # replaced, never mutated: the reader iterates it
            self._write(encode("L", station, state))

    def arm(self, stations: Collection[int] | None, at: float | None = None) -> None:
        with self._lock:
            self.core.arm(stations, at)

    def pushes_held(self) -> dict[int, float]:
        with self._lock:
            return self.core.pushes_held()

    def diagnostics(self) -> dict[str, Any]:
        with self._lock:
            out = self.core.diagnostics(self.clock())
        out.update(
            backend="serial",
            port=self.port_name,
            connected=self.connected.is_set(),
            bridge=self.hello,
            protocol_mismatch=self.protocol_mismatch,
            lines=self.lines,
            malformed=dict(self.malformed),
            malformed_total=sum(self.malformed.values()),
            connects=self.connects,
            disconnects=self.disconnects,
            frames_sent=self.frames_sent,
            frames_dropped=self.frames_dropped,
            frames_replaced=self.frames_replaced,
            frames_acked=self.frames_acked,
            ack_timeouts=self.ack_timeouts,
            state_reports=self.state_reports,
            bridge_errors=self.bridge_errors,
            lines_acted=self.lines_acted,
            lines_lost=self._sequencer.lost,
            lines_waiting=len(self._sequencer.pending),
            resend_requests=self.resend_requests,
            presses_recovered=self.presses_recovered,
            presses_unrecovered=self.presses_unrecovered,
            long_pushes_refused=self.long_pushes_refused,
        )
        return out

    # --- LED frames -------------------------------------------------------------------

    def send_frame(self, frame: Sequence[RGB]) -> bool:
        """Send one LED frame (already limited), or keep it until the bridge has shown
        the one before; never waits. False when the bridge is away (dropped)."""
        if self._port is None:
            self.frames_dropped += 1
            return False
        with self._frame_lock:
            self._frame_seq = (self._frame_seq + 1) & 0xFF
            data = encode_frame(frame, self._frame_seq)
            if self._in_flight is not None and self.clock() - self._in_flight[1] > ACK_TIMEOUT:
                self.ack_timeouts += 1  # the bridge lost it (or was reset): go on
                self._in_flight = None
            if self._in_flight is not None:
                if self._waiting_frame is not None:
                    self.frames_replaced += 1
                self._waiting_frame = (self._frame_seq, data)
                return True
            self._in_flight = (self._frame_seq, self.clock())
        return self._send_frame_now(data)

    def _send_frame_now(self, data: bytes) -> bool:
        ok = self._write(data)
        if ok:
            self.frames_sent += 1
        else:
            self.frames_dropped += 1
        return ok

    def _frame_acked(self, seq: int) -> None:
        with self._frame_lock:
            if self._in_flight is None or self._in_flight[0] != seq:
                return
            self.frames_acked += 1
            waiting, self._waiting_frame = self._waiting_frame, None
            if waiting is None:
                self._in_flight = None
                return
            self._in_flight = (waiting[0], self.clock())
        self._send_frame_now(waiting[1])

    # --- the line -----------------------------------------------------------------------

    def _open(self) -> bool:
        import serial

        try:
            port = serial.Serial(self.port_name, self.baud, timeout=self.read_timeout, write_timeout=0.5)
        except (serial.SerialException, OSError, ValueError) as exc:
            self._open_failed(exc)
            return False
        self._open_failure = None
        self.attach(port)
        return True

    def _open_failed(self, exc: BaseException) -> None:
        """Say why the port does not open, once per change of that reason (the node
        appears, its group or mode changes...), never once per retry."""
        state = _open_state(self.port_name, exc)
        if state == self._open_failure:
            return
        self._open_failure = state
        log.warning("%s", describe_open_failure(self.port_name, exc))

    def attach(self, port: Any) -> None:
        """Start talking on an open port (anything with ``write``; the reader thread
        or a test feeds what it reads to :meth:`receive`)."""
        with self._write_lock:
            self._port = port
        self._framer.reset()
        with self._frame_lock:
            self._in_flight, self._waiting_frame = None, None
        self.connects += 1
        with self._lock:
            self._dropped(self._sequencer.reset)
            self._acted_boot = None
            self._reconcile_next = True
            self._long_held.clear()
        self._answered = False
        self._asked_at = self.clock()
        self.connected.set()
        log.info("I/O bridge connected on %s", self.port_name)
        self._write(encode("HELLO?", PROTOCOL_VERSION))
        for station, state in list(self._leds.items()):  # set_leds may run meanwhile
            self._write(encode("L", station, state))

    def _close_port(self) -> None:
        with self._write_lock:
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:
                log.debug("closing %s failed", self.port_name, exc_info=True)
        self.connected.clear()

    def _lost(self, why: object) -> None:
        if self._port is not None:
            self.disconnects += 1
            log.warning("I/O bridge on %s lost (%s); waiting for it to come back", self.port_name, why)
        self._close_port()

    def _write(self, data: bytes) -> bool:
        with self._write_lock:
            port = self._port
            if port is None:
                return False
            try:
                port.write(data)
                return True
            except Exception as exc:  # SerialException, OSError, write timeout
                why = exc
        self._lost(why)
        return False

    def _read_loop(self) -> None:
        """Read lines until :meth:`stop`; survives every error (the thread must not die)."""
        while not self._stopping:
            try:
                self._read_until_lost()
            except Exception:
                log.exception("the I/O bridge reader failed; reconnecting")
                self._lost("reader error")
                time.sleep(self.reconnect_every)

    def _read_until_lost(self) -> None:
        while not self._stopping:
            port = self._port
            if port is None:
                if not self._open():
                    time.sleep(self.reconnect_every)
                continue
            try:
                chunk = port.read(max(1, port.in_waiting))
            except Exception as exc:
                self._lost(exc)
                continue
            if chunk:
                self.receive(chunk)
            self._ask_again()

    def _ask_again(self) -> None:
        """No HELLO on this connection for a while: ask again, once more in protocol 2's
        line format as well, so that an old firmware answers and can be named."""
        if self._answered or self._port is None or self.clock() - self._asked_at < HELLO_RETRY:
            return
        self._asked_at = self.clock()
        self._write(encode("HELLO?", PROTOCOL_VERSION))
        self._write(encode_old("HELLO?", PROTOCOL_VERSION))

    def receive(self, chunk: bytes) -> None:
        """Bytes read from the bridge: complete records are acted on."""
        framer = self._framer
        cut, too_long = framer.cut, framer.too_long
        for record in framer.feed(chunk):
            try:
                self.handle_line(record)
            except Exception:  # a bug must cost one line, never the link (and its buffer)
                self._count("failed")
                self._failures_logged += 1
                if self._failures_logged == 1 or self._failures_logged % 1000 == 0:
                    log.exception("the I/O bridge reader failed on the record %r (skipped)", record[:80])
        for reason, n in (("cut", framer.cut - cut), ("too_long", framer.too_long - too_long)):
            if n:
                self.lines += n
                self.malformed[reason] = self.malformed.get(reason, 0) + n

    def _count(self, reason: str) -> None:
        self.malformed[reason] = self.malformed.get(reason, 0) + 1

    def handle_line(self, line: bytes) -> None:
        """Act on one record from the bridge (public for tests and the bench): checked
        completely first (:func:`~table.hardware.bridge_protocol.parse_report`), and
        counted under its reason and skipped if any check fails."""
        self.lines += 1
        try:
            report = parse_report(line, self.stations)
        except MalformedLine as exc:
            old = decode_old(line) if exc.reason in ("no_crc", "bad_crc") else None
            if old is not None:
                self._old_line(old)
            elif self.protocol_mismatch is not None and _old_crc_line(line):
                self._count("old_protocol")  # a protocol 3 line (no number) from a bridge named so
            else:
                self._count(exc.reason)
            return
        if report.seq is None:  # an older bridge's HELLO: name the mismatch
            self._answered = True
            self._hello(report.values[0], report.text, report.values[1])
            return
        with self._lock:
            lost = self._sequencer.lost
            ready, refused = self._dropped(lambda: self._sequencer.offer(report))
            if refused is not None:
                self._count("old_protocol" if refused == "before_hello" and self.protocol_mismatch else refused)
                self._refused_run += 1
                # a state line of another numbering: most likely the bridge was reset and its
                # HELLO lost - asked at once, its lines are still kept when the answer comes
                foreign = report.verb == "T" and self._sequencer.foreign(report.seq)
                if (foreign or self._refused_run >= RESYNC_AFTER) and self.protocol_mismatch is None:
                    self._resync()
            else:
                self._refused_run = 0
            if self._sequencer.lost != lost:
                self._reconcile_next = True  # lines are gone: the next state line says what they did
            # only a line taken as it arrived, the newest one, tells how late lines arrive (not
            # one sent again: lines that came after it wait, or it fills a gap of its own)
            on_time = ready == [report] and not self._sequencer.pending
            if report.verb == "HELLO" and refused is None and report.values[2] != self._acted_boot:
                # (a reset's HELLO waits for the boot's first lines: the newest one waiting)
                newest = on_time or self._sequencer.newest_waiting(report.seq)
                self._new_boot(report.values[2], report.values[3], newest)
            for item in ready:
                self.lines_acted += 1
                self._act(item, on_time)
            self._ask_missing()

    def _new_boot(self, boot: int, us: int, newest: bool) -> None:
        """The first HELLO of a boot (or of a connection), as it arrives: the clock mapping
        starts from it - lines of the boot sent again later map by it - and the next
        state line sets what the table believes. ``newest``: it is the newest line received
        (taken as it arrived, or the one furthest ahead of those waiting)."""
        self._acted_boot = boot
        self._ticks = TickMapper()
        self._delays.clear()
        self._last_us = None
        self._edge_time(us, newest)  # (a HELLO sent again maps provisionally, until a line comes on time)
        # the HELLO may be ahead of the boot's first lines (sent again, acted on after it):
        # their earlier clocks are not a clock that started again
        self._last_us = None
        self._reconcile_next = True
        self._presses_seen = [None] * self.stations
        self._switch = [(False, float("-inf"), False)] * self.stations
        self._long_given = [False] * self.stations
        self._long_held.clear()

    def _dropped(self, step: Callable[[], Any]) -> Any:
        """Run ``step`` on the sequencer, counting the waiting lines it throws away."""
        before = self._sequencer.dropped
        out = step()
        if self._sequencer.dropped != before:
            self.malformed["dropped"] = self.malformed.get("dropped", 0) + self._sequencer.dropped - before
        return out

    def _ask_missing(self) -> None:
        """Lines wait behind missing ones: ask the bridge for every run of missing lines
        (one ``ST? <first> <count>`` each, in one write), at once, and again every
        RESEND_EVERY while some are missing and lines keep coming."""
        holes = self._sequencer.holes()[:MAX_ASKED]
        if not holes:
            return
        now = self.clock()
        if holes == self._asked_missing and now - self._asked_missing_at < RESEND_EVERY:
            return
        self._asked_missing, self._asked_missing_at = holes, now
        self.resend_requests += 1
        self._write(b"".join(encode("ST?", first, count) for first, count in holes))

    def _resync(self) -> None:
        """Lines whose numbers do not fit (a reset whose HELLO was lost): ask who is there,
        at most once every RESYNC_EVERY (its HELLO starts the numbering afresh)."""
        now = self.clock()
        if now - self._resync_asked_at >= RESYNC_EVERY:
            self._resync_asked_at = now
            self._write(encode("HELLO?", PROTOCOL_VERSION))

    def _old_line(self, msg: Message) -> None:
        """A protocol-2 line: counted, never acted on; its HELLO names the mismatch."""
        self._count("old_protocol")
        if msg.verb != "HELLO":
            return
        try:
            version, stations = number(msg.fields[0], 0), number(msg.fields[2], 0, 16)
        except MalformedLine:
            return
        if version != PROTOCOL_VERSION:  # (a new bridge also answers the old probe: ignored)
            self._answered = True
            self._hello(version, msg.fields[1], stations)

    def _hello(self, version: int, firmware: str, stations: int) -> None:
        # The mismatch is known before ``hello`` is: a reader of ``hello`` on another
        # thread then always sees the mismatch that goes with it.
        mismatch = version_mismatch(version)
        if mismatch is not None and mismatch != self.protocol_mismatch:
            log.error("%s", mismatch[0].upper() + mismatch[1:])
        self.protocol_mismatch = mismatch
        self.hello = {"protocol": version, "firmware": firmware, "stations": stations}

    def _act(self, report: Report, on_time: bool) -> None:
        """Act on one line, in the order of the bridge's numbers; ``on_time``: it is the
        line just received, taken as it arrived (not sent again, not held behind a gap)."""
        verb, v = report.verb, report.values
        if verb == "K":
            self._frame_acked(v[0])
            return
        if verb == "HELLO":
            self._answered = True
            self._hello(v[0], report.text, v[1])
            return
        if verb == "E":
            self.bridge_errors += 1
            self._bridge_error(report.text)
            return
        if verb == "T":
            self._state(v, on_time)
            return
        station, level, us = v
        with self._lock:
            t = self._edge_time(us, on_time)
            if verb == "B":
                if level and self._presses_seen[station] is not None:
                    self._presses_seen[station] = (self._presses_seen[station] + 1) % COUNT_PERIOD  # type: ignore[operator]
                self.core.button_edge(station, bool(level), t, self._arrival(on_time))
            elif verb == "S":
                held = self._long_held.get(station)
                if not level and held is not None and t < held.t:
                    self._refuse_long_push(station, t)  # released before it became long
                self._switch[station] = (bool(level), t, True)
                if level:
                    self._long_given[station] = False
                self.core.knob_switch_edge(station, bool(level), t, self._arrival(on_time))
            elif verb == "R":
                self.core.turn_delta(station, level, t)
            else:
                self._absolute[station].update_sector(level, t)
            self._proven(t)
            self._wake.notify()

    def _arrival(self, on_time: bool) -> float | None:
        """When the line being acted on arrived, for measuring late delivery; None for a
        line sent again or held behind a missing one (late on purpose, not by the
        machine: no input was decided on meanwhile)."""
        return self._last_edge if on_time else None

    def _bridge_error(self, text: str) -> None:
        """Log a bridge's error line; the same error again within ERROR_LOG_EVERY is only
        counted, and said with the next one logged (a flood is one line, then a count)."""
        key = re.sub(r"[0-9]+", "#", text)  # "overflowed 17" and "overflowed 1234" are one error
        if key not in self._error_log and len(self._error_log) >= 64:
            key = "*"  # many different errors: limited together
        now = self.clock()
        entry = self._error_log.setdefault(key, [float("-inf"), 0.0])
        if now - entry[0] < ERROR_LOG_EVERY:
            entry[1] += 1
            return
        more = int(entry[1])
        since = f" ({more} more like it in the last {now - entry[0]:.0f} s)" if more else ""
        entry[0], entry[1] = now, 0.0
        log.warning("I/O bridge: %s%s", text, since)

    def _state(self, v: tuple[int, ...], on_time: bool) -> None:
        """A state line (the heartbeat, or the answer to ST?). Acted on in order, so
        every edge before it has been taken; it corrects the belief only after lines
        were lost (or on a new connection): then a button's press count tells whether a
        press went missing entirely, which is delivered once, at its own time."""
        with self._lock:
            t = self._edge_time(v[0], on_time)
            self.state_reports += 1
            fix = self._reconcile_next
            for i in range(min(self.stations, len(self._switch), (len(v) - 2) // STATE_FIELDS)):
                button, switch, sector, presses, last = v[2 + STATE_FIELDS * i:2 + STATE_FIELDS * (i + 1)]
                seen = self._presses_seen[i]
                if fix or seen != presses:
                    self._correct(i, bool(button), bool(switch), sector, presses, last, t)
                if bool(switch) != self._switch[i][0]:
                    self._switch[i] = (bool(switch), t, False)  # its edge was lost: only "by now" is known
            self._reconcile_next = False
            self._proven(t)
            self._wake.notify()

    def _correct(self, station: int, button: bool, switch: bool, sector: int, presses: int, last_us: int,
                 t: float) -> None:
        seen = self._presses_seen[station]
        missed = 0 if seen is None else (presses - seen) % COUNT_PERIOD
        if missed and self._ticks.offset is not None:
            # presses whose lines are gone: the last one is delivered at its own time (the
            # core's lockout decides, as for any edge, whether it is a new press)
            at = last_us / 1e6 + self._ticks.offset
            self.core.reconcile(station, False, switch, at - 1e-6)
            self.core.button_edge(station, True, at, self._last_edge)
            self.presses_recovered += 1
            self.presses_unrecovered += missed - 1
            log.info("station %d: %d press(es) whose lines were lost, the last one recovered", station, missed)
        self._presses_seen[station] = presses
        released = self._switch[station][0] and not switch  # its release line is gone
        self.core.reconcile(station, button, switch, t)
        if sector >= 0:
            self._absolute[station].update_sector(sector, t)
        if not switch and station in self._long_held:
            self._refuse_long_push(station, t)
        elif released and not self._long_given[station]:
            self._extra.append(StationInput(PUSH, station, t))  # the push, without its release line

    def _refuse_long_push(self, station: int, t: float) -> None:
        """A long push whose switch turned out to be released before its time: a push."""
        self._long_held.pop(station)
        self.long_pushes_refused += 1
        self._extra.append(StationInput(PUSH, station, t))

    def _proven(self, t: float) -> None:
        """Every line up to ``t`` has been acted on (unless some were lost and no state
        line has said since what they did): long pushes up to then were held."""
        if self._reconcile_next:
            return
        self._proof_t = max(self._proof_t, t)
        for station, item in list(self._long_held.items()):
            if item.t <= self._proof_t:
                del self._long_held[station]
                self._extra.append(item)

    def _edge_time(self, us: int, on_time: bool) -> float:
        """The table time of the bridge clock ``us``; ``on_time``: its line is the newest
        received, so its arrival tells how late lines arrive."""
        with self._lock:
            now = self.clock()
            if self._last_us is not None and us < self._last_us - 1_000_000:
                # the bridge's clock started again (a new boot starts a new mapping when its
                # HELLO arrives, _new_boot; this is for a bridge that kept its boot id)
                self._ticks = TickMapper()
                self._delays.clear()
            self._last_us = us
            arrival = now
            if on_time:
                # The mapping follows the smallest delay of the lines that came on time in
                # the last OFFSET_WINDOW seconds, never one line alone: a line that only
                # looks on time (the first copy of a lost line, with nothing after it yet)
                # must not move every later edge by its lateness.
                delays = self._delays
                d = now - us / 1e6
                while delays and delays[-1][1] >= d:
                    delays.pop()
                delays.append((now, d))
                while delays[0][0] < now - OFFSET_WINDOW:
                    delays.popleft()
                arrival = us / 1e6 + delays[0][1]
            # quiet for longer than edges of one race can arrive apart: safe to re-estimate;
            # and an estimate taken from a line that came late (sent again) is corrected by
            # the first line that comes on time, whatever is waiting
            quiet = on_time and (self._provisional or (
                self.core.quiet and now - self._last_edge > self.timing.hold + self.core.lateness_margin(now)))
            if self._ticks.offset is None or quiet:
                self._provisional = not on_time
            self._last_edge = now
            return self._ticks.to_table(us / 1e6, arrival, adjust=quiet)

    # --- ordered delivery ---------------------------------------------------------------

    def pump(self, now: float | None = None) -> float | None:
        with self._lock:
            now = self.clock() if now is None else now
            # Nothing is decided later than the lines prove: lines are acted on in order, so
            # the bridge's clock in the last line acted on says that no edge before it is
            # still on its way - a line missing (asked for again) holds every decision
            # after the line before it, never one before. (The bridge sends a state line
            # 10 ms after every burst of edges, and 4 a second anyway.)
            # (past the proof by the core's own margin - the settle window, longer while
            # lines run late - which it waits in any case before it decides an input)
            limit = self._proof_t + self.core.lateness_margin(now)
            now = max(self._polled, min(now, limit))
            self._polled = now
            wake: list[float] = []
            for i, decoder in enumerate(self._absolute):
                got = decoder.poll(now)
                if got is not None:
                    self.core.turn_sector(i, got[0], decoder.sectors, got[1])
                w = decoder.wakeup()
                if w is not None:
                    wake.append(w)
            out = []
            for item in self.core.poll(now):
                if item.kind == LONG_PUSH:
                    down, since, exact = self._switch[item.station]
                    if not down and not (exact and since >= item.t):  # released before its time
                        self.long_pushes_refused += 1
                        out.append(StationInput(PUSH, item.station, max(since, item.t)))
                        continue
                    if self._reconcile_next or item.t > self._proof_t:
                        self._long_held[item.station] = item  # only once the lines prove it held
                        continue
                out.append(item)
            if self._extra:
                out += self._extra
                self._extra = []
                out.sort(key=lambda item: item.t)
            for item in out:
                if item.kind == LONG_PUSH:
                    self._long_given[item.station] = True
            sink = self._sink
            nxt = self.core.next_wakeup()
            if nxt is not None:
                wake.append(nxt)
            nxt = min(wake) if wake else None
            if nxt is not None and nxt > limit:
                nxt = None  # not before the next line proves it (each line wakes the pump)
        if sink is not None:
            for item in out:
                try:
                    sink(item)
                except Exception:
                    log.exception("the input sink failed on %r", item)
        return nxt

    def _pump_loop(self) -> None:
        pump_until_stopped(self.pump, self._wake, lambda: self._stopping, self.clock)


def _old_crc_line(line: bytes) -> bool:
    """Whether ``line`` is a well-formed protocol 3 line (a CRC, no number)."""
    try:
        decode(line, OLD_BRIDGE_VERBS)
    except MalformedLine:
        return False
    return True


def _open_state(port: str, exc: BaseException) -> str:
    """What a failed open is, for telling a new reason from the same one again: the error
    number and the node's owner, group and mode."""
    try:
        st = os.stat(port)
        node = f"{st.st_uid}:{st.st_gid}:{st.st_mode:o}"
    except OSError:
        node = "absent"
    return f"{type(exc).__name__}:{getattr(exc, 'errno', None)}:{node}"


BRIDGE_WIRE_ORDER = (1, 0, 2)
"""The bridge sends a frame's three bytes of a pixel to the strip as its second, first
and third (``firmware/main.py`` packs them for a GRB strip, the WS2812's order)."""


def bridge_byte_order(pixel_order: str) -> tuple[int, int, int]:
    """Which colour (0 red, 1 green, 2 blue) each of a pixel's three frame bytes must
    carry for a strip whose ``pixel_order`` (``"GRB"``, ``"RGB"``, any order of the three
    letters) is the order it reads them in, given :data:`BRIDGE_WIRE_ORDER`. ``"GRB"``
    needs none: (0, 1, 2). Raises :class:`TableError` for an order with white."""
    order = pixel_order.upper()
    if sorted(order) != ["B", "G", "R"]:
        raise TableError(
            f'leds.pixel_order = "{pixel_order}" needs 4 bytes per LED, which the serial I/O bridge does not send: '
            'use an RGB strip on the bridge, or drive this strip from the Pi (leds.backend = "spi" or "pi5")')
    a, b, c = ("RGB".index(order[k]) for k in BRIDGE_WIRE_ORDER)
    return a, b, c


class BridgeHourglass(Hourglass):
    """The hourglass LEDs on the I/O bridge: frames go down the serial line.

    ``pixel_order`` is ``[leds] pixel_order``: each pixel's bytes are put in the order
    that makes the bridge's fixed packing (:data:`BRIDGE_WIRE_ORDER`) hand the strip its
    own colour order, so the protocol and the firmware stay as they are.
    """

    def __init__(
        self, bridge: SerialBridge, layout: HourglassLayout, brightness: float, max_milliamps: float | None,
        pixel_order: str = "GRB",
    ) -> None:
        self.bridge = bridge
        self.layout = layout
        self.brightness = brightness
        self.max_milliamps = max_milliamps
        self.byte_order = bridge_byte_order(pixel_order)

    def show(self, frame: Sequence[RGB]) -> None:
        limited = limit_frame(frame, self.brightness, self.max_milliamps)
        a, b, c = self.byte_order
        if (a, b, c) != (0, 1, 2):
            limited = [(p[a], p[b], p[c]) for p in limited]
        self.bridge.send_frame(limited)

    def close(self) -> None:
        self.bridge.send_frame([(0, 0, 0)] * self.layout.pixels)
