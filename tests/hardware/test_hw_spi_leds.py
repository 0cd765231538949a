"""The ``spi`` LED backend through Adafruit's real Blinka and NeoPixel_SPI, down to a fake kernel.

Blinka believes it runs on a Raspberry Pi 4 (``BLINKA_FORCEBOARD`` / ``BLINKA_FORCECHIP``,
read by adafruit-platformdetect), imports its real board, ``busio`` and Linux SPI
modules (with the real ``gpiod`` binding installed; nothing else is stubbed), and sends
through Adafruit_PureIO to :class:`fakes.spidev.SpiKernel`, the kernel's spidev device.
A WS2812 model reads the bytes off MOSI as a strip would, so each frame's colours and
pixel order are checked as the LEDs would show them.
"""

from __future__ import annotations

import errno
import importlib.metadata
import importlib.util
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.spidev import SpiKernel, Ws2812Strip

from table.common.errors import TableError
from table.hardware import leds
from table.hardware.config import LedConfig
from table.hardware.hourglass import HourglassState, hourglass_frame, limit_frame
from table.hardware.interfaces import RGB

# Looked up, not imported: Blinka's board picks its board once, when first imported.
MISSING = [name for name in ("board", "neopixel_spi", "gpiod", "Adafruit_PureIO")
           if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"the dev extra is not installed ({', '.join(MISSING)})")

COUNT = 300
FRAME_BYTES = 64 + 24 * COUNT + 64
"""NeoPixel_SPI at its 6.4 MHz: a 80 us reset (64 bytes), 8 bytes per colour bit, the reset again."""
CFG = LedConfig(backend="spi", layout="strip", count=COUNT, pixel_order="GRB", brightness=1.0, max_milliamps=0)


def blinka_modules() -> set[str]:
    """The top-level modules of Blinka and of what remembers the board it found."""
    names = {"adafruit_platformdetect", "neopixel_spi", "neopixel"}
    for file in importlib.metadata.files("adafruit-blinka") or ():
        top = file.parts[0].removesuffix(".py")
        if file.parts[0].endswith(".py") or (len(file.parts) > 1 and not top.endswith((".dist-info", "__pycache__"))):
            names.add(top)
    return names


