"""Refresh every picture in docs/screens that the table's own code draws, in one command:

    .venv/bin/python tools/screens/render_docs.py            # docs/screens and docs/screens/de
    .venv/bin/python tools/screens/render_docs.py docs/screens             # English only
    .venv/bin/python tools/screens/render_docs.py --lang de docs/screens/de  # German only

Each language's set (``DIR``): the table's own screens (the lobby, its how-to-play card,
the starting push answered, the initials, the hold ring, the table menu, paused, attract,
leaving the kiosk) and every Ubongo Shimo phase at 1920x1080 (the lobby and a running
round at 1280x720 too); ``GAME/`` per game: its phases as the tests keep them
(``tests/display/textfit.py``) at 1920x1080 and 1280x720, its final ranking (played to
the end, and ended early from the table menu) and its how-to-play card; Umtata's private
station displays beside the shared screen (the blind guess's fix), its map and a
close-up of the Balkans; Ugah Ugah!'s six dice lit and dimmed. English only: ``flows/``
(the table menu mid-game, paused, the final ranking after "end the game", per game) and
``celebrations/`` (a GIF of the first press, a round's winner and the end, per game, at
640x360, and a 1920x1080 still of each).

Pictures are saved as optimised 256-colour PNGs (Pillow; a drawn screen has few colours);
a picture whose pixels did not change is left alone, so git sees only what moved. A development
tool: Pillow comes with the ``dev`` extra, and the table never imports this.
"""

from __future__ import annotations

import io
import itertools
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the games' test states (tests/display/textfit.py)

from table.common.i18n import language, set_language  # noqa: E402
from table.games import registry  # noqa: E402
from table.loop.snapshots import (  # noqa: E402
    CELEBRATED,
    Snapshot,
    card_moments,
    celebration_frames,
    flow_moments,
    game_pictures,
    shell_moments,
)

FPS = 10.0
GIF_SIZE = (640, 360)
SIZES = ((1920, 1080), (1280, 720))
Paint = Callable[[pygame.Surface], object]  # what a paint returns is not used


def shipped() -> list[str]:
    """The games the table ships (a plugin installed beside it, such as the tests' own
    Buzzer race, is left out of the docs)."""
    # A game is registered lazily, by the "module:ATTRIBUTE" of its engine: the table's own
    # engines live in its package.
    return [name for name, game in registry().items()
            if str(getattr(game, "reference", type(game).__module__)).startswith("table.games.")]


def save(surface: pygame.Surface, path: Path) -> Path:
    """Write ``surface`` as an optimised PNG, unless the file already holds these pixels."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rgb = Image.frombytes("RGB", surface.get_size(), pygame.image.tobytes(surface, "RGB"))
    # 256 colours without dithering: a drawn screen has few, and its text's edges keep
    # their shades (a third of the bytes of the full picture).
    image = rgb.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    if path.is_file():
        with Image.open(path) as old:
            if old.size == image.size and old.convert("RGB").tobytes() == image.convert("RGB").tobytes():
                return path
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True)
    path.write_bytes(buffer.getvalue())
    return path


def render(out: Path, moments: Iterator[tuple[str, Paint]], sizes: tuple[tuple[int, int], ...] = SIZES[:1],
           suffix: Callable[[tuple[int, int]], str] = lambda size: "" if size == SIZES[0] else f"-{size[1]}p",
           ) -> list[Path]:
    """Paint every moment at every size into ``out/NAME{suffix}.png``."""
    written = []
    for name, paint in moments:
        for size in sizes:
            surface = pygame.Surface(size)
            paint(surface)
            written.append(save(surface, out / f"{name}{suffix(size)}.png"))
    return written


def _gif_frame(surface: pygame.Surface) -> Image.Image:
    surface = pygame.transform.smoothscale(surface, GIF_SIZE)
    rgb = Image.frombytes("RGB", surface.get_size(), pygame.image.tobytes(surface, "RGB"))
    # Flat colours without dithering: the screens are drawn, not photographed, and an
    # undithered palette keeps the GIF small.
    return rgb.quantize(colors=128, dither=Image.Dither.NONE)


def celebrations(out: Path) -> list[Path]:
    """Per game, one GIF of its moments one after another, and a still of each."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for game in shipped():
        frames: list[Image.Image] = []
        for kind in CELEBRATED:
            moment = celebration_frames(game, kind, (1280, 720), FPS)
            if not moment:
                continue
            frames += [_gif_frame(f) for f in moment]
            still = celebration_frames(game, kind, (1920, 1080), FPS)
            written.append(save(still[min(len(still) - 1, int(0.9 * FPS))], out / f"{game}-{kind}.png"))
        if frames:
            path = out / f"{game}.gif"
            frames[0].save(path, save_all=True, append_images=frames[1:], duration=round(1000 / FPS), loop=0,
                           optimize=True)
            written.append(path)
    return written


