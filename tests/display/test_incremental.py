"""Drawing only what changed gives the same picture as drawing everything.

Each game is played by a script (random legal inputs, with pauses and undos, from a
fixed seed); after every input, and at moments in between while timers run and gems
fly, the screen the table keeps up to date region by region (``Composer``) is compared
pixel for pixel with the same screen painted from scratch. The same is done for the
whole table loop: lobby, a game, the table menu, pause, leaving, and attract mode.
"""

from __future__ import annotations

import random

import pygame
import pytest

from table.common.config import TableConfig
from table.display.games import renderers
from table.display.layers import SWEEP_FRAMES, Composer, Part, fill, merge_rects, offscreen, paint_all
from table.display.screens import AttractScreen
from table.display.theme import Theme
from table.games import lobby_games, registry
from table.games.base import Action, GameSetup
from table.loop.app import PREPARE_AFTER_S, ScriptedInputs, Table
from table.play.autoplay import next_random_action
from table.play.clock import VirtualClock
from table.play.session import Session

SIZE = (1280, 720)


@pytest.fixture(autouse=True)
def _pygame() -> None:
    pygame.display.init()
    pygame.font.init()


def _same(a: pygame.Surface, b: pygame.Surface, owed: list[pygame.Rect] | None = None) -> bool:
    """The two pictures are the same, except in ``owed`` (a sweep's regions not painted yet)."""
    if owed:
        a, b = a.copy(), b.copy()
        for region in owed:
            a.fill((255, 0, 255), region)
            b.fill((255, 0, 255), region)
    return pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB")


def _difference(a: pygame.Surface, b: pygame.Surface) -> str:
    w, h = a.get_size()
    bad = [(x, y) for x in range(0, w, 2) for y in range(0, h, 2) if a.get_at((x, y)) != b.get_at((x, y))]
    xs, ys = [p[0] for p in bad], [p[1] for p in bad]
    return f"{len(bad)} sampled pixels differ in x {min(xs)}-{max(xs)}, y {min(ys)}-{max(ys)}" if bad else "none"


@pytest.mark.parametrize("game", sorted(registry()))
def test_incremental_frames_match_full_frames_through_a_scripted_game(game: str) -> None:
    engine = registry()[game]
    theme = Theme(*SIZE)
    renderer = renderers()[game]
    kept = pygame.Surface(SIZE)
    fresh = pygame.Surface(SIZE)
    checked = sweeps = 0
    for seed, variant in ((1, engine.variants[0]), (2, engine.variants[-1])):
        composer = Composer()
        stations = max(engine.min_stations, min(engine.max_stations, 2 + 2 * seed))
        session = Session.start(game, GameSetup(game, variant, tuple(range(stations))), seed)
        rng = random.Random(seed)
        repainted_less = 0
        for step in range(70):
            if session.is_over():
                break
            action = next_random_action(session, rng, mean_gap=2.0, meta_rate=0.03)
            if action is None:
                break
            session.apply(action)
            parts = renderer.parts(session.view(None), theme, session.paused)
            for dt in (0.0, 1 / 60, 2 / 60, 0.1, 0.2, 0.55, 1.3):
                now = session.last_t + dt
                dirty = composer.compose(kept, parts, now)
                if dirty and sum(r.width * r.height for r in dirty) < SIZE[0] * SIZE[1]:
                    repainted_less += 1
                fresh.fill((255, 0, 255))  # anything the parts fail to paint shows
                paint_all(fresh, renderer.parts(session.view(None), theme, session.paused), now)
                # Mid-sweep, everything but the regions still owed is the new picture; a
                # sweep never outlasts its frames (six: it is over by the sixth, 0.55 s).
                assert _same(kept, fresh, composer.pending), (
                    f"{game} seed {seed} input {step} ({action.kind}) + {dt:.2f} s: {_difference(kept, fresh)}")
                assert not composer.pending or dt < 0.55
                sweeps += bool(composer.pending)
                checked += 1
        assert session.is_over() or step == 69
        # Not a full repaint every frame in disguise: most frames repaint part of the screen.
        assert repainted_less > 0
    assert checked > 100 and sweeps > 0


