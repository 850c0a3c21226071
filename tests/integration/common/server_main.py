"""A service main as every real service writes it, hosting the canned servicers.

Run as ``python -m tests.integration.common.server_main`` from the repository root; prints
one JSON line ``{"port": ..., "metrics_port": ...}`` once serving.
"""

from __future__ import annotations

import json

from hebei.common.config import ServerConfig
from hebei.common.server import Server, ServiceSpec, run_service
from tests.integration.common.servicers import canned_specs


def _announce(server: Server) -> None:
    print(json.dumps({"port": server.port, "metrics_port": server.metrics_port}), flush=True)


def build(config: ServerConfig) -> list[ServiceSpec]:
    """The canned LedgerService and TableService."""
    specs, _ledger, _table = canned_specs()
    return specs


if __name__ == "__main__":
    run_service("testsvc", build, ready=_announce)
