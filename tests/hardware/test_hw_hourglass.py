"""The hourglass animation at chosen times, the flip, flashes, matrix layouts, and
brightness / current limiting as they reach a (fake) strip's wire."""

from __future__ import annotations

import pytest
from fakes.strip import RecordingStrip

from table.hardware.hourglass import (
    END_COLOUR,
    FLIP_SECONDS,
    OFF,
    SAND,
    Flash,
    HourglassState,
    frame_milliamps,
    glow_level,
    grains_landed,
    hourglass_frame,
    limit_frame,
    next_glow_change,
)
from table.hardware.interfaces import HourglassLayout
from table.hardware.leds import PixelBufHourglass

STRIP = HourglassLayout(kind="strip", count=20)
RUN = HourglassState(sand_started=100.0, sand_seconds=60.0)


def picture(frame: list[tuple[int, int, int]]) -> str:
    """'#' sand at full colour, '+' dimmed sand, '.' off, '*' anything else."""
    def one(c: tuple[int, int, int]) -> str:
        if c == OFF:
            return "."
        if c == SAND:
            return "#"
        if c[0] and c[0] < SAND[0]:
            return "+"
        return "*"
    return "".join(one(c) for c in frame)


@pytest.mark.parametrize(
    ("t", "expected"),
    [
        # top half (0..9, neck at 9) | bottom half (10..19, bottom at 19)
        (100.0 + FLIP_SECONDS, "##########.........."),  # just turned: all sand on top
        (106.0, ".##########........#"),  # 1 grain landed, the next one leaving the neck
        (107.5, ".#########..#......#"),  # ... a quarter of its way down
        (130.0, ".....######....#####"),  # half way: 5 and 5, one in flight
        (159.9, ".........+++++++++++"),  # last grain falling, in a dim blink phase
        (170.0, "..........##########"),  # run out, after the end flash: all at the bottom
    ],
)
def test_strip_at_chosen_times(t: float, expected: str) -> None:
    assert picture(hourglass_frame(t, RUN, STRIP)) == expected


def test_every_grain_is_somewhere_while_the_sand_runs() -> None:
    for k in range(1, 600):
        t = 100.0 + FLIP_SECONDS + k * 0.099
        lit = sum(c != OFF for c in hourglass_frame(t, RUN, STRIP))
        landed = grains_landed(t - 100.0, 60.0, 10)
        assert lit == 10 + (1 if landed < 10 else 0)  # ten grains plus the falling one


def test_flip_moves_the_sand_from_the_bottom_to_the_top() -> None:
    frames = [picture(hourglass_frame(100.0 + FLIP_SECONDS * k / 6, RUN, STRIP)) for k in range(7)]
    assert frames[0] == "..........##########"
    assert frames[3] == ".....##########....."
    assert frames[-1] == "##########.........."
    tops = [f[:10].count("#") for f in frames]
    assert tops == sorted(tops)


def test_last_seconds_blink_and_end_flash() -> None:
    blink = {picture(hourglass_frame(100.0 + 55.0 + k * 0.05, RUN, STRIP)).replace("#", "x").replace("+", "x")
             for k in range(20)}
    dims = [any(c not in (OFF, SAND) for c in hourglass_frame(100.0 + 55.0 + k * 0.05, RUN, STRIP))
            for k in range(20)]
    assert True in dims and False in dims  # the sand blinks in the last seconds
    assert blink  # and every frame still shows the grains where they are
    ends = [hourglass_frame(160.0 + k * 0.0625, RUN, STRIP) for k in range(32)]
    assert any(all(c == END_COLOUR for c in f) for f in ends)
    assert any(all(c != END_COLOUR for c in f) for f in ends)
    assert hourglass_frame(165.0, RUN, STRIP) == hourglass_frame(170.0, RUN, STRIP)


def test_steady_sand_before_the_last_seconds() -> None:
    for k in range(100):
        frame = hourglass_frame(101.0 + k * 0.45, RUN, STRIP)
        assert all(c in (OFF, SAND) for c in frame)


def test_press_flash_washes_a_station_colour_and_fades() -> None:
    blue = (0, 114, 178)
    state = HourglassState(sand_started=100.0, flashes=(Flash(120.0, blue, 2),))
    at_press = hourglass_frame(120.0, state, STRIP)
    assert all(c == blue for c in at_press)
    later = hourglass_frame(120.2, state, STRIP)
    assert later != at_press and later != hourglass_frame(120.2, RUN, STRIP)
    assert hourglass_frame(120.5, state, STRIP) == hourglass_frame(120.5, RUN, STRIP)