def test_the_table_loop_repaints_exactly_what_changed() -> None:
    """Lobby -> each game -> table menu -> pause -> continue, and attract mode, at 30 fps."""
    clock = VirtualClock(100.0)
    inputs = ScriptedInputs()
    table = Table(TableConfig(stations=4), clock, pygame.Surface(SIZE), None, inputs=[inputs],
                  seed_source=lambda: 11)
    fresh = pygame.Surface(SIZE)
    rng = random.Random(4)
    games = lobby_games()  # in the order of the lobby's list of games
    first = games.index(table.lobby.settings.game)
    frames = partial = 0

    def run(seconds: float, play: bool = False) -> None:
        nonlocal frames, partial
        for step in range(round(seconds * 30)):
            clock.advance(1 / 30)
            session = table.session
            if play and session is not None and not session.is_over() and step % 7 == 0:
                legal = list(session.engine.legal_actions(session.state))
                if legal:
                    pick = rng.choice(legal)
                    inputs.add(Action(pick.kind, clock.now, pick.station, pick.value))
            if table.step(clock.now):
                frames += 1
                partial += table.dirty != [table.surface.get_rect()]
            fresh.fill((255, 0, 255))
            parts = table.frame_parts(SIZE, clock.now)
            paint_all(fresh, parts, clock.now)
            assert _same(table.surface, fresh, table.composer.pending), (
                f"{type(table.screens[-1]).__name__} at {clock.now:.2f}: {_difference(table.surface, fresh)}")
            # Frames keep coming while a sweep owes regions, whatever else moves.
            assert not table.composer.pending or table.next_change(clock.now) == clock.now

    for k in range(len(games)):
        t = clock.now
        settings = table.lobby.settings
        joins = [Action("press", t + 0.1 + 0.1 * s, s) for s in range(3) if s not in settings.joined]
        target = games[(first + k) % len(games)]
        line = table.lobby._lines().index(f"game:{target}")
        inputs.add(*joins, Action("turn", t + 0.4, 0, {"delta": line - table.lobby.cursor}),
                   Action("push", t + 0.5, 0),
                   Action("turn", t + 1.0, 0, {"sector": 15, "sectors": 16}), Action("push", t + 1.2, 1))
        run(1.5)
        assert table.session is not None and table.session.engine.name == target
        run(12.0, play=True)
        t = clock.now
        # (Each choice once the menu has been up a moment: inputs settle round a change of screen.)
        inputs.add(Action("long_push", t + 0.1, 0), Action("turn", t + 0.9, 0, {"delta": 1}),
                   Action("push", t + 1.1, 0))
        run(1.5)  # the menu's "pause the game": paused until a push
        inputs.add(Action("push", clock.now + 0.4, 2))
        run(3.0, play=True)
        t = clock.now
        inputs.add(Action("long_push", t + 0.1, 0), Action("turn", t + 0.9, 0, {"delta": 4}),
                   Action("push", t + 1.1, 0), Action("push", t + 1.3, 0))
        run(1.5)
        if table.session is not None:
            inputs.add(Action("press", clock.now + 2.5, 0))
            run(3.0)
        assert table.session is None, "ending the game from the menu did not reach the lobby"
    table.push_screen(AttractScreen(table, table.theme, clock.now, seed=9))
    run(40.0)
    assert frames > 300 and partial > frames // 2


