"""Press ordering, debouncing, ties, false starts, held buttons and long pushes.

The pure :class:`StationCore` is driven in virtual time first; then the same rules
are checked end to end through the gpio backend on gpiozero's ``MockFactory``
pins, with edge timestamps chosen by the test and delivered late and out of order.
"""

from __future__ import annotations

import random
import time

import pytest
from fakes.pins import VirtualClock, timed_factory
from hypothesis import given, settings
from hypothesis import strategies as st
from tier import examples

from table.hardware.buttons import StationCore, Timing
from table.hardware.config import HardwareConfig, StationWiring
from table.hardware.gpio import GpioStations
from table.hardware.interfaces import StationInput

T = Timing(settle=0.015, tie_window=0.002, debounce=0.030, false_start_lockout=0.5, long_push=2.0)


def drain(core: StationCore, until: float, step: float = 0.001) -> list[tuple[float, StationInput]]:
    """Poll every ``step`` up to ``until``; (poll time, input) for everything released."""
    out: list[tuple[float, StationInput]] = []
    now = core_now = 0.0
    nxt = core.next_wakeup()
    now = nxt if nxt is not None else until
    while now <= until:
        for item in core.poll(now):
            out.append((now, item))
        core_now = now
        nxt = core.next_wakeup()
        now = max(core_now + step, nxt) if nxt is not None else core_now + step
    return out


def test_a_press_is_released_after_the_hold_with_its_edge_time() -> None:
    core = StationCore(2, T)
    core.button_edge(0, True, 10.0)
    assert core.poll(10.0 + T.hold - 1e-6) == []
    (item,) = core.poll(10.0 + T.hold)
    assert item == StationInput("press", 0, 10.0)


def test_late_delivered_earlier_press_is_ordered_first() -> None:
    core = StationCore(2, T)
    core.button_edge(1, True, 10.001)  # delivered first ...
    core.poll(10.006)
    core.button_edge(0, True, 10.000)  # ... but happened 1 ms earlier, delivered 9 ms late
    out = core.poll(11.0)
    assert [i.station for i in out] == [0, 1]
    assert [i.t for i in out] == [10.000, 10.001]


def test_presses_within_the_tie_window_name_each_other() -> None:
    core = StationCore(3, T)
    core.button_edge(2, True, 5.0015)
    core.button_edge(0, True, 5.0)
    core.button_edge(1, True, 5.010)  # clearly later: no tie
    out = core.poll(6.0)
    assert [(i.station, i.tie) for i in out] == [(0, (2,)), (2, (0,)), (1, ())]
    assert core.diagnostics(6.0)["ties"] == 2


def bounce(core: StationCore, station: int, t0: float, transitions: int, span: float) -> None:
    """A press at ``t0`` that chatters ``transitions`` times within ``span`` and ends down."""
    level = True
    core.button_edge(station, level, t0)
    for k in range(1, transitions):
        level = not level
        core.button_edge(station, level, t0 + span * k / transitions)
    if not level:
        core.button_edge(station, True, t0 + span)


@pytest.mark.parametrize("transitions", [2, 4, 8])
def test_bounce_counts_once_and_adds_no_delay(transitions: int) -> None:
    clean, bouncy = StationCore(1, T), StationCore(1, T)
    clean.button_edge(0, True, 1.0)
    bounce(bouncy, 0, 1.0, transitions, 0.005)
    a, b = drain(clean, 3.0), drain(bouncy, 3.0)
    assert [i for _, i in a] == [i for _, i in b] == [StationInput("press", 0, 1.0)]
    assert a[0][0] == b[0][0]  # released at the same moment: bounce added no delay
    assert bouncy.diagnostics(3.0)["stations"][0]["bounces"] >= transitions - 1


def test_release_bounce_does_not_count_a_second_press() -> None:
    core = StationCore(1, T)
    core.button_edge(0, True, 1.0)
    for k, level in enumerate([False, True, False, True, False]):
        core.button_edge(0, level, 1.2 + 0.001 * k)
    core.button_edge(0, True, 2.0)  # a real second press later
    assert [i.t for _, i in drain(core, 3.0)] == [1.0, 2.0]