@pytest.fixture
def pi4(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[SpiKernel]:
    """A Raspberry Pi 4 as Blinka sees it, SPI switched on, the kernel's bufsiz raised to 65536
    (the test changes it before opening the strip if it needs to). Blinka picks its board
    once, when first imported: the Blinka modules another test imported are set aside and
    put back afterwards, and those imported here are forgotten."""
    tops = blinka_modules()
    for name in [n for n in sys.modules if n.split(".")[0] in tops]:
        monkeypatch.delitem(sys.modules, name)
    before = set(sys.modules)
    monkeypatch.setenv("BLINKA_FORCEBOARD", "RASPBERRY_PI_4B")
    monkeypatch.setenv("BLINKA_FORCECHIP", "BCM2XXX")
    kernel = SpiKernel(bufsiz=65536)
    kernel.install(monkeypatch)
    monkeypatch.setattr(leds, "SPIDEV_BUFSIZ", tmp_path / "bufsiz")
    yield kernel
    for name in set(sys.modules) - before:
        if not name.startswith(("table", "fakes", "_pytest", "pytest")):
            del sys.modules[name]


def frames() -> list[list[RGB]]:
    """Sand at a few moments, and a frame whose every pixel and channel differs (pixel order)."""
    layout = CFG.hourglass_layout()
    run = HourglassState(sand_started=100.0, sand_seconds=60.0)
    shown = [hourglass_frame(t, run, layout) for t in (101.0, 130.0, 159.9, 175.0)]
    shown.append([((7 * i) % 256, (13 * i + 5) % 256, (29 * i + 11) % 256) for i in range(COUNT)])
    shown.append([(0, 0, 0)] * COUNT)
    return shown


def bufsiz_file(kernel: SpiKernel) -> None:
    kernel.write_parameter(leds.SPIDEV_BUFSIZ.parent)


def test_a_300_led_frame_goes_out_whole_and_shows_its_colours_in_order(
        pi4: SpiKernel, caplog: pytest.LogCaptureFixture) -> None:
    bufsiz_file(pi4)
    strip = Ws2812Strip(COUNT, wire_order="GRB")
    glass = leds.make_hourglass(CFG)
    node = pi4.node()
    for frame in frames():
        sent = len(node.messages)
        glass.show(frame)
        [message] = node.messages[sent:]
        assert len(message.data) == FRAME_BYTES and message.speed_hz == 6_400_000 and message.mode == 0
        strip.receive(message)
        assert strip.shown == limit_frame(frame, 1.0, None)
    assert strip.latches == len(frames())
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "spidev" not in sys.modules  # Blinka writes through Adafruit_PureIO, never python-spidev
    glass.close()
    strip.receive(node.messages[-1])
    assert strip.shown == [(0, 0, 0)] * COUNT


def test_blinka_alone_splits_the_frame_and_the_strip_shows_it_torn(pi4: SpiKernel) -> None:
    """What the backend did before it sized PureIO's transfers: NeoPixel_SPI on board.SPI()
    as is. The 7,328 bytes go out as 4,096 + 3,232, and the strip latches in between."""
    import board
    import neopixel_spi

    bufsiz_file(pi4)
    pixels = neopixel_spi.NeoPixel_SPI(board.SPI(), COUNT, brightness=1.0, auto_write=False, pixel_order="GRB")
    frame = frames()[4]
    for i, colour in enumerate(frame):
        pixels[i] = colour
    pixels.show()
    messages = pi4.node().messages
    assert [len(m.data) for m in messages] == [4096, FRAME_BYTES - 4096]
    strip = Ws2812Strip(COUNT)
    for message in messages:
        strip.receive(message)
    first = (4096 - 64) // 24  # whole pixels in the first transfer
    assert strip.shown[:first] != frame[:first]  # overwritten by the second transfer's pixels
    assert strip.shown[: COUNT - first] == frame[first:]


def test_with_the_kernels_default_buffer_frames_go_in_pieces_and_one_warning_names_the_fix(
        pi4: SpiKernel, caplog: pytest.LogCaptureFixture) -> None:
    pi4.bufsiz = 4096  # the card did not raise spidev.bufsiz
    bufsiz_file(pi4)
    with caplog.at_level(logging.WARNING, logger="table.hardware.leds"):
        glass = leds.make_hourglass(CFG)
        for frame in frames() * 5:
            glass.show(frame)
    assert all(len(m.data) <= 4096 for m in pi4.node().messages)
    assert len(pi4.node().messages) == 2 * len(frames()) * 5
    [record] = caplog.records
    text = record.getMessage()
    assert f"{FRAME_BYTES} bytes" in text and "spidev.bufsiz=65536" in text and "/boot/firmware/cmdline.txt" in text
    assert record.exc_info is None


def test_a_refused_transfer_is_one_sentence_naming_the_kernel_parameter_not_a_traceback_per_frame(
        pi4: SpiKernel, caplog: pytest.LogCaptureFixture) -> None:
    """No sysfs file (the default 4096 is assumed) and a kernel that takes 1024: EMSGSIZE."""
    pi4.bufsiz = 1024
    with caplog.at_level(logging.WARNING, logger="table.hardware.leds"):
        glass = leds.make_hourglass(CFG)
        caplog.clear()
        for frame in frames() * 5:
            glass.show(frame)  # the table goes on
    assert pi4.node().messages == []
    [record] = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info is None
    assert "EMSGSIZE" in record.getMessage() and "spidev.bufsiz=65536" in record.getMessage()


def test_without_spi_switched_on_the_backend_says_so_in_one_sentence(
        monkeypatch: pytest.MonkeyPatch, pi4: SpiKernel) -> None:
    pi4.nodes.clear()
    with pytest.raises(TableError) as caught:
        leds.make_hourglass(CFG)
    message = str(caught.value)
    assert "/dev/spidev0.0 does not exist" in message and "\n" not in message


@pytest.mark.parametrize(("backend", "module", "extra"), [
    ("neopixel", "_rpi_ws281x", "'game-table[pi,neopixel]'"),
    ("pi5", "adafruit_raspberry_pi5_neopixel_write", "'game-table[pi,pi5]'"),
    ("spi", "neopixel_spi", "'game-table[pi]'"),
])
def test_a_missing_driver_names_the_extra_that_brings_it(
        backend: str, module: str, extra: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(leds, "_installed", lambda name: name != module)
    with pytest.raises(TableError) as caught:
        leds.make_hourglass(LedConfig(backend=backend))  # type: ignore[arg-type]
    assert module in str(caught.value) and extra in str(caught.value)


# -- the fake kernel holds to what the real one refuses ------------------------------------


def pureio_spi(kernel: SpiKernel, monkeypatch: pytest.MonkeyPatch) -> Any:
    import Adafruit_PureIO.spi as pureio

    kernel.install(monkeypatch)
    return pureio.SPI((0, 0))


def test_the_fake_kernel_refuses_what_spidev_and_bcm2835_refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = SpiKernel(bufsiz=4096)
    port = pureio_spi(kernel, monkeypatch)
    port.mode = 3
    port.max_speed_hz = 6_400_000
    port.bits_per_word = 8
    assert (port.mode, port.max_speed_hz, port.bits_per_word) == (3, 6_400_000, 8)
    for attribute, value in (("lsb_first", True), ("loop", True), ("bits_per_word", 16)):
        with pytest.raises(OSError) as caught:
            setattr(port, attribute, value)
        assert caught.value.errno == errno.EINVAL, attribute
    port.chunk_size = 4097
    with pytest.raises(OSError) as caught:
        port.writebytes(bytes(4097))
    assert caught.value.errno == errno.EMSGSIZE and kernel.node().messages == []
    port.writebytes(bytes(range(256)) * 16)
    assert kernel.node().messages[-1].data == bytes(range(256)) * 16
    assert port.transfer([1, 2, 3]) == [0, 0, 0]
    import Adafruit_PureIO.spi as pureio

    pureio.os.close(port.handle)
    with pytest.raises(OSError) as caught:
        port.writebytes(b"\x01")
    assert caught.value.errno == errno.EBADF
    kernel.node("/dev/spidev0.1").allowed = False
    with pytest.raises(PermissionError):
        pureio.SPI((0, 1))
    with pytest.raises(OSError, match="does not exist"):
        pureio.SPI((1, 0))
