"""Metrics scraped over HTTP and parsed with prometheus_client's parser show the calls."""

from __future__ import annotations

import time
import urllib.request

import grpc
from prometheus_client.parser import text_string_to_metric_families

from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2, table_pb2_grpc, types_pb2
from tests.integration.common.conftest import CannedServer

LABELS = {"grpc_type", "grpc_service", "grpc_method"}


def scrape(where: int | str, timeout: float = 5) -> dict[tuple[str, frozenset], float]:
    """Every sample of the /metrics page at ``where`` (a port on 127.0.0.1, or host:port),
    keyed by (sample name, labels)."""
    address = f"127.0.0.1:{where}" if isinstance(where, int) else where
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=timeout) as page:
        text = page.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_unary_call_counted(canned: CannedServer, channel: grpc.Channel) -> None:
    method = {"grpc_type": "unary", "grpc_service": "hebei.v1.LedgerService"}
    method["grpc_method"] = "PostSettlement"
    before = scrape(canned.server.metrics_port)
    request = ledger_pb2.PostSettlementRequest(settlement=types_pb2.Settlement(idempotency_key="k"))
    ledger_pb2_grpc.LedgerServiceStub(channel).PostSettlement(request)
    after = scrape(canned.server.metrics_port)

    def delta(name: str, **extra: str) -> float:
        return value(after, name, **method, **extra) - value(before, name, **method, **extra)

    assert delta("grpc_server_started_total") == 1
    assert delta("grpc_server_handled_total", grpc_code="OK") == 1
    assert delta("grpc_server_handling_seconds_count") == 1
    assert delta("grpc_server_msg_received_total") == 1
    assert delta("grpc_server_msg_sent_total") == 1
    # the client side of the same call (same process, same registry)
    assert delta("grpc_client_handled_total", grpc_code="OK") == 1
    assert delta("grpc_client_handling_seconds_count") == 1


def test_error_code_counted(canned: CannedServer, channel: grpc.Channel) -> None:
    method = {"grpc_type": "unary", "grpc_service": "hebei.v1.LedgerService"}
    labels = {**method, "grpc_method": "ReverseEntry", "grpc_code": "NOT_FOUND"}
    before = value(scrape(canned.server.metrics_port), "grpc_server_handled_total", **labels)
    try:
        ledger_pb2_grpc.LedgerServiceStub(channel).ReverseEntry(
            ledger_pb2.ReverseEntryRequest(entry_id="missing")
        )
    except grpc.RpcError as failure:
        assert failure.code() == grpc.StatusCode.NOT_FOUND
    after = value(scrape(canned.server.metrics_port), "grpc_server_handled_total", **labels)
    assert after - before == 1


def test_stream_messages_counted(canned: CannedServer, channel: grpc.Channel) -> None:
    stream = {"grpc_service": "hebei.v1.TableService"}
    spectate = {**stream, "grpc_type": "server_stream", "grpc_method": "Spectate"}
    play = {**stream, "grpc_type": "bidi_stream", "grpc_method": "Play"}
    before = scrape(canned.server.metrics_port)
    stub = table_pb2_grpc.TableServiceStub(channel)
    events = list(stub.Spectate(table_pb2.SpectateRequest(match_id="m", from_seq=7), timeout=5))
    join = table_pb2.Join(match_id="m", seat=0, seat_token="seat-0")
    actions = [table_pb2.PlayRequest(action=types_pb2.Action(decision_id=n)) for n in (1, 2, 3)]
    replies = list(stub.Play(iter([table_pb2.PlayRequest(join=join), *actions]), timeout=5))
    after = scrape(canned.server.metrics_port)

    def delta(name: str, labels: dict[str, str], **extra: str) -> float:
        return value(after, name, **labels, **extra) - value(before, name, **labels, **extra)

    assert len(events) == 7 and len(replies) == 4
    assert delta("grpc_server_msg_sent_total", spectate) == 7
    assert delta("grpc_server_msg_received_total", spectate) == 1
    assert delta("grpc_server_handled_total", spectate, grpc_code="OK") == 1
    assert delta("grpc_server_msg_received_total", play) == 4
    assert delta("grpc_server_msg_sent_total", play) == 4
    assert delta("grpc_server_handled_total", play, grpc_code="OK") == 1
    assert delta("grpc_client_msg_received_total", spectate) == 7
    assert delta("grpc_client_msg_sent_total", play) == 4
    # a stream's client status is recorded by grpc's done-callback thread: allow it a moment
    deadline = time.monotonic() + 5
    while delta("grpc_client_handled_total", play, grpc_code="OK") < 1:
        assert time.monotonic() < deadline, "grpc_client_handled_total never counted Play"
        time.sleep(0.02)
        after = scrape(canned.server.metrics_port)
    assert delta("grpc_client_handled_total", play, grpc_code="OK") == 1


def test_no_id_labels(canned: CannedServer, channel: grpc.Channel) -> None:
    ledger_pb2_grpc.LedgerServiceStub(channel).GetHistory(
        ledger_pb2.GetHistoryRequest(player_id="player-42", table_id="table-7")
    )
    samples = scrape(canned.server.metrics_port)
    grpc_samples = [labels for name, labels in samples if name.startswith("grpc_")]
    assert grpc_samples
    for labels in grpc_samples:
        assert {key for key, _ in labels} <= LABELS | {"grpc_code", "le"}
        assert not any("player-42" in v or "table-7" in v for _, v in labels)