def test_a_tap_shorter_than_the_debounce_is_still_released() -> None:
    core = StationCore(1, T)
    core.button_edge(0, True, 1.0)
    core.button_edge(0, False, 1.010)  # up again inside the lockout
    drain(core, 1.5)
    assert core.held(1.5) == {}
    core.button_edge(0, True, 2.0)
    assert [i.t for _, i in drain(core, 3.0)] == [2.0]


def test_false_start_is_ignored_and_locks_the_station_briefly() -> None:
    core = StationCore(2, T)
    core.arm([0, 1], at=5.0)
    core.button_edge(0, True, 4.9)  # before "go": false start
    core.button_edge(0, False, 4.95)
    core.button_edge(0, True, 5.1)  # still locked out (until 5.4)
    core.button_edge(0, False, 5.2)
    core.button_edge(1, True, 5.05)  # the other station is not affected
    core.button_edge(0, True, 5.5)  # lockout over
    out = [i for _, i in drain(core, 6.0)]
    assert [(i.station, i.t) for i in out] == [(1, 5.05), (0, 5.5)]
    diag = core.diagnostics(6.0)["stations"][0]
    assert diag["false_starts"] == 1 and diag["locked_out_presses"] == 1


def test_a_station_that_is_not_armed_is_a_false_start() -> None:
    core = StationCore(2, T)
    core.arm([1])
    core.button_edge(0, True, 1.0)
    core.button_edge(1, True, 1.0)
    assert [i.station for _, i in drain(core, 2.0)] == [1]
    core.arm(None)
    core.button_edge(0, False, 2.5)
    core.button_edge(0, True, 3.0)
    assert [i.station for _, i in drain(core, 4.0)] == [0]


def test_a_button_held_for_minutes_blocks_nobody_and_shows_in_diagnostics() -> None:
    core = StationCore(3, T)
    core.button_edge(0, True, 0.0)  # stuck down
    drain(core, 1.0)
    for k in range(100):
        core.button_edge(1 + k % 2, True, 2.0 + k)
        core.button_edge(1 + k % 2, False, 2.2 + k)
    out = [i for _, i in drain(core, 300.0, step=0.05)]
    assert len(out) == 100 and {i.station for i in out} == {1, 2}
    diag = core.diagnostics(300.0)
    assert diag["held"] == {"0": 300.0}
    assert diag["stations"][0]["button_down_for"] == 300.0


def test_short_push_on_release_long_push_after_two_seconds() -> None:
    core = StationCore(1, T)
    core.knob_switch_edge(0, True, 1.0)
    core.knob_switch_edge(0, False, 1.3)
    core.knob_switch_edge(0, True, 5.0)
    core.knob_switch_edge(0, False, 9.0)  # held 4 s: one long push, no push
    out = [i for _, i in drain(core, 10.0)]
    assert [(i.kind, i.t) for i in out] == [("push", 1.3), ("long_push", 7.0)]


def test_a_knob_held_down_is_reported_until_its_long_push_or_release() -> None:
    core = StationCore(2, T)
    core.knob_switch_edge(1, True, 1.0)
    assert core.pushes_held() == {1: 1.0}  # the ring on screen counts from the edge
    core.poll(3.5)  # the long push has fired: nothing counts any more
    assert core.pushes_held() == {}
    core.knob_switch_edge(1, False, 4.0)
    core.knob_switch_edge(0, True, 5.0)
    core.knob_switch_edge(0, False, 5.5)  # released early
    assert core.pushes_held() == {}


def test_turns_within_the_hold_are_summed_and_ordered_with_presses() -> None:
    core = StationCore(2, T)
    core.turn_delta(0, 1, 1.000)
    core.turn_delta(0, 1, 1.004)
    core.button_edge(1, True, 1.002)
    core.turn_delta(0, -1, 1.006)
    out = core.poll(2.0)
    assert [(i.kind, i.value) for i in out] == [("turn", {"delta": 1}), ("press", None)]


