"""Knobs of all three kinds through gpiozero's mock pins: encoder turns with contact
chatter, absolute switches in Gray and binary code, and a potentiometer on a mock
MCP3008 swept across its sectors."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest
from fakes.pins import FakeMCP3008, VirtualClock, timed_factory
from gpiozero import Device
from tier import fast

from table.hardware.buttons import Timing
from table.hardware.config import HardwareConfig, StationWiring
from table.hardware.gpio import GpioStations
from table.hardware.interfaces import StationInput
from table.hardware.knobs import SectorQuantiser, TickMapper, binary_to_gray, gray_to_binary

T = Timing(absolute_stable=0.020)


def backend(*wiring: StationWiring) -> tuple[GpioStations, list[StationInput], VirtualClock, object]:
    clock = VirtualClock()
    factory = timed_factory()
    cfg = HardwareConfig(stations=wiring)
    stations = GpioStations(cfg, T, pin_factory=factory, clock=clock, run_thread=False)
    got: list[StationInput] = []
    return stations, got, clock, factory


@pytest.fixture(autouse=True)
def _no_global_factory() -> Iterator[None]:
    yield
    Device.pin_factory = None  # the MCP3008 test lends gpiozero's SPI a global factory


# --- encoder ---------------------------------------------------------------------

def chatter(pin: object, level: bool, rng: random.Random) -> None:
    """Move a contact to ``level``, bouncing a few times on the way."""
    for _ in range(rng.randrange(0, 4)):
        pin.drive_low() if level else pin.drive_high()  # type: ignore[attr-defined]
        pin.drive_high() if level else pin.drive_low()  # type: ignore[attr-defined]
    pin.drive_high() if level else pin.drive_low()  # type: ignore[attr-defined]


def detent(a: object, b: object, clockwise: bool, rng: random.Random) -> None:
    """One detent of a quadrature encoder (contacts close to GND, pull-ups on)."""
    first, second = (a, b) if clockwise else (b, a)
    chatter(first, False, rng)
    chatter(second, False, rng)
    chatter(first, True, rng)
    chatter(second, True, rng)


def test_thousand_random_turns_with_chatter_end_at_the_exact_step_count() -> None:
    stations, got, clock, factory = backend(StationWiring(button=4, knob="encoder", encoder_a=6,
                                                          encoder_b=12, knob_switch=13))
    stations.start(got.append)
    a, b = factory.pin(6), factory.pin(12)
    rng = random.Random(99)
    expected = 0
    for _ in range(1000):
        clockwise = rng.random() < 0.5
        steps = rng.randrange(1, 6)
        for _ in range(steps):
            detent(a, b, clockwise, rng)
        expected += steps if clockwise else -steps
        clock.t += rng.uniform(0.001, 0.2)
        stations.pump()
    clock.t += 1.0
    stations.pump()
    stations.stop()
    turns = [i for i in got if i.kind == "turn"]
    assert sum(i.value["delta"] for i in turns if i.value) == expected
    assert all(i.value and i.value["delta"] != 0 for i in turns)
    assert [i.t for i in turns] == sorted(i.t for i in turns)


def test_encoder_push_and_long_push_through_its_switch() -> None:
    stations, got, clock, factory = backend(StationWiring(button=4, knob="encoder", encoder_a=6,
                                                          encoder_b=12, knob_switch=13))
    stations.start(got.append)
    sw = factory.pin(13)
    sw.edge(False, clock.t)
    clock.t += 0.2
    sw.edge(True, clock.t)
    clock.t += 1.0
    sw.edge(False, clock.t)
    for _ in range(30):
        clock.t += 0.1
        stations.pump()
    sw.edge(True, clock.t)
    clock.t += 1.0
    stations.pump()
    stations.stop()
    assert [i.kind for i in got] == ["push", "long_push"]


# --- absolute switch -------------------------------------------------------------

def code_for(sector: int, code: str) -> int:
    return binary_to_gray(sector) if code == "gray" else sector


@pytest.mark.parametrize("code", ["gray", "binary"])
def test_absolute_switch_reports_settled_sectors_only(code: str) -> None:
    data = [5, 6, 12, 13]
    stations, got, clock, factory = backend(StationWiring(button=4, knob="absolute", data=tuple(data),
                                                          code=code))  # type: ignore[arg-type]
    pins = [factory.pin(p) for p in data]
    rng = random.Random(5)
    stations.start(got.append)
    position = 0
    visited = []
    for _ in range(300):
        target = (position + rng.choice([-1, 1])) % 16
        old, new = code_for(position, code), code_for(target, code)
        changing = [bit for bit in range(4) if (old ^ new) >> bit & 1]
        rng.shuffle(changing)  # the contacts do not change together
        for bit in changing:
            clock.t += rng.uniform(0.0, 0.004)
            active = bool(new >> bit & 1)
            pins[bit].edge(not active, clock.t)  # active line = pulled to GND
            stations.pump()
        position = target
        visited.append(target)
        clock.t += rng.uniform(0.03, 0.3)  # the pointer rests at the detent
        stations.pump()
    clock.t += 1.0
    stations.pump()
    stations.stop()
    sectors = [i.value["sector"] for i in got if i.kind == "turn" and i.value]
    assert sectors == visited
    assert all(i.value == {"sector": s, "sectors": 16} for i, s in zip(got, sectors, strict=True))


def test_gray_code_round_trips() -> None:
    assert [gray_to_binary(binary_to_gray(v)) for v in range(16)] == list(range(16))
    assert all(bin(binary_to_gray(v) ^ binary_to_gray(v + 1)).count("1") == 1 for v in range(15))


# --- potentiometer ---------------------------------------------------------------

def test_quantiser_does_not_flicker_on_a_border() -> None:
    q = SectorQuantiser(16, 0.25)
    rng = random.Random(1)
    border = 5 / 16
    seen = {q.update(border + rng.uniform(-0.2, 0.2) / 16) for _ in range(2000)}
    assert len(seen) == 1


def test_potentiometer_sweep_through_a_mock_mcp3008() -> None:
    stations, got, clock, factory = backend(StationWiring(button=4, knob="potentiometer", adc_channel=3))
    adc = FakeMCP3008(factory)
    stations.start(got.append)
    rng = random.Random(3)
    steps = 100 if fast() else 400  # the fast tier (tests/tier.py) sweeps in coarser steps
    sweep = [k / steps for k in range(steps + 1)]
    for value in sweep + sweep[::-1]:
        adc.channels[3] = min(1.0, max(0.0, value + rng.uniform(-0.004, 0.004)))  # ADC noise
        for _ in range(3):
            clock.t += 0.02
            stations.pump()
    clock.t += 1.0
    stations.pump()
    stations.stop()
    sectors = [i.value["sector"] for i in got if i.value]
    up = sectors[: sectors.index(15) + 1]
    down = sectors[sectors.index(15):]
    assert up == list(range(16)) or up == list(range(1, 16))
    assert down == list(range(15, -1, -1))


def test_pointer_resting_on_a_border_with_adc_noise_reports_one_sector() -> None:
    stations, got, clock, factory = backend(StationWiring(button=4, knob="potentiometer", adc_channel=0))
    adc = FakeMCP3008(factory)
    stations.start(got.append)
    rng = random.Random(4)
    for _ in range(500):
        adc.channels[0] = 8 / 16 + rng.uniform(-0.004, 0.004)
        clock.t += 0.02
        stations.pump()
    clock.t += 1.0
    stations.pump()
    stations.stop()
    assert len([i for i in got if i.kind == "turn"]) == 1


# --- tick mapping ----------------------------------------------------------------

def test_tick_mapper_keeps_edge_order_within_a_race_whatever_the_delays() -> None:
    rng = random.Random(8)
    mapper = TickMapper()
    for race in range(200):
        base = race * 10.0
        edges = [base + k * 0.001 for k in range(10)]
        arrivals = sorted((t + rng.uniform(0, 0.01), t) for t in edges)
        mapped = {}
        for n, (arrival, t) in enumerate(arrivals):
            mapped[t] = mapper.to_table(t - 500.0, arrival, adjust=n == 0)
        assert sorted(edges, key=lambda t: mapped[t]) == edges
        gaps = [mapped[b] - mapped[a] for a, b in itertools.pairwise(edges)]
        assert all(abs(g - 0.001) < 1e-9 for g in gaps)
    assert mapper.offset is not None and 500.0 <= mapper.offset < 500.0005
