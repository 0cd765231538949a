"""The process around the table loop: the composition root of ``table run`` and ``table sim``.

:class:`Runner` opens the window (or the console, or nothing when headless), the journal,
the stations and outputs the hardware config names (or the simulator's), and paces the
frames of :class:`~table.loop.app.Table`, waking at once when an input arrives.
:func:`run_table` runs it until a signal, the window's close or a time limit.
"""

from __future__ import annotations

import logging
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from table.common.config import TableConfig
from table.common.errors import TableError
from table.display.layers import offscreen
from table.display.sim_window import draw_stations_bar
from table.hardware.config import HardwareConfig
from table.kiosk.faults import arm_test_fault, hang_for_the_watchdog
from table.kiosk.systemd import EXIT_LEAVE_KIOSK, LeaveGesture, Notifier
from table.loop.outputs import draw_led_hourglass
from table.play.journal import Journal

if TYPE_CHECKING:
    from table.display.output import Output

log = logging.getLogger("table.run")

SIM_BAR = 170  # height of the virtual stations bar under the display in the window
SIM_SIDE = 90  # width of the LED hourglass column beside the display
IDLE_WAKE_S = 1.0
"""The longest the loop sleeps with nothing to do (the watchdog wants a ping every 15 s)."""
SDL_POLL_SIM_S = 0.004
"""Seconds between looks at SDL's queue in the simulator's window (its stations are keys)."""
SDL_POLL_S = 0.02
"""The same elsewhere: on the table the stations wake the loop from their threads, and
headless there is no keyboard (only posted events: tests, the benchmark)."""


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


WAKE = None  # set to a pygame user event type once pygame is imported

_woken = threading.Event()
"""Set by :func:`wake`: the loop sleeps on it between looks at SDL's event queue."""


def wake() -> None:
    """Wake the loop now (thread-safe): input backends call this when an input arrives."""
    import pygame

    _woken.set()
    if WAKE is not None and pygame.display.get_init():
        pygame.event.post(pygame.event.Event(WAKE))


