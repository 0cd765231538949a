"""The stations' private displays at the hardware edge: ``display = {...}`` in
``hardware.toml`` (every problem at once), the I2C pins it takes, and Adafruit's real
SSD1306 and TCA9548A drivers writing the station's picture to a fake bus."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fakes.i2c import FakeI2C

from table.common.errors import TableError
from table.display.station_screen import StationPicture, check_pattern, station_picture
from table.hardware.config import HardwareConfigError, StationDisplay, load_hardware
from table.hardware.interfaces import InputSink, LedState, StationInput, Stations
from table.hardware.oled import OledDisplays, framebuffer_bytes
from table.hardware.pinmap import format_header
from table.hardware.selftest import SelfTest, Step
from table.kiosk.selftest import station_displays_check

pytest.importorskip("adafruit_ssd1306")

STATION = """
[[station]]
button = {button}
knob = "encoder"
encoder_a = {a}
encoder_b = {b}
knob_switch = {push}
{display}
"""
PINS = [(4, 27, 22, 23), (5, 13, 19, 26), (12, 20, 21, 24), (25, 16, 17, 6)]


def config(tmp_path: Path, *displays: str, head: str = "[leds]\nbackend = \"spi\"\n") -> Path:
    text = head + "".join(STATION.format(button=b, a=a, b=bb, push=p, display=d)
                          for (b, a, bb, p), d in zip(PINS, displays, strict=False))
    path = tmp_path / "hardware.toml"
    path.write_text(text)
    return path


def test_displays_are_read_per_station(tmp_path: Path) -> None:
    cfg = load_hardware(config(tmp_path, 'display = { bus = "i2c", mux_channel = 0 }',
                               'display = { mux_channel = 1, address = 0x3D }', ""))
    assert cfg.private_displays == {0: StationDisplay(mux_channel=0), 1: StationDisplay(address=0x3D, mux_channel=1)}
    assert cfg.stations[2].display is None
    header = format_header(cfg)
    assert "OLED SDA via TCA9548A" in header and "OLED SCL via TCA9548A" in header
    assert "S2 display: SSD1306 at 0x3D, TCA9548A (0x70) channel 1 (SD1/SC1)" in header


def test_every_display_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = config(tmp_path, 'display = { bus = "spi", mux_channel = 9 }', "display = { adress = 0x3C }",
                  'display = "yes"')
    with pytest.raises(HardwareConfigError) as err:
        load_hardware(path)
    assert [p.partition(": ")[2] for p in err.value.problems] == [
        "S1.display.bus: must be one of i2c, not 'spi'",
        "S1.display.mux_channel: must be from 0 to 7, not 9",
        "S2.display.adress: unknown key (did you mean 'address'?)",
        'S3.display: must be a table, e.g. { bus = "i2c", mux_channel = 0, address = 0x3C }',
    ]


def test_every_clash_on_the_bus_is_reported_at_once(tmp_path: Path) -> None:
    path = config(tmp_path, "display = { mux_channel = 2 }", "display = { mux_channel = 2 }",
                  "display = { mux_channel = 3, address = 0x70 }", "display = { address = 0x3C }")
    with pytest.raises(HardwareConfigError) as err:
        load_hardware(path)
    assert [p.partition(": ")[2] for p in err.value.problems] == [
        "S2.display.mux_channel: S1's display already answers at 0x3C on channel 2",
        "S3.display.address: 0x70 is the multiplexer's own address",
        "S1.display.address: 0x3C is also the address of S4's display, which sits on the bus itself "
        "and would answer too",
        "S2.display.address: 0x3C is also the address of S4's display, which sits on the bus itself "
        "and would answer too",
    ]


def test_two_displays_straight_on_the_bus_need_two_addresses(tmp_path: Path) -> None:
    with pytest.raises(HardwareConfigError, match=r"S2\.display\.address: S1's display already answers at 0x3C"):
        load_hardware(config(tmp_path, "display = {}", "display = {}"))
    cfg = load_hardware(config(tmp_path, "display = {}", "display = { address = 0x3D }"))
    assert sorted(cfg.private_displays) == [0, 1]


def test_a_display_takes_the_i2c_pins(tmp_path: Path) -> None:
    path = config(tmp_path, "display = { mux_channel = 0 }")
    path.write_text(path.read_text().replace("encoder_a = 27", "encoder_a = 2"))
    with pytest.raises(HardwareConfigError, match=r"S1\.encoder_a: GPIO 2 is I2C1 SDA, reserved because the "
                                                  r"station displays use I2C"):
        load_hardware(path)


def picture() -> StationPicture:
    return station_picture([("turn + push", "small"), ("North", "big"), ("green", "big")])


def test_the_real_driver_puts_the_picture_on_the_bus() -> None:
    bus = FakeI2C({0x70, 0x3C})
    displays = OledDisplays({0: StationDisplay(mux_channel=3), 2: StationDisplay(mux_channel=5)}, i2c=bus)
    displays.start()
    shown = picture()
    assert displays.flush()
    bus.writes.clear()
    displays.show(2, shown)  # written by the displays' own thread: the loop does not wait for the bus
    assert displays.flush()
    # The multiplexer is switched to S3's channel before the frame goes out ...
    frame_at = next(i for i, (a, d) in enumerate(bus.writes) if a == 0x3C and len(d) == 1025)
    assert (0x70, bytes([1 << 5])) in bus.writes[:frame_at]
    # ... and the frame is the picture, byte for byte, in the panel's page order.
    assert bus.frames()[-1] == b"\x40" + bytes(framebuffer_bytes(shown))
    driver = displays._drivers[2]
    lit = [(x, y) for y in range(64) for x in range(128) if shown.lit(x, y)]
    assert len(lit) > 200  # the words are there: hundreds of pixels of text
    assert all(driver.pixel(x, y) for x, y in lit)
    assert sum(driver.pixel(x, y) for y in range(64) for x in range(128)) == len(lit)
    displays.close()
    assert bus.frames()[-1] == b"\x40" + bytes(1024)  # blanked on the way out


def test_a_missing_display_is_one_sentence() -> None:
    displays = OledDisplays({1: StationDisplay(mux_channel=1, address=0x3D)}, i2c=FakeI2C({0x70, 0x3C}))
    with pytest.raises(TableError) as err:
        displays.start()
    assert str(err.value).startswith("S2's display (0x3D on multiplexer channel 1) does not answer on the I2C bus")
    assert "\n" not in str(err.value)


def test_a_display_that_stops_answering_is_logged_not_raised() -> None:
    bus = FakeI2C({0x3C})
    displays = OledDisplays({0: StationDisplay()}, i2c=bus, background=False)
    displays.start()
    bus.devices.clear()
    displays.show(0, picture())
    assert displays.failures == 1


def test_check_config_warns_when_a_secret_knob_would_be_blind(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from table.cli import main

    config(tmp_path, "display = { mux_channel = 0 }", "display = { mux_channel = 1 }", "", "")
    assert main(["check-config", str(tmp_path)]) == 0  # a warning, not a problem
    out = capsys.readouterr().out
    warnings = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1
    assert "S3, S4: Wo ist bitte Umtata? is played blind there" in warnings[0]
    config(tmp_path, *[f"display = {{ mux_channel = {i} }}" for i in range(4)])
    assert main(["check-config", str(tmp_path)]) == 0
    assert "warning" not in capsys.readouterr().out


def test_switches_and_the_simulator_are_never_blind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table.cli import main

    (tmp_path / "hardware.toml").write_text((Path(__file__).parent / "wiring_examples" / "pi5-absolute.toml")
                                            .read_text())
    (tmp_path / "table.toml").write_text("[table]\nstations = 3\n")
    assert main(["check-config", str(tmp_path)]) == 0
    assert "warning" not in capsys.readouterr().out
    (tmp_path / "hardware.toml").write_text('[input]\nbackend = "sim"\n')
    assert main(["check-config", str(tmp_path)]) == 0
    assert "warning" not in capsys.readouterr().out


class Installer(Stations):
    """Stations whose installer answers every question of the self-test with ``answer``."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.sink: InputSink | None = None

    def start(self, sink: InputSink) -> None:
        self.sink = sink

    def stop(self) -> None:
        self.sink = None

    def set_leds(self, states: Mapping[int, LedState]) -> None:
        return None

    def diagnostics(self) -> dict[str, Any]:
        return {}

    def say(self, step: Step | None, text: str) -> None:
        if step is not None and step.part == "confirm" and self.sink is not None:
            self.sink(StationInput(self.answer, 0, time.monotonic()))


