"""Matchmaking's TableGateway over several table replicas (real gRPC servers on port 0, the
small routed engine of :mod:`tests.integration.common.routed_engine`): every call on one match
reaches its owner through a redirect and follows it when the match moves; ListTables and
RevealMatchResults ask every replica and merge their answers; a dead replica leaves them
answered by the others."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hebei.common.errors import Unavailable
from hebei.matchmaking.gateways import TableGateway
from hebei.v1 import table_pb2
from tests.integration.common.conftest import SERVICE_TOKEN
from tests.integration.common.routed_engine import Engine, entries, running_engine


@pytest.fixture
def engine() -> Iterator[Engine]:
    with running_engine("a", "b") as started:
        yield started


@pytest.fixture
def gateway(engine: Engine) -> Iterator[TableGateway]:
    table = TableGateway(entries(engine), SERVICE_TOKEN, timeout=5.0)
    yield table
    table.close()


def test_every_match_call_follows_the_redirect_to_the_owner(
    engine: Engine, gateway: TableGateway
) -> None:
    a, b = engine.replicas["a"], engine.replicas["b"]
    assert gateway.entries == (a.address, b.address)
    # OpenMatch lands on a (the first entry), which names b, where the engine places it.
    opened = gateway.open_match(table_pb2.OpenMatchRequest(match_id="m-1", tournament_id="t"))
    assert opened.match_id == "m-1"
    assert a.by_method["OpenMatch"] == 1 and b.by_method["OpenMatch"] == 1
    assert gateway.router.owner("m-1") == b.address
    assert gateway.get_match("m-1").match_id == "m-1"
    gateway.replace_seat("m-1", 2, "tok", played_by="bot", reason="test")
    assert gateway.conclude_match("m-1", "test").concluding
    # The match moves to a: each call (Dissolve is not idempotent: a refusal did nothing,
    # so it is sent again) follows the refusal to the new owner.
    engine.move("m-1", "a")
    assert gateway.dissolve("m-1", "test").match_id == "m-1"
    assert b.by_method["Dissolve"] == 1 and a.by_method["Dissolve"] == 1
    assert gateway.router.owner("m-1") == a.address
    assert b.by_method["GetMatch"] == 1 and b.by_method["ReplaceSeat"] == 1
    assert b.by_method["ConcludeMatch"] == 1


def test_a_match_nobody_serves_is_unavailable_at_the_deadline(engine: Engine) -> None:
    engine.add("m-x", "a")
    engine.move("m-x", None)  # being taken over, and nobody takes it
    table = TableGateway(entries(engine), SERVICE_TOKEN, timeout=1.0)
    try:
        with pytest.raises(Unavailable, match="table engine: match m-x: no table replica"):
            table.get_match("m-x")
    finally:
        table.close()


def test_list_tables_and_reveal_ask_every_replica_and_merge(
    engine: Engine, gateway: TableGateway
) -> None:
    engine.add("m-1", "a", tournament_id="t", hidden=True)
    engine.add("m-2", "b", tournament_id="t", hidden=True)
    engine.add("m-3", "b", tournament_id="other")
    engine.append("m-1", 5)
    engine.append("m-2", 3)
    matches = gateway.tournament_matches("t")
    # Each replica lists both (from the store); each match once, with its owner's live count.
    assert [(m.match_id, m.event_count) for m in matches] == [("m-1", 5), ("m-2", 3)]
    assert all(r.by_method["ListTables"] == 1 for r in engine.replicas.values())
    # Each replica reveals the matches it owns: the sum is every hidden match.
    assert gateway.reveal_results("t") == 2
    assert gateway.reveal_results("t") == 0
    assert not any(stored.info.results_hidden for stored in engine.matches.values())


def test_a_dead_replica_leaves_the_fan_out_to_the_others(
    engine: Engine, gateway: TableGateway
) -> None:
    engine.add("m-1", "a", tournament_id="t")
    engine.add("m-2", "b", tournament_id="t")
    engine.replicas["b"].stop()
    assert [m.match_id for m in gateway.tournament_matches("t")] == ["m-1", "m-2"]
    engine.replicas["a"].stop()
    with pytest.raises(Unavailable, match="table engine"):
        gateway.tournament_matches("t")
