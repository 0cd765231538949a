"""The Raspberry Pi's 40-pin header and the checks behind ``table wiring``.

Pins in the config are BCM GPIO numbers. :data:`HEADER` maps each of the 40 header
positions to what sits there; :func:`wiring_problems` lists, one sentence each,
every GPIO used twice, every GPIO that is not on the header, and every GPIO that
belongs to a bus the config switches on (I2C, SPI, UART, PWM) or that the Pi
keeps for itself (the HAT ID EEPROM on GPIO 0 and 1).

SPI claims what its use needs: LEDs alone on SPI (``[leds] backend = "spi"``) take
only MOSI and SCLK (GPIO 10 and 11), as the SD card's overlay and Raspberry Pi OS's
``dtoverlay=spi0-0cs,no_miso`` switch it on; an MCP3008 (a potentiometer knob) or
``buses.spi = true`` takes the whole bus, chip selects and MISO too (GPIO 7-11).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


# What the checks read of a wiring: the shape of table.hardware.config.HardwareConfig,
# which runs them when it loads (so this module stays below it and imports nothing of it).
class StationPins(Protocol):
    @property
    def knob(self) -> str: ...

    def pins(self) -> Mapping[str, int]: ...


class LedPins(Protocol):
    @property
    def backend(self) -> str: ...

    @property
    def pin(self) -> int: ...


class BusesOn(Protocol):
    @property
    def i2c(self) -> bool: ...

    @property
    def spi(self) -> bool: ...

    @property
    def uart(self) -> bool: ...

    @property
    def pwm(self) -> bool: ...


class Wiring(Protocol):
    """A table's wiring as ``hardware.toml`` gives it (``source``: the file, for messages)."""

    @property
    def source(self) -> str: ...

    @property
    def backend(self) -> str: ...

    @property
    def stations(self) -> Sequence[StationPins]: ...

    @property
    def leds(self) -> LedPins: ...

    @property
    def buses(self) -> BusesOn: ...

    @property
    def mcp3008_chip_select(self) -> int: ...

    @property
    def private_displays(self) -> Mapping[int, object]:
        """The stations with a private display (on the Pi's I2C bus)."""
        ...

# Header position -> GPIO number, or the name of a power/ground pin.
HEADER: dict[int, int | str] = {
    1: "3V3", 2: "5V", 3: 2, 4: "5V", 5: 3, 6: "GND", 7: 4, 8: 14, 9: "GND", 10: 15,
    11: 17, 12: 18, 13: 27, 14: "GND", 15: 22, 16: 23, 17: "3V3", 18: 24, 19: 10, 20: "GND",
    21: 9, 22: 25, 23: 11, 24: 8, 25: "GND", 26: 7, 27: 0, 28: 1, 29: 5, 30: "GND",
    31: 6, 32: 12, 33: 13, 34: "GND", 35: 19, 36: 16, 37: 26, 38: 20, 39: "GND", 40: 21,
}
GPIO_TO_HEADER: dict[int, int] = {v: k for k, v in HEADER.items() if isinstance(v, int)}

