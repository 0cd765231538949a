"""The venue asks for a result it lacks: a real Mosquitto, a real relay, a lost delivery.

The venue's handler loses the first delivery of a table's game 1 (as a venue that
crashed between paho's acknowledgement and its own write would). The relay's
retained status names the results the broker acknowledged; the venue holds them
against its file and subscribes to the missing one's topic, and the broker's
retained copy fills the gap. Nothing reaches the table: the relay subscribes to
nothing.
"""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest

from table.venue.broker import LocalBroker
from table.venue.relay import Relay, RelayConfig
from table.venue.server import Venue, VenueConfig
from venue.helpers import wait_for
from venue.test_relay_acks import _play

pytestmark = pytest.mark.usefixtures("mosquitto")


def test_a_result_lost_on_its_way_into_the_venue_is_asked_for_again(tmp_path: Path) -> None:
    from table.play.journal import Journal

    journal = Journal(tmp_path / "T1.db")
    rng = random.Random(5)
    _play(journal, rng)
    _play(journal, rng)
    journal.close()
    broker = LocalBroker(tmp_path / "broker", {"T1": "one", "venue": "v"})
    venue: Venue | None = None
    stop = threading.Event()
    lost: list[str] = []
    try:
        broker.start()
        venue = Venue(VenueConfig(db=tmp_path / "venue.db", port=broker.port, username="venue", password="v"))
        venue.start_mqtt()
        wait_for(lambda: venue is not None and venue.connected, 10, "the venue connected")
        real = venue.client.on_message

        def lose_first_game_1(client: Any, userdata: Any, msg: Any) -> None:
            if msg.topic == "venue/v1/T1/results/1" and not lost:
                lost.append(msg.topic)  # acknowledged by paho, never taken
                return
            real(client, userdata, msg)

        venue.client.on_message = lose_first_game_1
        relay = Relay(RelayConfig(table="T1", journal=tmp_path / "T1.db", state_dir=tmp_path / "relay",
                                  port=broker.port, username="T1", password="one", heartbeat_s=0.5))
        threading.Thread(target=relay.run, args=(stop,), daemon=True).start()
        wait_for(lambda: venue is not None and venue.counts["results"] == 2, 30, "both results at the venue")
        assert lost == ["venue/v1/T1/results/1"]
        assert venue.state()["missing_count"] == 0
    finally:
        stop.set()
        if venue is not None:
            venue.stop()
        broker.kill()
