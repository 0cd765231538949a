"""``table wiring`` (pin map, refusals, PNG), the hardware config's error reports, and
``table selftest`` walked through on gpiozero mock pins with a recording LED strip, its
prompts in the table's language."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from fakes.pins import timed_factory
from fakes.strip import RecordingStrip

from table.cli import main
from table.common.datafiles import defaults_dir
from table.common.i18n import set_language
from table.hardware.config import HardwareConfigError, load_hardware
from table.hardware.gpio import GpioStations
from table.hardware.interfaces import HourglassLayout, LedState, StationInput, Stations
from table.hardware.leds import PixelBufHourglass
from table.hardware.selftest import Result, SelfTest, Step, format_results

Capture = pytest.CaptureFixture[str]
SHIPPED = defaults_dir() / "hardware.toml"
EXAMPLES = Path(__file__).resolve().parent / "wiring_examples"
ENCODERS = EXAMPLES / "pi-encoders.toml"
"""Four encoder stations with lamps and the strip on SPI (the self-test's encoder walk)."""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hardware.toml"
    path.write_text(text)
    return path


STATION = """
[[station]]
button = {button}
button_led = {led}
knob = "encoder"
encoder_a = {a}
encoder_b = {b}
knob_switch = {sw}
"""


def stations(*pins: tuple[int, int, int, int, int]) -> str:
    return "".join(STATION.format(button=p[0], led=p[1], a=p[2], b=p[3], sw=p[4]) for p in pins)


@pytest.fixture
def elsewhere(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a folder that does not hold the test's files, so messages show full paths
    whatever directory the suite was started from."""
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))


def test_shipped_config_loads_and_prints_the_header(capsys: Capture) -> None:
    cfg = load_hardware(SHIPPED)
    assert len(cfg.stations) == 4 and cfg.pin_factory == "lgpio"
    # The build guide's station knob: the 16-position switch under the printed dial, on the
    # SD card's Pi 4: the strip on SPI, which takes only MOSI and SCLK.
    assert {s.knob for s in cfg.stations} == {"absolute"} and cfg.leds.backend == "spi"
    assert main(["wiring", "--config", str(SHIPPED)]) == 0
    out = capsys.readouterr().out
    assert "LED data (SPI0 MOSI) GPIO10 [19]" in out and "(SPI0 SCLK) GPIO11 [23]" in out
    assert "S1 button  GPIO2 [ 3]" in out and "S4 knob switch" in out
    # Every one of the header's 26 free GPIOs is taken: 24 by the stations, 10 and 11 by SPI.
    station_pins = [gpio for st in cfg.stations for gpio in st.pins().values()]
    assert len(station_pins) == len(set(station_pins)) == 24
    assert sorted([*station_pins, 10, 11]) == list(range(2, 28))


def test_the_shipped_config_plays_umtata_with_every_guess_visible(tmp_path: Path, capsys: Capture) -> None:
    """No station of the shipped wiring plays Umtata blind: check-config warns of nothing;
    the encoder example (no displays) gets the warning."""
    assert main(["check-config", str(SHIPPED.parent)]) == 0
    said = capsys.readouterr()
    assert "warning" not in said.out + said.err and "blind" not in said.out + said.err
    (tmp_path / "table.toml").write_text((SHIPPED.parent / "table.toml").read_text())
    (tmp_path / "hardware.toml").write_text(ENCODERS.read_text())
    assert main(["check-config", str(tmp_path)]) == 0
    assert "played blind" in capsys.readouterr().out


def test_wiring_png_is_drawn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    png = tmp_path / "wiring.png"
    assert main(["wiring", "--config", str(SHIPPED), "--png", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_wiring_refuses_every_problem_one_sentence_each(tmp_path: Path, capsys: Capture,
                                                        elsewhere: None) -> None:
    path = write(tmp_path, """
[buses]
i2c = true
uart = true
[leds]
backend = "neopixel"
pin = 17
""" + stations((4, 5, 6, 12, 13), (4, 2, 40, 14, 0)))
    assert main(["wiring", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"table: {path}: S2.button: GPIO 4 is already used by S1.button",
        f"table: {path}: S2.button_led: GPIO 2 is I2C1 SDA, reserved because buses.i2c is on",
        f"table: {path}: S2.encoder_a: GPIO 40 does not exist on the 40-pin header (GPIO 0 to 27)",
        f"table: {path}: S2.encoder_b: GPIO 14 is UART TXD, reserved because buses.uart is on",
        f"table: {path}: S2.knob_switch: GPIO 0 is reserved for the HAT ID EEPROM (ID_SD)",
        f"table: {path}: leds.pin: the neopixel backend can drive GPIO 10, 12, 18 or 21 only, not 17",
    ]


def test_a_potentiometer_reserves_spi(tmp_path: Path, capsys: Capture) -> None:
    path = write(tmp_path, """
[[station]]
button = 9
knob = "potentiometer"
adc_channel = 0
knob_switch = 17
[leds]
backend = "spi"
""")
    assert main(["wiring", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "S1.button: GPIO 9 is SPI0 MISO, reserved because" in err
    assert "leds.backend: LEDs on SPI would also receive the MCP3008's traffic" in err
    assert err.count("\n") == 2


def test_spi_leds_alone_claim_only_mosi_and_sclk(tmp_path: Path, capsys: Capture, elsewhere: None) -> None:
    """The strip alone on SPI leaves the chip selects and MISO (GPIO 7, 8, 9) to the
    stations and refuses only GPIO 10 and 11; buses.spi claims the whole bus again."""
    leds = '[leds]\nbackend = "spi"\n'
    free = write(tmp_path, leds + stations((7, 8, 9, 4, 5)))
    assert main(["wiring", "--config", str(free)]) == 0
    assert "(SPI0 CE0)" not in capsys.readouterr().out
    path = write(tmp_path, leds + stations((10, 11, 9, 4, 5)))
    assert main(["wiring", "--config", str(path)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"table: {path}: S1.button: GPIO 10 is SPI0 MOSI, reserved because the LEDs use SPI",
        f"table: {path}: S1.button_led: GPIO 11 is SPI0 SCLK, reserved because the LEDs use SPI",
        f"table: {path}: leds.backend: GPIO 10 is already used by S1.button",
    ]
    path = write(tmp_path, "[buses]\nspi = true\n" + leds + stations((7, 8, 9, 4, 5)))
    assert main(["wiring", "--config", str(path)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"table: {path}: S1.button: GPIO 7 is SPI0 CE1, reserved because buses.spi is on",
        f"table: {path}: S1.button_led: GPIO 8 is SPI0 CE0, reserved because buses.spi is on",
        f"table: {path}: S1.encoder_a: GPIO 9 is SPI0 MISO, reserved because buses.spi is on",
    ]


def test_the_shipped_wiring_takes_the_pi5_driver_on_gpio_10(tmp_path: Path, capsys: Capture) -> None:
    """docs/hardware.md section 3.1: on a Pi 5 the strip may leave SPI for the Pi 5's
    driver on the same pin, and GPIO 11 is free then."""
    text = SHIPPED.read_text()
    assert text.count('backend = "spi"') == 1 and text.count("pin = 18 ") == 1
    path = write(tmp_path, text.replace('backend = "spi"', 'backend = "pi5"').replace("pin = 18 ", "pin = 10 "))
    assert main(["wiring", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "LED data GPIO10 [19]" in out and "GPIO11 [23]" in out and "SPI0" not in out


def test_the_display_example_fits_any_pi_with_the_strip_on_spi(tmp_path: Path, capsys: Capture) -> None:
    """docs/hardware.md section 3.8: the Pi 5 example's strip moves to SPI on another Pi."""
    text = (EXAMPLES / "pi5-encoders-displays.toml").read_text()
    assert 'backend = "pi5"' in text
    path = write(tmp_path, text.replace('backend = "pi5"', 'backend = "spi"'))
    assert main(["wiring", "--config", str(path)]) == 0
    assert "LED data (SPI0 MOSI) GPIO10" in capsys.readouterr().out


def test_config_errors_name_file_and_key_path(tmp_path: Path, elsewhere: None) -> None:
    path = write(tmp_path, """
[input]
backnd = "gpio"
pin_factory = "pigpio"
[leds]
brightness = 2
count = 61
[[station]]
button = "four"
knob = "absolute"
data = [1, 2]
""")
    with pytest.raises(HardwareConfigError) as info:
        load_hardware(path)
    assert info.value.problems == [
        f"{path}: input.backnd: unknown key (did you mean 'backend'?)",
        f"{path}: input.pin_factory: must be one of lgpio, mock, not 'pigpio'",
        f"{path}: leds.brightness: must be from 0 to 1, not 2",
        f"{path}: S1.button: must be a GPIO number (BCM), e.g. 17",
        f"{path}: S1.data: must be a list of four GPIO numbers, least significant line first",
        f"{path}: S1.knob_switch: missing (a knob = \"absolute\" needs it)",
    ]


def test_bad_config_is_one_clear_message_and_exit_2(tmp_path: Path, capsys: Capture) -> None:
    path = write(tmp_path, "[leds\n")
    assert main(["wiring", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("table: the hardware config has a problem:") and "not valid TOML" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("config", "leds"), [(SHIPPED, "spi"), (EXAMPLES / "pi5-encoders-displays.toml", "pi5")])
def test_off_a_pi_gpio_is_unavailable_in_one_sentence(config: Path, leds: str, capsys: Capture) -> None:
    args = ["selftest", "--config", str(config), "--timeout", "0.1"]
    assert main([*args, "--skip", "camera,display,station-displays,leds"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("table: GPIO is not available on this machine")
    assert "table sim" in err and err.count("\n") == 1
    assert main(["selftest", "--config", str(config), "--skip", "stations,camera,display,station-displays"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"table: the {leds} LED backend is not available on this machine")
    assert err.count("\n") == 1


# --- the self-test walked through on mock pins ---------------------------------------------

@pytest.mark.heavy  # waits out the self-test's real timeouts
def test_selftest_walks_every_station_on_mock_pins() -> None:
    cfg = load_hardware(ENCODERS)
    factory = timed_factory()
    gpio = GpioStations(cfg, cfg.timing(), pin_factory=factory)
    strip = RecordingStrip(60)
    glass = PixelBufHourglass(strip, HourglassLayout(count=60), 0.4, 2000)
    pins = {i: st for i, st in enumerate(cfg.stations)}

    def tap(gpio_number: int) -> None:
        pin = factory.pin(gpio_number)
        pin.drive_low()
        time.sleep(0.06)
        pin.drive_high()

    def detent(a: int, b: int) -> None:
        pa, pb = factory.pin(a), factory.pin(b)
        pa.drive_low()
        pb.drive_low()
        pa.drive_high()
        pb.drive_high()

    def act(step: Step | None, text: str) -> None:
        if step is None:
            return
        if step.action == "confirm":
            threading.Timer(0.05, tap, args=(cfg.stations[1].button,)).start()
            return
        st = pins[step.station or 0]
        if step.station == 2 and step.action == "push the knob":
            return  # the installer never pushes station 3's knob: that step must fail
        jobs = {
            "press": lambda: tap(st.button),
            "turn clockwise": lambda: detent(st.encoder_a or 0, st.encoder_b or 0),
            "turn counter-clockwise": lambda: detent(st.encoder_b or 0, st.encoder_a or 0),
            "push the knob": lambda: tap(st.knob_switch or 0),
        }
        threading.Timer(0.05, jobs[step.action]).start()

    test = SelfTest(gpio, 4, [s.knob for s in cfg.stations], glass, say=act, timeout=1.0,
                    camera=lambda: Result("camera", "pass", "stub"), display=None)
    results = test.run()
    status = {r.name: r.status for r in results}
    assert status.pop("station 3 push") == "fail"
    assert status.pop("display") == "skip"
    assert set(status.values()) == {"pass"}
    assert len(results) == 4 * 4 + 4
    assert next(r for r in results if r.name == "input ordering").detail.startswith("0 unordered, 0 late edges")
    assert strip.frames and strip.colours() == [(0, 0, 0)] * 60  # swept, then off
    table = format_results(results)
    assert "20 checks: 18 passed, 1 failed, 1 skipped" in table


@pytest.mark.parametrize("name", ["pi5-absolute", "pi4-potentiometers", "pi5-encoders-displays", "pi-encoders"])
def test_build_guide_wiring_examples_are_valid(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    cfg = load_hardware(EXAMPLES / f"{name}.toml")
    assert cfg.stations
    assert main(["wiring", "--config", str(EXAMPLES / f"{name}.toml"), "--png", str(tmp_path / "w.png")]) == 0


class ScriptedStations(Stations):
    """Answers each self-test prompt with the inputs an installer would make."""

    def __init__(self) -> None:
        self.sink: Callable[[StationInput], None] | None = None
        self.sector = 5
        self.t = 0.0

    def start(self, sink: Callable[[StationInput], None]) -> None:
        self.sink = sink
        sink(StationInput("turn", 0, 0.0, {"sector": self.sector, "sectors": 16}))  # where it points

    def stop(self) -> None:
        self.sink = None

    def set_leds(self, states: Mapping[int, LedState]) -> None:
        return None

    def diagnostics(self) -> dict[str, Any]:
        return {}

    def act(self, step: Step | None, text: str) -> None:
        assert self.sink is not None
        if step is None:
            return
        self.t += 1.0
        if step.action == "turn clockwise":
            for _ in range(2):
                self.sector = (self.sector + 1) % 16
                self.sink(StationInput("turn", 0, self.t, {"sector": self.sector, "sectors": 16}))
        elif step.action == "turn counter-clockwise":
            self.sector = (self.sector - 3) % 16
            self.sink(StationInput("turn", 0, self.t, {"sector": self.sector, "sectors": 16}))
        elif step.action == "push the knob":
            self.sink(StationInput("push", 0, self.t))
        else:
            self.sink(StationInput("press", 0, self.t))


def test_selftest_understands_absolute_knobs() -> None:
    fake = ScriptedStations()
    test = SelfTest(fake, 1, ["absolute"], None, say=fake.act, timeout=0.5)
    results = test.run(["stations"])
    assert [(r.name, r.status) for r in results] == [
        ("station 1 press", "pass"),
        ("station 1 turn clockwise", "pass"),
        ("station 1 turn counter-clockwise", "pass"),
        ("station 1 push", "pass"),
        ("input ordering", "pass"),
    ]


def test_a_serial_bridge_table_needs_no_station_pins(tmp_path: Path, capsys: Capture) -> None:
    path = write(tmp_path, '[input]\nbackend = "serial"\n[leds]\nbackend = "serial"\n')
    cfg = load_hardware(path)
    assert cfg.stations == () and cfg.serial.port == "/dev/ttyACM0"
    assert main(["wiring", "--config", str(path)]) == 0
    assert "not on the Pi's header" in capsys.readouterr().out


def test_camera_check_saves_the_tray_picture(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from table.hardware.selftest import camera_check

    picture = tmp_path / "tray.png"
    cv2.imwrite(str(picture), np.full((48, 64, 3), 200, np.uint8))
    result = camera_check(tmp_path / "out", str(picture))
    assert result.status == "pass" and (tmp_path / "out" / "selftest-tray.png").exists()
    missing = camera_check(tmp_path / "out", str(tmp_path / "nothing.png"))
    assert missing.status == "fail" and "no picture" in missing.detail


def test_selftest_prompts_speak_the_table_language_and_results_stay_english() -> None:
    said: list[str] = []
    set_language("de")
    test = SelfTest(None, 1, ["encoder"], None, say=lambda step, text: said.append(text), timeout=0.01,
                    display=lambda confirm: confirm("Does the display show seven colour bars ({size})?", size="4x3"))
    results = test.run(["stations", "display"])
    assert said[0] == "Station 1: den Buzzer drücken (innerhalb von 0.01 s)"
    assert said[-1] == "Zeigt der Bildschirm sieben Farbbalken (4x3)? Ein Buzzer heißt ja, ein Drehknopf heißt nein."
    # The result table is for the installer's terminal: English names, as before.
    assert [r.name for r in results][:2] == ["station 1 press", "station 1 turn clockwise"]
    assert results[-1].name == "Does the display show seven colour bars (4x3)?"
