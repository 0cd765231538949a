"""Drawing what the reader saw, for installers (``table dice watch``) and the docs."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from table.dice.reader import DieReading


def annotate(frame: NDArray[np.uint8], readings: list[DieReading], min_confidence: float) -> NDArray[np.uint8]:
    """A copy of ``frame`` with each die's box and face; unsure dice in orange."""
    out = frame.copy()
    for r in readings:
        colour = (0, 200, 0) if r.confidence >= min_confidence else (0, 140, 255)
        x0, y0, x1, y1 = r.box
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, 2)
        label = f"{r.face} {r.confidence:.2f}"
        cv2.putText(out, label, (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3)
        cv2.putText(out, label, (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1)
    return out


def show(picture: NDArray[np.uint8]) -> bool:
    """Show one frame in a pygame window; False when the window was closed."""
    import pygame

    if not pygame.display.get_init():
        pygame.display.init()  # not pygame.init(): no mixer, so no sound-card noise on stderr
    h, w = picture.shape[:2]
    screen = pygame.display.get_surface() or pygame.display.set_mode((w, h))
    pygame.display.set_caption("table dice watch")
    rgb = np.ascontiguousarray(picture[:, :, ::-1].transpose(1, 0, 2))
    screen.blit(pygame.surfarray.make_surface(rgb), (0, 0))
    pygame.display.flip()
    return not any(e.type == pygame.QUIT for e in pygame.event.get())
