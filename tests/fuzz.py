"""Seeded fuzzing of one gRPC service, shared by the per-service fuzz tests (the table engine,
the ledger, matchmaking).

Every RPC of the service (read from its descriptor, streams included) gets a mix of: random
bytes; a valid request (made by the test, with ids that exist) truncated, with bytes appended,
or with a few fields, at any depth, set to boundary values (0, -1, the extremes of the field's
type, unknown enum numbers) and odd strings (empty, NUL, non-ASCII digits, right-to-left marks,
100,000 characters); and a few messages beyond the server's size limit. A client stream sends
its first message and the follow-ups the test gives, and is cancelled once the server answers;
a server stream is read for at most :data:`STREAM_SECONDS`.

What must hold (:func:`check`): never INTERNAL or UNKNOWN, never a stack trace nor more than
:data:`~hebei.common.errors.MAX_DETAILS` characters in the details; afterwards the health
service says SERVING (:func:`assert_serving`) and the resident memory after a warm-up grew by
less than the test's bound (:func:`rss_kib`).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.common.errors import MAX_DETAILS

FORBIDDEN = frozenset({grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN})
STREAM_SECONDS = 0.5  # a server stream that goes on (a live match, a running tournament)
CALL_SECONDS = 10.0
STRINGS = (
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
    "-1",
    "9" * 30,
)
INTS32 = (0, 1, -1, 3, 4, 64, 65, 500, 501, 2**31 - 1, -(2**31))
INTS64 = (0, 1, -1, 2**63 - 1, -(2**63), 315_576_000_000, 2_000_000_000)
UINTS64 = (0, 1, 2**63, 2**64 - 1)
UINTS32 = (0, 1, 2**32 - 1)
DOUBLES = (0.0, -0.0, 1e308, -1e308, float("inf"), float("-inf"), float("nan"), 5e-324)
ENUMS = (0, 1, 2, 3, 4, 7, 10, 99, -1)


@dataclass(frozen=True)
class Rpc:
    """One method of the service: its path, request class and streaming kinds."""

    name: str
    path: str
    request: type[Message]
    client_streaming: bool
    server_streaming: bool


def rpcs(service: ServiceDescriptor) -> dict[str, Rpc]:
    """Every method of ``service`` (e.g. ``ledger_pb2.DESCRIPTOR.services_by_name[...]``)."""
    return {
        method.name: Rpc(
            method.name,
            f"/{service.full_name}/{method.name}",
            message_factory.GetMessageClass(method.input_type),
            method.client_streaming,
            method.server_streaming,
        )
        for method in service.methods
    }


@dataclass
class Fuzzer:
    """Fuzzed messages: ``valid(rpc_name)`` makes a valid request of an RPC (the test knows
    which ids exist); ``strings`` are more strings worth trying (those ids, tokens);
    ``follow_ups(rpc_name)`` the further messages of a client stream."""

    rng: random.Random
    valid: Callable[[str], Message]
    strings: Sequence[str] = ()
    follow_ups: Callable[[str], list[bytes]] = lambda _name: []

    def scalar(self, field: FieldDescriptor):
        rng, kind = self.rng, field.type
        if kind == FieldDescriptor.TYPE_STRING:
            return rng.choice([*STRINGS, *self.strings])
        if kind == FieldDescriptor.TYPE_BYTES:
            return rng.randbytes(rng.randrange(0, 40))
        if kind == FieldDescriptor.TYPE_BOOL:
            return rng.random() < 0.5
        if kind == FieldDescriptor.TYPE_ENUM:
            return rng.choice(ENUMS)
        if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
            return rng.choice(DOUBLES)
        if kind in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
            return rng.choice(UINTS64)
        if kind in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32):
            return rng.choice(UINTS32)
        if kind in (
            FieldDescriptor.TYPE_INT64,
            FieldDescriptor.TYPE_SINT64,
            FieldDescriptor.TYPE_SFIXED64,
        ):
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
                if field.message_type.GetOptions().map_entry:
                    continue
                if repeated:
                    items = list(target) or [target.add()]
                    self.mutate(self.rng.choice(items), depth + 1)
                else:
                    self.mutate(target, depth + 1)
            elif repeated:
                with contextlib.suppress(ValueError, TypeError):
                    getattr(message, field.name).append(self.scalar(field))
            else:
                with contextlib.suppress(ValueError, TypeError):  # e.g. out of the field's range
                    setattr(message, field.name, self.scalar(field))

    def payload(self, name: str) -> bytes:
        """One fuzzed request of RPC ``name``, serialized (or not a message at all)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            return rng.randbytes(rng.randrange(0, 80))
        data = self.valid(name).SerializeToString()
        if roll < 0.45:
            return data[: rng.randrange(0, max(1, len(data)))]
        if roll < 0.5:
            return data + rng.randbytes(rng.randrange(1, 8))
        message = self.valid(name)
        self.mutate(message)
        return message.SerializeToString()


