"""The event store on PostgreSQL: batched writes, durability marks, atomic groups, the outbox."""

from __future__ import annotations

import threading
import time

import grpc
import psycopg
import pytest
from google.protobuf.message import DecodeError
from prometheus_client import REGISTRY
from psycopg import sql

from hebei.common.errors import AlreadyExists
from hebei.common.ownership import shard_of
from hebei.table.outbox import OutboxPoster, backoff
from hebei.table.store import EventRow, EventStore, Group, MatchUpdate, OutboxRow, StoredMatch
from tests.integration.table.helpers import wait_for


@pytest.fixture
def store(database_url: str, fresh_schema: str):
    events = EventStore.open(database_url, fresh_schema, flush_seconds=0.005)
    yield events
    events.close()


def new_match(match_id: str, fingerprint: str = "f1") -> StoredMatch:
    return StoredMatch(
        match_id=match_id, table_id="t", tournament_id="", round_no=0, fingerprint=fingerprint,
        spec={"seed": 1}, status="waiting", hands_played=0, scores=[0, 0, 0, 0], event_count=0,
        opened_at=time.time(), ended_at=None,
    )  # fmt: skip


def test_create_match_is_idempotent_by_fingerprint(store: EventStore) -> None:
    row = new_match("m1")
    assert store.create_match(row) is row
    again = store.create_match(new_match("m1"))
    assert again is not row and again.match_id == "m1" and again.fingerprint == "f1"
    with pytest.raises(AlreadyExists):
        store.create_match(new_match("m1", fingerprint="f2"))


def test_groups_of_many_matches_are_written_in_batches(store: EventStore) -> None:
    ids = [f"m{i}" for i in range(20)]
    for match_id in ids:
        store.create_match(new_match(match_id))
    for seq in range(1, 6):
        for match_id in ids:
            store.submit(
                Group(match_id, events=[EventRow(seq, 1, {"type": "x", "n": seq}, time.time())])
            )
    for match_id in ids:
        assert store.wait_durable(match_id, 5, timeout=10)
        events = store.load_match(match_id).events
        assert [(e.seq, e.event["n"]) for e in events] == [(n, n) for n in range(1, 6)]
    assert not store.wait_durable("m0", 6, timeout=0.05)  # never written


def test_a_group_commits_its_events_outbox_and_update_together(store: EventStore) -> None:
    store.create_match(new_match("m1"))
    store.submit(
        Group(
            "m1",
            events=[EventRow(1, 1, {"type": "hand_end"}, time.time())],
            outbox=[OutboxRow("settlement", "m1:1", b"payload")],
            update=MatchUpdate("finished", 1, (4, -4, 0, 0), 1, ended=True),
        )
    )
    assert store.wait_durable("m1", 1, timeout=10)
    stored = store.load_match("m1")
    assert stored.status == "finished" and stored.scores == [4, -4, 0, 0]
    assert stored.ended_at is not None
    assert store.outbox_rows("m1") == [
        {"kind": "settlement", "key": "m1:1", "attempts": 0, "delivered": False,
         "failed": False, "error": None, "shard": shard_of("m1", 64)},
    ]  # fmt: skip
    assert [m.key for m in store.due_messages()] == ["m1:1"]
    assert [m.match_id for m in store.load_unfinished()] == []


def test_what_is_written_reads_back_the_same(store: EventStore) -> None:
    """Events, times, hashes, outbox payloads and match state come back exactly as given
    (the batch travels as one JSON document): nested values, any text, floats to the
    microsecond, every byte value, absent hashes, two groups of one match (likely one batch)."""
    store.create_match(new_match("m1"))
    at = 1733100000.123456
    events = [
        EventRow(1, 0, {"type": "match_start", "seats": [{"name": "Zoë 东", "n": -3}]}, at),
        EventRow(2, 1, {"type": "discard", "tile": "5m", "why": 'a "quote" \\ \n'}, at + 1.5,
                 "ab" * 32, "cd" * 32),
        EventRow(3, 1, {"type": "x", "big": 2**40, "f": 0.1, "none": None, "t": True}, at + 2),
    ]  # fmt: skip
    payload = bytes(range(256))
    store.submit(Group("m1", events=events[:2], update=MatchUpdate("playing", 0, (1, 2, 3, 4), 2)))
    store.submit(
        Group(
            "m1",
            events=events[2:],
            outbox=[OutboxRow("settlement", "m1:1", payload)],
            update=MatchUpdate("playing", 1, (5, -5, 0, 0), 3),
        )
    )
    assert store.wait_durable("m1", 3, timeout=10)
    stored = store.load_match("m1")
    assert [(e.seq, e.hand_no, e.event, e.chain, e.mac) for e in stored.events] == [
        (e.seq, e.hand_no, e.event, e.chain, e.mac) for e in events
    ]
    assert [round(e.time, 6) for e in stored.events] == [round(e.time, 6) for e in events]
    assert stored.status == "playing" and stored.hands_played == 1
    assert stored.scores == [5, -5, 0, 0] and stored.event_count == 3
    assert [m.payload for m in store.due_messages()] == [payload]