def test_the_attract_screen_sleeps_only_through_steps_that_show_nothing_new() -> None:
    """The table skips the demo's picture steps that show nothing new (``next_frame``):
    at every step, seen by a clock a hair short of the step's time (as sums of 1/30 s
    reach it) and mid-step (as a loop that wakes late sees it), the picture kept is the
    one painted whole, the title's shade included; and a wake at a step's own time moves
    on to a later step. A step's time k / 15 that multiplied back to just under k
    (3845 / 15 * 15 < 3845) once made the table sleep through a change of shade."""
    fps = AttractScreen.FPS
    clock = VirtualClock(100.0)
    table = Table(TableConfig(stations=4), clock, pygame.Surface(SIZE), None, attract=False)
    table.step(clock.now)
    start = 1500
    clock.now = (start + 0.5) / fps
    screen = AttractScreen(table, table.theme, clock.now, seed=9, games=["ugah_ugah", "umtata"])
    table.push_screen(screen)
    fresh = pygame.Surface(SIZE)
    skipped = 0
    for i in range(start + 1, start + 1 + 40 * fps):
        assert screen.next_frame(i / fps) > i / fps, f"step {i}: a wake at its time wakes again at once"
        for clock.now in (i / fps - 1e-12, (i + 0.5) / fps):
            skipped += not table.step(clock.now)
            paint_all(fresh, table.frame_parts(SIZE, clock.now), clock.now)
            assert _same(table.surface, fresh), f"step {i} at {clock.now}: {_difference(table.surface, fresh)}"
    assert skipped > 100  # it does sleep through steps: the check above is not idle


def test_merge_rects_joins_overlaps_and_clips() -> None:
    bounds = pygame.Rect(0, 0, 100, 100)
    merged = merge_rects([pygame.Rect(0, 0, 10, 10), pygame.Rect(5, 5, 10, 10), pygame.Rect(50, 50, 5, 5),
                          pygame.Rect(95, 95, 20, 20)], bounds)
    assert sorted(map(tuple, merged)) == [(0, 0, 15, 15), (50, 50, 5, 5), (95, 95, 5, 5)]
    assert merge_rects([pygame.Rect(0, 0, 96, 96)], bounds) == [bounds]
    assert merge_rects([], bounds) == []


def test_offscreen_surfaces_have_rows_of_whole_64_byte_blocks() -> None:
    """SDL blits into rows of other lengths take a slower path; the surface still has
    the size asked for and keeps what is painted into it."""
    for width in (1180, 1366, 1920, 7):
        surface = offscreen((width, 20), pygame.Surface((1, 1)))
        assert surface.get_size() == (width, 20)
        assert surface.get_pitch() % 64 == 0
        surface.fill((10, 20, 30))
        assert surface.get_at((width - 1, 19))[:3] == (10, 20, 30)


def test_the_split_fill_paints_what_a_plain_fill_paints() -> None:
    """The background fill comes in up to three pieces (the middle one on 64-byte
    boundaries), inside the clip, and paints exactly the pixels one fill would."""
    rng = random.Random(4)
    for _ in range(60):
        want = pygame.Surface((300, 80))
        got = pygame.Surface((300, 80))
        want.fill((9, 9, 9))
        got.fill((9, 9, 9))
        rect = pygame.Rect(rng.randrange(-20, 280), rng.randrange(-10, 70), rng.randrange(0, 200), rng.randrange(0, 60))
        clip = pygame.Rect(rng.randrange(0, 150), rng.randrange(0, 40), rng.randrange(1, 200), rng.randrange(1, 60))
        for surface in (want, got):
            surface.set_clip(clip)
        want.fill((200, 100, 50), rect)
        fill(got, (200, 100, 50), rect)
        assert pygame.image.tobytes(want, "RGB") == pygame.image.tobytes(got, "RGB"), (rect, clip)
        want.fill((1, 2, 3))
        fill(got, (1, 2, 3))
        assert pygame.image.tobytes(want, "RGB") == pygame.image.tobytes(got, "RGB"), clip


def test_merge_rects_keeps_strips_along_the_edges_apart() -> None:
    """A glow along the four edges touches at the corners; painted as their union it
    would be the whole screen."""
    bounds = pygame.Rect(0, 0, 1920, 1080)
    strips = [pygame.Rect(0, 0, 1920, 40), pygame.Rect(0, 1040, 1920, 40), pygame.Rect(0, 0, 40, 1080),
              pygame.Rect(1880, 0, 40, 1080)]
    merged = merge_rects(strips, bounds)
    assert len(merged) == 4
    assert sum(r.w * r.h for r in merged) < 0.2 * bounds.w * bounds.h


