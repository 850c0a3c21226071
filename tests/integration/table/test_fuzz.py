"""Fuzzing the table service: a few thousand seeded messages to every RPC, the Play stream
included (random bytes, truncated and oversized messages, boundary values, NUL and non-ASCII
digits in strings), against the engine run as a real process. Never INTERNAL (nor UNKNOWN),
never a stack trace in a reply, health stays SERVING, and the engine's memory stays flat:
after a warm-up its resident size grows by less than :data:`RSS_GROWTH_KIB` (grpcio's own
deserializing path used to leak some 15 KB for each undecodable request)."""

from __future__ import annotations

import contextlib
import random
import time
from collections import Counter

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.common.errors import MAX_DETAILS
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import OPERATOR, new_match_request, token_of
from tests.integration.table.helpers import EngineProcess, engine_env

SEED = 20261130
WARM_UP = 400  # calls before the first memory reading
CALLS = 2700  # calls after it (with the Play streams' messages: over 3,000 messages)
RSS_GROWTH_KIB = 10 * 1024
FORBIDDEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
SERVICE = "/hebei.v1.TableService/"
REQUESTS = {
    "OpenMatch": table_pb2.OpenMatchRequest,
    "GetMatch": table_pb2.GetMatchRequest,
    "ListTables": table_pb2.ListTablesRequest,
    "Dissolve": table_pb2.DissolveRequest,
    "Spectate": table_pb2.SpectateRequest,
    "Play": table_pb2.PlayRequest,
}
STRINGS = [
    "",
    " ",
    "\x00",
    "m\x00",
    "a:b",
    "١٢٣٤",  # Arabic-Indic digits
    "𝟙𝟚𝟛",  # mathematical digits
    "٠" * 200,
    "名" * 65,
    "x" * 100_000,
    "\n",
    "\u202e",
    "ok-id",
]
INTS32 = [0, 1, -1, 3, 4, 64, 65, 500, 501, 2**31 - 1, -(2**31)]
INTS64 = [0, 1, -1, 2**63 - 1, -(2**63), 315_576_000_000, 2_000_000_000]
UINTS = [0, 1, 2**63, 2**64 - 1]


class Fuzzer:
    def __init__(self, rng: random.Random, match_id: str, ended_id: str) -> None:
        self.rng = rng
        self.match_id = match_id  # a live match (its seats may be joined)
        self.ended_id = ended_id  # a dissolved one (Spectate streams end at once)

    # -- values

    def scalar(self, field: FieldDescriptor):
        rng = self.rng
        kind = field.type
        if kind == FieldDescriptor.TYPE_STRING:
            return rng.choice([*STRINGS, self.match_id, token_of(self.match_id, 0)])
        if kind == FieldDescriptor.TYPE_BOOL:
            return rng.random() < 0.5
        if kind == FieldDescriptor.TYPE_ENUM:
            return rng.choice([0, 1, 2, 3, 4, 7, 10, 99, -1])
        if kind in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_UINT32):
            return rng.choice(UINTS if kind == FieldDescriptor.TYPE_UINT64 else [0, 1, 2**32 - 1])
        if kind == FieldDescriptor.TYPE_INT64:
            return rng.choice(INTS64)
        return rng.choice(INTS32)

    def mutate(self, message: Message, depth: int = 0) -> None:
        """Set a few fields of ``message`` (recursively) to boundary or odd values."""
        fields = list(message.DESCRIPTOR.fields)
        for field in self.rng.sample(fields, k=min(len(fields), self.rng.randint(1, 3))):
            repeated = field.is_repeated
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                if depth > 3:
                    continue
                target = getattr(message, field.name)
                if repeated:
                    items = list(target) or [target.add()]
                    self.mutate(self.rng.choice(items), depth + 1)
                else:
                    self.mutate(target, depth + 1)
            elif repeated:
                getattr(message, field.name).append(self.scalar(field))
            else:
                with contextlib.suppress(ValueError, TypeError):  # e.g. out of the field's range
                    setattr(message, field.name, self.scalar(field))

    # -- messages

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
        seat = rng.randrange(4)
        return table_pb2.PlayRequest(
            join=table_pb2.Join(
                match_id=self.match_id, seat=seat, seat_token=token_of(self.match_id, seat)
            )
        )

    def payload(self, method: str) -> bytes:
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            return rng.randbytes(rng.randrange(0, 80))
        data = self.valid(method).SerializeToString()
        if roll < 0.45:
            return data[: rng.randrange(0, max(1, len(data)))]
        if roll < 0.5:
            return data + rng.randbytes(rng.randrange(1, 8))
        message = self.valid(method)
        self.mutate(message)
        return message.SerializeToString()

    def actions(self) -> list[bytes]:
        out = []
        for _ in range(self.rng.randrange(0, 6)):
            if self.rng.random() < 0.3:
                out.append(self.rng.randbytes(self.rng.randrange(0, 30)))
                continue
            action = pb.Action(kind=self.rng.randint(0, 11), tile=self.rng.randint(0, 40))
            self.mutate(action)
            out.append(table_pb2.PlayRequest(action=action).SerializeToString())
        return out