class Runner:
    """The process around the :class:`~table.loop.app.Table`: window, backends, frame pacing.

    The loop sleeps until the next frame is due *or* an input arrives (see ``_wait``), so
    an input is handled and shown at once instead of waiting for the next frame tick.
    """

    def __init__(self, config: TableConfig, *, sim: bool, headless: bool, journal_path: Path | None,
                 attract_now: bool = False, hardware: HardwareConfig | None = None,
                 config_dir: Path | None = None, script: Any = None, speed: float = 1.0) -> None:
        from table.loop.app import Table
        from table.play.gamedata import game_options

        self.config = config
        self.sim = sim
        self.headless = headless
        # How often the loop looks at SDL's own queue while it sleeps: often in the
        # simulator (its stations are keys and the mouse), seldom on the table itself
        # (stations wake the loop from their threads; SDL brings only a window's close).
        self.sdl_poll_s = SDL_POLL_SIM_S if sim and not headless else SDL_POLL_S
        self.stop = False
        self.script = script
        self.speed = speed
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
        self.script_pos = 0
        if script is not None:
            self.table.attract_enabled = False
            self._start_script()
        elif self.table.resume_unfinished():
            print(f"table: resumed the unfinished game from {self.journal.path}", file=sys.stderr)
        if attract_now:
            self.table.last_input = self.clock() - config.timing.attract_after_s
        from table.display.theme import Theme

        self.bar_theme = Theme(self.window.get_width(), 720)
        self.exit_status = 0
        self.next_frame = self.clock()
        self.wake_at = self.next_frame
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
        global WAKE
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
        WAKE = pygame.event.custom_type() if WAKE is None else WAKE
        sim, headless, config = self.sim, self.headless, self.config
        width, height = config.display.width, config.display.height
        self.size = (width, height)
        # On the console (SDL's KMS/DRM driver: a kiosk without GPIO, such as the QEMU
        # image) the table owns the whole screen; simulated stations then come from a
        # keyboard, and the simulator's bar and LED column would only hide the game.
        self.console = not headless and os.environ.get("SDL_VIDEODRIVER", "").lower() == "kmsdrm"
        if sim and not headless and not self.console:
            # Fit the display, the stations bar and the LED hourglass on a laptop screen.
            scale = min(1.0, 1280 / width)
            self.disp_size = (int(width * scale), int(height * scale))
            self.window = pygame.display.set_mode((self.disp_size[0] + SIM_SIDE, self.disp_size[1] + SIM_BAR))
            pygame.display.set_caption("The game table (simulator)")
        elif headless:
            self.disp_size = (width, height)
            self.window = pygame.display.set_mode((width + (SIM_SIDE if sim else 0), height + (SIM_BAR if sim else 0)))
        else:
            flags = pygame.FULLSCREEN if config.display.fullscreen else 0
            self.window = pygame.display.set_mode((width, height), flags)
            pygame.mouse.set_visible(False)
            self.disp_size = (width, height)
        # In the window's pixel format, rows padded for SDL's fast blits (see offscreen).
        self.surface = offscreen((width, height), self.window)

    def _wire(self, hardware: HardwareConfig, config_dir: Path | None) -> tuple[list[Any], list[Output]]:
        """Start the stations (the simulator's or the hardware config's) and make the
        outputs; returns the table loop's inputs and outputs."""
        from table.display.games import renderers
        from table.display.theme import STATION_COLOURS
        from table.hardware.sim import SimStations
        from table.loop.outputs import (
            ButtonLeds,
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
        outputs: list[Output] = [SoundOutput(config.sound.volume, config.sound.enabled),
                                 ButtonLeds(stations, config.stations, self.clock),
                                 HourglassOutput(hourglass, STATION_COLOURS, max_fps=hardware.leds.fps)]
        # Every simulated station shows its private display; on the table only those wired.
        self.screen_displays = ScreenStationDisplays(range(config.stations))
        displays = self.screen_displays if sim else _station_displays(hardware)
        if displays is not None:
            outputs.append(StationScreens(displays))
        for renderer in renderers().values():
            outputs += renderer.outputs(config_dir)  # each game's own (speech, say)
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
        """Wait for an input or the next frame time, then run one frame and show it.

        While nothing on screen moves with time (a menu, a board waiting for a player)
        the loop sleeps until an input arrives, the next game deadline, or at most
        ``IDLE_WAKE_S``: a still table costs (almost) nothing."""
        import pygame

        # Frames keep their real-time rate when the clock runs faster (a scripted run).
        period = self.speed / self.config.display.fps
        due = max(self.next_frame, self.wake_at)
        # The wait is in real milliseconds; the clock may run faster (a scripted run).
        # Rounded up: waking a fraction of a millisecond early would spin through empty
        # frames until the frame is due.
        timeout_ms = max(0, math.ceil((due - self.clock()) / self.speed * 1000))
        if timeout_ms > 0 and self.wait_for_input:
            events = self._wait(timeout_ms / 1000)
        else:
            # The plain way (kept for the benchmark's baseline): sleep until the frame is due.
            time.sleep(timeout_ms / 1000)
            events = []
        events += pygame.event.get()
        for event in events:
            if event.type == pygame.QUIT:
                self.stop = True
            elif event.type not in (pygame.NOEVENT, WAKE) and self.sim:
                self.sim_stations.handle_event(event)
        now = self.clock()
        if now >= self.next_frame:
            self.next_frame = max(self.next_frame + period, now)
        if self.leave.expire(now) == "cancel":
            self.table.pop_screen()
        if self.script is not None and not self.stop:
            self._feed_script(now)
        drawn = self.table.step(now)
        if not self.ready_sent:
            # The first frame is drawn: tell systemd the table is up.
            self.notifier.ready("the table is running")
            self.ready_sent = True
        if self.fault_hang:
            hang_for_the_watchdog()
        self.notifier.watchdog(now)
        dirty = list(self.table.dirty) if drawn else []
        if self.sim and not self.console:
            if drawn:
                if self.disp_size == self.size:
                    for rect in dirty:
                        self.window.blit(self.surface, rect, rect)
                else:
                    self.window.blit(pygame.transform.smoothscale(self.surface, self.disp_size), (0, 0))
                    dirty = [pygame.Rect((0, 0), self.disp_size)]
            if not self.headless:
                # Nobody sees a headless window: its bar and LEDs are drawn for a screenshot only.
                dirty += self._draw_sim(now)
        elif drawn:
            for rect in dirty:
                self.window.blit(self.surface, rect, rect)
        if dirty:
            # Only the regions that changed go to the display.
            pygame.display.update(dirty)
        self.wake_at = self._wake_at(now)
        if self.on_present is not None:
            self.on_present()

    def _wait(self, seconds: float) -> list[Any]:
        """Sleep until an input arrives or ``seconds`` pass; returns SDL's events.

        Not ``pygame.event.wait``: under the dummy and KMS/DRM video drivers SDL waits by
        pumping its queue every millisecond, which kept an idle table at several percent
        of a core. Here the loop sleeps on an event the input threads set (:func:`wake`)
        and looks at SDL's queue (keys and the mouse in the simulator, a window's close)
        every ``SDL_POLL_S``."""
        import pygame

        end = time.monotonic() + seconds
        while True:
            events = pygame.event.get()
            if events:
                return events
            left = end - time.monotonic()
            if left <= 0:
                return []
            if _woken.wait(min(left, self.sdl_poll_s)):
                _woken.clear()
                return pygame.event.get()

    def _wake_at(self, now: float) -> float:
        """When the next frame is needed if no input comes (``now``: at the next frame time)."""
        if self.script is not None or not self.wait_for_input:
            return now
        wake = self.table.next_change(now)
        times = [now + IDLE_WAKE_S if wake is None else min(wake, now + IDLE_WAKE_S)]
        game_now = self.table.game_time(now)
        for output in self.table.outputs:
            # Outputs keep game time; their next update is as far from now on the clock.
            t = output.next_update(game_now)
            if t is not None:
                times.append(now + (t - game_now))
        if self.sim and any(state == "blink" for state in self.sim_stations.leds.values()):
            times.append(math.floor(now * 4 + 1) / 4)  # the simulated button LEDs blink at 2 Hz
        return min(times)

    def _draw_sim(self, now: float) -> list[Any]:
        """The simulator's stations bar and LED hourglass, where they changed."""
        import pygame

        sim = self.sim_stations
        out = []
        bar = pygame.Rect(0, self.disp_size[1], self.window.get_width() - SIM_SIDE, SIM_BAR)
        blinking = any(state == "blink" for state in sim.leds.values())
        private = dict(self.screen_displays.pictures)
        key = (tuple(sorted(sim.leds.items())), tuple(sorted(sim.knob.items())), frozenset(sim.held_push),
               int(now * 4) % 2 if blinking else 0, tuple(sorted((s, p.pixels) for s, p in private.items())))
        if key != self._sim_key:
            self._sim_key = key
            sim.layout = draw_stations_bar(self.window, bar, self.bar_theme, now, sim, private)
            out.append(bar)
        side = pygame.Rect(self.window.get_width() - SIM_SIDE, 0, SIM_SIDE, self.window.get_height())
        frame = tuple(self.screen_hourglass.frame)
        if frame != self._led_frame:
            self._led_frame = frame
            draw_led_hourglass(self.window, side, self.screen_hourglass.frame, self.screen_hourglass.layout)
            out.append(side)
        return out

    def run(self, seconds: float | None = None) -> None:
        start = self.clock()
        while not self.stop:
            self.frame()
            if seconds is not None and self.clock() - start >= seconds:
                break

    def close(self, screenshot: Path | None = None) -> None:
        import pygame

        if screenshot is not None:
            if self.table.composer.pending:
                # Stopped mid-sweep: the picture saved is the finished one.
                self.table.draw(self.clock(), force=True)
                if self.disp_size == self.size:
                    self.window.blit(self.surface, (0, 0))
                else:
                    self.window.blit(pygame.transform.smoothscale(self.surface, self.disp_size), (0, 0))
            if self.sim and self.headless:
                self._draw_sim(self.clock())
            pygame.image.save(self.window, str(screenshot))
        # Reverse order of start: inputs first (no new input), then outputs and journal.
        self.notifier.stopping()
        self.station_inputs.close()
        self.table.close()
        self.notifier.close()
        # The display goes; the font module stays, so cached fonts and text stay valid.
        pygame.display.quit()
        log.info("stopped after %d frames drawn", self.table.frames_drawn)


def run_table(config: TableConfig, *, sim: bool, headless: bool, seconds: float | None,
              journal_path: Path | None, screenshot: Path | None = None, attract_now: bool = False,
              hardware: HardwareConfig | None = None, config_dir: Path | None = None,
              script: Any = None, speed: float = 1.0) -> int:
    """Run the table until SIGTERM/SIGINT, the window closes, or ``seconds`` pass."""
    runner = Runner(config, sim=sim, headless=headless, journal_path=journal_path, attract_now=attract_now,
                    hardware=hardware, config_dir=config_dir, script=script, speed=speed)

    def stop(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: stopping cleanly", signum)
        runner.stop = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        runner.run(seconds)
    finally:
        runner.close(screenshot)
    return runner.exit_status
