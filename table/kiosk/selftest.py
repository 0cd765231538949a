"""The whole self-test of ``table selftest``: the walk of :mod:`table.hardware.selftest`
on the configured stations and LEDs, with the checks that need more than the hardware
layer (the stations' private displays show the display's test pattern; the venue
relay's status), in the order an installer meets them. It starts with the devices
(:func:`devices_check`): for each device the configuration needs, its node, owner,
group and mode, and whether the kiosk's service may open it, with the fix when not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from table.common.errors import TableError
from table.common.i18n import N_
from table.hardware.config import HardwareConfig
from table.hardware.interfaces import Hourglass, Stations
from table.hardware.selftest import Result, SelfTest, Step, build_backends, camera_check, display_check


def run_selftest(
    cfg: HardwareConfig,
    parts: Sequence[str],
    *,
    say: Callable[[Step | None, str], None],
    timeout: float,
    out_dir: Path,
    camera: str = "auto",
    relay_state: Path | None = None,
    tray_camera: str = "",
    sound: bool = False,
) -> list[Result]:
    """Run the ``parts`` of the self-test (:data:`table.hardware.selftest.PARTS`) on the
    hardware ``cfg`` describes, then the relay check when ``relay_state`` is given;
    ``say`` tells the installer each step (``tray_camera``, ``sound``: table.toml's
    ``[tray] camera`` and ``[sound] enabled``, for the devices). Raises
    :class:`TableError` when the hardware cannot be opened (a module missing on a Pi,
    simulated stations)."""
    early: list[Result] = []
    if "devices" in parts:
        early = devices_check(cfg, camera=tray_camera, sound=sound)
        for result in early:
            say(None, f"{result.name}: {result.detail}")
    stations: Stations | None = None
    hourglass: Hourglass | None = None
    if "stations" in parts or "leds" in parts:
        from table.hardware.requirements import is_raspberry_pi, module_problems

        # On a Pi, name a missing module before a library fails on it in its own words
        # (elsewhere "GPIO is not available" is the sentence that helps).
        missing = module_problems(cfg) if is_raspberry_pi() else []
        if missing:
            raise TableError(missing[0])
        stations, hourglass = build_backends(cfg, leds="leds" in parts)
    test = SelfTest(
        stations, len(cfg.stations), [s.knob for s in cfg.stations], hourglass,
        say=say, timeout=timeout,
        camera=lambda: camera_check(out_dir, camera),
        display=display_check,
        station_displays=station_displays_check(cfg),
    )
    results = early + test.run(parts)
    if relay_state is not None:
        results.append(relay_check(relay_state))
    return results


def devices_check(cfg: HardwareConfig, *, root: Path = Path("/"), camera: str = "", sound: bool = False,
                  on_pi: bool | None = None, find: Callable[[str], bool] | None = None) -> list[Result]:
    """One result per device the configuration needs (``device NODE``: owner:group mode,
    ok or what is missing and the fix), then the service's groups, the pins the boot
    config claims and the display's libraries. Off a Pi (``on_pi``; default: asked) and
    without an installed unit under ``root`` there is nothing to check: one skip."""
    from table.hardware import devices
    from table.hardware.requirements import is_raspberry_pi

    machine = devices.Machine(root)
    if not (is_raspberry_pi() if on_pi is None else on_pi) and not machine.path(devices.INSTALLED_UNIT).is_file():
        return [Result("devices", "skip", "not a Raspberry Pi and the kiosk is not installed here")]
    needs = devices.configured_needs(cfg, camera=camera, sound=sound)
    out = [Result(f"device {c.need.pattern}", "pass" if c.ok else "fail", c.line())
           for c in devices.check_devices(needs, root)]
    groups = devices.group_problems(needs, root)
    out.append(Result("service groups", "fail" if groups else "pass",
                      "; ".join(groups) or f"{' '.join(devices.service(machine).groups)}: every device's group"))
    clashes = devices.pin_clashes(cfg, root)
    out.append(Result("boot config pins", "fail" if clashes else "pass",
                      "; ".join(clashes) or "no wired pin is claimed by the firmware"))
    libraries = devices.display_library_problems(root, find)
    out.append(Result("display libraries", "fail" if libraries else "pass",
                      "; ".join(libraries) or "GBM, EGL, GLES 2 and a DRI driver are installed"))
    return out


def station_displays_check(cfg: HardwareConfig, i2c: object = None) -> Callable[[Callable[..., Result]], Result] | None:
    """The check of the stations' private displays (``None`` when no station has one):
    each shows its test pattern until the installer answers (``i2c``: a bus instead of
    the Pi's, for tests)."""
    if not cfg.private_displays:
        return None

    def check(confirm: Callable[..., Result]) -> Result:
        from table.display.station_screen import check_pattern
        from table.hardware.oled import OledDisplays

        displays = OledDisplays(cfg.private_displays, i2c=i2c, background=False)
        try:
            displays.start()
        except TableError as exc:
            return Result("station displays", "fail", str(exc))
        try:
            for station in displays.stations:
                displays.show(station, check_pattern(station))
            names = ", ".join(f"S{s + 1}" for s in displays.stations)
            result = confirm(N_("Does each station display ({stations}) show a frame and its station's name?"),
                             stations=names)
        finally:
            displays.close()
        detail = result.detail if displays.failures == 0 else f"{result.detail}; {displays.failures} writes failed"
        return Result("station displays", result.status if displays.failures == 0 else "fail", detail)

    return check


def relay_check(state_dir: Path) -> Result:
    """Does the venue relay reach its broker? (from the relay's status file; skip without a relay)"""
    from table.venue.relay import STATUS_FILE, read_relay_status

    if not (state_dir / STATUS_FILE).exists():
        return Result("relay", "skip", f"no venue relay on this table ({state_dir / STATUS_FILE} is absent)")
    ok, sentence = read_relay_status(state_dir)
    return Result("relay", "pass" if ok else "fail", sentence)
