"""The Linux kernel's spidev device (``/dev/spidevB.C``) as Adafruit Blinka reaches it, and a WS2812 strip on its MOSI.

Blinka's Linux SPI (``adafruit_blinka.microcontroller.generic_linux.spi``) does not use
python-spidev: it talks to the kernel through ``Adafruit_PureIO.spi``, which opens the
node with ``os.open`` and drives it with ``fcntl.ioctl`` (``SPI_IOC_WR_MODE``,
``SPI_IOC_WR_MAX_SPEED_HZ``, ``SPI_IOC_MESSAGE(1)``, ...). :meth:`SpiKernel.install`
points exactly those two names of PureIO's module at this fake, so Blinka's ``busio``
and the NeoPixel_SPI driver run unchanged above it.

What the kernel enforces (``drivers/spi/spidev.c`` with the Pi's ``spi-bcm2835``
controller), the fake enforces:

* opening needs the node (``ENOENT``) and the right to it (``EACCES``);
* one ``SPI_IOC_MESSAGE`` sends at most ``bufsiz`` bytes, and receives at most as many,
  summed over its transfers (``EMSGSIZE`` above): the module parameter ``spidev.bufsiz``,
  4096 unless the kernel command line says otherwise, fixed while the system runs;
  a message whose size is not a whole number of ``struct spi_ioc_transfer`` is ``EINVAL``;
* request numbers are the kernel's own (``_IOC(dir, 'k', nr, size)``, computed here, not
  taken from PureIO): any other request is ``ENOTTY``;
* mode bits the controller lacks (bcm2835 has CPOL, CPHA, CS_HIGH, NO_CS, 3WIRE) and
  words other than 8 bits are ``EINVAL``; a closed descriptor is ``EBADF``.

Each message is recorded as one burst: the chip select is held for its transfers, and
between two messages the bus idles for as long as the program takes, long enough, as
far as anyone can promise, for a WS2812 strip to latch (:class:`Ws2812Strip`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

KERNEL_DEFAULT_BUFSIZ = 4096
"""``static unsigned bufsiz = 4096;`` in drivers/spi/spidev.c."""

_IOC_WRITE, _IOC_READ = 1, 2
_MAGIC = ord("k")
TRANSFER = struct.Struct("<QQIIHBBBBBB")
"""``struct spi_ioc_transfer`` (include/uapi/linux/spi/spidev.h): tx_buf, rx_buf, len,
speed_hz, delay_usecs, bits_per_word, cs_change, tx_nbits, rx_nbits, word_delay_usecs, pad."""
assert TRANSFER.size == 32

SPI_CPHA, SPI_CPOL, SPI_CS_HIGH, SPI_LSB_FIRST, SPI_3WIRE, SPI_LOOP, SPI_NO_CS, SPI_READY = (
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80)
BCM2835_MODE_BITS = SPI_CPOL | SPI_CPHA | SPI_CS_HIGH | SPI_NO_CS | SPI_3WIRE


def _ioc(direction: int, nr: int, size: int) -> int:
    return (direction << 30) | (size << 16) | (_MAGIC << 8) | nr


RD_MODE, WR_MODE = _ioc(_IOC_READ, 1, 1), _ioc(_IOC_WRITE, 1, 1)
RD_LSB_FIRST, WR_LSB_FIRST = _ioc(_IOC_READ, 2, 1), _ioc(_IOC_WRITE, 2, 1)
RD_BITS_PER_WORD, WR_BITS_PER_WORD = _ioc(_IOC_READ, 3, 1), _ioc(_IOC_WRITE, 3, 1)
RD_MAX_SPEED_HZ, WR_MAX_SPEED_HZ = _ioc(_IOC_READ, 4, 4), _ioc(_IOC_WRITE, 4, 4)
RD_MODE32, WR_MODE32 = _ioc(_IOC_READ, 5, 4), _ioc(_IOC_WRITE, 5, 4)


def _fail(code: int) -> OSError:
    return OSError(code, os.strerror(code))


@dataclass
class Message:
    """One ``SPI_IOC_MESSAGE``: what went out on MOSI while the chip select was held."""

    data: bytes
    speed_hz: int
    bits_per_word: int
    mode: int
    transfers: int


@dataclass
class Node:
    """One ``/dev/spidevB.C`` and the settings the kernel keeps for it."""

    path: str
    mode: int = 0
    bits_per_word: int = 8
    max_speed_hz: int = 125_000_000
    allowed: bool = True
    messages: list[Message] = field(default_factory=list)


class SpiKernel:
    """The kernel side: the nodes that exist, ``bufsiz``, and every message sent."""

    FIRST_FD = 1_000_000  # far above any real descriptor, so a real one is never taken for ours

    def __init__(self, nodes: tuple[str, ...] = ("/dev/spidev0.0", "/dev/spidev0.1"),
                 bufsiz: int = KERNEL_DEFAULT_BUFSIZ) -> None:
        self.nodes = {path: Node(path) for path in nodes}
        self.bufsiz = bufsiz
        self._open: dict[int, Node] = {}
        self._next_fd = self.FIRST_FD

    # -- what the test sets up and reads ------------------------------------------------

    def node(self, path: str = "/dev/spidev0.0") -> Node:
        return self.nodes[path]

    def write_parameter(self, folder: Path) -> Path:
        """``/sys/module/spidev/parameters/bufsiz`` as the kernel shows it, under ``folder``."""
        path = folder / "bufsiz"
        path.write_text(f"{self.bufsiz}\n")
        return path

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Put this kernel under Adafruit_PureIO's SPI (its module's ``os`` and ``ioctl``)."""
        import Adafruit_PureIO.spi as pureio

        monkeypatch.setattr(pureio, "os", _Os(self))
        monkeypatch.setattr(pureio, "ioctl", self.ioctl)

    # -- the system calls -----------------------------------------------------------------

    def exists(self, path: str) -> bool:
        return path in self.nodes

    def open(self, path: str, flags: int) -> int:
        node = self.nodes.get(path)
        if node is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        if not node.allowed:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        fd = self._next_fd
        self._next_fd += 1
        self._open[fd] = node
        return fd

    def owns(self, fd: int) -> bool:
        return fd >= self.FIRST_FD

    def close(self, fd: int) -> None:
        if self._open.pop(fd, None) is None:
            raise _fail(errno.EBADF)

    def ioctl(self, fd: int, request: int, arg: Any = 0, mutate: bool = True) -> Any:
        node = self._open.get(fd)
        if node is None:
            raise _fail(errno.EBADF)
        if (request >> 8) & 0xFF != _MAGIC:
            raise _fail(errno.ENOTTY)
        direction, nr, size = request >> 30, request & 0xFF, (request >> 16) & 0x3FFF
        if nr == 0 and direction == _IOC_WRITE:
            return self._message(node, bytes(arg), size)
        if request in (RD_MODE, RD_LSB_FIRST, RD_BITS_PER_WORD, RD_MAX_SPEED_HZ, RD_MODE32):
            value = {RD_MODE: node.mode & 0xFF, RD_LSB_FIRST: int(bool(node.mode & SPI_LSB_FIRST)),
                     RD_BITS_PER_WORD: node.bits_per_word, RD_MAX_SPEED_HZ: node.max_speed_hz,
                     RD_MODE32: node.mode}[request]
            out = memoryview(arg).cast("B")
            out[:size] = value.to_bytes(size, "little")
            return 0
        if request in (WR_MODE, WR_MODE32, WR_LSB_FIRST):
            value = int.from_bytes(bytes(arg)[:size], "little")
            mode = value if request != WR_LSB_FIRST else (
                node.mode | SPI_LSB_FIRST if value else node.mode & ~SPI_LSB_FIRST)
            if request == WR_MODE:
                mode = (node.mode & ~0xFF) | value
            if mode & ~BCM2835_MODE_BITS:  # spi_setup(): "setup: unsupported mode bits"
                raise _fail(errno.EINVAL)
            node.mode = mode
            return b"" if isinstance(arg, bytes) else 0
        if request == WR_BITS_PER_WORD:
            bits = bytes(arg)[0] or 8
            if bits != 8:  # spi-bcm2835: bits_per_word_mask = SPI_BPW_MASK(8)
                raise _fail(errno.EINVAL)
            node.bits_per_word = bits
            return b"" if isinstance(arg, bytes) else 0
        if request == WR_MAX_SPEED_HZ:
            node.max_speed_hz = int.from_bytes(bytes(arg)[:4], "little")
            return b"" if isinstance(arg, bytes) else 0
        raise _fail(errno.ENOTTY)

    def _message(self, node: Node, arg: bytes, size: int) -> int:
        if size % TRANSFER.size:
            raise _fail(errno.EINVAL)
        transfers = [TRANSFER.unpack_from(arg, i * TRANSFER.size) for i in range(size // TRANSFER.size)]
        if not transfers:
            return 0
        tx_total = sum(t[2] for t in transfers if t[0])
        rx_total = sum(t[2] for t in transfers if t[1])
        if tx_total > self.bufsiz or rx_total > self.bufsiz:  # spidev_message(): the bounce buffers
            raise _fail(errno.EMSGSIZE)
        sent = bytearray()
        for tx_buf, rx_buf, length, _speed, _delay, bits, *_ in transfers:
            if bits not in (0, 8):
                raise _fail(errno.EINVAL)
            chunk = ctypes.string_at(tx_buf, length) if tx_buf else bytes(length)
            sent += chunk
            if rx_buf:
                ctypes.memset(rx_buf, 0, length)  # nothing on MISO: the strip does not answer
        first = transfers[0]
        node.messages.append(Message(bytes(sent), first[3] or node.max_speed_hz, first[5] or node.bits_per_word,
                                     node.mode, len(transfers)))
        return len(sent)


class _Os:
    """``os`` as PureIO's module sees it: the spidev nodes are the fake kernel's, the rest real."""

    def __init__(self, kernel: SpiKernel) -> None:
        self._kernel = kernel
        self.path = _OsPath(kernel)

    def open(self, path: str, flags: int, mode: int = 0o777) -> int:
        if str(path).startswith("/dev/spidev"):
            return self._kernel.open(str(path), flags)
        return os.open(path, flags, mode)

    def close(self, fd: int) -> None:
        if self._kernel.owns(fd):
            self._kernel.close(fd)
        else:
            os.close(fd)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


class _OsPath:
    def __init__(self, kernel: SpiKernel) -> None:
        self._kernel = kernel

    def exists(self, path: str) -> bool:
        if str(path).startswith("/dev/spidev"):
            return self._kernel.exists(str(path))
        return os.path.exists(path)

    def __getattr__(self, name: str) -> Any:
        return getattr(os.path, name)


RESET_NS = 50_000
"""A WS2812 latches what it has shifted in after its data line stays low this long."""
ONE_NS = 450
"""A high pulse longer than this is a 1 bit (WS2812: 0 is 220-380 ns high, 1 is 580-1000 ns)."""


class Ws2812Strip:
    """WS2812 LEDs on MOSI, reading each SPI byte as one bit period (NeoPixel_SPI's encoding).

    ``wire_order`` is the order the LEDs take their three bytes in ("GRB" for a WS2812B).
    A long enough low line latches; so does the idle gap between two messages, whose
    length nobody controls (the chip select goes up, the program runs).
    """

    def __init__(self, count: int, wire_order: str = "GRB") -> None:
        self.count = count
        self.wire_order = wire_order
        self.shown: list[tuple[int, int, int]] = [(0, 0, 0)] * count
        self.latches = 0
        self._shifted: list[tuple[int, int, int]] = []
        self._bits: list[int] = []
        self._low_ns = 0.0

    def receive(self, message: Message) -> None:
        period_ns = 1e9 / message.speed_hz
        for byte in message.data:
            high = 0
            while high < 8 and byte & (0x80 >> high):
                high += 1
            if byte & (0xFF >> high):
                raise AssertionError(f"the byte {byte:#010b} is not one WS2812 pulse")
            if high == 0:
                self._low_ns += 8 * period_ns
                if self._low_ns >= RESET_NS:
                    self._latch()
                continue
            self._low_ns = (8 - high) * period_ns
            self._bits.append(1 if high * period_ns > ONE_NS else 0)
            if len(self._bits) == 24:
                wire = [int("".join(map(str, self._bits[i:i + 8])), 2) for i in (0, 8, 16)]
                self._bits = []
                rgb = tuple(wire[self.wire_order.index(c)] for c in "RGB")
                self._shifted.append((rgb[0], rgb[1], rgb[2]))
        self._latch()  # the gap before the next message

    def _latch(self) -> None:
        if self._bits:
            raise AssertionError(f"a reset came {len(self._bits)} bits into a pixel")
        if self._shifted:
            # The first pixel keeps the first 24 bits, and passes the rest on.
            for i, colour in enumerate(self._shifted[: self.count]):
                self.shown[i] = colour
            self.latches += 1
        self._shifted = []
        self._low_ns = 0.0