# -- each game's own pictures ------------------------------------------------------------

GAME_OVER = {"ubongo/7-over-ranking", "umtata/over_shared", "ugah_ugah/13-final-count",
             "ugah_ugah/14-final-count-uncertain"}
"""The tests' states of games that are over: the table shows the final ranking then, not
the game's own picture (see :func:`finals`), so the docs leave these out."""


def game_phases(out: Path) -> list[Path]:
    """Every shipped game's phases as its tests keep them by hand, ``GAME/NAME-WxH.png``
    (the random walks the text-fit test adds are for the test, not the docs)."""
    from display.textfit import game_screens

    return render(out, ((n, p) for n, p in game_screens(shipped(), walks=False) if n not in GAME_OVER), SIZES,
                  lambda size: f"-{size[0]}x{size[1]}")


def finals(out: Path) -> list[Path]:
    """Every shipped game's final ranking, played to its end and ended early from the
    table menu: ``GAME/final.png`` and ``GAME/final-ended-early.png``."""
    from display.textfit import final_screens

    games = set(shipped())
    return render(out, ((n, p) for n, p in final_screens() if n.split("/")[0] in games))


def cards(out: Path) -> list[Path]:
    """Every shipped game's how-to-play card, ``GAME/how-to-play.png``."""
    return render(out, card_moments(shipped()))


def private_displays(surface: pygame.Surface) -> None:
    """Umtata's guess with the shared screen on top and the stations' private displays
    below: each station sees only its own region and colour (S1 turns East green, S2
    locked South green, S3 has not turned), and the shared screen shows none of them."""
    from table.display.games import RenderContext, renderers
    from table.display.sim_window import draw_stations_bar
    from table.display.theme import Theme
    from table.games.base import Action, GameSetup
    from table.loop.outputs import ScreenStationDisplays, StationScreens
    from table.loop.snapshots import NAMES
    from table.play.session import Session

    w, h = surface.get_size()
    screen_h = w * 9 // 16
    options = {"language": language()}
    session = Session.start("umtata", GameSetup("umtata", stations=(0, 1, 2), names=NAMES[:3], options=options),
                            seed=4)
    session.apply(Action("turn", 1.0, 0, {"delta": 6}))
    session.apply(Action("turn", 1.5, 1, {"delta": 10}))
    session.apply(Action("push", 2.0, 1))
    theme = Theme(w, screen_h)
    shared = pygame.Surface((w, screen_h))
    renderers()["umtata"].draw(shared, session.view(None), RenderContext(theme, 2.5))
    surface.blit(shared, (0, 0))
    sim = ScreenStationDisplays(range(3))
    StationScreens(sim).update(session, 2.5)

    class Bar:
        stations = 3
        leds: ClassVar[dict[int, str]] = {0: "blink", 1: "off", 2: "blink"}
        knob: ClassVar[dict[int, int]] = {0: 6, 1: 10, 2: 0}
        held_push: tuple[int, ...] = ()
        typing = None
        tray_message = " "

        def key_hint(self, station: int) -> str:
            return ""

    draw_stations_bar(surface, pygame.Rect(0, screen_h, w, h - screen_h), theme, 0.0, Bar(), sim.pictures)


BALKANS = ("si", "hr", "ba", "rs", "me", "xk", "mk", "al", "gr", "bg", "hu")
"""The countries of the map's most crowded corner, whose close-up the docs show."""


