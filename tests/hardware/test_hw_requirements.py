"""What the backends need from the machine: modules, devices, and the kiosk's limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.cli import main
from table.common.datafiles import defaults_dir
from table.hardware import requirements
from table.hardware.config import load_hardware

SHIPPED = (defaults_dir() / "hardware.toml").read_text()
ENCODERS = (Path(__file__).resolve().parent / "wiring_examples" / "pi-encoders.toml").read_text()
"""Encoder stations and the strip on SPI: a wiring any Pi takes, whatever its LED backend."""


def config_with(tmp_path: Path, old: str, new: str, base: str = ENCODERS) -> Path:
    assert old in base
    (tmp_path / "hardware.toml").write_text(base.replace(old, new, 1))
    return tmp_path


def test_the_shipped_wiring_works_under_the_kiosk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(requirements, "_installed", lambda name: True)
    shipped = load_hardware()
    assert {s.knob for s in shipped.stations} == {"absolute"} and shipped.leds.backend == "spi"
    assert requirements.kiosk_problems(shipped, on_pi=False) == []
    assert requirements.module_problems(shipped) == []


def test_the_shipped_wiring_names_its_missing_modules_under_the_kiosk(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped strip driver is the SPI one: without it, one sentence names the package."""
    module = "neopixel_spi"
    monkeypatch.setattr(requirements, "_installed", lambda name: name != module)
    d = config_with(tmp_path, "brightness = 0.4", "brightness = 0.4", base=SHIPPED)
    assert main(["check-config", "--kiosk", str(d)]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if module in line]
    assert len(lines) == 1 and "pip install 'game-table[pi]'" in lines[0]


def test_neopixel_is_refused_under_the_kiosk_with_the_backend_to_use(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(requirements, "_installed", lambda name: True)
    d = config_with(tmp_path, 'backend = "spi"', 'backend = "neopixel"')
    assert main(["check-config", str(d)]) == 0  # fine for a developer running as root
    capsys.readouterr()
    assert main(["check-config", "--kiosk", str(d)]) == 2
    err = capsys.readouterr().err
    assert "needs root" in err and 'use backend = "spi"' in err and "Traceback" not in err


def test_rpigpio_is_refused_because_it_misorders_presses(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    d = config_with(tmp_path, 'pin_factory = "lgpio"', 'pin_factory = "rpigpio"')
    assert main(["check-config", str(d)]) == 2
    err = capsys.readouterr().err
    assert "wrong order" in err and '"lgpio"' in err
    assert err.count("pin_factory") == 1


@pytest.mark.parametrize(("backend", "module", "extras"), [("spi", "neopixel_spi", "pi"), ("spi", "gpiod", "pi"),
                                                           ("neopixel", "_rpi_ws281x", "pi,neopixel"),
                                                           ("pi5", "adafruit_raspberry_pi5_neopixel_write", "pi,pi5")])
def test_a_missing_module_is_named_in_one_sentence(backend: str, module: str, extras: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The sentence names the extra that installs the module: the neopixel and pi5 drivers have their own."""
    monkeypatch.setattr(requirements, "_installed", lambda name: name != module)
    d = config_with(tmp_path, 'backend = "spi"', f'backend = "{backend}"')
    assert main(["check-config", "--kiosk", str(d)]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if module in line]
    assert len(lines) == 1 and f"pip install 'game-table[{extras}]'" in lines[0]


def test_module_lookup_never_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    """``board`` raises off a Pi when imported; looking it up must not import it."""
    import sys

    monkeypatch.delitem(sys.modules, "board", raising=False)
    requirements._installed("board")
    assert "board" not in sys.modules


def test_selftest_on_a_pi_names_the_missing_module_first(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(requirements, "is_raspberry_pi", lambda: True)
    monkeypatch.setattr(requirements, "_installed", lambda name: name != "gpiod")
    assert main(["selftest", "--skip", "camera,display", "--timeout", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("table: ") and "gpiod" in err and err.count("\n") == 1
