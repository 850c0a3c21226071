"""A service main as every real service writes it, hosting the canned servicers.

Run as ``python -m tests.integration.common.server_main`` from the repository root; prints
one JSON line ``{"port": ..., "metrics_port": ...}`` once serving.
"""

from __future__ import annotations

import json
import sys

from hebei.common.config import ServerConfig, run_main
from hebei.common.server import Server, serve
from tests.integration.common.servicers import canned_specs

SERVICE = "testsvc"


def _announce(server: Server) -> None:
    print(json.dumps({"port": server.port, "metrics_port": server.metrics_port}), flush=True)


def main() -> None:
    """Read the configuration and serve until SIGTERM."""
    config = ServerConfig.from_env(SERVICE, default_port=0, default_metrics_port=0)
    specs, _ledger, _table = canned_specs()
    serve(specs, config, ready=_announce)


if __name__ == "__main__":
    sys.exit(run_main(f"hebei-{SERVICE}", main))
