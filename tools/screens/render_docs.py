"""Refresh the pictures in docs/screens that the table's own code draws.

    SDL_VIDEODRIVER=dummy .venv/bin/python tools/screens/render_docs.py docs/screens
    SDL_VIDEODRIVER=dummy .venv/bin/python tools/screens/render_docs.py --lang de docs/screens/de

writes the table's screens and every Ubongo Shimo phase (1920x1080, and 1280x720 for
the lobby and a running round), the table menu's flows per game (``flows/``: the
menu mid-game, paused, the final ranking after "end the game"), and per game the
celebrations (``celebrations/``): a GIF of the first press, a round's winner and the
end (frames drawn through the table loop at 10 per second, shown at 640x360) and a
1920x1080 still of each moment. The other games' phase pictures come from their
own scripts (see docs/screens/README.md). A development tool: Pillow comes with the
``dev`` extra, and the table never imports this.
"""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
from PIL import Image

from table.games import registry
from table.loop.snapshots import (
    CELEBRATED,
    celebration_frames,
    flow_moments,
    game_pictures,
    render_all,
    shell_moments,
)

FPS = 10.0
GIF_SIZE = (640, 360)


def _image(surface: pygame.Surface, size: tuple[int, int] | None = None) -> Image.Image:
    if size is not None and surface.get_size() != size:
        surface = pygame.transform.smoothscale(surface, size)
    rgb = Image.frombytes("RGB", surface.get_size(), pygame.image.tobytes(surface, "RGB"))
    # Flat colours without dithering: the screens are drawn, not photographed, and an
    # undithered palette keeps the GIF small.
    return rgb.quantize(colors=128, dither=Image.Dither.NONE)


def celebrations(out: Path) -> list[Path]:
    """Per game, one GIF of its moments one after another, and a still of each."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for game in registry():
        frames: list[Image.Image] = []
        for kind in CELEBRATED:
            moment = celebration_frames(game, kind, (1280, 720), FPS)
            if not moment:
                continue
            frames += [_image(f, GIF_SIZE) for f in moment]
            still = celebration_frames(game, kind, (1920, 1080), FPS)
            peak = still[min(len(still) - 1, int(0.9 * FPS))]
            path = out / f"{game}-{kind}.png"
            pygame.image.save(peak, str(path))
            written.append(path)
        if frames:
            path = out / f"{game}.gif"
            frames[0].save(path, save_all=True, append_images=frames[1:], duration=round(1000 / FPS), loop=0,
                           optimize=True)
            written.append(path)
    return written


def main(out: Path) -> list[Path]:
    # Lazily chained: a moment's picture must be drawn before the walk goes on.
    written = render_all(out, ((1920, 1080),), lambda: itertools.chain(shell_moments(), game_pictures()))
    wanted = {"menu", "shimo-3-racing"}
    written += render_all(out, ((1280, 720),),
                          lambda: ((n, s) for n, s in itertools.chain(shell_moments(), game_pictures()) if n in wanted))
    flows = out / "flows"
    written += render_all(flows, ((1920, 1080), (1280, 720)),
                          lambda: ((n.replace("/", "-"), s) for n, s in flow_moments()))
    written += celebrations(out / "celebrations")
    return written


def german(out: Path) -> list[Path]:
    """The table's screens and every Ubongo Shimo phase in German (1920x1080), the set
    beside the other games' German pictures in docs/screens/de."""
    from table.common.i18n import set_language

    set_language("de")
    try:
        return render_all(out, ((1920, 1080),), lambda: itertools.chain(shell_moments(), game_pictures()))
    finally:
        set_language("en")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:2] == ["--lang", "de"]:
        written = german(Path(args[2] if len(args) > 2 else "docs/screens/de"))
    else:
        written = main(Path(args[0] if args else "docs/screens"))
    for p in written:
        print(p)
