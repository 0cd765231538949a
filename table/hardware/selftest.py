"""The self-test's walk (``table selftest``): an installer through every station, the
LEDs, the camera and the display, each step a pass/fail :class:`Result`.

For each station: press the big button, turn the knob clockwise, then
counter-clockwise, then push it. The hourglass LEDs show a colour sweep (red,
green, blue, white) and the installer confirms with a press (or says no with a
knob push). Each station's private display shows a test pattern (a frame, a
checkered corner and the station's name), confirmed the same way. The camera takes
a picture of the tray into a folder; the display shows colour bars and is confirmed
with a press. Steps time out after ``timeout`` seconds and count as failed; the parts run are chosen by the caller.
The checks that need the screen's drawing or the venue (the station displays, the
relay) are :mod:`table.kiosk.selftest`'s, which puts the whole test together.
"""

from __future__ import annotations

import os
import queue
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from table.common.errors import TableError
from table.common.i18n import N_, _
from table.hardware.config import HardwareConfig
from table.hardware.interfaces import Hourglass, StationInput, Stations

if TYPE_CHECKING:  # the dice reader imports OpenCV, loaded only for the camera check
    from table.dice.capture import Frame

PARTS = ("devices", "stations", "leds", "station-displays", "camera", "display")
"""The parts in the order they run; ``devices`` (whether the kiosk's service may open every
device, :mod:`table.hardware.devices`) is :mod:`table.kiosk.selftest`'s and comes first."""

ACTIONS = {"press": N_("press the button"), "turn clockwise": N_("turn the knob clockwise"),
           "turn counter-clockwise": N_("turn the knob counter-clockwise"), "push the knob": N_("push the knob")}
"""What each step asks for, as the installer reads it (message ids); the step's own
``action`` stays the English key that results and tests name."""


@dataclass(frozen=True)
class Step:
    """What the installer is asked to do: ``action`` at ``station`` (None: any)."""

    part: str
    name: str
    action: str
    station: int | None = None


@dataclass(frozen=True)
class Result:
    name: str
    status: str  # "pass" | "fail" | "skip"
    detail: str = ""


