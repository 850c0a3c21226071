"""Fuzzing the table service: a few thousand seeded messages to every RPC, the Play stream
included (random bytes, truncated and oversized messages, boundary values, NUL and non-ASCII
digits in strings), against the engine run as a real process (the machinery is
:mod:`tests.fuzz`, shared with the ledger's and matchmaking's fuzz tests). Never INTERNAL
(nor UNKNOWN), never a stack trace in a reply, health stays SERVING, and the engine's memory
stays flat: after a warm-up its resident size grows by less than :data:`RSS_GROWTH_KIB`
(grpcio's own deserializing path used to leak some 15 KB for each undecodable request)."""

from __future__ import annotations

import random

import pytest
from google.protobuf.message import Message

from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.fuzz import Fuzzer, assert_serving, big_channel, fuzz_service, rpcs, rss_kib
from tests.integration.table.conftest import OPERATOR, new_match_request, token_of
from tests.integration.table.helpers import EngineProcess, engine_env

SEED = 20261130
# Calls before the first memory reading: the asyncio engine's one-time growth (the unary calls'
# pool threads, started as concurrency asks, and their malloc arenas) must be behind it, or a
# loaded machine reads it as growth (+12 MiB once in CI at 400; 8,500 calls grow no more than
# 2,700: not a leak).
WARM_UP = 1500
CALLS = 2700  # calls after it (with the Play streams' messages: over 3,000 messages)
RSS_GROWTH_KIB = 10 * 1024
SIZE_LIMIT = 1024 * 1024
RPCS = rpcs(table_pb2.DESCRIPTOR.services_by_name["TableService"])


class TableRequests:
    """Valid requests of every RPC: a live match (its seats may be joined) and a dissolved
    one (Spectate streams end at once)."""

    def __init__(self, rng: random.Random, match_id: str, ended_id: str) -> None:
        self.rng = rng
        self.match_id = match_id
        self.ended_id = ended_id

    def valid(self, method: str) -> Message:
        rng = self.rng
        if method == "OpenMatch":
            return new_match_request(seed=rng.choice([0, 5]), hands=rng.randint(1, 64))
        if method == "GetMatch":
            return table_pb2.GetMatchRequest(match_id=self.match_id)
        if method == "ListTables":
            return table_pb2.ListTablesRequest(page_size=rng.randint(0, 500))
        if method == "Dissolve":
            return table_pb2.DissolveRequest(match_id=self.ended_id, reason="fuzz")
        if method == "Spectate":
            return table_pb2.SpectateRequest(match_id=self.ended_id, from_seq=rng.randint(0, 9))
        if method == "ReplaceSeat":  # the live match's seat keeps its token (joins go on)
            live = rng.random() < 0.5
            return table_pb2.ReplaceSeatRequest(
                match_id=self.match_id if live else self.ended_id,
                seat=rng.randrange(4),
                seat_token="" if live else "a-new-seat-token-0123",
                played_by="bot for fuzz",
                reason="fuzz",
            )
        if method == "ConcludeMatch":
            return table_pb2.ConcludeMatchRequest(match_id=self.ended_id, reason="fuzz")
        if method == "RevealMatchResults":  # idempotent: OK whatever is hidden
            return table_pb2.RevealMatchResultsRequest(
                tournament_id=rng.choice(["cup", "fuzz"]), round_no=rng.randint(0, 3)
            )
        assert method == "Play", method
        seat = rng.randrange(4)
        return table_pb2.PlayRequest(
            join=table_pb2.Join(
                match_id=self.match_id, seat=seat, seat_token=token_of(self.match_id, seat)
            )
        )

    def actions(self, fuzz: Fuzzer) -> list[bytes]:
        """The Play stream's messages after its Join: actions, odd ones and garbage."""
        out = []
        for _ in range(self.rng.randrange(0, 6)):
            if self.rng.random() < 0.3:
                out.append(self.rng.randbytes(self.rng.randrange(0, 30)))
                continue
            action = pb.Action(kind=self.rng.randint(0, 11), tile=self.rng.randint(0, 40))
            fuzz.mutate(action)
            out.append(table_pb2.PlayRequest(action=action).SerializeToString())
        return out


@pytest.mark.slow
def test_fuzzing_every_rpc(database_url, fresh_schema, tmp_path) -> None:
    env = engine_env(
        database_url,
        fresh_schema,
        HEBEI_TABLE_MAX_TABLES="24",
        HEBEI_TABLE_READY_SECONDS="3600",
        HEBEI_MAX_MESSAGE_BYTES=str(SIZE_LIMIT),
    )
    engine = EngineProcess(env, tmp_path / "engine.log")
    engine.start()
    channel = big_channel(engine.address)
    try:
        stub = table_pb2_grpc.TableServiceStub(channel)
        live, ended = new_match_request(per_decision=300.0), new_match_request()
        for request in (live, ended):
            stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
        stub.Dissolve(table_pb2.DissolveRequest(match_id=ended.match_id), metadata=OPERATOR)
        rng = random.Random(SEED)
        requests = TableRequests(rng, live.match_id, ended.match_id)
        fuzz = Fuzzer(rng, requests.valid, strings=(live.match_id, token_of(live.match_id, 0)))
        fuzz.follow_ups = lambda name: requests.actions(fuzz) if name == "Play" else []
        report = fuzz_service(
            channel,
            fuzz,
            RPCS.values(),
            warm_up=WARM_UP,
            calls=CALLS,
            rss=lambda: rss_kib(engine.process.pid),
            metadata=lambda r: OPERATOR if r.random() < 0.7 else None,
            size_limit=SIZE_LIMIT,
        )
        assert_serving(channel)
        assert engine.process.poll() is None
        assert report.sent >= 3000, report.sent
        assert set(report.by_rpc) == set(RPCS)
        assert report.seen["INVALID_ARGUMENT"] > CALLS // 3, report.seen  # mostly refused
        report.check_memory("table", RSS_GROWTH_KIB, SIZE_LIMIT)
        print(report.line("table"))
    finally:
        channel.close()
        engine.stop()
    assert "Traceback" not in engine.log()