def check(error: grpc.RpcError | None, seen: Counter) -> None:
    if error is None:
        seen["OK"] += 1
        return
    code, details = error.code(), error.details() or ""
    seen[code.name] += 1
    assert code not in FORBIDDEN, (code, details)
    assert "Traceback" not in details and len(details) <= MAX_DETAILS + 100, details[:200]


def one_call(channel: grpc.Channel, fuzz: Fuzzer, method: str) -> tuple[grpc.RpcError | None, int]:
    """One fuzzed call; the error it ended with (None: OK) and how many messages it sent."""
    path, rng = SERVICE + method, fuzz.rng
    metadata = OPERATOR if rng.random() < 0.7 else None
    try:
        if method == "Play":
            messages = [fuzz.payload("Play"), *fuzz.actions()]
            call = channel.stream_stream(path)(iter(messages), metadata=metadata, timeout=5)
            for _ in call:  # an observation: the seat joined; enough
                call.cancel()
                break
            return None, len(messages)
        if method == "Spectate":  # a live match's events stream on: a short deadline
            for _ in channel.unary_stream(path)(fuzz.payload(method), timeout=0.5):
                pass
            return None, 1
        channel.unary_unary(path)(fuzz.payload(method), metadata=metadata, timeout=10)
        return None, 1
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.CANCELLED:  # our own cancel after an observation
            return None, 1
        return exc, 1


@pytest.mark.slow
def test_fuzzing_every_rpc(database_url, fresh_schema, tmp_path) -> None:
    env = engine_env(
        database_url,
        fresh_schema,
        HEBEI_TABLE_MAX_TABLES="24",
        HEBEI_TABLE_READY_SECONDS="3600",
        HEBEI_MAX_MESSAGE_BYTES=str(1024 * 1024),
    )
    engine = EngineProcess(env, tmp_path / "engine.log")
    engine.start()
    channel = grpc.insecure_channel(
        engine.address, options=[("grpc.max_send_message_length", 8 * 1024 * 1024)]
    )
    try:
        stub = table_pb2_grpc.TableServiceStub(channel)
        live, ended = new_match_request(per_decision=300.0), new_match_request()
        for request in (live, ended):
            stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
        stub.Dissolve(table_pb2.DissolveRequest(match_id=ended.match_id), metadata=OPERATOR)
        fuzz = Fuzzer(random.Random(SEED), live.match_id, ended.match_id)
        seen: Counter = Counter()
        sent = 0
        methods = list(REQUESTS)
        before = 0
        started = time.monotonic()
        for n in range(WARM_UP + CALLS):
            if n == WARM_UP:
                before = engine.rss_kib()
            method = fuzz.rng.choice(methods)
            error, count = one_call(channel, fuzz, method)
            sent += count
            check(error, seen)
        for _ in range(3):  # oversized: refused by the size limit, nothing else happens
            huge = table_pb2.GetMatchRequest(match_id="x" * (2 * 1024 * 1024)).SerializeToString()
            check(one_call_raw(channel, "GetMatch", huge), seen)
        after = engine.rss_kib()
        elapsed = time.monotonic() - started
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        assert engine.process.poll() is None
        assert sent >= 3000, sent
        assert seen["INVALID_ARGUMENT"] > CALLS // 3, seen  # most of it was refused as bad
        assert after - before < RSS_GROWTH_KIB, (before, after, seen)
        print(f"fuzz: {sent} messages in {elapsed:.1f}s, RSS {before} -> {after} KiB, {seen}")
    finally:
        channel.close()
        engine.stop()
    assert "Traceback" not in engine.log()


def one_call_raw(channel: grpc.Channel, method: str, data: bytes) -> grpc.RpcError | None:
    try:
        channel.unary_unary(SERVICE + method)(data, timeout=10)
    except grpc.RpcError as exc:
        return exc
    return None