def balkans() -> pygame.Surface:
    """The Balkans of the 1920x1080 map as the screen shows them, enlarged twice: every
    name on or beside its country."""
    from table.display.games.umtata.map import draw_map, label_layout
    from table.display.theme import BACKGROUND, Theme

    full = pygame.Surface((1920, 1080))
    full.fill(BACKGROUND)
    used = draw_map(full, full.get_rect(), Theme(1920, 1080))
    layout = label_layout(used.width, used.height)
    rects = [label.rect.move(used.topleft) for label in layout.labels if label.key in BALKANS]
    box = rects[0].unionall(rects[1:]).inflate(50, 50).clip(used)
    return pygame.transform.smoothscale(full.subsurface(box), (box.width * 2, box.height * 2))


def ugah_dice(surface: pygame.Surface) -> None:
    """Ugah Ugah!'s six dice as the game draws them: lit (top) and dimmed (a die not
    chosen, bottom), each with its name."""
    from table.common.i18n import _
    from table.display import draw
    from table.display.games.ugah_ugah import dice
    from table.display.games.ugah_ugah.screen import DIE_NAMES
    from table.display.theme import BACKGROUND, TEXT, TEXT_DIM, Theme

    w, h = surface.get_size()
    theme = Theme(w, h)
    surface.fill(BACKGROUND)
    step = w // len(DIE_NAMES)
    size = min(step * 2 // 3, h * 30 // 100)
    for row, dim in enumerate((False, True)):
        y = h * (8 + row * 48) // 100
        for i, (symbol, name) in enumerate(DIE_NAMES.items()):
            rect = pygame.Rect(0, 0, size, size)
            rect.midtop = (step * i + step // 2, y)
            dice.draw_face(surface, rect, symbol, dim)
            draw.label(surface, theme, _(name), (rect.centerx, rect.bottom + theme.px(1)), "large",
                       TEXT_DIM if dim else TEXT, "midtop", bold=True, max_width=step - theme.px(2))


def specials(out: Path) -> list[Path]:
    return [
        save(_painted(private_displays, (1280, 1000)), out / "umtata" / "private-displays.png"),
        save(balkans(), out / "umtata" / "map-balkans.png"),
        *(save(_painted(_map(size), size), out / "umtata" / f"map-{size[0]}x{size[1]}.png") for size in SIZES),
        save(_painted(ugah_dice, (1500, 560)), out / "ugah_ugah" / "dice.png"),
    ]


def _map(size: tuple[int, int]) -> Paint:
    def paint(surface: pygame.Surface) -> None:
        from table.display.games.umtata.map import draw_map
        from table.display.theme import BACKGROUND, Theme

        surface.fill(BACKGROUND)
        draw_map(surface, surface.get_rect(), Theme(*size))
    return paint


def _painted(paint: Paint, size: tuple[int, int]) -> pygame.Surface:
    surface = pygame.Surface(size)
    paint(surface)
    return surface


# -- the sets ----------------------------------------------------------------------------

def table_screens(out: Path) -> list[Path]:
    """The table's own screens and Ubongo Shimo's phases (1920x1080; two at 1280x720 too)."""
    def snaps() -> Iterator[tuple[str, Snapshot]]:
        return itertools.chain(shell_moments(), game_pictures())

    written = render(out, snaps())
    wanted = {"menu", "shimo-3-racing"}
    written += render(out, ((n, s) for n, s in snaps() if n in wanted), SIZES[1:])
    return written


def one_language(out: Path, code: str) -> list[Path]:
    """Every picture of ``code``'s set into ``out`` (flows and celebrations: English only)."""
    set_language(code)
    try:
        written = table_screens(out)
        written += game_phases(out) + finals(out) + cards(out) + specials(out)
        if code == "en":
            written += render(out / "flows", ((n.replace("/", "-"), s) for n, s in flow_moments(shipped())), SIZES)
            written += celebrations(out / "celebrations")
        return written
    finally:
        set_language("en")


def main(argv: list[str]) -> int:
    pygame.display.init()
    pygame.font.init()
    if argv[:2] == ["--lang", "de"]:
        written = one_language(Path(argv[2] if len(argv) > 2 else "docs/screens/de"), "de")
    elif argv:
        written = one_language(Path(argv[0]), "en")
    else:
        docs = ROOT / "docs" / "screens"
        written = one_language(docs, "en") + one_language(docs / "de", "de")
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
