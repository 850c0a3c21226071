"""Fuzzing the ledger service: a few thousand seeded messages to every RPC (random bytes,
truncated and oversized messages, boundary values, NUL and non-ASCII digits in strings, entry
ids beyond a bigint), with the operator's, the service's, a wrong or no token, against the
ledger run as a real process (``python -m hebei.ledger``) on a fresh schema. The machinery is
:mod:`tests.fuzz`, shared with the table engine's and matchmaking's fuzz tests.

Never INTERNAL nor UNKNOWN, never a stack trace in a reply, health SERVING afterwards, the
ledger's memory flat (after a warm-up its resident size grows by less than
:data:`RSS_GROWTH_KIB`), and whatever the fuzzing booked still balances (the audit is ok)."""

from __future__ import annotations

import os
import random

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from hebei.common.auth import bearer_metadata
from hebei.ledger import TOURNAMENT_ACCOUNT
from hebei.ledger.samples import sample_settlement
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, types_pb2
from tests.fuzz import Fuzzer, assert_serving, big_channel, fuzz_service, rpcs, rss_kib
from tests.integration.faults.harness import ServiceProcess, free_ports

SEED = 20261201
WARM_UP = 400  # calls before the first memory reading
CALLS = 2800  # calls after it
RSS_GROWTH_KIB = 10 * 1024
SIZE_LIMIT = 1024 * 1024
OPERATOR_TOKEN = "ledger-fuzz-operator"
SERVICE_TOKEN = "ledger-fuzz-service"
OPERATOR, SERVICE = bearer_metadata(OPERATOR_TOKEN), bearer_metadata(SERVICE_TOKEN)
BAD_TOKENS = (bearer_metadata("not-a-token"), (("authorization", "Bearer"),), None)


def credentials(rng: random.Random):
    """Mostly good tokens (so that the requests reach the decoding), some bad or none."""
    roll = rng.random()
    if roll < 0.45:
        return OPERATOR
    if roll < 0.8:
        return SERVICE
    return rng.choice(BAD_TOKENS)


