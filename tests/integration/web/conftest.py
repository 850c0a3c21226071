"""Fixtures of the gateway tests: the shared stack (see ``harness``) and a gateway on port 0."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from hebei.stack.processes import Stack
from hebei.web.server import RunningGateway
from tests.integration.web.harness import acquire_stack, gateway, release_stack


@pytest.fixture(scope="session")
def web_stack(database_url: str, broker_url: str) -> Iterator[Stack]:
    """Ledger, table engine, matchmaking and one bot worker as processes (session-wide)."""
    stack = acquire_stack(database_url, broker_url)
    yield stack
    release_stack()


@pytest.fixture(scope="session")
def web(web_stack: Stack) -> Iterator[RunningGateway]:
    """A gateway with the default settings, in front of the shared stack."""
    with gateway(web_stack) as running:
        yield running


@pytest.fixture
def client(web: RunningGateway) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web.url.rstrip("/"), timeout=30) as http:
        yield http
