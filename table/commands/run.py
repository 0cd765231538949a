"""``table run`` (the daemon) and ``table sim`` (the same table with simulated hardware).

``table run`` uses GPIO when the machine has it and the simulator otherwise; with no
display at all it runs the simulator headless in attract mode and says so.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from table.config import DEFAULT_DIR, TableConfig, load_config
from table.errors import TableError

log = logging.getLogger("table.run")

SIM_BAR = 170  # height of the virtual stations bar under the display in the window


def has_display() -> bool:
    """A desktop session, or a console with a DRM device for SDL's KMS/DRM driver."""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return True
    return os.environ.get("SDL_VIDEODRIVER") in ("kmsdrm", "KMSDRM") and Path("/dev/dri").exists()


def has_gpio() -> bool:
    """True on a Raspberry Pi (a GPIO chip and a Pi model in the device tree)."""
    try:
        model = Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False
    return "Raspberry Pi" in model and any(Path("/dev").glob("gpiochip*"))


class _Stop:
    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: stopping cleanly", signum)
        self.requested = True


def run_table(config: TableConfig, *, sim: bool, headless: bool, seconds: float | None,
              journal_path: Path | None, screenshot: Path | None = None, attract_now: bool = False) -> int:
    """Run the table loop until SIGTERM/SIGINT, the window closes, or ``seconds`` pass."""
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    import pygame

    from table.app import Table
    from table.hardware.sim import SimStations
    from table.journal import Journal
    from table.sound import SoundOutput

    stop = _Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    pygame.display.init()
    pygame.font.init()
    width, height = config.display.width, config.display.height
    if sim and not headless:
        # Fit the display and the stations bar on a laptop screen.
        scale = min(1.0, 1280 / width)
        disp_size = (int(width * scale), int(height * scale))
        window = pygame.display.set_mode((disp_size[0], disp_size[1] + SIM_BAR))
        pygame.display.set_caption("The game table (simulator)")
    elif headless:
        disp_size = (width, height)
        window = pygame.display.set_mode((width, height + (SIM_BAR if sim else 0)))
    else:
        flags = pygame.FULLSCREEN if config.display.fullscreen else 0
        window = pygame.display.set_mode((width, height), flags)
        pygame.mouse.set_visible(False)
        disp_size = (width, height)
    surface = pygame.Surface((width, height)).convert()
    journal = Journal(journal_path or config.journal_path())
    clock = time.monotonic
    stations = SimStations(config.stations, clock, config.timing.long_push_s)
    sounds = SoundOutput(config.sound.volume, config.sound.enabled)
    table = Table(config, clock, surface, journal, inputs=[stations], outputs=[sounds])
    if table.resume_unfinished():
        print(f"table: resumed the unfinished game from {journal.path}", file=sys.stderr)
    if attract_now:
        table.last_input = clock() - config.timing.attract_after_s
    theme_bar = None
    frame = pygame.time.Clock()
    start = clock()
    try:
        while not stop.requested:
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    stop.requested = True
                else:
                    stations.handle_event(event)
            now = clock()
            drawn = table.step(now)
            session = table.session
            stations.set_leds(session.view(None).get("may_act") if session else None)
            if sim:
                from table.display.theme import Theme

                if drawn:
                    window.blit(pygame.transform.smoothscale(surface, disp_size) if disp_size != (width, height)
                                else surface, (0, 0))
                theme_bar = theme_bar or Theme(window.get_width(), 720)
                stations.draw(window, pygame.Rect(0, disp_size[1], window.get_width(), SIM_BAR), theme_bar, now)
                pygame.display.flip()
            elif drawn:
                window.blit(surface, (0, 0))
                pygame.display.flip()
            if seconds is not None and now - start >= seconds:
                break
            frame.tick(config.display.fps)
        if screenshot is not None:
            pygame.image.save(window, str(screenshot))
    finally:
        table.close()
        pygame.quit()
    log.info("stopped after %d frames drawn", table.frames_drawn)
    return 0


def cmd_run(args: argparse.Namespace, force_sim: bool = False) -> int:
    config = load_config(args.config)
    sim = force_sim or args.sim or not has_gpio()
    headless = args.headless or not has_display()
    if not has_gpio() and not force_sim and not args.sim:
        print("table: no GPIO on this machine, so the table runs with simulated stations (table sim)",
              file=sys.stderr)
    if headless and not args.headless:
        print("table: no display found: running the simulator headless in attract mode", file=sys.stderr)
    if not sim:
        raise TableError("GPIO stations are configured in config/hardware.toml; this build runs them with "
                         "'table run' once the hardware backend is installed (use 'table sim' meanwhile)")
    return run_table(config, sim=sim, headless=headless, seconds=args.seconds,
                     journal_path=Path(args.journal) if args.journal else None,
                     screenshot=Path(args.screenshot) if args.screenshot else None,
                     attract_now=headless and not args.headless)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default=str(DEFAULT_DIR), metavar="DIR", help="config directory")
    p.add_argument("--journal", metavar="FILE", help="journal file (default from the config)")
    p.add_argument("--headless", action="store_true", help="no window (SDL dummy video driver)")
    p.add_argument("--seconds", type=float, help="stop after this many seconds")
    p.add_argument("--screenshot", metavar="PNG", help="save the last frame to this file on exit")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("run", help="run the table (GPIO if present, else the simulator)")
    _common(run)
    run.add_argument("--sim", action="store_true", help="simulated stations even on a Pi")
    run.set_defaults(func=cmd_run)
    sim = sub.add_parser("sim", help="run the table with simulated hardware in a window")
    _common(sim)
    sim.set_defaults(func=lambda a: cmd_run(argparse.Namespace(**vars(a), sim=True), force_sim=True))