class Refused(grpc.RpcError):
    """What a stub raises when the receiver answers with a status."""

    def __init__(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return f"refused with {self._code.name}"


def test_the_outbox_retries_until_acknowledged(store: EventStore) -> None:
    store.create_match(new_match("m1"))
    calls: list[bytes] = []
    lock = threading.Lock()

    def flaky(payload: bytes) -> None:
        with lock:
            calls.append(payload)
            if len(calls) <= 2:
                raise Refused(grpc.StatusCode.UNAVAILABLE)

    def wrong(payload: bytes) -> None:
        raise Refused(grpc.StatusCode.INVALID_ARGUMENT)

    poster = OutboxPoster(store, {"settlement": flaky, "match_result": wrong}, poll_seconds=0.05)
    store.on_outbox = poster.wake
    poster.start()
    try:
        store.submit(
            Group(
                "m1",
                events=[EventRow(1, 0, {"type": "x"}, time.time())],
                outbox=[
                    OutboxRow("settlement", "m1:1", b"s1"),
                    OutboxRow("match_result", "m1", b"r"),
                ],
            )
        )
        assert wait_for(lambda: any(r["delivered"] for r in store.outbox_rows("m1")), timeout=10)
    finally:
        poster.stop()
    settlement, result = store.outbox_rows("m1")
    assert calls == [b"s1", b"s1", b"s1"] and settlement["attempts"] == 3
    assert result["failed"] and "INVALID_ARGUMENT" in result["error"]
    assert store.due_messages() == []


def test_the_backlog_gauges_count_the_undelivered_rows_by_kind(store: EventStore) -> None:
    store.create_match(new_match("m1"))
    store.submit(
        Group(
            "m1",
            events=[EventRow(1, 1, {"type": "hand_end"}, time.time())],
            outbox=[OutboxRow("settlement", "m1:1", b"s1"), OutboxRow("settlement", "m1:2", b"s2")],
        )
    )
    assert store.wait_durable("m1", 1, timeout=10)
    delivered: list[bytes] = []
    poster = OutboxPoster(store, {"settlement": delivered.append})  # match results: none
    poster.measure_backlog()
    assert gauge("hebei_table_outbox_pending", "settlement") == 2
    assert gauge("hebei_table_outbox_pending", "match_result") == 0
    assert gauge("hebei_table_outbox_oldest_age_seconds", "settlement") >= 0
    assert gauge("hebei_table_outbox_oldest_age_seconds", "match_result") == 0
    assert not poster.deliver_due()  # nothing put off for a retry
    poster.measure_backlog()
    assert delivered == [b"s1", b"s2"]
    assert gauge("hebei_table_outbox_pending", "settlement") == 0
    assert gauge("hebei_table_outbox_oldest_age_seconds", "settlement") == 0


def test_the_outbox_reads_of_two_replicas_shards_split_every_row_once(
    store: EventStore, database_url: str, fresh_schema: str
) -> None:
    """Rows by shard: each replica reads (due rows, next due, backlog) those of its own shards;
    a row without a usable shard (NULL, or beyond today's count) is shard 0's. Together the
    replicas see every row exactly once, so their backlog gauges add up to the whole."""
    ids = [f"m{i}" for i in range(12)]
    for match_id in ids:
        store.create_match(new_match(match_id))
        store.submit(
            Group(
                match_id,
                events=[EventRow(1, 1, {"type": "hand_end"}, time.time())],
                outbox=[OutboxRow("settlement", f"{match_id}:1", b"s")],
            )
        )
    for match_id in ids:
        assert store.wait_durable(match_id, 1, timeout=10)
    with psycopg.connect(database_url, autocommit=True) as conn:  # older rows
        for key, shard in (("m0:2", None), ("m1:2", 99)):
            conn.execute(
                sql.SQL(
                    "INSERT INTO {}.outbox (match_id, kind, key, payload, shard)"
                    " VALUES (%s, 'match_result', %s, 'r', %s)"
                ).format(sql.Identifier(fresh_schema)),
                (key[:2], key, shard),
            )
    first, second = frozenset(range(0, 64, 2)), frozenset(range(1, 64, 2))  # shard 0 in first
    due = {scope: {m.key for m in store.due_messages(scope)} for scope in (first, second)}
    assert due[first] | due[second] == {m.key for m in store.due_messages()}
    assert not due[first] & due[second] and {"m0:2", "m1:2"} <= due[first]
    assert due[second] == {f"{m}:1" for m in ids if shard_of(m, 64) in second}
    assert store.next_due_in(second) == 0.0 and store.next_due_in(frozenset()) is None
    backlogs = [store.outbox_backlog(scope) for scope in (first, second)]
    for kind, (pending, _age) in store.outbox_backlog().items():
        assert sum(b.get(kind, (0, 0.0))[0] for b in backlogs) == pending
    poster = OutboxPoster(store, {}, shards=lambda: second)
    poster.measure_backlog()
    assert gauge("hebei_table_outbox_pending", "settlement") == len(due[second])
    assert gauge("hebei_table_outbox_pending", "match_result") == 0


def gauge(name: str, kind: str) -> float:
    value = REGISTRY.get_sample_value(name, {"kind": kind})
    assert value is not None, f"{name}{{kind={kind!r}}} is not exported"
    return value


def test_backoff_grows_and_is_capped() -> None:
    assert backoff(0) < backoff(1) < backoff(2)
    assert backoff(50) == 30.0


def test_a_poisoned_group_fails_its_match_and_the_others_carry_on(store: EventStore) -> None:
    """PostgreSQL refuses a row (a NUL in JSON): after a few attempts only that match is failed
    (reported once), its later groups are dropped until the table's reset group, and every
    other match's events keep being written."""
    failed: list[tuple[str, str]] = []
    store.on_failed = lambda match_id, reason: failed.append((match_id, reason))
    for match_id in ("good", "bad"):
        store.create_match(new_match(match_id))

    def row(seq: int, **event) -> list[EventRow]:
        return [EventRow(seq, 0, {"type": "x", **event}, time.time())]

    store.submit(Group("good", events=row(1)))
    store.submit(Group("bad", events=row(1, note="poison\x00")))
    store.submit(Group("good", events=row(2)))
    assert store.wait_durable("good", 2, timeout=20)
    assert wait_for(lambda: failed, timeout=20)
    assert failed == [("bad", "the event log refused event 1: UntranslatableCharacter")]
    store.submit(Group("bad", events=row(2)))  # the table did not know yet: dropped
    store.submit(Group("good", events=row(3)))
    assert store.wait_durable("good", 3, timeout=20)
    assert store.durable_seq("bad") == 0 and len(failed) == 1
    store.submit(Group("bad", events=row(1, type="match_dissolved"), reset=True))
    assert store.wait_durable("bad", 1, timeout=20)
    assert [e.event["type"] for e in store.load_match("bad").events] == ["match_dissolved"]
    assert [e.seq for e in store.load_match("good").events] == [1, 2, 3]


def test_durable_time_tells_when_an_event_was_written(store: EventStore) -> None:
    store.create_match(new_match("m1"))
    assert store.durable_time("m1", 1) is None
    before = time.monotonic()
    store.submit(Group("m1", events=[EventRow(1, 0, {"type": "x"}, time.time())]))
    assert store.wait_durable("m1", 1, timeout=10)
    assert before <= store.durable_time("m1", 1) <= time.monotonic()
    assert store.durable_time("m1", 2) is None


class RefusedWithNul(Refused):
    def details(self) -> str:
        return "the receiver said \x00 something odd"


def test_one_bad_outbox_row_never_holds_up_the_others(store: EventStore) -> None:
    store.create_match(new_match("m1"))
    delivered: list[bytes] = []

    def settle(payload: bytes) -> None:
        if payload == b"corrupt":
            raise DecodeError("Error parsing message")
        delivered.append(payload)

    def report(payload: bytes) -> None:
        raise RefusedWithNul(grpc.StatusCode.UNAVAILABLE)

    poster = OutboxPoster(store, {"settlement": settle, "match_result": report}, poll_seconds=0.05)
    store.on_outbox = poster.wake
    poster.start()
    try:
        store.submit(
            Group(
                "m1",
                events=[EventRow(1, 0, {"type": "x"}, time.time())],
                outbox=[
                    OutboxRow("settlement", "m1:1", b"corrupt"),
                    OutboxRow("match_result", "m1", b"r"),
                    OutboxRow("settlement", "m1:2", b"good"),
                ],
            )
        )
        assert wait_for(lambda: delivered == [b"good"], timeout=10)
        assert wait_for(lambda: store.outbox_rows("m1")[1]["attempts"] >= 1, timeout=10)
    finally:
        poster.stop()
    corrupt, result, good = store.outbox_rows("m1")
    assert corrupt["failed"] and "not sendable" in corrupt["error"]
    assert not result["failed"] and "\x00" not in result["error"]  # stored, to retry later
    assert good["delivered"]