def test_idle_glow_breathes_in_the_bottom_bulb() -> None:
    idle = HourglassState()
    frames = [hourglass_frame(k * 0.5, idle, STRIP) for k in range(8)]
    assert all(all(c == OFF for c in f[:10]) for f in frames)
    assert len({f[15] for f in frames}) > 2 and all(0 < f[15][0] < SAND[0] for f in frames)


def test_the_idle_glow_changes_only_at_the_step_next_glow_change_names() -> None:
    """Between now and the time ``next_glow_change`` gives, every frame of the idle glow
    is the same; at that time it is a new one. Over a breath, the glow changes on
    average about twelve times a second, and never twice within a twentieth."""
    idle = HourglassState()
    t, changes = 100.0, []
    while t < 108.0:
        due = next_glow_change(t)
        assert glow_level(due) != glow_level(t)
        frame = hourglass_frame(t, idle, STRIP)
        assert all(hourglass_frame(t + (due - t) * k / 25, idle, STRIP) == frame for k in range(25))
        assert hourglass_frame(due, idle, STRIP) != frame
        changes.append(due - t)
        t = due
    assert 10 <= len(changes) / 8 <= 14
    assert min(changes[1:]) > 1 / 20


def test_paused_sand_stands_still() -> None:
    paused = HourglassState(sand_started=100.0, paused_at=130.0)
    assert hourglass_frame(131.0, paused, STRIP) == hourglass_frame(200.0, paused, STRIP)


@pytest.mark.parametrize("order", ["serpentine", "rows"])
def test_one_matrix_drains_the_upper_half_into_the_lower(order: str) -> None:
    layout = HourglassLayout(kind="matrix", width=4, height=8, matrices=1, order=order)  # type: ignore[arg-type]
    frame = hourglass_frame(130.0, RUN, layout)  # half way

    def cell(row: int, col: int) -> tuple[int, int, int]:
        if order == "serpentine" and row % 2:
            col = 3 - col
        return frame[row * 4 + col]

    grid = ["".join("#" if cell(r, c) != OFF else "." for c in range(4)) for r in range(8)]
    assert grid[:4] == ["....", "....", "####", "####"]  # the top drains from its top rows
    assert grid[6:] == ["####", "####"]  # the bottom fills from its bottom rows
    assert sum(row.count("#") for row in grid[4:6]) == 1  # one grain falling in the centre column


def test_two_matrices_first_on_top() -> None:
    layout = HourglassLayout(kind="matrix", width=8, height=8, matrices=2)
    start = hourglass_frame(100.0 + FLIP_SECONDS, RUN, layout)
    assert all(c != OFF for c in start[:64]) and all(c == OFF for c in start[64:])
    end = hourglass_frame(170.0, RUN, layout)
    assert all(c == OFF for c in end[:64]) and all(c != OFF for c in end[64:])


def test_brightness_and_current_limit_reach_the_wire() -> None:
    strip = RecordingStrip(60, "GRB")
    glass = PixelBufHourglass(strip, HourglassLayout(count=60), brightness=0.5, max_milliamps=None)
    glass.show([(255, 255, 255)] * 60)
    assert strip.colours() == [(128, 128, 128)] * 60
    raw = strip.frames[-1]
    assert len(raw) == 180 and raw[:3] == bytes([128, 128, 128])

    limited = PixelBufHourglass(strip, HourglassLayout(count=60), brightness=1.0, max_milliamps=1500)
    limited.show([(255, 255, 255)] * 60)  # 60 mA each: 3.6 A unlimited
    sent = strip.colours()
    assert frame_milliamps(sent) <= 1500
    assert frame_milliamps(sent) > 1400  # dimmed just enough, not switched off
    assert len(set(sent)) == 1

    limited.show([(255, 0, 0)] * 10 + [OFF] * 50)  # 260 mA: under the limit, untouched
    assert strip.colours()[:10] == [(255, 0, 0)] * 10

    glass.close()
    assert strip.colours() == [OFF] * 60


def test_pixel_order_is_honoured_on_the_wire() -> None:
    strip = RecordingStrip(2, "RGB")
    PixelBufHourglass(strip, HourglassLayout(count=2), 1.0, None).show([(10, 20, 30), (40, 50, 60)])
    assert strip.frames[-1] == bytes([10, 20, 30, 40, 50, 60])
    grb = RecordingStrip(2, "GRB")
    PixelBufHourglass(grb, HourglassLayout(count=2), 1.0, None).show([(10, 20, 30), (40, 50, 60)])
    assert grb.frames[-1] == bytes([20, 10, 30, 50, 40, 60])


def test_limit_frame_never_exceeds_the_budget() -> None:
    import random

    rng = random.Random(3)
    for _ in range(200):
        frame = [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(300)]
        limit = rng.uniform(400, 20000)
        assert frame_milliamps(limit_frame(frame, rng.uniform(0, 1), limit)) <= limit + 1e-9
