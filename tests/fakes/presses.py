"""Press-pair scenarios shared by the GPIO and the bridge ordering tests.

A *pair* is two stations pressing ``gap`` seconds apart (which one first is random),
each press with contact bounce (up to ``max_bounce`` extra edges within ``bounce_span``)
and a bouncy release ``hold`` seconds later. Edges are physical: ``(t, station, pressed)``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Pair:
    first: int
    second: int
    t_first: float
    edges: tuple[tuple[float, int, bool], ...]


def bouncy(rng: random.Random, station: int, t0: float, pressed: bool, max_bounce: int,
           span: float) -> list[tuple[float, int, bool]]:
    """An edge to ``pressed`` at ``t0`` and up to ``max_bounce`` chatter edges in ``span``,
    ending at ``pressed``."""
    n = rng.randrange(0, max_bounce // 2 + 1) * 2  # an even number of extra edges: ends where it should
    times = sorted(rng.uniform(t0 + 1e-5, t0 + span) for _ in range(n))
    out = [(t0, station, pressed)]
    level = pressed
    for t in times:
        level = not level
        out.append((t, station, level))
    return out


def make_pairs(rng: random.Random, count: int, start: float, *, gap: float = 0.001, every: float = 0.2,
               hold: float = 0.08, max_bounce: int = 6, bounce_span: float = 0.004,
               stations: int = 2) -> list[Pair]:
    pairs = []
    t = start
    for _ in range(count):
        a, b = rng.sample(range(stations), 2)
        edges: list[tuple[float, int, bool]] = []
        for station, t0 in ((a, t), (b, t + gap)):
            edges += bouncy(rng, station, t0, True, max_bounce, bounce_span)
            edges += bouncy(rng, station, t0 + hold, False, max_bounce, bounce_span)
        pairs.append(Pair(a, b, t, tuple(sorted(edges))))
        t += every * rng.uniform(0.9, 1.1)
    return pairs


def misordered_pairs(pairs: list[Pair], presses: list[tuple[int, float]]) -> tuple[int, int, int]:
    """(misordered, lost, doubled) of press ``(station, t)`` outputs against ``pairs``.

    Each output press is matched to the last pair that began before it: a reported
    time is never earlier than the edge (clock offsets are estimated from the
    smallest delay), and may be later by less than the spacing of pairs."""
    by_pair: dict[int, list[int]] = {}
    starts = [p.t_first for p in pairs]
    import bisect

    for station, t in presses:
        k = bisect.bisect_right(starts, t + 0.0005) - 1
        by_pair.setdefault(k, []).append(station)
    misordered = lost = doubled = 0
    for k, pair in enumerate(pairs):
        got = by_pair.get(k, [])
        if len(got) > 2:
            doubled += len(got) - 2
        elif len(got) < 2:
            lost += 2 - len(got)
        if got[:2] != [pair.first, pair.second] and len(got) >= 2:
            misordered += 1
    return misordered, lost, doubled
