"""The process around the table loop: the composition root of ``table run`` and ``table sim``.

:class:`Runner` opens the window (or the console, or nothing when headless), the journal,
the stations and outputs the hardware config names (or the simulator's), and paces the
frames of :class:`~table.loop.app.Table`, waking at once when an input arrives.
:func:`run_table` runs it until a signal, the window's close or a time limit.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import math
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from table.common.config import TableConfig
from table.common.errors import TableError
from table.display.layers import offscreen
from table.hardware.config import HardwareConfig
from table.kiosk.faults import arm_test_fault, hang_for_the_watchdog
from table.kiosk.systemd import EXIT_LEAVE_KIOSK, LeaveGesture, Notifier
from table.play.journal import Journal

if TYPE_CHECKING:
    from table.display.output import Output
    from table.display.screens import SettingsNotice

log = logging.getLogger("table.run")

SIM_BAR = 170  # height of the virtual stations bar under the display in the window
SIM_SIDE = 90  # width of the LED hourglass column beside the display
OUTPUT_SLACK_S = 0.05
"""An output's step (the LEDs' glow, 20 a second) may come this much late when a table step follows
then anyway: one wake instead of two."""
SDL_POLL_SIM_S = 0.004
"""Seconds between looks at SDL's queue while the loop sleeps, where SDL brings the
stations' inputs (the simulator's window, a console without GPIO: keys and the mouse).
SDL offers no way to sleep until an event arrives (pygame's own wait looks every
millisecond), so there the loop looks; everywhere else it sleeps until it is woken."""


def _read_picture(path: str) -> list[Any] | None:
    from table.dice import read_tray_image

    return read_tray_image(path)


def _teach_reader(folder: str) -> str:
    """The simulator's ``teach FOLDER``: the one-line report (errors as one sentence too)."""
    from table.common.errors import TableError
    from table.dice.teach import teach_folder

    try:
        return teach_folder(Path(folder))[2]
    except TableError as exc:
        return str(exc)


def _station_displays(hardware: HardwareConfig) -> Any:
    """The OLEDs at the stations, started; ``None`` without any, or when they cannot be
    reached (logged: a loose display cable must not keep the table from playing)."""
    if not hardware.private_displays:
        return None
    from table.hardware.oled import OledDisplays

    displays = OledDisplays(hardware.private_displays)
    try:
        displays.start()
    except TableError as exc:
        log.warning("the station displays stay dark: %s", exc)
        return None
    return displays


def _hardware_backends(config: TableConfig, hardware: HardwareConfig, clock: Callable[[], float]) -> tuple[Any, Any]:
    """The real stations and LED hourglass the hardware config names (Pi libraries load here)."""
    from table.hardware.leds import make_hourglass

    timing = hardware.timing(config.timing.settle_ms, config.timing.tie_window_ms, config.timing.long_push_s)
    if hardware.backend == "serial":
        from table.hardware.serial_bridge import SerialBridge

        bridge = SerialBridge(hardware.serial.port, config.stations, timing, baud=hardware.serial.baud, clock=clock)
        return bridge, make_hourglass(hardware.leds, bridge)
    from table.hardware.gpio import GpioStations

    return GpioStations(hardware, timing, clock=clock), make_hourglass(hardware.leds)


def _open_journal(config: TableConfig, journal_path: Path | None) -> Journal:
    """The daemon's journal. Faults (full disk, read-only folder, a lock) are waited out
    or played through from memory; only a journal SQLite reports corrupt is set aside.
    The table's own default place may be created; a folder given on the command line
    must exist."""
    from table.play.resume import open_journal_resilient

    wait_notifier = Notifier()
    journal = open_journal_resilient(journal_path or config.journal_path(),
                                     create_folder=journal_path is None and not config.journal,
                                     on_wait=wait_notifier.waiting)
    wait_notifier.close()
    if journal.start_report:
        log.info("%s", journal.start_report)
    return journal