def test_a_part_that_moves_is_repainted_where_it_was_and_where_it_is() -> None:
    surface = pygame.Surface((100, 100))
    composer = Composer((0, 0, 0))
    background = Part("bg", surface.get_rect(), None, lambda s, t: s.fill((0, 0, 0)), base=True)

    def box(t: float) -> tuple[object, pygame.Rect]:
        return int(t), pygame.Rect(int(t) * 10, 0, 10, 10)

    mover = Part("box", pygame.Rect(0, 0, 0, 0), None,
                 lambda s, t: s.fill((255, 255, 255), box(t)[1]), live=box)
    assert composer.compose(surface, [background, mover], 0.0) == [surface.get_rect()]
    assert composer.compose(surface, [background, mover], 0.5) == []
    assert composer.compose(surface, [background, mover], 1.0) == [pygame.Rect(0, 0, 20, 10)]
    assert surface.get_at((5, 5)) == (0, 0, 0, 255) and surface.get_at((15, 5)) == (255, 255, 255, 255)


def test_a_still_table_asks_for_no_frames_and_a_running_sand_for_every_one() -> None:
    clock = VirtualClock(100.0)
    table = Table(TableConfig(stations=4), clock, pygame.Surface(SIZE), None, attract=False)
    table.step(clock.now)
    # Still, the table first builds the games' layers ahead, a step per wake...
    assert table.next_change(clock.now) == table.last_input + PREPARE_AFTER_S
    for _ in range(100):
        wake = table.next_change(clock.now)
        if wake is None:
            break
        clock.now = max(clock.now, wake)
        table.step(clock.now)
    assert table.next_change(clock.now) is None  # ...then sleeps until an input
    table.attract_enabled = True
    assert table.next_change(clock.now) == table.last_input + table.config.timing.attract_after_s
    table.start_game(GameSetup("ubongo_shimo", "running-sand", (0, 1)), seed=3)
    clock.advance(1 / 60)
    table.step(clock.now)
    session = table.session
    assert session is not None and session.deadline() is not None
    # The countdown and then the sand move every frame.
    assert table.live and table.next_change(clock.now) == clock.now
    drawn = table.frames_drawn
    regions: list[pygame.Rect] = []
    for _ in range(8 * 60):
        clock.advance(1 / 60)
        if table.step(clock.now):
            regions += table.dirty
    # Asked every frame, it paints only those where the sand's surface moved by a pixel
    # or the seconds changed: more than one a second, far fewer than sixty.
    assert 8 < table.frames_drawn - drawn < 4 * 60
    # Small regions (the glass and the seconds), but for the bands of two sweeps: the
    # game's first picture and the count-down's end.
    small = [r for r in regions if r.width * r.height < SIZE[0] * SIZE[1] // 8]
    assert len(regions) - len(small) <= 2 * SWEEP_FRAMES < len(small)


def test_a_renderer_with_only_draw_is_repainted_whole_on_every_frame() -> None:
    from table.display.games import GameRenderer, RenderContext, renderer_parts

    class Plain(GameRenderer):
        game = "plain"

        def draw(self, surface: pygame.Surface, view: dict[str, object], ctx: RenderContext) -> None:
            surface.fill((int(ctx.now) % 256, 0, 0))

    theme = Theme(*SIZE)
    parts = renderer_parts(Plain(), {}, theme)
    surface = pygame.Surface(SIZE)
    composer = Composer()
    assert composer.compose(surface, parts, 1.0) == [surface.get_rect()]
    assert composer.compose(surface, parts, 2.0) == [surface.get_rect()]
    assert surface.get_at((0, 0))[:3] == (2, 0, 0)
    assert renderer_parts(Plain(), {}, theme, paused=True)[0].live is None  # paused: nothing moves


def test_text_caches_stay_within_their_bytes_however_many_lines_an_evening_shows() -> None:
    from table.display import theme as theme_module
    from table.display.theme import SurfaceCache, text

    cache = SurfaceCache(10_000)
    for i in range(50):
        cache.put(i, pygame.Surface((10, 10), pygame.SRCALPHA))  # 400 bytes each
        assert cache.bytes <= 10_000
    assert len(cache) == 25 and cache.get(0) is None and cache.get(49) is not None
    cache.put("huge", pygame.Surface((100, 100), pygame.SRCALPHA))
    assert len(cache) == 1 and cache.get("huge") is not None  # the newest is always kept

    # Lines shrunk to a width, each in its own colour (the demo's pulsing title): the
    # three caches together stay within their bounds, and the shrunk cache holds no
    # full-size line that the line cache has already let go.
    th = Theme(1920, 1080)
    target = pygame.Surface((1920, 1080))
    for i in range(400):
        text(target, th, f"A long line that does not fit its box, number {i}", (0, 0), "title",
             colour=(i % 256, 80, 80), max_width=300)
    for cache in (theme_module._lines, theme_module._shapes, theme_module._shrunk):
        assert cache.bytes <= theme_module.TEXT_CACHE_BYTES + max(
            SurfaceCache.weight(img) for img in cache._items.values())


def test_the_demo_draws_at_its_own_frame_rate_and_wakes_in_between_draw_nothing() -> None:
    clock = VirtualClock(100.0)
    table = Table(TableConfig(stations=4), clock, pygame.Surface(SIZE), None, attract=True)
    table.step(clock.now)
    clock.now = table.last_input + table.config.timing.attract_after_s + 0.001
    table.step(clock.now)
    top = table.screens[-1]
    assert isinstance(top, AttractScreen)
    frames = []
    for _ in range(6 * 60):  # six seconds of wakes at 60 Hz (as many as a loop could make)
        clock.advance(1 / 60)
        if table.step(clock.now):
            frames.append(clock.now)
        # The loop is asked back no sooner than the demo's next picture.
        assert table.next_change(clock.now) == top.next_frame(clock.now)
    assert 0 < len(frames) <= 6 * AttractScreen.FPS + 1
    # Every picture it drew is a step of the demo's own frame clock.
    steps = {int(t * AttractScreen.FPS) for t in frames}
    assert len(steps) == len(frames)


def _sheet(colour: tuple[int, int, int]) -> Part:
    return Part("all", pygame.Rect(0, 0, 100, 400), colour, lambda s, t: s.fill(colour), base=True)


def test_a_new_picture_sweeps_in_from_the_top_over_its_frames() -> None:
    from table.display.layers import SWEEP_FRAMES

    surface = pygame.Surface((100, 400))
    composer = Composer((0, 0, 0))
    composer.compose(surface, [_sheet((10, 10, 10))], 0.0)
    dot = Part("dot", pygame.Rect(0, 390, 10, 10), 1, lambda s, t: s.fill((200, 0, 0), (0, 390, 10, 10)))
    new = [_sheet((50, 60, 70)), dot]
    painted: list[list[pygame.Rect]] = []
    for frame in range(SWEEP_FRAMES):
        painted.append(composer.compose(surface, new, 0.1 * frame))
        edge = 400 * (frame + 1) // SWEEP_FRAMES
        # Above the edge: the new picture; below it: still the old one.
        assert surface.get_at((50, edge - 1))[:3] == (50, 60, 70)
        if edge < 400:
            assert surface.get_at((50, edge))[:3] == (10, 10, 10)
            assert composer.pending
    assert not composer.pending and surface.get_at((5, 395))[:3] == (200, 0, 0)
    # Each frame painted its band and no more.
    assert [sum(r.h for r in rects) for rects in painted] == [
        400 * (k + 1) // SWEEP_FRAMES - 400 * k // SWEEP_FRAMES for k in range(SWEEP_FRAMES)]
    assert composer.compose(surface, new, 1.0) == []


def test_a_small_change_during_a_sweep_is_painted_at_once_and_the_sweep_ends_on_time() -> None:
    from table.display.layers import SWEEP_FRAMES

    surface = pygame.Surface((100, 400))
    composer = Composer((0, 0, 0))
    composer.compose(surface, [_sheet((10, 10, 10))], 0.0)
    composer.compose(surface, [_sheet((50, 60, 70))], 0.0)

    def dot(n: int) -> Part:
        return Part("dot", pygame.Rect(40, 380, 10, 10), n, lambda s, t: s.fill((200, 0, n), (40, 380, 10, 10)))

    composer.compose(surface, [_sheet((50, 60, 70)), dot(1)], 0.1)  # small, at the bottom: now
    assert surface.get_at((45, 385))[:3] == (200, 0, 1) and surface.get_at((45, 300))[:3] == (10, 10, 10)
    # Another large change mid-sweep: its part above the edge is painted now, and the
    # sweep still ends on its last frame.
    composer.compose(surface, [_sheet((90, 90, 90)), dot(1)], 0.2)
    assert surface.get_at((0, 0))[:3] == (90, 90, 90) and surface.get_at((99, 399))[:3] == (10, 10, 10)
    for frame in range(3, SWEEP_FRAMES):
        composer.compose(surface, [_sheet((90, 90, 90)), dot(1)], 0.1 * frame)
    assert not composer.pending
    reference = pygame.Surface((100, 400))
    paint_all(reference, [_sheet((90, 90, 90)), dot(1)], 1.0)
    assert _same(surface, reference)


def test_an_animation_is_never_swept_and_without_sweeps_a_large_change_takes_one_frame() -> None:
    surface = pygame.Surface((100, 400))
    composer = Composer((0, 0, 0))
    # A part that changes all of the screen with time (a renderer with only ``draw``).
    glow = Part("glow", surface.get_rect(), None, lambda s, t: s.fill((int(t * 10), 0, 0)), base=True,
                live=lambda t: (int(t * 10), surface.get_rect()))
    for t in (0.0, 0.1, 0.2):
        assert composer.compose(surface, [glow], t) == [surface.get_rect()] and not composer.pending
    composer = Composer((0, 0, 0), sweep=False)
    composer.compose(surface, [_sheet((10, 10, 10))], 0.0)
    assert composer.compose(surface, [_sheet((50, 60, 70))], 0.1) == [surface.get_rect()]
    assert not composer.pending and surface.get_at((99, 399))[:3] == (50, 60, 70)


def test_a_part_laid_over_an_unchanged_picture_is_painted_alone() -> None:
    surface = pygame.Surface((100, 400))
    composer = Composer((0, 0, 0))
    calls: list[str] = []

    def sheet(s: pygame.Surface, t: float) -> None:
        calls.append("sheet")
        s.fill((100, 100, 100))

    def veil(s: pygame.Surface, t: float) -> None:
        calls.append("veil")
        s.fill((50, 50, 50), special_flags=pygame.BLEND_MULT)

    below = Part("sheet", surface.get_rect(), 1, sheet, base=True)
    over = Part("veil", surface.get_rect(), 1, veil, base=True)
    composer.compose(surface, [below], 0.0)
    calls.clear()
    # The veil over the unchanged sheet: painted alone, at once (not swept).
    assert composer.compose(surface, [below, over], 0.1) == [surface.get_rect()]
    assert calls == ["veil"] and not composer.pending
    reference = pygame.Surface((100, 400))
    paint_all(reference, [below, over], 0.1)
    assert _same(surface, reference)
    # The veil goes: everything under it is repainted (a large change, so swept).
    calls.clear()
    composer.compose(surface, [below], 0.2)
    assert calls[0] == "sheet" and composer.pending
    # Laid over a picture that changed as well: no shortcut.
    composer = Composer((0, 0, 0), sweep=False)
    composer.compose(surface, [below], 0.0)
    calls.clear()
    composer.compose(surface, [Part("sheet", surface.get_rect(), 2, sheet, base=True), over], 0.1)
    assert calls == ["sheet", "veil"]


def test_an_idle_table_prepares_the_maps_layers_a_step_at_a_time_and_not_while_used() -> None:
    from table.display.games.umtata import map as umtata_map
    from table.display.games.umtata.screen import map_area

    for cached in (umtata_map._base, umtata_map._dimmed, umtata_map._country_masks):
        cached.cache_clear()
    clock = VirtualClock(100.0)
    inputs = ScriptedInputs()
    table = Table(TableConfig(stations=4), clock, pygame.Surface(SIZE), None, inputs=[inputs], attract=False)
    table.step(clock.now)
    clock.advance(PREPARE_AFTER_S - 0.5)
    table.step(clock.now)
    assert umtata_map._base.cache_info().currsize == 0  # not while someone may still be at it
    clock.advance(0.5)
    table.step(clock.now)
    assert umtata_map._base.cache_info().currsize == 0 and umtata_map._raster.cache_info().currsize > 0
    # An input stops it for as long again; the next press of the lobby is not delayed.
    inputs.add(Action("turn", clock.now + 0.01, 0, {"delta": 1}))
    clock.advance(0.02)
    table.step(clock.now)
    clock.advance(1.0)
    table.step(clock.now)
    assert umtata_map._base.cache_info().currsize == 0
    steps = 0
    while (wake := table.next_change(clock.now)) is not None:
        clock.now = max(clock.now, wake)
        table.step(clock.now)
        steps += 1
    assert steps >= 7
    # Umtata's first highlight now finds its layers made.
    rect = umtata_map.map_rect_for(map_area(table.theme))
    for made in (umtata_map._dimmed, umtata_map._country_masks, umtata_map._dimmed_labelled):
        hits = made.cache_info().hits
        made(umtata_map._sources(), rect.w, rect.h)
        assert made.cache_info().hits == hits + 1


def test_a_change_inside_an_opaque_part_paints_from_that_part_up() -> None:
    """A region wholly inside an opaque part (a band with text on it) is painted from
    that part upwards: the base layer and the parts under it are left alone, and the
    picture is still exactly a full paint."""
    painted: list[str] = []
    band = pygame.Rect(0, 0, 200, 40)
    title = pygame.Rect(50, 10, 100, 20)

    def parts(colour: tuple[int, int, int], spot: pygame.Rect) -> list[Part]:
        def counted(name: str, fill_colour: tuple[int, int, int], rect: pygame.Rect, opaque: bool) -> Part:
            def paint(s: pygame.Surface, t: float) -> None:
                painted.append(name)
                s.fill(fill_colour, rect)
            return Part(name, rect, fill_colour, paint, opaque=opaque)

        return [Part("background", pygame.Rect(0, 0, 200, 100), None, lambda s, t: s.fill((0, 0, 40)), base=True),
                counted("under", (90, 0, 0), pygame.Rect(0, 0, 200, 60), False),
                counted("band", (0, 90, 0), band, True),
                Part("title", title, colour, lambda s, t: s.fill(colour, title)),
                Part("spot", spot, None, lambda s, t: s.fill((255, 255, 255), spot),
                     live=lambda t: (tuple(spot), spot))]

    composer = Composer()
    surface = pygame.Surface((200, 100))
    fresh = pygame.Surface((200, 100))
    composer.compose(surface, parts((200, 200, 0), pygame.Rect(20, 20, 10, 10)), 0.0)
    painted.clear()
    now = parts((0, 200, 200), pygame.Rect(20, 20, 10, 10))
    assert composer.compose(surface, now, 1.0) == [title]
    assert painted == ["band"]  # not the part under the band
    paint_all(fresh, now, 1.0)
    assert _same(surface, fresh)
    # A change reaching out of the band is painted from the bottom, as before.
    painted.clear()
    now = parts((0, 200, 200), pygame.Rect(20, 30, 10, 20))
    composer.compose(surface, now, 2.0)
    assert painted == ["under", "band"]
    paint_all(fresh, now, 2.0)
    assert _same(surface, fresh)