RPCS = rpcs(ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"])
PLAYERS = ["p0", "p1", "p2", "p3"]
MATCHES = ["fz-m1", "fz-m2", "fz-m3"]
IDS = ("cup", "fz-m1", "p1", "table-1", "0", "1", "2", "9" * 19, str(2**63 - 1), "fz-m1:1")


class LedgerRequests:
    """Valid requests of every RPC, about a tournament ("cup") whose first entries exist."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def settlement(self) -> types_pb2.Settlement:
        rng = self.rng
        data = sample_settlement(
            rng, match_id=rng.choice(MATCHES), hand_no=rng.randint(1, 8), players=PLAYERS,
            tournament_id="cup",
        )  # fmt: skip
        message = types_pb2.Settlement()
        json_format.ParseDict(data, message)
        message.ended_at.FromSeconds(1_700_000_000 + rng.randrange(10_000))
        return message

    def adjustment(self) -> ledger_pb2.Adjustment:
        points = self.rng.randint(1, 50)
        return ledger_pb2.Adjustment(
            idempotency_key=f"pen:{self.rng.randint(1, 20)}", tournament_id="cup", round_no=1,
            match_id=self.rng.choice(MATCHES), kind=ledger_pb2.ADJUSTMENT_KIND_PENALTY,
            lines=[ledger_pb2.AdjustmentLine(player_id=self.rng.choice(PLAYERS), amount=-points),
                   ledger_pb2.AdjustmentLine(player_id=TOURNAMENT_ACCOUNT, amount=points)],
            reason="late", assigned_by="referee",
        )  # fmt: skip

    def entry_id(self) -> str:
        return str(self.rng.randint(1, 40))

    def valid(self, method: str) -> Message:
        rng = self.rng
        if method == "PostSettlement":
            return ledger_pb2.PostSettlementRequest(settlement=self.settlement())
        if method == "ReverseEntry":
            request = ledger_pb2.ReverseEntryRequest(entry_id=self.entry_id(), reason="typo")
            if rng.random() < 0.5:
                request.corrected.CopyFrom(self.settlement())
            return request
        if method == "PostAdjustment":
            return ledger_pb2.PostAdjustmentRequest(adjustment=self.adjustment())
        if method == "CancelAdjustment":
            return ledger_pb2.CancelAdjustmentRequest(
                entry_id=self.entry_id(), reason="appeal", idempotency_key=f"c{rng.randint(1, 9)}"
            )
        if method == "GetStandings":
            return ledger_pb2.LedgerServiceGetStandingsRequest(tournament_id="cup")
        if method == "GetHistory":
            return ledger_pb2.GetHistoryRequest(
                page_size=rng.randint(0, 500), page_token=rng.choice(["", self.entry_id()]),
                player_id=rng.choice(["", *PLAYERS]), tournament_id=rng.choice(["", "cup"]),
                match_id=rng.choice(["", *MATCHES]),
            )  # fmt: skip
        if method == "SetResultsHidden":
            return ledger_pb2.SetResultsHiddenRequest(
                tournament_id=rng.choice(["cup", "other"]), hidden=rng.random() < 0.5
            )
        assert method == "Audit", method
        return ledger_pb2.AuditRequest(tournament_id=rng.choice(["", "cup"]))


@pytest.mark.slow
def test_fuzzing_every_rpc(database_url, fresh_schema, tmp_path) -> None:
    (port,) = free_ports(1)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    env.update(
        HEBEI_LEDGER_PORT=str(port),
        HEBEI_LEDGER_METRICS_PORT="-1",
        HEBEI_HOST="127.0.0.1",
        HEBEI_OPERATOR_TOKEN=OPERATOR_TOKEN,
        HEBEI_SERVICE_TOKEN=SERVICE_TOKEN,
        HEBEI_DATABASE_URL=database_url,
        HEBEI_LEDGER_SCHEMA=fresh_schema,
        HEBEI_MAX_MESSAGE_BYTES=str(SIZE_LIMIT),
        HEBEI_LOG_LEVEL="WARNING",
        HEBEI_AUTH_MAX_FAILURES="1000000",  # the fuzz sends thousands of wrong tokens
        HEBEI_AUTH_MAX_FAILURES_TOTAL="1000000",
    )
    ledger = ServiceProcess("ledger", port, env, tmp_path / "ledger.log")
    ledger.spawn()
    channel = big_channel(ledger.address)
    try:
        ledger.wait_serving()
        stub = ledger_pb2_grpc.LedgerServiceStub(channel)
        rng = random.Random(SEED)
        requests = LedgerRequests(rng)
        for _ in range(6):  # entries the fuzzed ids refer to
            stub.PostSettlement(requests.valid("PostSettlement"), metadata=SERVICE, timeout=10)
            stub.PostAdjustment(requests.valid("PostAdjustment"), metadata=SERVICE, timeout=10)
        fuzz = Fuzzer(rng, requests.valid, strings=IDS)
        report = fuzz_service(
            channel,
            fuzz,
            RPCS.values(),
            warm_up=WARM_UP,
            calls=CALLS,
            rss=lambda: rss_kib(ledger.pid),
            metadata=credentials,
            size_limit=SIZE_LIMIT,
        )
        assert_serving(channel)
        assert ledger.running()
        assert report.sent >= 3000, report.sent
        assert set(report.by_rpc) == set(RPCS)
        assert report.seen["INVALID_ARGUMENT"] > CALLS // 3, report.seen  # mostly refused
        assert report.seen["OK"] > CALLS // 20, report.seen  # and some of it taken
        report.check_memory("ledger", RSS_GROWTH_KIB, SIZE_LIMIT)
        audit = stub.Audit(ledger_pb2.AuditRequest(), timeout=30)
        assert audit.ok and audit.entries_checked > 12, audit
        print(report.line("ledger"))
    finally:
        channel.close()
        ledger.stop()
    assert "Traceback" not in ledger.log()