@pytest.mark.parametrize(("answer", "status"), [("press", "pass"), ("push", "fail")])
def test_selftest_shows_the_pattern_on_each_display(tmp_path: Path, answer: str, status: str) -> None:
    cfg = load_hardware(config(tmp_path, "display = { mux_channel = 0 }", "display = { mux_channel = 1 }"))
    bus = FakeI2C()
    shown: list[bytes] = []
    installer = Installer(answer)

    def say(step: Step | None, text: str) -> None:
        shown[:] = bus.frames()[-2:]  # what the two displays showed while the question was asked
        installer.say(step, text)

    check = station_displays_check(cfg, i2c=bus)
    assert check is not None
    test = SelfTest(installer, 2, ["encoder", "encoder"], None, say=say, timeout=1.0,
                    station_displays=check)
    [result] = test.run(["station-displays"])
    assert (result.name, result.status) == ("station displays", status)
    assert [frame[1:] for frame in shown] == [framebuffer_bytes(check_pattern(s)) for s in (0, 1)]
    assert bus.frames()[-1] == b"\x40" + bytes(1024)  # dark again afterwards
    assert station_displays_check(load_hardware(config(tmp_path, "", ""))) is None


def test_the_test_pattern_lights_every_edge_pixel() -> None:
    pattern = check_pattern(2)
    assert all(pattern.lit(x, 0) and pattern.lit(x, 63) for x in range(128))
    assert all(pattern.lit(0, y) and pattern.lit(127, y) for y in range(64))
    assert sum(pattern.pixels) > 128 * 2 + 64 * 2 + 100  # the name "S3" too


def test_check_config_names_a_missing_display_driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from table.hardware import requirements

    cfg = load_hardware(config(tmp_path, "", "display = { mux_channel = 1 }"))
    monkeypatch.setattr(requirements, "_installed", lambda name: name != "adafruit_tca9548a")
    [problem] = requirements.module_problems(cfg)
    assert "S2.display needs the Python module adafruit_tca9548a (from adafruit-circuitpython-tca9548a)" in problem