def test_inputs_leave_in_time_order_even_when_fed_shuffled() -> None:
    rng = random.Random(7)
    core = StationCore(5, T)
    edges = sorted((rng.uniform(0, 100), rng.randrange(5)) for _ in range(200))
    arrivals = sorted(edges, key=lambda e: e[0] + rng.uniform(0, 0.010))
    out: list[StationInput] = []
    for t, station in arrivals:
        out.extend(core.poll(t))
        core.button_edge(station, True, t)
        core.button_edge(station, False, t)  # inside the lockout: resolved on poll
    out.extend(i for _, i in drain(core, 101.0))
    times = [i.t for i in out]
    assert times == sorted(times)
    assert core.late_edges == 0 and core.unordered == 0


def test_an_edge_later_than_the_settle_window_is_passed_on_and_counted() -> None:
    core = StationCore(2, T)
    core.button_edge(0, True, 1.0)
    core.poll(1.5)
    core.button_edge(1, True, 0.9, now=1.5)  # 600 ms late
    assert [i.station for i in core.poll(2.0)] == [1]
    diag = core.diagnostics(2.0)
    assert diag["late_edges"] == 1 and diag["unordered"] == 1 and diag["max_lateness_ms"] == 600.0


# --- through gpiozero's MockFactory ---------------------------------------------------

def two_station_backend(timing: Timing) -> tuple[GpioStations, list[StationInput], VirtualClock, object]:
    wiring = (StationWiring(button=4, knob="none"), StationWiring(button=16, knob="none"))
    cfg = HardwareConfig(stations=wiring)
    clock = VirtualClock()
    factory = timed_factory()
    stations = GpioStations(cfg, timing, pin_factory=factory, clock=clock, run_thread=False)
    got: list[StationInput] = []
    stations.start(got.append)
    return stations, got, clock, factory


TICK_OFFSET = -123456.0  # the pin library's clock is not the table's clock


@pytest.mark.heavy  # plays twenty thousand presses
def test_ten_thousand_press_pairs_one_ms_apart_are_ordered_by_edge_time() -> None:
    timing = Timing(settle=0.012, tie_window=0.0005, debounce=0.030)
    stations, got, clock, factory = two_station_backend(timing)
    pins = [factory.pin(4), factory.pin(16)]
    rng = random.Random(2024)
    expected: list[int] = []
    for _ in range(10_000):
        base = clock.t + 0.5 + rng.uniform(0, 0.5)
        first = rng.randrange(2)
        edges = [(base, first), (base + 0.001, 1 - first)]
        expected.extend([first, 1 - first])
        deliveries = sorted((t + rng.uniform(0, 0.010), t, s) for t, s in edges)
        for arrival, t, s in deliveries:
            clock.t = arrival
            stations.pump()
            pins[s].edge(False, t + TICK_OFFSET)  # active low: the line falls on a press
        clock.t = base + 0.1
        stations.pump()
        for pin in pins:
            pin.edge(True, clock.t + TICK_OFFSET)
        clock.t = base + 0.2
        stations.pump()
    stations.stop()
    presses = [i for i in got if i.kind == "press"]
    assert [i.station for i in presses] == expected
    gaps = [b.t - a.t for a, b in zip(presses[::2], presses[1::2], strict=True)]
    assert min(gaps) == pytest.approx(0.001, abs=1e-6) and max(gaps) == pytest.approx(0.001, abs=1e-6)
    assert all(i.tie == () for i in presses)


def test_presses_within_the_tie_window_are_reported_as_a_tie_through_gpio() -> None:
    stations, got, clock, factory = two_station_backend(T)
    a, b = factory.pin(4), factory.pin(16)
    clock.t = 1000.004
    b.edge(False, 1000.0015 + TICK_OFFSET)
    a.edge(False, 1000.0 + TICK_OFFSET)
    clock.t = 1001.0
    stations.pump()
    stations.stop()
    assert [(i.station, i.tie) for i in got] == [(0, (1,)), (1, (0,))]


