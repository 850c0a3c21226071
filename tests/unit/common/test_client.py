"""The client service config: retries for idempotent methods only, on UNAVAILABLE and on
CANCELLED (what a stopping server refused or cancelled before handling it) only."""

from __future__ import annotations

import json

from hebei.common.auth import METHOD_ROLES
from hebei.common.client import IDEMPOTENT_METHODS, service_config
from hebei.v1 import bot_pb2, ledger_pb2, matchmaking_pb2, table_pb2


def test_retry_policy_only_on_unavailable_and_cancelled() -> None:
    config = json.loads(service_config())
    [method_config] = config["methodConfig"]
    assert method_config["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE", "CANCELLED"]
    names = {(n["service"], n["method"]) for n in method_config["name"]}
    assert ("hebei.v1.LedgerService", "PostSettlement") in names
    assert ("hebei.v1.LedgerService", "ReverseEntry") not in names
    assert all(n.get("method") for n in method_config["name"])  # never a whole service


def test_idempotent_methods_exist() -> None:
    services = {
        service.full_name: {m.name for m in service.methods}
        for module in (bot_pb2, ledger_pb2, matchmaking_pb2, table_pb2)
        for service in module.DESCRIPTOR.services_by_name.values()
    }
    for service, methods in IDEMPOTENT_METHODS.items():
        if service.startswith("hebei."):
            assert set(methods) <= services[service], service


def test_operator_corrections_never_retried() -> None:
    retried = {f"/{s}/{m}" for s, methods in IDEMPOTENT_METHODS.items() for m in methods}
    for method in (
        "/hebei.v1.LedgerService/ReverseEntry",
        "/hebei.v1.MatchmakingService/RemovePlayer",
    ):
        assert method in METHOD_ROLES and method not in retried