def check(error: grpc.RpcError | None, seen: Counter) -> None:
    """Count the outcome; fail on INTERNAL/UNKNOWN, a stack trace or overlong details."""
    if error is None:
        seen["OK"] += 1
        return
    code, details = error.code(), error.details() or ""
    seen[code.name] += 1
    assert code not in FORBIDDEN, (code, details[:500])
    assert "Traceback" not in details, details[:500]
    assert len(details) <= MAX_DETAILS + 100, details[:200]


def call(
    channel: grpc.Channel, fuzz: Fuzzer, rpc: Rpc, metadata: Sequence | None
) -> tuple[grpc.RpcError | None, int]:
    """One fuzzed call of ``rpc``; the error it ended with (None: OK) and how many messages
    it offered the server."""
    messages = [fuzz.payload(rpc.name)]
    if rpc.client_streaming:
        messages += fuzz.follow_ups(rpc.name)
    try:
        if rpc.client_streaming and rpc.server_streaming:
            stream = channel.stream_stream(rpc.path)(iter(messages), metadata=metadata, timeout=5)
            for _ in stream:  # the server answered: enough
                stream.cancel()
                break
        elif rpc.client_streaming:
            channel.stream_unary(rpc.path)(iter(messages), metadata=metadata, timeout=5)
        elif rpc.server_streaming:
            stream = channel.unary_stream(rpc.path)(
                messages[0], metadata=metadata, timeout=STREAM_SECONDS
            )
            for _ in stream:
                pass
        else:
            channel.unary_unary(rpc.path)(messages[0], metadata=metadata, timeout=CALL_SECONDS)
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.CANCELLED:  # our own cancel after an answer
            return None, len(messages)
        if exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED and rpc.server_streaming:
            return None, len(messages)  # a stream that goes on, read for STREAM_SECONDS
        return exc, len(messages)
    return None, len(messages)


def raw_call(
    channel: grpc.Channel, rpc: Rpc, data: bytes, metadata: Sequence | None = None
) -> grpc.RpcError | None:
    """One call of ``rpc`` with exactly ``data`` (e.g. beyond the size limit)."""
    try:
        if rpc.server_streaming:
            for _ in channel.unary_stream(rpc.path)(data, metadata=metadata, timeout=CALL_SECONDS):
                pass
        elif rpc.client_streaming:
            for _ in channel.stream_stream(rpc.path)(
                iter([data]), metadata=metadata, timeout=CALL_SECONDS
            ):
                break
        else:
            channel.unary_unary(rpc.path)(data, metadata=metadata, timeout=CALL_SECONDS)
    except grpc.RpcError as exc:
        return exc
    return None


def oversized(rpc: Rpc, limit: int) -> bytes:
    """A request of ``rpc`` over ``limit`` bytes: its first string field, very long (or, with
    none, unknown-field bytes)."""
    message = rpc.request()
    text = next(
        (f for f in rpc.request.DESCRIPTOR.fields if f.type == FieldDescriptor.TYPE_STRING), None
    )
    if text is not None and not text.is_repeated:
        setattr(message, text.name, "x" * (2 * limit))
        return message.SerializeToString()
    # field 1000, length-delimited: an unknown field the size of the limit twice over
    return b"\xc2\x3e" + _varint(2 * limit) + b"\x00" * (2 * limit)


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


OVERSIZED_KEPT = 8  # oversized requests' worth of memory the server may keep after refusing


