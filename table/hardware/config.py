"""``config/hardware.toml`` -> frozen dataclasses, with every problem reported at once.

``load_hardware(directory)`` reads ``hardware.toml`` and raises
:class:`HardwareConfigError` listing each problem as ``file: key.path: what is
wrong`` - the schema (unknown keys with a suggestion, wrong types, out-of-range
values) *and* the wiring (a pin used twice, a pin that does not exist, a pin of a
bus that is switched on; see :mod:`table.hardware.pinmap`). ``table/common/config.py``
calls it for the hardware part of the table's configuration.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from table.common.checks import (
    Check,
    boolean,
    check_section,
    did_you_mean,
    load_toml,
    non_empty,
    number,
    one_of,
    read_text_input,
    whole,
)
from table.common.datafiles import data_file
from table.common.errors import TableError
from table.hardware.interfaces import HourglassLayout
from table.hardware.pinmap import wiring_problems

if TYPE_CHECKING:  # the stations' logic loads with the stations, not with the config
    from table.hardware.buttons import Timing

HARDWARE_FILE = "hardware.toml"

KnobKind = Literal["encoder", "absolute", "potentiometer", "none"]


class HardwareConfigError(TableError):
    """One or more problems in ``hardware.toml``; ``problems`` lists them one per line."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        if len(problems) == 1:
            super().__init__(f"the hardware config has a problem: {problems[0]}")
        else:
            super().__init__(
                f"the hardware config has {len(problems)} problems:\n  " + "\n  ".join(problems)
            )


@dataclass(frozen=True)
class StationDisplay:
    """A station's private display: an SSD1306 OLED (128 x 64) on the Pi's I2C bus
    (GPIO 2 and 3), behind channel ``mux_channel`` of a TCA9548A multiplexer at
    ``mux_address`` (``None``: wired straight to the bus), at ``address`` on its channel.
    Only its station sees it, so it may show that station's secrets (its own view)."""

    bus: Literal["i2c"] = "i2c"
    address: int = 0x3C
    mux_channel: int | None = None
    mux_address: int = 0x70
    width: ClassVar[int] = 128
    height: ClassVar[int] = 64


