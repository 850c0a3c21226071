"""A real server on port 0 hosting the canned servicers, and clients of it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest

from hebei.common.client import create_channel
from hebei.common.config import ServerConfig
from hebei.common.server import Server, create_server
from tests.integration.common.servicers import CannedLedger, CannedTable, canned_specs

OPERATOR_TOKEN = "operator-secret"
SERVICE_TOKEN = "service-secret"


@dataclass
class CannedServer:
    """A started server and its servicers."""

    server: Server
    ledger: CannedLedger
    table: CannedTable

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.server.port}"


def start_canned_server(**overrides: object) -> CannedServer:
    """Build and start a canned server on a free port (metrics on a free port too)."""
    specs, ledger, table = canned_specs()
    settings = {
        "service": "testsvc",
        "host": "127.0.0.1",
        "port": 0,
        "metrics_port": 0,
        "operator_token": OPERATOR_TOKEN,
        "service_token": SERVICE_TOKEN,
        "grace_seconds": 5.0,
        **overrides,
    }
    server = create_server(specs, ServerConfig(**settings))  # type: ignore[arg-type]
    server.start()
    return CannedServer(server, ledger, table)


@pytest.fixture(scope="module")
def canned() -> Iterator[CannedServer]:
    """One canned server for the tests of a module."""
    running = start_canned_server()
    yield running
    running.server.stop(grace=0)


@pytest.fixture
def channel(canned: CannedServer) -> Iterator[grpc.Channel]:
    """A channel to the canned server carrying the operator token."""
    with create_channel(canned.target, token=OPERATOR_TOKEN, timeout=5.0) as ch:
        yield ch


@pytest.fixture
def anonymous_channel(canned: CannedServer) -> Iterator[grpc.Channel]:
    """A channel to the canned server without a token."""
    with create_channel(canned.target, timeout=5.0) as ch:
        yield ch