def test_bounce_of_eight_transitions_in_five_ms_is_one_press_without_delay_through_gpio() -> None:
    for transitions in (1, 8):
        stations, got, clock, factory = two_station_backend(T)
        pin = factory.pin(4)
        t0 = 1000.0
        level = False
        for k in range(transitions):
            clock.t = t0 + 0.005 * k / transitions
            pin.edge(level, t0 + 0.005 * k / transitions + TICK_OFFSET)
            stations.pump()
            level = not level
        if level is False:  # the last edge left the line up: finish pressed
            pin.edge(False, t0 + 0.005 + TICK_OFFSET)
        released_at = None
        while released_at is None:
            clock.t += 0.0005
            stations.pump()
            if got:
                released_at = clock.t
        stations.stop()
        assert [(i.kind, i.t) for i in got] == [("press", pytest.approx(t0, abs=1e-9))]
        assert released_at - t0 == pytest.approx(T.hold, abs=0.0006)


def test_held_button_through_gpio_shows_in_diagnostics() -> None:
    stations, got, clock, factory = two_station_backend(T)
    factory.pin(4).edge(False, clock.t + TICK_OFFSET)
    clock.t += 240.0
    factory.pin(16).edge(False, clock.t + TICK_OFFSET)
    clock.t += 1.0
    stations.pump()
    diag = stations.diagnostics()
    stations.stop()
    assert [i.station for i in got] == [0, 1]
    assert diag["held"]["0"] == pytest.approx(241.0) and diag["held"]["1"] == pytest.approx(1.0)


def test_button_leds_on_blink_off_through_gpiozero_leds() -> None:
    wiring = (StationWiring(button=4, button_led=5, knob="none"), StationWiring(button=16, knob="none"))
    factory = timed_factory()
    stations = GpioStations(HardwareConfig(stations=wiring, blink_hz=20.0), T, pin_factory=factory,
                            clock=VirtualClock(), run_thread=False)
    stations.start(lambda item: None)
    led = factory.pin(5)
    stations.set_leds({0: "on", 1: "on"})  # station 2 has no LED: ignored
    assert led.state
    stations.set_leds({0: "blink"})
    time.sleep(0.2)
    changes = len(led.states)
    assert changes > 4  # toggling at 20 Hz
    stations.set_leds({0: "off"})
    time.sleep(0.06)
    assert not led.state
    assert stations.diagnostics()["leds"] == {"0": "off", "1": "on"}
    stations.stop()


@pytest.mark.parametrize("factory", ["lgpio"])
def test_off_a_pi_the_pin_factory_is_one_sentence(factory: str) -> None:
    from table.common.errors import TableError
    from table.hardware.gpio import make_pin_factory

    with pytest.raises(TableError) as info:
        make_pin_factory(factory)
    message = str(info.value)
    assert message.startswith("GPIO is not available on this machine") and "table sim" in message
    assert "\n" not in message


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.floats(0, 10), st.floats(0, 0.010), st.floats(0.001, 0.5)),
        min_size=1, max_size=30,
    )
)
def test_property_each_clean_press_counts_once_in_time_order(
    presses: list[tuple[int, float, float, float]],
) -> None:
    """Any presses (station, time, delivery delay <= 10 ms, hold time), at least
    debounce apart per station: each counted once, released in edge-time order."""
    core = StationCore(5, T)
    kept: list[tuple[float, int]] = []
    last_release: dict[int, float] = {}
    edges: list[tuple[float, int, bool, float]] = []
    for station, t, delay, held in sorted(presses, key=lambda p: p[1]):
        if t < last_release.get(station, -1.0) + T.debounce:
            continue  # not a separate press of this button
        kept.append((t, station))
        release = t + max(held, T.debounce)
        last_release[station] = release
        edges.append((t + delay, station, True, t))
        edges.append((release + delay, station, False, release))
    out: list[StationInput] = []
    for arrival, station, level, t in sorted(edges):
        out.extend(core.poll(arrival))
        core.button_edge(station, level, t)
    out.extend(core.poll(100.0))
    got = [(i.t, i.station) for i in out]
    assert sorted(got) == sorted(kept)  # each press once (equal times: a tie, any order)
    assert [t for t, _ in got] == sorted(t for t, _ in got)


