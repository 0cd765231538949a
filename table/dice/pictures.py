"""The array types of the dice code, and OpenCV's results narrowed to them.

Contract: :data:`Image` is an 8-bit picture (BGR planes, or one grey plane) and
:data:`F32` a float32 array. OpenCV's type stubs give every result as "any numeric
array" (``cv2.typing.MatLike``), although OpenCV keeps the depth of its input (or
makes the one asked for). A caller that knows the depth says so with :func:`u8`,
:func:`f32` or :func:`f32_planes`; they only inform the type checker: nothing is
converted, copied or checked at run time, so they cost nothing in the reading loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # only the type checker needs it
    from cv2.typing import MatLike

Image = NDArray[np.uint8]
F32 = NDArray[np.float32]


def u8(result: MatLike) -> Image:
    """``result`` of an OpenCV call that keeps an 8-bit input 8-bit (or decodes to 8 bits)."""
    return cast(Image, result)


def f32(result: MatLike) -> F32:
    """``result`` of an OpenCV call on float32 input, or asked for float32 (``CV_32F``)."""
    return cast(F32, result)


def u8_planes(result: Sequence[MatLike]) -> list[Image]:
    """The planes ``cv2.split`` makes of an 8-bit picture, as a list."""
    return [u8(p) for p in result]


def f32_planes(result: Sequence[MatLike]) -> list[F32]:
    """The planes ``cv2.split`` makes of a float32 picture, as a list."""
    return [f32(p) for p in result]
