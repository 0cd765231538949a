"""Parts, the base layer and dirty rectangles: draw only what changed.

A screen is described as an ordered list of :class:`Part` objects (bottom first).
Each part says where it draws (``rect``: everything its ``paint`` touches lies inside),
what its picture depends on (``key``, compared with ``==``) and, for parts that change
with time, a ``live`` function giving the time-dependent rest of the key (and the
rect, for something that moves). The contract that makes the rest work:

    two parts with the same name, rect and key paint the same pixels.

The :class:`Composer` keeps the picture on the target surface between frames. Each
frame it compares the parts with those it painted last, and repaints only the union
of the old and new rects of the parts that changed, appeared or went: inside such a
region it paints every part that overlaps it, bottom first, with the surface clipped
to the region, so overlaps and transparency come out exactly as in a full draw.

The first part must paint every pixel (the background); nothing else is filled.

The leading run of parts marked ``base`` (drawn straight over the background: the
board, the map, frames, legends) is kept in an off-screen *base layer* while some part
above it moves: the region under a moving part is restored from it with one blit
instead of repainting everything below. The base layer itself is repainted, region by
region, only when one of its own parts changes (once per game state at most). When
nothing moves (a menu, a game screen that only changes with the state), base parts are
repainted in place.

:func:`paint_all` paints a list of parts from scratch: it is what the renderers'
``draw`` does, and what the composer's incremental pictures are tested against.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pygame

from table.display.theme import BACKGROUND, Colour

Paint = Callable[[pygame.Surface, float], object]
Live = Callable[[float], tuple[object, pygame.Rect]]


@dataclass(eq=False)
class Part:
    """One piece of a screen.

    ``paint(surface, now)`` draws it; it must draw only inside ``rect`` (or the rect
    ``live`` returns) and its picture must follow from ``key`` (and ``live``'s key).
    ``base``: drawn directly over the background and under every non-base part, so it
    can live in the composer's base layer. ``live(now)`` returns ``(key, rect)`` for a
    part whose picture changes with time (a timer, the sand, a flying gem).
    ``damage(old_key)``, for a large part that knows where its pictures differ: given
    the key shown before (same name and rect), the regions that changed (``[]``: none),
    or ``None`` for all of ``rect``. The part must then paint correctly when clipped
    to those regions.
    ``opaque``: the part sets every pixel of its rect (the current one, ``live``'s for a
    moving part) without reading what lies below (a filled band, a line of text on its
    own fill), so a region inside it is painted from it upwards: the parts under it and
    the base layer's pixels there are left out.
    """

    name: str
    rect: pygame.Rect
    key: object
    paint: Paint
    base: bool = False
    live: Live | None = None
    damage: Callable[[object], list[pygame.Rect] | None] | None = None
    opaque: bool = False

    def at(self, now: float) -> tuple[object, pygame.Rect]:
        """The full key and the rect at time ``now``."""
        if self.live is None:
            return self.key, self.rect
        key, rect = self.live(now)
        return (self.key, key), rect


def paint_all(surface: pygame.Surface, parts: Iterable[Part], now: float) -> None:
    """Paint every part, bottom first, with nothing cached (the reference picture)."""
    for part in parts:
        part.paint(surface, now)


MERGE_SLACK = 1.3
"""Two regions are painted as one when their union is at most this many times the sum of
their areas: one overlapping or adjacent pair costs less as one blit, but four strips
along the screen's edges (a glow) must not become the whole screen."""


def merge_rects(rects: Iterable[pygame.Rect], bounds: pygame.Rect, full_share: float = 0.9) -> list[pygame.Rect]:
    """Clip ``rects`` to ``bounds`` and merge those that overlap (or touch) into their
    union where the union is not much larger than the two (see :data:`MERGE_SLACK`);
    when they cover more than ``full_share`` of ``bounds``, one rect: all of it.

    The regions returned may overlap: painting a region repaints everything in it from
    the bottom up, so a pixel painted twice comes out the same."""
    pending = [r.clip(bounds) for r in rects]
    pending = [r for r in pending if r.width > 0 and r.height > 0]
    merged: list[pygame.Rect] = []
    while pending:
        r = pending.pop()
        grown = True
        while grown:
            grown = False
            for i, other in enumerate(merged):
                if not r.colliderect(other.inflate(2, 2)):
                    continue
                union = r.union(other)
                if union.w * union.h <= MERGE_SLACK * (r.w * r.h + other.w * other.h):
                    r = union
                    merged.pop(i)
                    grown = True
                    break
        merged.append(r)
    if sum(r.width * r.height for r in merged) > full_share * bounds.width * bounds.height:
        return [bounds.copy()]
    return merged


SWEEP_SHARE = 0.3
"""A frame whose changed regions cover more than this share of the screen (a new screen,
a new round, the pause) is shown as a sweep: see :class:`Composer`."""

SWEEP_FRAMES = 6
"""A sweep's length in frames: at 60 frames a second the new picture has crossed the
screen 100 ms after the change, and each of its frames paints about a sixth of it
(measured at 1920x1080, the dearest frame of entering a screen: 3.15x a fill + blit in
four bands, 2.60x in five, 2.41x in six; a part that spans a band's edge is painted
once per band, so more bands gain less and less)."""


class Composer:
    """Keeps a surface's picture up to date by repainting only the regions that changed.

    ``compose`` returns the regions it repainted (an empty list: nothing changed), the
    rectangles to hand to ``pygame.display.update``.

    A change that covers more than :data:`SWEEP_SHARE` of the screen is not painted in one
    frame: its regions are *owed* (``pending``) and the frames that follow paint them
    from top to bottom, a band of ``1 / SWEEP_FRAMES`` of the height each (the first on
    the frame of the change itself), so the new picture sweeps in over
    :data:`SWEEP_FRAMES` frames. A whole repaint costs a Pi several frames' time; spread
    out, no frame is dropped for it. Smaller changes that come meanwhile (a press, the
    sand) are painted at once, and an owed region is painted with the parts of the frame
    that paints it, so once ``pending`` is empty the picture is exactly a full paint of
    the current parts. The caller must keep asking for frames while ``pending`` is not
    empty, even if nothing else changes.
    """

    def __init__(self, background: Colour = BACKGROUND, sweep: bool = True) -> None:
        self.background = background
        self.sweep = sweep
        self.base: pygame.Surface | None = None
        self._spare: pygame.Surface | None = None  # the base layer's surface, kept for reuse
        self.shown: dict[str, tuple[pygame.Rect, object, bool]] = {}
        self.size: tuple[int, int] | None = None
        self.frames = 0
        self.pending: list[pygame.Rect] = []
        self._swept = 0  # frames of the current sweep painted so far

    def reset(self) -> None:
        """Forget the picture: the next frame is painted in full."""
        self.base = None
        self.shown = {}
        self.size = None
        self.pending = []

    def _owed(self, changed: list[pygame.Rect], bounds: pygame.Rect,
              ) -> tuple[list[pygame.Rect] | None, list[pygame.Rect]]:
        """Take a large change into the sweep; return what of ``changed`` to paint now
        (None: all of it, it was not taken) and the owed regions this frame paints (the
        band up to the sweep's next edge; the rest stays owed).

        ``changed`` holds what new game states changed, never what only moves with time
        (an animation is painted as it goes). A large change that comes while a sweep is
        under way is split at the sweep's edge, which never goes back: its part above
        the edge is painted now, the rest is owed. So a sweep ends :data:`SWEEP_FRAMES`
        frames after it began, however much changes meanwhile."""
        kept: list[pygame.Rect] | None = None
        if self.sweep and changed:
            area = sum(r.w * r.h for r in merge_rects(changed, bounds))
            if area > SWEEP_SHARE * bounds.w * bounds.h:
                if not self.pending:
                    self._swept = 0
                done, rest = self._split(bounds)
                kept = [c for c in (r.clip(done) for r in changed) if c.w > 0 and c.h > 0]
                self.pending = merge_rects(self.pending + [r.clip(rest) for r in changed], bounds)
        if not self.pending:
            return kept, []
        self._swept += 1
        done, rest = self._split(bounds)
        band = [c for c in (r.clip(done) for r in self.pending) if c.w > 0 and c.h > 0]
        self.pending = [c for c in (r.clip(rest) for r in self.pending) if c.w > 0 and c.h > 0]
        return kept, band

    def _base_surface(self, surface: pygame.Surface) -> pygame.Surface:
        """The base layer's surface for ``surface``: the one kept from an earlier screen
        when it fits (a new 8 MB surface costs more than painting it), else a new one."""
        if self._spare is None or self._spare.get_size() != surface.get_size():
            self._spare = offscreen(surface.get_size(), surface)
        return self._spare

    def _split(self, bounds: pygame.Rect) -> tuple[pygame.Rect, pygame.Rect]:
        """The screen cut at the sweep's edge: the part swept so far (above), the rest.

        Top to bottom, as a TV scans: the screens' wide parts (headers, the pause's
        veil) then fall into one or two bands, where columns would cut every one of them
        (measured: entering the pause cost 1.34 ms a frame in columns, 0.83 in rows)."""
        edge = bounds.h * self._swept // SWEEP_FRAMES
        return (pygame.Rect(bounds.left, bounds.top, bounds.w, edge),
                pygame.Rect(bounds.left, bounds.top + edge, bounds.w, bounds.h - edge))

    def _laid_over(self, surface: pygame.Surface, parts: Sequence[Part],
                   state: dict[str, tuple[pygame.Rect, object, bool]], now: float) -> list[pygame.Rect] | None:
        """When the only change is new parts laid on top of an unchanged picture (the
        pause's veil), paint just them over what the screen shows and return their
        regions; else None.

        The same pixels as a repaint from the bottom: below the new parts every part is
        as it was painted (none changed or went, and nothing is owed under them). In the
        base layer's mode the new parts must be above it (top parts), so that the base
        stays what its parts paint."""
        old = self.shown
        count = len(old)
        if count == 0 or count >= len(parts) or list(old) != [part.name for part in parts[:count]]:
            return None  # parts went, or came below others, or changed their order
        for part in parts[:count]:
            if old[part.name] != state[part.name]:
                return None
        added = parts[count:]
        if any(part.name in old for part in added):
            return None
        if self.base is not None and any(state[part.name][2] for part in added):
            return None
        rects = [state[part.name][0] for part in added]
        bounds = surface.get_rect()
        if self.pending and any(r.colliderect(o) for r in rects for o in self.pending):
            return None
        regions = merge_rects(rects, bounds)
        _paint_regions(surface, regions, added, state, now)
        self.shown = state
        self.frames += 1
        return regions

    def compose(self, surface: pygame.Surface, parts: Sequence[Part], now: float) -> list[pygame.Rect]:
        bounds = surface.get_rect()
        state: dict[str, tuple[pygame.Rect, object, bool]] = {}
        damages = {part.name: part.damage for part in parts if part.damage is not None}
        in_base = True
        for part in parts:
            in_base = in_base and part.base
            key, rect = part.at(now)
            state[part.name] = (rect, key, in_base)
        base_parts = [p for p in parts if state[p.name][2]]
        top_parts = [p for p in parts if not state[p.name][2]]
        base = self.base
        if top_parts and base is None and self.shown and self.size == surface.get_size():
            # Something starts to move above a picture painted in place: that picture
            # is the base layer as last shown (every part was a base part), so the
            # base starts as a copy of it and only what changed is repainted below.
            base = self.base = self._base_surface(surface)
            base.blit(surface, (0, 0))
        if top_parts and (base is None or base.get_size() != surface.get_size()):
            # Something moves above the base: keep the base layer off-screen from now on,
            # in the surface kept from an earlier screen if there is one (a new 8 MB
            # surface costs more than painting it). The first part paints every pixel.
            base = self.base = self._base_surface(surface)
            paint_all(base, base_parts, now)
            surface.blit(base, (0, 0))
            paint_all(surface, top_parts, now)
            self.shown = state
            self.size = surface.get_size()
            self.frames += 1
            self.pending = []
            return [bounds]
        if not self.shown or self.size != surface.get_size():
            surface.fill(self.background)
            paint_all(surface, parts, now)
            self.shown = state
            self.size = surface.get_size()
            self.base = None
            self.frames += 1
            self.pending = []
            return [bounds]
        self.size = surface.get_size()
        if not top_parts:
            # Nothing above the base: the base *is* the picture, painted in place.
            self.base = base = None
        over = self._laid_over(surface, parts, state, now)
        if over is not None:
            return over
        changed_base: list[pygame.Rect] = []
        changed: list[pygame.Rect] = []
        # What a new game state changed (a key, a part come or gone), as against what
        # only moved with time: only the former may be swept (an animation never is).
        news_base: list[pygame.Rect] = []
        news: list[pygame.Rect] = []
        old = self.shown
        live = {part.name for part in parts if part.live is not None}
        for name, (rect, key, is_base) in state.items():
            before = old.get(name)
            if before == (rect, key, is_base):
                continue
            moved = (name in live and before is not None and before[2] == is_base
                     and isinstance(key, tuple) and isinstance(before[1], tuple) and before[1][0] == key[0])
            if is_base or (before is not None and before[2]):
                into = changed_base if moved else news_base
            else:
                into = changed if moved else news
            damage = damages.get(name)
            if damage is not None and before is not None and before[0] == rect and before[2] == is_base:
                regions = damage(before[1])
                if regions is not None:
                    into.extend(regions)
                    continue
            into.append(rect)
            if before is not None:
                into.append(before[0])
        for name, (rect, _, is_base) in old.items():
            if name not in state:
                (news_base if is_base else news).append(rect)
        if base is None:
            # Painted in place: every region is the base's (parts that were above it went).
            changed_base += changed
            news_base += news
            changed, news = [], []
        # A region cut at the sweep's edge or owed is repainted whole, base and all: it
        # goes with the base's regions.
        kept, band = self._owed(news_base + news, bounds)
        if kept is None:
            changed_base += news_base
            changed += news
        else:
            changed_base += kept
        changed_base += band
        if not changed and not changed_base:
            self.shown = state
            return []
        # The first part (the background) paints every pixel of a region: no fill first.
        regions = merge_rects(changed_base, bounds)
        _paint_regions(surface if base is None else base, regions, base_parts, state, now)
        if base is None:
            self.shown = state
            self.frames += 1
            return regions
        dirty = merge_rects(changed_base + changed, bounds)
        _paint_regions(surface, dirty, top_parts, state, now, under=base)
        self.shown = state
        self.frames += 1
        return dirty


def _paint_regions(target: pygame.Surface, regions: Iterable[pygame.Rect], parts: Sequence[Part],
                   state: dict[str, tuple[pygame.Rect, object, bool]], now: float,
                   under: pygame.Surface | None = None) -> None:
    """Paint, inside each region, every one of ``parts`` whose rect (in ``state``) meets
    it, bottom first, over ``under``'s pixels there when given (the base layer); from
    the topmost :attr:`Part.opaque` part that holds the whole region, when there is one
    (nothing under it shows there)."""
    opaque = [i for i, part in enumerate(parts) if part.opaque][::-1]
    for region in regions:
        target.set_clip(region)
        first = 0
        for i in opaque:
            if state[parts[i].name][0].contains(region):
                first = i
                break
        else:
            if under is not None:
                target.blit(under, region, region)
        for part in parts[first:]:
            if state[part.name][0].colliderect(region):
                part.paint(target, now)
    target.set_clip(None)


ROW_ALIGN_PX = 16
"""Off-screen surfaces get rows of a multiple of this many pixels (64 bytes at 32 bits)."""


def offscreen(size: tuple[int, int], like: pygame.Surface | None = None) -> pygame.Surface:
    """A new surface of ``size`` (in ``like``'s pixel format, if given) to blit into.

    Its rows are padded to :data:`ROW_ALIGN_PX` pixels and the surface returned is the
    ``size`` part of that: SDL's blits into a surface whose row length is not a multiple
    of 32 bytes take the slow path (measured: a 1180 px wide map picture took 2.4x as
    long to blit into as a 1184 px one). A 1366 x 768 TV or a map cut to its
    proportions has such widths."""
    w, h = size
    padded = -(-w // ROW_ALIGN_PX) * ROW_ALIGN_PX
    parent = pygame.Surface((padded, h), 0, like) if like is not None else pygame.Surface((padded, h))
    return parent if padded == w else parent.subsurface((0, 0, w, h))


def fill(surface: pygame.Surface, colour: Colour, rect: pygame.Rect | None = None) -> None:
    """``surface.fill(colour, rect)`` (all of it without ``rect``), inside the surface's
    clip, as up to three fills whose middle one starts and ends on a multiple of
    :data:`ROW_ALIGN_PX` pixels: SDL's fill of a rect starting elsewhere was up to four
    times slower here (a 650 x 1080 region at x = 1270: 0.44 ms, split 0.10 ms), and the
    background under a repainted region is such a fill. The same pixels either way."""
    area = (surface.get_rect() if rect is None else pygame.Rect(rect)).clip(surface.get_clip())
    if area.w <= 0 or area.h <= 0:
        return
    left = -(-area.left // ROW_ALIGN_PX) * ROW_ALIGN_PX
    right = area.right // ROW_ALIGN_PX * ROW_ALIGN_PX
    if right - left < ROW_ALIGN_PX:
        surface.fill(colour, area)
        return
    surface.fill(colour, (left, area.top, right - left, area.h))
    if left > area.left:
        surface.fill(colour, (area.left, area.top, left - area.left, area.h))
    if area.right > right:
        surface.fill(colour, (right, area.top, area.right - right, area.h))


def whole(surface_size: tuple[int, int]) -> pygame.Rect:
    """The rect of a whole surface of this size."""
    return pygame.Rect(0, 0, *surface_size)