@dataclass(frozen=True)
class StationWiring:
    """The pins of one station (BCM numbers), and its private display if it has one."""

    button: int
    button_led: int | None = None
    knob: KnobKind = "encoder"
    encoder_a: int | None = None
    encoder_b: int | None = None
    knob_switch: int | None = None
    data: tuple[int, ...] = ()
    code: Literal["gray", "binary"] = "gray"
    adc_channel: int | None = None
    display: StationDisplay | None = None

    def pins(self) -> dict[str, int]:
        """Every GPIO this station uses, by its key name."""
        out: dict[str, int] = {"button": self.button}
        for key in ("button_led", "encoder_a", "encoder_b", "knob_switch"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        for i, pin in enumerate(self.data):
            out[f"data[{i}]"] = pin
        return out


@dataclass(frozen=True)
class Buses:
    """``[buses]``: the Pi's buses the wiring needs switched on."""

    i2c: bool = False
    spi: bool = False
    uart: bool = False
    pwm: bool = False


@dataclass(frozen=True)
class LedConfig:
    """``[leds]``: the LED hourglass's driver, pin, layout, colour order and current."""

    backend: Literal["neopixel", "spi", "pi5", "serial", "sim", "none"] = "neopixel"
    pin: int = 18
    layout: Literal["strip", "matrix"] = "strip"
    count: int = 60
    width: int = 8
    height: int = 8
    matrices: int = 1
    order: Literal["serpentine", "rows"] = "serpentine"
    pixel_order: str = "GRB"
    brightness: float = 0.4
    max_milliamps: float = 2000.0
    fps: float = 30.0

    def hourglass_layout(self) -> HourglassLayout:
        return HourglassLayout(
            kind=self.layout, count=self.count, width=self.width, height=self.height,
            matrices=self.matrices, order=self.order,
        )

    @property
    def current_limit(self) -> float | None:
        return self.max_milliamps if self.max_milliamps > 0 else None


@dataclass(frozen=True)
class SerialConfig:
    """``[serial]``: the I/O bridge's port and speed."""

    port: str = "/dev/ttyACM0"
    baud: int = 115200


@dataclass(frozen=True)
class HardwareConfig:
    """The whole ``hardware.toml``: backend, buses, stations' wiring, timings, LEDs."""

    source: str = "<defaults>"
    backend: Literal["gpio", "serial", "sim"] = "gpio"
    pin_factory: Literal["lgpio", "mock"] = "lgpio"
    buses: Buses = field(default_factory=Buses)
    stations: tuple[StationWiring, ...] = ()
    debounce_ms: float = 30.0
    false_start_lockout_ms: float = 500.0
    blink_hz: float = 2.0
    settle_ms: float | None = None
    tie_window_ms: float | None = None
    long_push_s: float | None = None
    absolute_stable_ms: float = 20.0
    pot_hysteresis: float = 0.25
    pot_poll_hz: float = 50.0
    mcp3008_chip_select: int = 0
    leds: LedConfig = field(default_factory=LedConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)

    @property
    def private_displays(self) -> dict[int, StationDisplay]:
        """The stations (0-based) that have a private display, and its wiring."""
        return {i: s.display for i, s in enumerate(self.stations) if s.display is not None}

    def timing(
        self, settle_ms: float = 15.0, tie_window_ms: float = 2.0, long_push_s: float = 2.0
    ) -> Timing:
        """The station layer's windows; the arguments are table.toml's [timing]
        values, overridden by the same keys in hardware.toml's [buttons]."""
        from table.hardware.buttons import Timing

        return Timing(
            settle=(self.settle_ms if self.settle_ms is not None else settle_ms) / 1000.0,
            tie_window=(self.tie_window_ms if self.tie_window_ms is not None else tie_window_ms) / 1000.0,
            debounce=self.debounce_ms / 1000.0,
            false_start_lockout=self.false_start_lockout_ms / 1000.0,
            long_push=self.long_push_s if self.long_push_s is not None else long_push_s,
            absolute_stable=self.absolute_stable_ms / 1000.0,
        )


# --- schema -------------------------------------------------------------------------


def _gpio(v: Any) -> str | None:
    # Existence on the header is checked with the wiring (pinmap), so that every
    # pin problem reads the same way; here only the type.
    if not isinstance(v, int) or isinstance(v, bool):
        return "must be a GPIO number (BCM), e.g. 17"
    return None


def _data_pins(v: Any) -> str | None:
    if not isinstance(v, list) or len(v) != 4 or any(_gpio(p) for p in v):
        return "must be a list of four GPIO numbers, least significant line first"
    return None


def _display_table(v: Any) -> str | None:
    # Its keys are checked one by one afterwards (DISPLAY_KEYS), like a section of its own.
    return None if isinstance(v, dict) else 'must be a table, e.g. { bus = "i2c", mux_channel = 0, address = 0x3C }'


SECTIONS: dict[str, dict[str, Check]] = {
    "input": {
        "backend": one_of("gpio", "serial", "sim"),
        "pin_factory": one_of("lgpio", "mock"),
    },
    "buses": {"i2c": boolean, "spi": boolean, "uart": boolean, "pwm": boolean},
    "buttons": {
        "debounce_ms": number(0, 500),
        "false_start_lockout_ms": number(0, 10000),
        "blink_hz": number(0.1, 20),
        "settle_ms": number(0, 1000),
        "tie_window_ms": number(0, 1000),
        "long_push_s": number(0.5, 10),
    },
    "knobs": {
        "absolute_stable_ms": number(0, 500),
        "pot_hysteresis": number(0, 0.49),
        "pot_poll_hz": number(1, 1000),
        "mcp3008_chip_select": whole(0, 1),
    },
    "leds": {
        "backend": one_of("neopixel", "spi", "pi5", "serial", "sim", "none"),
        "pin": _gpio,
        "layout": one_of("strip", "matrix"),
        "count": whole(2, 4096),
        "width": whole(1, 64),
        "height": whole(2, 64),
        "matrices": whole(1, 2),
        "order": one_of("serpentine", "rows"),
        "pixel_order": one_of("RGB", "GRB", "RGBW", "GRBW"),
        "brightness": number(0, 1),
        "max_milliamps": number(0, 100000),
        "fps": number(1, 120),
    },
    "serial": {"port": non_empty, "baud": whole(1200, 4000000)},
}
STATION_KEYS: dict[str, Check] = {
    "button": _gpio,
    "button_led": _gpio,
    "knob": one_of("encoder", "absolute", "potentiometer", "none"),
    "encoder_a": _gpio,
    "encoder_b": _gpio,
    "knob_switch": _gpio,
    "data": _data_pins,
    "code": one_of("gray", "binary"),
    "adc_channel": whole(0, 7),
    "display": _display_table,
}
DISPLAY_KEYS: dict[str, Check] = {
    "bus": one_of("i2c"),
    "address": whole(0x03, 0x77),
    "mux_channel": whole(0, 7),
    "mux_address": whole(0x70, 0x77),
}
KNOB_NEEDS: dict[str, tuple[str, ...]] = {
    "encoder": ("encoder_a", "encoder_b", "knob_switch"),
    "absolute": ("data", "knob_switch"),  # every station pushes (TABLE.md): a separate push button
    "potentiometer": ("adc_channel", "knob_switch"),
    "none": (),
}


def parse_hardware(data: Mapping[str, Any], source: str, *, check_pins: bool = True) -> HardwareConfig:
    """Validate parsed TOML; raises :class:`HardwareConfigError` listing every problem."""
    problems: list[str] = []
    sections: dict[str, dict[str, Any]] = {}
    known = [*SECTIONS, "station"]
    for key, value in data.items():
        if key == "station":
            continue
        if key not in SECTIONS:
            problems.append(f"{source}: {key}: unknown section{did_you_mean(key, known)}")
            continue
        sections[key] = check_section(source, key, value, SECTIONS[key], problems)
    stations: list[StationWiring] = []
    raw_stations = data.get("station", [])
    inp_raw = data.get("input", {})
    if isinstance(inp_raw, dict) and inp_raw.get("pin_factory") == "rpigpio":
        # Said in full rather than as "not one of": the factory exists, it is wrong for a game table.
        problems[:] = [p for p in problems if ".pin_factory:" not in p]
        problems.append(f'{source}: input.pin_factory: "rpigpio" stamps a press when its callback runs, not when '
                        "the edge happened, so presses 1 ms apart can come out in the wrong order, and every "
                        'game orders presses: use "lgpio" (any Pi, the Pi 5 included)')
    on_pins = not isinstance(inp_raw, dict) or inp_raw.get("backend", "gpio") == "gpio"
    if not isinstance(raw_stations, list) or (on_pins and not raw_stations):
        problems.append(f"{source}: station: needs one [[station]] table per station (1 to 5)")
        raw_stations = []
    elif len(raw_stations) > 5:
        problems.append(f"{source}: station: at most 5 stations, not {len(raw_stations)}")
    for i, raw in enumerate(raw_stations):
        name = f"S{i + 1}"  # as the pin map (table wiring) and the docs name stations
        clean = check_section(source, name, raw, STATION_KEYS, problems)
        if not isinstance(raw, dict):
            continue
        if "button" not in raw:
            problems.append(f"{source}: {name}.button: missing (every station needs its button's GPIO)")
            continue
        knob = clean.get("knob", "encoder")
        for need in KNOB_NEEDS.get(knob, ()):
            if need not in raw:
                problems.append(f"{source}: {name}.{need}: missing (a knob = \"{knob}\" needs it)")
        if "data" in clean:
            clean["data"] = tuple(clean["data"])
        if "display" in clean:
            shown = check_section(source, f"{name}.display", clean["display"], DISPLAY_KEYS, problems)
            clean["display"] = StationDisplay(**shown)
        try:
            stations.append(StationWiring(**clean))
        except TypeError:
            continue
    if problems:
        raise HardwareConfigError(problems)
    inp, bt, kn = sections.get("input", {}), sections.get("buttons", {}), sections.get("knobs", {})
    cfg = HardwareConfig(
        source=source,
        backend=inp.get("backend", "gpio"),
        pin_factory=inp.get("pin_factory", "lgpio"),
        buses=Buses(**sections.get("buses", {})),
        stations=tuple(stations),
        leds=LedConfig(**sections.get("leds", {})),
        serial=SerialConfig(**sections.get("serial", {})),
        **bt,
        **kn,
    )
    leds = cfg.leds
    if leds.layout == "strip" and leds.count % 2:
        problems.append(f"{source}: leds.count: a strip needs an even count (two halves), not {leds.count}")
    if leds.layout == "matrix" and leds.matrices == 1 and leds.height % 2:
        problems.append(f"{source}: leds.height: one matrix needs an even number of rows (two halves)")
    problems.extend(_display_problems(cfg))
    if check_pins:
        problems.extend(wiring_problems(cfg))
    if problems:
        raise HardwareConfigError(problems)
    return cfg


def _display_problems(cfg: HardwareConfig) -> list[str]:
    """Two displays answering at the same place on the bus, or a multiplexer at a display's address.

    A display wired straight to the bus answers whatever channel the multiplexer has
    selected, so it may share its address with no display behind the multiplexer."""
    problems: list[str] = []
    seen: dict[tuple[int, int, int], int] = {}
    direct: dict[int, int] = {}
    for i, d in cfg.private_displays.items():
        name = f"S{i + 1}.display"
        if d.mux_channel is None:
            if d.address in direct:
                problems.append(f"{cfg.source}: {name}.address: S{direct[d.address] + 1}'s display already "
                                f"answers at 0x{d.address:02X} on the bus (give one a mux_channel)")
            direct.setdefault(d.address, i)
            continue
        if d.address == d.mux_address:
            problems.append(f"{cfg.source}: {name}.address: 0x{d.address:02X} is the multiplexer's own address")
        where = (d.mux_address, d.mux_channel, d.address)
        if where in seen:
            problems.append(f"{cfg.source}: {name}.mux_channel: S{seen[where] + 1}'s display already answers "
                            f"at 0x{d.address:02X} on channel {d.mux_channel}")
        seen.setdefault(where, i)
    for i, d in cfg.private_displays.items():
        if d.mux_channel is not None and d.address in direct:
            problems.append(f"{cfg.source}: S{i + 1}.display.address: 0x{d.address:02X} is also the address of "
                            f"S{direct[d.address] + 1}'s display, which sits on the bus itself and would answer too")
    return problems


def load_hardware_or_sim(directory: str | Path | None) -> HardwareConfig:
    """``load_hardware`` for a config directory, where a missing ``hardware.toml`` means
    a table without wiring: simulated stations only. The wiring is the one file the
    shipped defaults do not stand in for, because it describes one particular table;
    ``None`` reads the shipped ``hardware.toml``."""
    if directory is None:
        return load_hardware(None)
    base = Path(directory)
    if base.suffix != ".toml" and not (base / HARDWARE_FILE).exists():
        return HardwareConfig(source=str(base / HARDWARE_FILE), backend="sim")
    return load_hardware(base)


def load_hardware(directory: str | Path | None = None, *, check_pins: bool = True) -> HardwareConfig:
    """Load ``hardware.toml`` from ``directory`` (default: the shipped one, see
    :mod:`table.common.datafiles`) or from a file path given directly."""
    if directory is None:
        path = data_file(HARDWARE_FILE)
    else:
        base = Path(directory)
        path = base if base.suffix == ".toml" else base / HARDWARE_FILE
    if not os.path.lexists(path):
        raise HardwareConfigError([f"{path}: no such file"])
    try:
        data = load_toml(read_text_input(path, "hardware config file"))  # regular files only
    except TableError as exc:
        raise HardwareConfigError([str(exc)]) from None
    except tomllib.TOMLDecodeError as exc:
        raise HardwareConfigError([f"{path}: not valid TOML ({exc})"]) from None
    return parse_hardware(data, _shown(path), check_pins=check_pins)


def _shown(path: Path) -> str:
    """The path as the user would type it: relative to the current directory when inside it
    (but never relative to ``/``, where ``etc/table/...`` would read as a typo)."""
    cwd = Path.cwd().resolve()
    if cwd == Path(cwd.anchor):
        return str(path)
    try:
        return str(path.resolve().relative_to(cwd))
    except (ValueError, OSError):
        return str(path)
