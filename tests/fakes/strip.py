"""A fake LED strip: a real ``adafruit_pixelbuf.PixelBuf`` whose transmit records frames.

Everything up to the wire (pixel order, brightness handling, byte layout) is
Adafruit's own code; only the write to the data pin is replaced by appending the
bytes to ``frames``. ``colours(k)`` decodes frame ``k`` back into RGB tuples.
"""

from __future__ import annotations

from adafruit_pixelbuf import PixelBuf


class RecordingStrip(PixelBuf):  # type: ignore[misc]
    def __init__(self, n: int, pixel_order: str = "GRB") -> None:
        self.frames: list[bytes] = []
        self.order = pixel_order
        super().__init__(n, byteorder=pixel_order, brightness=1.0, auto_write=False)

    def _transmit(self, buffer: bytearray) -> None:
        self.frames.append(bytes(buffer))

    def colours(self, k: int = -1) -> list[tuple[int, int, int]]:
        raw = self.frames[k]
        bpp = len(self.order)
        out = []
        for i in range(0, len(raw), bpp):
            px = dict(zip(self.order, raw[i:i + bpp], strict=True))
            out.append((px["R"], px["G"], px["B"]))
        return out