class Waker:
    """What the loop sleeps on between frames: a pipe that any thread (or a signal
    handler) writes a byte to, so that the sleep ends at once; no timer ticks meanwhile."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)

    def wake(self) -> None:
        """End the current (or the next) sleep; safe from any thread and from a signal handler."""
        with contextlib.suppress(BlockingIOError, OSError):  # a full pipe is woken already
            os.write(self._write, b"\0")

    def sleep(self, seconds: float | None) -> bool:
        """Sleep until woken or ``seconds`` pass (``None``: until woken); True when woken."""
        try:
            ready, _, _ = select.select([self._read], [], [], seconds)
        except InterruptedError:  # a signal (Python retries select itself; kept for clarity)
            return True
        if not ready:
            return False
        with contextlib.suppress(BlockingIOError):
            while os.read(self._read, 512):
                pass
        return True

    def close(self) -> None:
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)


_waker: Waker | None = None
"""The running table's waker (one table loop per process)."""


def wake() -> None:
    """Wake the loop now (thread-safe): input backends call this when an input arrives."""
    if _waker is not None:
        _waker.wake()


class Runner:
    """The process around the :class:`~table.loop.app.Table`: window, backends, frame pacing.

    The loop sleeps until the next frame is due *or* an input arrives (see ``_wait``), so
    an input is handled and shown at once instead of waiting for the next frame tick.
    """

    def __init__(self, config: TableConfig, *, sim: bool, headless: bool, journal_path: Path | None,
                 attract_now: bool = False, hardware: HardwareConfig | None = None,
                 config_dir: Path | None = None, script: Any = None, speed: float = 1.0,
                 settings_notice: SettingsNotice | None = None) -> None:
        from table.loop.app import Table
        from table.play.gamedata import game_options

        self.config = config
        self.sim = sim
        self.headless = headless
        self.stop = False
        self.script = script
        self.speed = speed
        global _waker
        self.waker = _waker = Waker()
        self._bar_theme: Any = None
        self._open_display()
        self.journal = _open_journal(config, journal_path)
        self.clock: Callable[[], float] = time.monotonic
        if speed != 1.0:
            # A scripted run may go faster than real time: the table's clock runs at ``speed``.
            from table.play.clock import ScaledClock

            self.clock = ScaledClock(speed, at=time.monotonic())
        inputs, outputs = self._wire(hardware or HardwareConfig(), config_dir)
        self.table = Table(config, self.clock, self.surface, self.journal, inputs=inputs, outputs=outputs,
                           game_options=game_options(config, config_dir))
        if settings_notice is not None:
            # Settings the table did not take: the lobby tells whoever runs the table.
            self.table.lobby.notice = settings_notice
            log.warning("the lobby shows a settings notice (%s): %s", settings_notice.where,
                        " | ".join(settings_notice.problems))
        self.script_pos = 0
        if script is not None:
            self.table.attract_enabled = False
            self._start_script()
        elif self.table.resume_unfinished():
            print(f"table: resumed the unfinished game from {self.journal.path}", file=sys.stderr)
        if attract_now:
            self.table.last_input = self.clock() - config.timing.attract_after_s
        self.exit_status = 0
        self.next_frame = self.clock()
        self.wake_at = self.next_frame
        self.table_due = self.next_frame
        """When the table (not only an output) next needs a step if no input comes."""
        self.stop_at = math.inf
        """Clock time at which :meth:`run` ends (its ``seconds``)."""
        self._sim_key: object = None
        self._led_frame: tuple[Any, ...] | None = None
        self.on_present: Callable[[], None] | None = None
        self.wait_for_input = True
        self.notifier = Notifier()
        self.fault_hang = False
        arm_test_fault(self)
        self.ready_sent = False
        self.leave = LeaveGesture(0, config.stations - 1)
        self.table.input_filter = self._leave_filter

    def _open_display(self) -> None:
        """SDL's display and the window: the simulator's (the table's picture, the stations
        bar and the LED column), the headless one, or the whole screen; and the surface
        the table draws on."""
        if self.headless:
            os.environ["SDL_VIDEODRIVER"] = "dummy"
            os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        import pygame

        try:
            pygame.display.init()
        except pygame.error as exc:
            # No display device, or no right to it (the unit's DeviceAllow=char-drm).
            raise TableError(f"the display cannot be opened with SDL's "
                             f"'{os.environ.get('SDL_VIDEODRIVER', 'default')}' driver ({exc}); it needs a "
                             "screen and the right to open /dev/dri (the unit's DeviceAllow=char-drm rw)") from None
        pygame.font.init()
        sim, headless, config = self.sim, self.headless, self.config
        width, height = config.display.width, config.display.height
        self.size = (width, height)
        # On the console (SDL's KMS/DRM driver: a kiosk without GPIO, such as the QEMU
        # image) the table owns the whole screen; simulated stations then come from a
        # keyboard, and the simulator's bar and LED column would only hide the game.
        self.console = not headless and os.environ.get("SDL_VIDEODRIVER", "").lower() == "kmsdrm"
        # The simulator's stations are SDL's keys and mouse, in its window or on a console.
        self.sdl_input = sim and not headless
        self.sim_window = sim and not headless and not self.console
        if self.sim_window:
            # Fit the display, the stations bar and the LED hourglass on a laptop screen.
            scale = min(1.0, 1280 / width)
            self.disp_size = (int(width * scale), int(height * scale))
            self.window = pygame.display.set_mode((self.disp_size[0] + SIM_SIDE, self.disp_size[1] + SIM_BAR))
            pygame.display.set_caption("The game table (simulator)")
            # In the window's pixel format, rows padded for SDL's fast blits (see offscreen).
            self.surface = offscreen((width, height), self.window)
            return
        if headless or self.console or config.display.fullscreen:
            # Without an icon of its own, set_mode loads pygame's through importlib.resources
            # (about 6 ms of the start, measured by bench/bench_kiosk.py); no one sees a
            # window's icon headless or on a kiosk's whole screen.
            pygame.display.set_icon(pygame.Surface((1, 1)))
        if headless:
            # Nobody sees it: the simulator's bar and LED column are drawn for a screenshot only.
            self.window = pygame.display.set_mode((width, height))
        else:
            flags = pygame.FULLSCREEN if config.display.fullscreen else 0
            self.window = pygame.display.set_mode((width, height), flags)
            pygame.mouse.set_visible(False)
        self.disp_size = (width, height)
        # The table draws straight into the window's surface, which keeps its picture
        # between frames: a changed region costs one repaint, not a repaint and a copy.
        self.surface = self.window

    def _wire(self, hardware: HardwareConfig, config_dir: Path | None) -> tuple[list[Any], list[Output]]:
        """Start the stations (the simulator's or the hardware config's) and make the
        outputs; returns the table loop's inputs and outputs."""
        from table.display.theme import STATION_COLOURS
        from table.hardware.sim import SimStations
        from table.loop.outputs import (
            ButtonLeds,
            GameOutputs,
            HourglassOutput,
            ScreenHourglass,
            ScreenStationDisplays,
            StationInputs,
            StationScreens,
        )
        from table.loop.sound import SoundOutput

        config, sim = self.config, self.sim
        layout = hardware.leds.hourglass_layout()
        self.sim_stations = SimStations(config.stations, self.clock, config.timing.long_push_s)
        self.screen_hourglass = ScreenHourglass(layout)
        stations, hourglass = (self.sim_stations, self.screen_hourglass) if sim else \
            _hardware_backends(config, hardware, self.clock)
        self.station_inputs = StationInputs(stations, wake)
        self.station_inputs.start()
        outputs: list[Output] = [SoundOutput(config.sound.volume, config.sound.enabled, config.sound.device),
                                 ButtonLeds(stations, config.stations, self.clock),
                                 HourglassOutput(hourglass, STATION_COLOURS, max_fps=hardware.leds.fps)]
        # Every simulated station shows its private display; on the table only those wired.
        self.screen_displays = ScreenStationDisplays(range(config.stations))
        displays = self.screen_displays if sim else _station_displays(hardware)
        if displays is not None:
            outputs.append(StationScreens(displays))
        outputs.append(GameOutputs(config_dir))  # each game's own (speech, say), made when it first plays
        inputs: list[Any] = [self.station_inputs, self.sim_stations] if sim else [self.station_inputs]
        if config.tray.camera:
            from table.loop.tray import camera_watcher

            tray = camera_watcher(config.tray.camera, self.clock, wake)
            inputs.append(tray)
            outputs.append(tray)
        if sim:
            # The simulator's tray line reads a picture with the real reader (loaded on
            # first use: OpenCV and the face model need not slow the start).
            self.sim_stations.dice_reader = _read_picture
            self.sim_stations.dice_teacher = _teach_reader
        return inputs, outputs

    def _start_script(self) -> None:
        """Resume the script's game from the journal where it stopped, or start it."""
        from table.play.journal import JournalError
        from table.play.resume import same_game, script_position

        scenario = self.script
        try:
            latest = self.journal.unfinished() or self.journal.latest()
        except JournalError as exc:
            # A game whose setup cannot be read is closed (its rows stay); the script starts anew.
            log.warning("%s; starting the script as a new game", exc)
            unreadable = self.journal.unfinished_id()
            if unreadable is not None:
                self.journal.finish(unreadable, None)
            latest = None
        if latest is not None and same_game(scenario, latest.engine, latest.setup.to_json(), latest.seed):
            if latest.finished:
                log.info("the script's game is already finished in %s", self.journal.path)
                self.stop = True
                return
            position = script_position(scenario, latest.actions)
            if position is not None and self.table.resume_unfinished():
                self.script_pos = position[0]
                return
        if latest is not None and not latest.finished:
            log.warning("journal game %d was unfinished; closing it to play the script", latest.id)
            self.journal.finish(latest.id, None)
        self.table.start_game(scenario.setup, scenario.seed)

    def _feed_script(self, now: float) -> None:
        """Scripted inputs due by clock time ``now``, at their exact game times; the run
        ends when the game does, or after the last input once nothing is due by ``until``."""
        table = self.table
        session = table.session
        if session is None:
            self.stop = True
            return
        inputs = self.script.inputs
        game_now = table.game_time(now)
        while self.script_pos < len(inputs) and inputs[self.script_pos].t <= game_now:
            table.script_input(inputs[self.script_pos])
            self.script_pos += 1
        if session.is_over():
            self.stop = True
        elif self.script_pos >= len(inputs):
            deadline = session.deadline()
            until = self.script.until
            if deadline is None or (until is not None and deadline > until):
                self.stop = True

    def _leave_filter(self, action: Any) -> bool:
        """The kiosk's way out: first and last station hold their knobs, then press."""
        from table.display.screens import LeaveKioskScreen

        was_asking = self.leave.asking
        verdict = self.leave.feed(action.kind, action.station, action.t)
        if verdict == "ask":
            self.table.push_screen(LeaveKioskScreen(self.table.theme, *self.leave.pair))
            return True
        if verdict == "leave":
            log.warning("leaving the kiosk: confirmed at stations %d and %d", *self.leave.pair)
            self.exit_status = EXIT_LEAVE_KIOSK
            self.stop = True
            return True
        if verdict == "cancel":
            self.table.pop_screen()
            return True
        return was_asking
    def frame(self) -> None:
        """Wait for an input or the next time something is due, then run one frame and show it.

        The loop sleeps until an input wakes it (:func:`wake`) or the earliest of: the
        next frame while something on screen moves, the next game deadline, an output's
        next step (the LED hourglass's glow), the watchdog's next ping, the end of the
        run. Nothing else wakes it, so a still table costs nothing between those. A wake
        that only an output asked for steps the outputs and leaves the screens alone."""
        import pygame

        # Frames keep their real-time rate when the clock runs faster (a scripted run).
        period = self.speed / self.config.display.fps
        due = max(self.next_frame, self.wake_at)
        if self.table.redraw_due:
            # Changed from outside the loop (a script, a test): draw at the next frame time.
            due, self.table_due = self.next_frame, self.next_frame
        woken = False
        if due != math.inf:
            # The wait is in real milliseconds; the clock may run faster (a scripted run).
            # Rounded up: waking a fraction of a millisecond early would spin through
            # empty frames until the frame is due.
            timeout: float | None = max(0, math.ceil((due - self.clock()) / self.speed * 1000)) / 1000
        else:
            timeout = None
        if timeout != 0 and self.wait_for_input:
            woken = self._wait(timeout)
        elif timeout:
            # The plain way (kept for the benchmark's baseline): sleep until the frame is due.
            time.sleep(timeout)
        now = self.clock()
        if not (woken or self.sdl_input or now >= self.table_due or self.script is not None
                or not self.wait_for_input or self.fault_hang or self.leave.asking):
            # Only an output asked for this moment (the LEDs' glow): step the outputs that
            # keep time, nothing else (the rest follow the game, which has not moved); an
            # idle table's wakes are mostly these. SDL's queue waits for the next frame.
            self.table.update_outputs(now, timed_only=True)
            self.notifier.watchdog(now)
            self.wake_at = self._next_wake(now)
            return
        events = pygame.event.get()
        for event in events:
            if event.type == pygame.QUIT:
                self.stop = True
            elif event.type != pygame.NOEVENT and self.sim:
                self.sim_stations.handle_event(event)
        if now >= self.next_frame:
            self.next_frame = max(self.next_frame + period, now)
        if self.leave.expire(now) == "cancel":
            self.table.pop_screen()
        if self.script is not None and not self.stop:
            self._feed_script(now)
        drawn = self.table.step(now)
        if not self.ready_sent:
            # The first frame is drawn: tell systemd the table is up. The start kept the
            # cyclic collector off (table.commands.run); from now on it runs as usual.
            self.notifier.ready("the table is running")
            self.ready_sent = True
            gc.enable()
        if self.fault_hang:
            hang_for_the_watchdog()
        self.notifier.watchdog(now)
        dirty = list(self.table.dirty) if drawn else []
        if self.sim_window:
            if drawn:
                if self.disp_size == self.size:
                    for rect in dirty:
                        self.window.blit(self.surface, rect, rect)
                else:
                    self.window.blit(pygame.transform.smoothscale(self.surface, self.disp_size), (0, 0))
                    dirty = [pygame.Rect((0, 0), self.disp_size)]
            dirty += self._draw_sim(self.window, now)
        if dirty:
            # Only the regions that changed go to the display.
            pygame.display.update(dirty)
        self.wake_at = self._wake_at(now)
        if self.on_present is not None:
            self.on_present()

    def _wait(self, seconds: float | None) -> bool:
        """Sleep until an input arrives or ``seconds`` pass (``None``: until an input);
        True when woken.

        Not ``pygame.event.wait``: pygame waits by looking at SDL's queue every
        millisecond, which kept an idle table at several percent of a core. The loop
        sleeps on the waker the input threads and the stop signal write to; only where
        SDL itself brings the stations' inputs (the simulator) does it look at SDL's
        queue meanwhile, every ``SDL_POLL_SIM_S``."""
        waker = self.waker
        if not self.sdl_input:
            return waker.sleep(seconds)
        import pygame

        end = None if seconds is None else time.monotonic() + seconds
        while True:
            if pygame.event.peek():
                return True
            left = SDL_POLL_SIM_S if end is None else min(SDL_POLL_SIM_S, end - time.monotonic())
            if left <= 0:
                return False
            if waker.sleep(left):
                return True

    def _wake_at(self, now: float) -> float:
        """When the next frame is needed if no input comes (``now``: at the next frame
        time; ``math.inf``: only an input), after a step of the table. Sets
        ``table_due``: when the table itself needs a step (the rest are outputs' steps)."""
        if self.script is not None or not self.wait_for_input:
            self.table_due = now
            return now
        change = self.table.next_change(now)
        table_due = math.inf if change is None else change
        journal = self.table.journal
        if journal is not None and journal.fault is not None:
            table_due = min(table_due, now + journal.retry_s)  # a cleared fault shows without an input
        if self.sim:
            # The simulator's held knob becomes a long push after its time (its poll says so).
            for down in self.sim_stations.held_push.values():
                table_due = min(table_due, down + self.config.timing.long_push_s)
        expiry = self.leave.expires_at()
        if expiry is not None:
            table_due = min(table_due, expiry)  # the question goes when nobody answers it
        self.table_due = table_due
        return self._next_wake(now)

    def _next_wake(self, now: float) -> float:
        """The earliest of the table's next step, the outputs' next steps, the watchdog's
        ping and the end of the run."""
        table_due = self.table_due
        times = [table_due, self.stop_at]
        game_now = self.table.game_time(now)
        for output in self.table.outputs:
            # Outputs keep game time; their next update is as far from now on the clock.
            t = output.next_update(game_now)
            if t is not None:
                at = now + (t - game_now)
                # A table step coming a moment later updates the outputs too: the
                # glow of the LEDs can wait that moment rather than wake the loop twice.
                if not at <= table_due <= at + OUTPUT_SLACK_S:
                    times.append(at)
        ping = self.notifier.next_ping()
        if ping is not None:
            times.append(ping)
        if self.sim_window and any(state == "blink" for state in self.sim_stations.leds.values()):
            times.append(math.floor(now * 4 + 1) / 4)  # the simulated button LEDs blink at 2 Hz
        return min(times)

    def _draw_sim(self, target: Any, now: float, force: bool = False) -> list[Any]:
        """The simulator's stations bar and LED hourglass on ``target`` (the window, or a
        screenshot's picture), where they changed (``force``: all of them)."""
        import pygame

        from table.display.sim_window import draw_stations_bar
        from table.display.theme import Theme
        from table.loop.outputs import draw_led_hourglass

        sim = self.sim_stations
        out = []
        width = self.disp_size[0] + SIM_SIDE
        if self._bar_theme is None:
            self._bar_theme = Theme(width, 720)
        bar = pygame.Rect(0, self.disp_size[1], width - SIM_SIDE, SIM_BAR)
        blinking = any(state == "blink" for state in sim.leds.values())
        private = dict(self.screen_displays.pictures)
        key = (tuple(sorted(sim.leds.items())), tuple(sorted(sim.knob.items())), frozenset(sim.held_push),
               int(now * 4) % 2 if blinking else 0, tuple(sorted((s, p.pixels) for s, p in private.items())))
        if force or key != self._sim_key:
            self._sim_key = key
            sim.layout = draw_stations_bar(target, bar, self._bar_theme, now, sim, private)
            out.append(bar)
        side = pygame.Rect(width - SIM_SIDE, 0, SIM_SIDE, self.disp_size[1] + SIM_BAR)
        frame = tuple(self.screen_hourglass.frame)
        if force or frame != self._led_frame:
            self._led_frame = frame
            draw_led_hourglass(target, side, self.screen_hourglass.frame, self.screen_hourglass.layout)
            out.append(side)
        return out

    def run(self, seconds: float | None = None) -> None:
        """Run frames until ``stop`` or ``seconds`` of the table's clock have passed."""
        from table.loop.app import PreparationCancelled

        start = self.clock()
        self.stop_at = math.inf if seconds is None else start + seconds
        self.wake_at = min(self.wake_at, self.stop_at)
        try:
            while not self.stop:
                self.frame()
                if self.clock() >= self.stop_at:
                    break
        except PreparationCancelled:
            pass  # the stop cut a preparation step short: the table stops now
        finally:
            self.stop_at = math.inf

    def close(self, screenshot: Path | None = None) -> None:
        import pygame

        if screenshot is not None:
            if self.table.composer.pending:
                # Stopped mid-sweep: the picture saved is the finished one.
                self.table.draw(self.clock(), force=True)
            picture = self.window
            if self.sim_window:
                if self.disp_size == self.size:
                    picture.blit(self.surface, (0, 0))
                else:
                    picture.blit(pygame.transform.smoothscale(self.surface, self.disp_size), (0, 0))
            elif self.sim:
                # Headless, the simulator's bar and LED column exist for the screenshot only.
                picture = pygame.Surface((self.disp_size[0] + SIM_SIDE, self.disp_size[1] + SIM_BAR))
                picture.fill((0, 0, 0))
                picture.blit(self.surface, (0, 0))
                self._draw_sim(picture, self.clock(), force=True)
            pygame.image.save(picture, str(screenshot))
        # Reverse order of start: inputs first (no new input), then outputs and journal.
        self.notifier.stopping()
        self.station_inputs.close()
        self.table.close()
        self.notifier.close()
        global _waker
        if _waker is self.waker:
            _waker = None
        self.waker.close()
        # The display goes; the font module stays, so cached fonts and text stay valid.
        pygame.display.quit()
        log.info("stopped after %d frames drawn", self.table.frames_drawn)


def run_table(config: TableConfig, *, sim: bool, headless: bool, seconds: float | None,
              journal_path: Path | None, screenshot: Path | None = None, attract_now: bool = False,
              hardware: HardwareConfig | None = None, config_dir: Path | None = None,
              script: Any = None, speed: float = 1.0, settings_notice: SettingsNotice | None = None) -> int:
    """Run the table until SIGTERM/SIGINT, the window closes, or ``seconds`` pass;
    ``settings_notice`` (a :class:`~table.display.screens.SettingsNotice`): settings the
    table did not take, shown in the lobby."""
    runner = Runner(config, sim=sim, headless=headless, journal_path=journal_path, attract_now=attract_now,
                    hardware=hardware, config_dir=config_dir, script=script, speed=speed,
                    settings_notice=settings_notice)

    def stop(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: stopping cleanly", signum)
        runner.stop = True
        runner.waker.wake()  # the loop may be asleep until its next input
        if runner.table.preparing:
            from table.loop.app import PreparationCancelled

            # Building cached pictures (seconds on a Pi): cut short, nothing is lost.
            raise PreparationCancelled

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        runner.run(seconds)
    finally:
        runner.close(screenshot)
    return runner.exit_status
