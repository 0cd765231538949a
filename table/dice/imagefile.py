"""Reading a picture file safely: its size from the header before any decoding.

A PNG of 20000x20000 pixels can be a few kilobytes on disk and gigabytes once decoded,
so :func:`image_size` reads the width and height from the header (PNG, JPEG, BMP, GIF,
WebP) and :func:`read_image_bytes` refuses a picture over :data:`MAX_PIXELS` or under
:data:`MIN_SIDE` across or down, a file
that is not a picture, and one cut short (a PNG without its end chunk, a JPEG without
its end marker) with one sentence each, before OpenCV sees it.
"""

from __future__ import annotations

import struct
from pathlib import Path

from table.common.checks import read_input
from table.common.errors import TableError

MAX_PIXELS = 40_000_000  # 40 megapixels: above any tray camera (a Pi HQ camera gives 12.3)
MAX_BYTES = 64 << 20
MIN_SIDE = 32
"""The fewest pixels a tray picture has across and down. The die finder measures a die
from a patch of at least 300 pixels (about 17 across) and compares it with the tray
around it; a smaller picture cannot hold a die it reads (and at 1x1 its filters fail)."""


class ImageError(OSError):
    """A picture file that cannot be used; the message is one sentence naming it."""


def image_size(data: bytes) -> tuple[str, int, int] | None:
    """(format, width, height) from the header, or None when no known header is there."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24 and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return "PNG", w, h
    if data.startswith(b"\xff\xd8"):
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                return None
            marker = data[i + 1]
            if marker == 0xFF:
                i += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            length = struct.unpack(">H", data[i + 2: i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", data[i + 5: i + 9])
                return "JPEG", w, h
            i += 2 + length
        return None
    if data.startswith(b"BM") and len(data) >= 26:
        w, h = struct.unpack("<ii", data[18:26])
        return "BMP", abs(w), abs(h)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return "GIF", w, h
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8X":
            w = int.from_bytes(data[24:27], "little") + 1
            h = int.from_bytes(data[27:30], "little") + 1
            return "WebP", w, h
        if chunk == b"VP8 ":
            w, h = struct.unpack("<HH", data[26:30])
            return "WebP", w & 0x3FFF, h & 0x3FFF
        if chunk == b"VP8L" and len(data) >= 25:
            bits = int.from_bytes(data[21:25], "little")
            return "WebP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def _complete(kind: str, data: bytes) -> bool:
    if kind == "PNG":
        return b"IEND" in data[-64:]
    if kind == "JPEG":
        return data.rstrip(b"\x00").endswith(b"\xff\xd9")
    return True


def read_image_bytes(path: Path, max_pixels: int = MAX_PIXELS) -> bytes:
    """The bytes of a picture file that is safe to decode; :class:`ImageError` (one
    sentence) for a missing or unreadable file, a file that is not a picture, a picture
    cut short, or one over ``max_pixels``."""
    try:
        data = read_input(path, "picture", MAX_BYTES)
    except TableError as exc:
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such image file") from None
        raise ImageError(str(exc)) from None
    if not data:
        raise ImageError(f"{path}: the file is empty, not a picture")
    found = image_size(data)
    if found is None:
        raise ImageError(f"{path}: not a picture (no PNG, JPEG, BMP, GIF or WebP header)")
    kind, w, h = found
    if w <= 0 or h <= 0:
        raise ImageError(f"{path}: the {kind} header gives a size of {w}x{h} pixels")
    if w < MIN_SIDE or h < MIN_SIDE:
        raise ImageError(f"{path}: the {kind} is {w}x{h} pixels, too small to hold dice (a tray picture is at "
                         f"least {MIN_SIDE}x{MIN_SIDE} pixels)")
    if w * h > max_pixels:
        raise ImageError(f"{path}: the {kind} is {w}x{h} pixels, more than the {max_pixels:,} a tray "
                         "picture may have")
    if not _complete(kind, data):
        raise ImageError(f"{path}: the {kind} file is cut short (truncated)")
    return data