class SelfTest:
    """The walk-through, independent of where the inputs come from.

    ``say(step, text)`` tells the installer what to do (prints it; tests answer
    through their fake stations). ``camera`` and ``display`` are callables that
    return a :class:`Result`; the display one receives a ``confirm`` function.
    """

    def __init__(
        self,
        stations: Stations | None,
        station_count: int,
        knobs: Sequence[str],
        hourglass: Hourglass | None,
        *,
        say: Callable[[Step | None, str], None],
        timeout: float = 30.0,
        camera: Callable[[], Result] | None = None,
        display: Callable[[Callable[..., Result]], Result] | None = None,
        station_displays: Callable[[Callable[..., Result]], Result] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stations = stations
        self.station_count = station_count
        self.knobs = list(knobs)
        self.hourglass = hourglass
        self.say = say
        self.timeout = timeout
        self.camera = camera
        self.display = display
        self.station_displays = station_displays
        self.clock = clock
        self.inputs: queue.Queue[StationInput] = queue.Queue()
        self._sector: dict[int, int] = {}  # last sector of each absolute knob
        self._sector_before: dict[int, int | None] = {}

    def run(self, parts: Sequence[str] = PARTS) -> list[Result]:
        results: list[Result] = []
        if self.stations is not None:
            self.stations.start(self.inputs.put)
        try:
            if "stations" in parts:
                results.extend(self._stations())
            if "leds" in parts:
                results.append(self._leds())
            if "station-displays" in parts and self.station_displays is not None:
                results.append(self.station_displays(self._confirm))
            if "camera" in parts:
                results.append(self.camera() if self.camera else Result("camera", "skip", "no camera check"))
            if "display" in parts:
                results.append(
                    self.display(self._confirm) if self.display else Result("display", "skip", "no display")
                )
        finally:
            if self.hourglass is not None:
                self.hourglass.close()
            if self.stations is not None:
                self.stations.stop()
        return results

    # --- steps -------------------------------------------------------------------------

    def _wait(self, step: Step, accept: Callable[[StationInput], bool]) -> tuple[bool, StationInput | None]:
        deadline = self.clock() + self.timeout
        while True:
            left = deadline - self.clock()
            if left <= 0:
                return False, None
            try:
                item = self.inputs.get(timeout=min(left, 0.25))
            except queue.Empty:
                continue
            self._note_sector(item)
            if step.station is not None and item.station != step.station:
                continue
            if accept(item):
                return True, item

    def _drain(self) -> None:
        while not self.inputs.empty():
            self._note_sector(self.inputs.get_nowait())

    def _note_sector(self, item: StationInput) -> None:
        if item.kind == "turn" and item.value is not None and "sector" in item.value:
            self._sector_before[item.station] = self._sector.get(item.station)
            self._sector[item.station] = item.value["sector"]

    def _clockwise(self, item: StationInput) -> bool:
        return _turned(item, +1, self._sector_before.get(item.station))

    def _counter_clockwise(self, item: StationInput) -> bool:
        return _turned(item, -1, self._sector_before.get(item.station))

    def _stations(self) -> list[Result]:
        out: list[Result] = []
        for s in range(self.station_count):
            label = f"station {s + 1}"
            if self.stations is not None:
                self.stations.set_leds({k: ("blink" if k == s else "off") for k in range(self.station_count)})
            knob = self.knobs[s] if s < len(self.knobs) else "encoder"
            steps: list[tuple[Step, Callable[[StationInput], bool]]] = [
                (Step("stations", f"{label} press", "press", s), _is_press),
            ]
            if knob != "none":
                steps += [
                    (Step("stations", f"{label} turn clockwise", "turn clockwise", s), self._clockwise),
                    (Step("stations", f"{label} turn counter-clockwise", "turn counter-clockwise", s),
                     self._counter_clockwise),
                    (Step("stations", f"{label} push", "push the knob", s), _is_push),
                ]
            for step, accept in steps:
                self._drain()
                self.say(step, _("Station {number}: {action} (within {seconds} s)").format(
                    number=s + 1, action=_(ACTIONS.get(step.action, step.action)), seconds=f"{self.timeout:g}"))
                started = self.clock()
                ok, _item = self._wait(step, accept)
                took = self.clock() - started
                out.append(Result(step.name, "pass" if ok else "fail",
                                  f"after {took:.1f} s" if ok else "nothing arrived in time"))
            if self.stations is not None:
                self.stations.set_leds({s: "on"})
        if self.stations is not None:
            out.append(self._ordering())
        return out

    def _ordering(self) -> Result:
        """The input path's health: inputs that arrived too late to be ordered, edges
        later than the settle window, the serial bridge's firmware and bad records (by
        reason). A bridge speaking another protocol version fails, with the sentence
        that says which end to update."""
        assert self.stations is not None
        diag = self.stations.diagnostics()
        unordered, late = diag.get("unordered", 0), diag.get("late_edges", 0)
        parts = [f"{unordered} unordered, {late} late edges (worst {diag.get('max_lateness_ms', 0.0):g} ms)"]
        bridge = diag.get("bridge")
        if isinstance(bridge, dict):
            parts.append(f"bridge {bridge.get('firmware')} protocol {bridge.get('protocol')}")
        if "malformed_total" in diag:
            reasons = diag.get("malformed") or {}
            detail = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items()))
            parts.append(f"{diag['malformed_total']} bad records" + (f" ({detail})" if detail else ""))
        mismatch = diag.get("protocol_mismatch")
        if mismatch:
            parts.append(str(mismatch))
        return Result("input ordering", "pass" if unordered == 0 and not mismatch else "fail", ", ".join(parts))

    def _confirm(self, question: str, **values: object) -> Result:
        """Ask ``question`` (a message id, formatted with ``values``); the result is named
        by the English question, the installer reads it in the table's language."""
        english = question.format(**values)
        step = Step("confirm", english, "confirm")
        self._drain()
        self.say(step, _("{question} Press any button for yes, push any knob for no.").format(
            question=_(question).format(**values)))
        question = english
        ok, item = self._wait(step, lambda i: i.kind in ("press", "push"))
        if not ok or item is None:
            return Result(question, "fail", "not confirmed in time")
        return Result(question, "pass" if item.kind == "press" else "fail",
                      "confirmed" if item.kind == "press" else "the installer said no")

    def _leds(self) -> Result:
        if self.hourglass is None:
            return Result("LEDs colour sweep", "skip", "no hourglass LEDs configured")
        n = self.hourglass.layout.pixels
        self.say(None, _("LEDs: watch the hourglass - red, green, blue, white, then a running dot"))
        for colour in [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]:
            self.hourglass.show([colour] * n)
            time.sleep(0.6)
        for k in range(n):
            self.hourglass.show([(255, 150, 30) if j == k else (0, 0, 0) for j in range(n)])
            time.sleep(min(0.02, 2.0 / max(n, 1)))
        self.hourglass.show([(0, 0, 0)] * n)
        result = self._confirm(N_("Did every LED show red, green, blue and white?"))
        return Result("LEDs colour sweep", result.status, result.detail)


