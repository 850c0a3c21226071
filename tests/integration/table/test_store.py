"""The event store on PostgreSQL: batched writes, durability marks, atomic groups, the outbox."""

from __future__ import annotations

import threading
import time

import grpc
import pytest

from hebei.common.errors import AlreadyExists
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
         "failed": False, "error": None},
    ]  # fmt: skip
    assert [m.key for m in store.due_messages()] == ["m1:1"]
    assert [m.match_id for m in store.load_unfinished()] == []


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


def test_backoff_grows_and_is_capped() -> None:
    assert backoff(0) < backoff(1) < backoff(2)
    assert backoff(50) == 30.0