BUS_PINS: dict[str, dict[int, str]] = {
    "i2c": {2: "I2C1 SDA", 3: "I2C1 SCL"},
    "spi": {7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK"},
    "uart": {14: "UART TXD", 15: "UART RXD"},
    "pwm": {12: "PWM0", 13: "PWM1", 18: "PWM0", 19: "PWM1"},
}
# SPI0 as the LEDs alone use it: data out and the clock the controller drives (no chip
# select, no MISO).
SPI_LED_PINS: dict[int, str] = {10: "SPI0 MOSI", 11: "SPI0 SCLK"}
ALWAYS_RESERVED: dict[int, str] = {0: "HAT ID EEPROM (ID_SD)", 1: "HAT ID EEPROM (ID_SC)"}
NEOPIXEL_PINS = (10, 12, 18, 21)  # the pins rpi_ws281x can drive (SPI, PWM, PCM)


@dataclass(frozen=True)
class PinUse:
    """One GPIO claimed by the config: its key path and a short label."""

    gpio: int
    key: str
    label: str


def pin_uses(cfg: Wiring) -> Iterator[PinUse]:
    """Every GPIO of the Pi the configured table uses (stations on GPIO, LED data).

    With ``input.backend = "serial"`` (or ``"sim"``) the stations are not on the
    Pi's header, so their ``[[station]]`` pins (if any) are not claimed."""
    stations = cfg.stations if cfg.backend == "gpio" else ()
    for i, station in enumerate(stations):
        for key, gpio in station.pins().items():
            yield PinUse(gpio, f"S{i + 1}.{key}", f"S{i + 1} {key.replace('_', ' ')}")
    if cfg.leds.backend in ("neopixel", "pi5"):
        yield PinUse(cfg.leds.pin, "leds.pin", "LED data")
    elif cfg.leds.backend == "spi":
        yield PinUse(10, "leds.backend", "LED data (SPI0 MOSI)")


def _on_pins(cfg: Wiring) -> bool:
    return cfg.backend == "gpio"


def _buses_in_use(cfg: Wiring) -> dict[str, tuple[str, dict[int, str]]]:
    """Bus -> (why it is in use, the GPIOs it claims)."""
    out: dict[str, tuple[str, dict[int, str]]] = {}
    if cfg.buses.i2c:
        out["i2c"] = ("buses.i2c is on", BUS_PINS["i2c"])
    elif cfg.private_displays:
        out["i2c"] = ("the station displays use I2C", BUS_PINS["i2c"])
    pots = _on_pins(cfg) and any(s.knob == "potentiometer" for s in cfg.stations)
    if cfg.buses.spi:
        out["spi"] = ("buses.spi is on", BUS_PINS["spi"])
    elif pots:
        out["spi"] = ("a potentiometer knob reads the MCP3008 on SPI", BUS_PINS["spi"])
    elif cfg.leds.backend == "spi":
        # Only the two pins the strip's data needs: the rest of the bus stays free.
        out["spi"] = ("the LEDs use SPI", SPI_LED_PINS)
    if cfg.buses.uart:
        out["uart"] = ("buses.uart is on", BUS_PINS["uart"])
    if cfg.buses.pwm:
        out["pwm"] = ("buses.pwm is on", BUS_PINS["pwm"])
    return out


def reserved_pins(cfg: Wiring) -> dict[int, str]:
    """GPIO -> what reserves it (the pins of the buses in use and the ID EEPROM)."""
    out = dict(ALWAYS_RESERVED)
    for _why, pins in _buses_in_use(cfg).values():
        out.update(pins)
    return out


def wiring_problems(cfg: Wiring) -> list[str]:
    """One sentence per problem, each naming the file and key path."""
    src = cfg.source
    problems: list[str] = []
    seen: dict[int, PinUse] = {}
    buses = _buses_in_use(cfg)
    for use in pin_uses(cfg):
        if use.gpio not in GPIO_TO_HEADER:
            problems.append(
                f"{src}: {use.key}: GPIO {use.gpio} does not exist on the 40-pin header (GPIO 0 to 27)"
            )
            continue
        if use.gpio in seen:
            first = seen[use.gpio]
            problems.append(f"{src}: {use.key}: GPIO {use.gpio} is already used by {first.key}")
            continue
        seen[use.gpio] = use
        if use.gpio in ALWAYS_RESERVED:
            why = ALWAYS_RESERVED[use.gpio]
            problems.append(f"{src}: {use.key}: GPIO {use.gpio} is reserved for the {why}")
            continue
        for bus, (why, pins) in buses.items():
            if use.gpio in pins and not (bus == "spi" and use.key.startswith("leds.")):
                problems.append(
                    f"{src}: {use.key}: GPIO {use.gpio} is {pins[use.gpio]}, reserved because {why}"
                )
    if cfg.leds.backend == "spi" and _on_pins(cfg) and any(s.knob == "potentiometer" for s in cfg.stations):
        problems.append(
            f"{src}: leds.backend: LEDs on SPI would also receive the MCP3008's traffic on GPIO 10; "
            "use the neopixel (Pi 1-4) or pi5 backend with potentiometer knobs"
        )
    if cfg.leds.backend == "neopixel" and cfg.leds.pin not in NEOPIXEL_PINS:
        problems.append(
            f"{src}: leds.pin: the neopixel backend can drive GPIO 10, 12, 18 or 21 only, not {cfg.leds.pin}"
        )
    return problems


def header_rows(cfg: Wiring) -> list[tuple[int, str, str]]:
    """(header position, pin name, what the table connects there) for all 40 pins."""
    uses: dict[int, str] = {}
    for use in pin_uses(cfg):
        uses.setdefault(use.gpio, use.label)
    reserved = reserved_pins(cfg)
    rows: list[tuple[int, str, str]] = []
    for pos in range(1, 41):
        what = HEADER[pos]
        if isinstance(what, str):
            rows.append((pos, what, ""))
            continue
        name = f"GPIO{what}"
        if what in uses:
            rows.append((pos, name, uses[what]))
        elif what in reserved:
            rows.append((pos, name, f"({reserved[what]})"))
        else:
            rows.append((pos, name, ""))
    if _on_pins(cfg) and any(s.knob == "potentiometer" for s in cfg.stations):
        cs = 8 if cfg.mcp3008_chip_select == 0 else 7
        spi = BUS_PINS["spi"]
        rows = [
            (p, n, f"MCP3008 {spi[int(n[4:])]}" if n in (f"GPIO{g}" for g in (9, 10, 11, cs)) else u)
            for p, n, u in rows
        ]
    if cfg.private_displays:
        via = " via TCA9548A" if any(getattr(d, "mux_channel", None) is not None
                                    for d in cfg.private_displays.values()) else ""
        i2c = {"GPIO2": f"OLED SDA{via}", "GPIO3": f"OLED SCL{via}"}
        rows = [(p, n, i2c.get(n, u)) for p, n, u in rows]
    return rows


def display_lines(cfg: Wiring) -> list[str]:
    """How each station's private display is reached on the I2C bus, one line each."""
    lines = []
    for i, d in sorted(cfg.private_displays.items()):
        channel, address = getattr(d, "mux_channel", None), getattr(d, "address", 0x3C)
        mux = getattr(d, "mux_address", 0x70)
        where = "on the bus itself" if channel is None else \
            f"TCA9548A (0x{mux:02X}) channel {channel} (SD{channel}/SC{channel})"
        lines.append(f"S{i + 1} display: SSD1306 at 0x{address:02X}, {where}")
    return lines


def format_header(cfg: Wiring) -> str:
    """The header as two columns, odd positions left, even right, as on the board."""
    rows = header_rows(cfg)
    by_pos = {p: (n, u) for p, n, u in rows}
    lines = [f"Raspberry Pi 40-pin header ({cfg.source}); GPIO numbers are BCM.", ""]
    for odd in range(1, 41, 2):
        ln, lu = by_pos[odd]
        rn, ru = by_pos[odd + 1]
        lines.append(f"{lu:>22} {ln:>6} [{odd:2d}] [{odd + 1:2d}] {rn:<6} {ru}")
    lines.append("")
    lines.append("Every button, encoder contact and switch line goes between its GPIO and GND")
    lines.append("(the internal pull-ups are used); button LEDs from their GPIO through a resistor to GND.")
    if cfg.private_displays:
        lines.append("")
        lines.append("Station displays: 3.3 V (pin 1), GND, SDA GPIO2 (pin 3), SCL GPIO3 (pin 5) to the")
        lines.append("TCA9548A's VIN, GND, SDA, SCL (A0-A2 to GND: 0x70); each OLED on its channel's SDn/SCn:")
        lines.extend(f"  {line}" for line in display_lines(cfg))
    return "\n".join(lines)