def _is_press(item: StationInput) -> bool:
    return item.kind == "press"


def _is_push(item: StationInput) -> bool:
    return item.kind == "push"


def _turned(item: StationInput, direction: int, before: int | None) -> bool:
    """A turn in ``direction``: a signed delta, or an absolute knob moving a short way
    round from the sector it showed ``before``."""
    if item.kind != "turn" or item.value is None:
        return False
    if "delta" in item.value:
        return item.value["delta"] * direction > 0
    if before is None:
        return False  # the first reading only says where the pointer is
    sectors = item.value.get("sectors", 16)
    step = (item.value["sector"] - before) % sectors
    return (0 < step < sectors // 2) if direction > 0 else (step > sectors // 2)


def format_results(results: Sequence[Result]) -> str:
    width = max([len(r.name) for r in results] + [5])
    lines = [f"{'check':<{width}}  result  detail", f"{'-' * width}  ------  ------"]
    lines += [f"{r.name:<{width}}  {r.status:<6}  {r.detail}" for r in results]
    failed = sum(r.status == "fail" for r in results)
    lines.append(f"\n{len(results)} checks: {sum(r.status == 'pass' for r in results)} passed, "
                 f"{failed} failed, {sum(r.status == 'skip' for r in results)} skipped")
    return "\n".join(lines)


# --- camera and display on the real machine ------------------------------------------------

def _grab_one(spec: str) -> Frame | None:
    """One frame from ``spec`` (``auto``, ``pi``, ``usb[:N]`` or a picture file), or None.

    Uses the dice reader's frame sources (``table.dice.capture``), so the self-test sees
    the camera exactly as the game will."""
    from table.dice.capture import open_source  # imports OpenCV: only when the camera is checked

    specs = ["pi", "usb:0"] if spec == "auto" else [spec]
    for one in specs:
        try:
            source = open_source(one)
            try:
                frame = source.grab()
            finally:
                source.close()
        except Exception:  # no such camera here: try the next kind
            frame = None
        if frame is not None:
            return frame
    return None


def camera_check(out_dir: Path, spec: str = "auto") -> Result:
    """Take one picture of the tray into ``out_dir/selftest-tray.png``."""
    try:
        import cv2
    except ImportError:
        return Result("camera", "fail", "OpenCV is not installed")
    image = _grab_one(spec)
    if image is None:
        what = "Pi camera or USB webcam" if spec == "auto" else spec
        return Result("camera", "fail", f"no picture from the camera ({what})")
    path = out_dir / "selftest-tray.png"
    out_dir.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), image)
    return Result("camera", "pass", f"picture of the tray in {path}")


def display_check(confirm: Callable[..., Result]) -> Result:
    """Colour bars full screen, confirmed by the installer."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or Path("/dev/dri").exists()):
        return Result("display", "skip", "no display on this machine")
    import pygame

    try:
        pygame.display.init()
        screen = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
    except pygame.error as exc:
        return Result("display", "fail", f"the display could not be opened ({exc})")
    w, h = screen.get_size()
    bars = [(255, 255, 255), (255, 255, 0), (0, 255, 255), (0, 255, 0),
            (255, 0, 255), (255, 0, 0), (0, 0, 255)]
    for k, colour in enumerate(bars):
        pygame.draw.rect(screen, colour, (k * w // len(bars), 0, w // len(bars) + 1, h))
    pygame.display.flip()
    result = confirm(N_("Does the display show seven colour bars ({size})?"), size=f"{w}x{h}")
    pygame.display.quit()
    return Result("display", result.status, result.detail)


def build_backends(cfg: HardwareConfig, leds: bool = True) -> tuple[Stations, Hourglass | None]:
    from table.hardware.leds import make_hourglass

    timing = cfg.timing()
    stations: Stations
    bridge = None
    if cfg.backend == "gpio":
        from table.hardware.gpio import GpioStations

        stations = GpioStations(cfg, timing)
    elif cfg.backend == "serial":
        from table.hardware.serial_bridge import SerialBridge

        bridge = SerialBridge(cfg.serial.port, len(cfg.stations), timing, baud=cfg.serial.baud)
        stations = bridge
    else:
        raise TableError("the self-test checks real hardware, but input.backend is \"sim\" in hardware.toml")
    if not leds or cfg.leds.backend in ("none", "sim"):
        return stations, None
    hourglass = make_hourglass(cfg.leds, bridge)
    return stations, hourglass