def test_a_button_already_held_at_start_is_held_not_pressed() -> None:
    wiring = (StationWiring(button=4, knob="none"), StationWiring(button=16, knob="none"))
    factory = timed_factory()
    factory.pin(4).held = True  # stuck down before the table starts
    clock = VirtualClock()
    stations = GpioStations(HardwareConfig(stations=wiring), T, pin_factory=factory, clock=clock,
                            run_thread=False)
    got: list[StationInput] = []
    stations.start(got.append)
    clock.t += 120.0
    factory.pin(16).edge(False, clock.t)
    clock.t += 1.0
    stations.pump()
    assert [i.station for i in got] == [1]
    assert stations.diagnostics()["held"]["0"] == pytest.approx(121.0)
    factory.pin(4).edge(True, clock.t)  # released at last, then a real press
    clock.t += 0.5
    factory.pin(4).edge(False, clock.t)
    clock.t += 1.0
    stations.pump()
    stations.stop()
    assert [i.station for i in got] == [1, 0]


# --- late delivery with bounce: 10,000 pairs through gpiozero ---------------------------

def run_gpio_pairs(max_delay: float, seed: int) -> tuple[tuple[int, int, int], GpioStations, int]:
    """10,000 bouncy pairs 1 ms apart through the gpio backend, each pin's edges delivered
    in order but up to ``max_delay`` late (independently per pin)."""
    from fakes.presses import make_pairs, misordered_pairs

    timing = Timing(settle=0.015, tie_window=0.0005, debounce=0.030)
    stations, got, clock, factory = two_station_backend(timing)
    pins = [factory.pin(4), factory.pin(16)]
    rng = random.Random(seed)
    pairs = make_pairs(rng, 10_000, clock.t + 1.0)
    nxt: float | None = None

    def advance(until: float) -> None:
        nonlocal nxt
        while nxt is not None and nxt <= until:
            clock.t = max(clock.t, nxt)
            nxt = stations.pump()
        clock.t = max(clock.t, until)

    for pair in pairs:
        last = [float("-inf"), float("-inf")]
        deliveries = []
        for t, s, pressed in pair.edges:
            arrival = max(last[s], t + rng.uniform(0, max_delay))
            last[s] = arrival
            deliveries.append((arrival, t, s, pressed))
        for arrival, t, s, pressed in sorted(deliveries):
            advance(arrival)
            pins[s].edge(not pressed, t + TICK_OFFSET)  # active low
            nxt = stations.pump()
    advance(clock.t + 1.0)
    stations.stop()
    presses = [(i.station, i.t - 0.0) for i in got if i.kind == "press"]
    return misordered_pairs(pairs, presses), stations, len(presses)


@pytest.mark.heavy
def test_ten_thousand_bouncy_pairs_delivered_up_to_10_ms_late_are_exact_through_gpio() -> None:
    (misordered, lost, doubled), stations, n = run_gpio_pairs(0.010, seed=5)
    assert (misordered, lost, doubled, n) == (0, 0, 0, 20_000)
    assert stations.core.unordered == 0


@pytest.mark.heavy
def test_delivery_up_to_40_ms_late_gives_no_phantom_press_and_counts_what_it_cannot_order() -> None:
    (misordered, lost, doubled), stations, n = run_gpio_pairs(0.040, seed=6)
    diag = stations.diagnostics()
    assert (lost, doubled, n) == (0, 0, 20_000)  # no phantom press, none lost
    assert misordered <= diag["unordered"]  # every pair it could not order is reported ...
    assert diag["unordered"] <= 10  # ... and once it has seen the lateness, it holds inputs longer
    assert diag["late_edges"] > 0 and diag["max_lateness_ms"] > 15
