"""The web gateway over several table replicas (real gRPC servers on port 0, the small routed
engine of :mod:`tests.integration.common.routed_engine`, no other service): a match's calls
reach its owner, the matches list merges every replica's, a spectator's feed survives its
match moving to another replica (and a moment when nobody serves it), and the replayer's read
of a finished match follows its owner."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from hebei.web.config import WebConfig
from hebei.web.server import RunningGateway, start_gateway
from tests.integration.common.conftest import OPERATOR_TOKEN
from tests.integration.common.routed_engine import Engine, entries, running_engine, wait_until
from tests.integration.web.harness import SseReader


@pytest.fixture
def engine() -> Iterator[Engine]:
    with running_engine("a", "b") as started:
        yield started


@pytest.fixture
def client(engine: Engine) -> Iterator[httpx.Client]:
    config = WebConfig(
        table_address=entries(engine),
        matchmaking_address="127.0.0.1:9",  # not used here
        port=0,
        operator_token=OPERATOR_TOKEN,
    )
    running: RunningGateway = start_gateway(config)
    try:
        with httpx.Client(base_url=running.url, timeout=30) as http:
            yield http
    finally:
        running.stop()


def test_a_match_s_calls_reach_its_owner_and_the_list_merges(
    engine: Engine, client: httpx.Client
) -> None:
    engine.add("m-1", "a")
    engine.add("m-2", "b")
    engine.append("m-2", 4)
    reply = client.get("/api/tables/m-2")
    assert reply.status_code == 200, reply.text
    assert reply.json()["match_id"] == "m-2"
    assert engine.replicas["b"].by_method["GetMatch"] == 1
    tables = client.get("/api/tables", params={"status": "all"}).json()["tables"]
    assert [(t["match_id"], t["events"]) for t in tables] == [("m-1", 0), ("m-2", 4)]
    engine.move("m-2", "a")
    dissolved = client.post(
        "/api/operator/tables/m-2/dissolve",
        json={"reason": "test"},
        headers={"authorization": f"Bearer {OPERATOR_TOKEN}"},
    )
    assert dissolved.status_code == 200, dissolved.text
    assert engine.replicas["a"].by_method["Dissolve"] == 1


def test_a_spectator_feed_survives_its_match_moving(engine: Engine, client: httpx.Client) -> None:
    engine.add("m-1", "a")
    engine.append("m-1", 3)
    reader = SseReader(client, "/api/tables/m-1/events").start()
    try:
        reader.wait_for_state(lambda s: (s["last_event"] or {}).get("seq") == 3, timeout=20)
        engine.move("m-1", None)  # a lets it go: its stream ends with "being taken over"
        wait_until(lambda: engine.replicas["a"].by_method["Spectate"] >= 2)
        engine.append("m-1", 2)
        engine.move("m-1", "b")  # b took it over: the feed goes on there from event 4
        state = reader.wait_for_state(
            lambda s: s["finished"] is False and ((s["last_event"] or {}).get("seq") == 5),
            timeout=20,
        )
        assert state["seats"][0]["played_by"] == ""
        engine.append("m-1", 1, end=True)
        state = reader.wait_for_state(lambda s: s["finished"], timeout=20)
        assert state["last_event"]["seq"] == 7
        end = reader.wait_for(lambda m: m.event == "end", timeout=20)
        assert "over" in end.data["reason"], end.data
        # Every event once, in order, whatever replica sent it.
        seqs = [m.data["seq"] for m in reader.messages if m.event in ("snapshot", "delta")]
        assert seqs == sorted(set(seqs)) and seqs[-1] == 7
    finally:
        reader.close()
    assert engine.replicas["b"].by_method["Spectate"] >= 1  # refused while nobody served it


def test_the_replayer_reads_a_finished_match_at_its_owner(
    engine: Engine, client: httpx.Client
) -> None:
    engine.add("m-1", "b")
    engine.append("m-1", 2, end=True)
    engine.move("m-1", "a")  # the gateway knew b from nothing: a redirect, then the read
    reply = client.get("/api/tables/m-1/hands/1")
    # Whatever the rebuild makes of these few events, the read was served (not 503) by a.
    assert reply.status_code != 503, reply.text
    assert engine.replicas["a"].by_method["Spectate"] == 1
    assert engine.replicas["b"].by_method["Spectate"] == 0
