"""Health per service and server reflection, through grpc's own clients."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from hebei.v1 import ledger_pb2
from tests.integration.common.conftest import CannedServer

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _status(channel: grpc.Channel, service: str) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status


@pytest.mark.parametrize("service", ["", "hebei.v1.LedgerService", "hebei.v1.TableService"])
def test_every_service_reports_serving(anonymous_channel: grpc.Channel, service: str) -> None:
    assert _status(anonymous_channel, service) == SERVING


def test_unknown_service_is_not_found(anonymous_channel: grpc.Channel) -> None:
    with pytest.raises(grpc.RpcError) as failure:
        _status(anonymous_channel, "hebei.v1.NoSuchService")
    assert failure.value.code() == grpc.StatusCode.NOT_FOUND


def test_one_service_can_be_marked_not_serving(
    canned: CannedServer, anonymous_channel: grpc.Channel
) -> None:
    canned.server.set_serving(False, "hebei.v1.TableService")
    try:
        assert _status(anonymous_channel, "hebei.v1.TableService") == NOT_SERVING
        assert _status(anonymous_channel, "hebei.v1.LedgerService") == SERVING
    finally:
        canned.server.set_serving(True, "hebei.v1.TableService")
    assert _status(anonymous_channel, "hebei.v1.TableService") == SERVING


def test_reflection_lists_the_services(anonymous_channel: grpc.Channel) -> None:
    database = ProtoReflectionDescriptorDatabase(anonymous_channel)
    services = set(database.get_services())
    assert {
        "hebei.v1.LedgerService",
        "hebei.v1.TableService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
    } <= services


def test_reflection_describes_a_method(anonymous_channel: grpc.Channel) -> None:
    database = ProtoReflectionDescriptorDatabase(anonymous_channel)
    symbol = database.FindFileContainingSymbol("hebei.v1.LedgerService")
    assert symbol.name == "hebei/v1/ledger.proto"
    methods = {m.name for m in symbol.service[0].method}
    assert methods == set(ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"].methods_by_name)
    assert {"PostSettlement", "ReverseEntry", "GetStandings", "GetHistory", "Audit"} <= methods