@dataclass
class Report:
    """What a fuzzing run sent and got back."""

    sent: int = 0
    calls: int = 0
    seen: Counter = dataclasses.field(default_factory=Counter)
    by_rpc: Counter = dataclasses.field(default_factory=Counter)
    rss_before: int = 0
    rss_fuzzed: int = 0  # after the fuzzed calls, before the oversized ones
    rss_after: int = 0
    seconds: float = 0.0

    def check_memory(self, service: str, growth_kib: int, size_limit: int) -> None:
        """The fuzzed calls grew the server's resident size by less than ``growth_kib`` (a
        leak per request shows here), and the oversized requests that followed by less than
        :data:`OVERSIZED_KEPT` of them: each is read up to twice ``size_limit`` before it is
        refused, and the allocator may keep some of that (measured on the ledger: 3, 12 and
        30 calls per RPC grew it by 3.0, 0.5 and 7.1 MiB, not in proportion to their number;
        once, in CI, the whole run grew by 11 MiB against the fuzzed calls' 10)."""
        fuzzed, oversized = self.rss_fuzzed - self.rss_before, self.rss_after - self.rss_fuzzed
        assert fuzzed < growth_kib, self.line(service)
        assert oversized < OVERSIZED_KEPT * 2 * size_limit // 1024, self.line(service)

    def line(self, service: str) -> str:
        return (
            f"{service} fuzz: {self.sent} messages in {self.calls} calls over "
            f"{len(self.by_rpc)} RPCs in {self.seconds:.1f} s, RSS {self.rss_before} -> "
            f"{self.rss_fuzzed} (fuzzed) -> {self.rss_after} KiB (oversized; "
            f"+{self.rss_after - self.rss_before}), {dict(self.seen)}"
        )


def fuzz_service(
    channel: grpc.Channel,
    fuzz: Fuzzer,
    methods: Iterable[Rpc],
    *,
    warm_up: int,
    calls: int,
    rss: Callable[[], int],
    metadata: Callable[[random.Random], Sequence | None],
    size_limit: int,
) -> Report:
    """``warm_up`` then ``calls`` fuzzed calls, each RPC drawn at random, then three calls
    beyond ``size_limit`` bytes to each RPC; ``rss()`` read after the warm-up and at the end.
    Every outcome is :func:`check`-ed."""
    methods = list(methods)
    report = Report()
    started = time.monotonic()
    for n in range(warm_up + calls):
        if n == warm_up:
            report.rss_before = rss()
        rpc = fuzz.rng.choice(methods)
        error, count = call(channel, fuzz, rpc, metadata(fuzz.rng))
        try:
            check(error, report.seen)
        except AssertionError as failed:
            raise AssertionError(f"{rpc.name} (call {n}): {failed}") from None
        report.sent += count
        report.calls += 1
        report.by_rpc[rpc.name] += 1
    report.rss_fuzzed = rss()
    for rpc in methods:
        data = oversized(rpc, size_limit)
        for _ in range(3):
            error = raw_call(channel, rpc, data, metadata(fuzz.rng))
            check(error, report.seen)
            assert error is not None, f"{rpc.name}: a request over the size limit was taken"
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, (rpc.name, error)
            report.sent += 1
    report.rss_after = rss()
    report.seconds = time.monotonic() - started
    return report


def assert_serving(channel: grpc.Channel) -> None:
    """The server's overall health is SERVING."""
    reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING, reply


def rss_kib(pid: int) -> int:
    """Resident memory of process ``pid``, KiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def big_channel(address: str) -> grpc.Channel:
    """A plain channel that may send messages beyond the servers' limits."""
    return grpc.insecure_channel(
        address,
        options=[
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ("grpc.max_receive_message_length", 64 * 1024 * 1024),
        ],
    )


# Values a JSON field may be given instead of the right one.
ODD_JSON = (None, -1, 0, 3, 4, 34, 99, 2**40, "x", "", [], {}, 1.5, True, [1, 2])


def edit_log(rng: random.Random, log: list) -> None:
    """One edit of an event log (a list of JSON objects), in place: an event removed, swapped
    with the next, duplicated or replaced by a non-event, or one of its fields retyped,
    removed or nudged (shared by the bot service's fuzz test and the replay's)."""
    if not log:
        return
    i = rng.randrange(len(log))
    event = log[i]
    choice = rng.randrange(7)
    if choice == 0:
        del log[i]
    elif choice == 1 and i + 1 < len(log):
        log[i], log[i + 1] = log[i + 1], log[i]
    elif choice == 2:
        log.insert(rng.randrange(len(log)), copy.deepcopy(event))
    elif choice == 3:
        log[i] = rng.choice(ODD_JSON)  # not an event at all
    elif isinstance(event, dict) and event:
        key = rng.choice(list(event))
        if choice == 4:
            event[key] = rng.choice(ODD_JSON)
        elif choice == 5:
            del event[key]
        elif isinstance(event[key], list) and event[key]:
            event[key][rng.randrange(len(event[key]))] = rng.choice(ODD_JSON)
        elif isinstance(event[key], int) and not isinstance(event[key], bool):
            event[key] += rng.choice([-1, 1, 5])
