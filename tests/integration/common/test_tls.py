"""TLS chosen by configuration: server certificates, and client certificates when required."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from hebei.common.client import create_channel
from hebei.common.tls import TlsConfig
from hebei.v1 import ledger_pb2, ledger_pb2_grpc
from tests.integration.common.conftest import CannedServer, start_canned_server

CERTS = Path(__file__).parent / "certs"
SERVER_TLS = TlsConfig(CERTS / "server.pem", CERTS / "server.key")
MUTUAL_TLS = TlsConfig(CERTS / "server.pem", CERTS / "server.key", CERTS / "ca.pem")


def _standings(channel: grpc.Channel) -> int:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    reply = stub.GetStandings(ledger_pb2.LedgerServiceGetStandingsRequest(), timeout=5)
    return len(reply.standings)


@pytest.fixture
def tls_server(request: pytest.FixtureRequest) -> Iterator[CannedServer]:
    running = start_canned_server(tls=request.param, metrics_port=None)
    yield running
    running.server.stop(grace=0)


@pytest.mark.parametrize("tls_server", [SERVER_TLS], indirect=True)
def test_tls_server(tls_server: CannedServer) -> None:
    target = f"localhost:{tls_server.server.port}"
    with create_channel(target, tls_ca_file=CERTS / "ca.pem") as channel:
        assert _standings(channel) == 1
    with create_channel(target, timeout=2) as plain, pytest.raises(grpc.RpcError) as failure:
        _standings(plain)
    assert failure.value.code() == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize("tls_server", [MUTUAL_TLS], indirect=True)
def test_client_certificate_required(tls_server: CannedServer) -> None:
    target = f"localhost:{tls_server.server.port}"
    with create_channel(
        target,
        tls_ca_file=CERTS / "ca.pem",
        tls_cert_file=CERTS / "client.pem",
        tls_key_file=CERTS / "client.key",
    ) as channel:
        assert _standings(channel) == 1
    anonymous = create_channel(target, tls_ca_file=CERTS / "ca.pem", timeout=2)
    with anonymous, pytest.raises(grpc.RpcError) as failure:
        _standings(anonymous)
    assert failure.value.code() == grpc.StatusCode.UNAVAILABLE
