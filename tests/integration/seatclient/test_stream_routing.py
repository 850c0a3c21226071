"""The seat client's Play stream over several table replicas (issue 46): it finds the match's
owner through the entries, and when the match moves to another replica mid-match it rejoins
there by itself, says so in one calm inbox item (no error, no reconnecting line), and goes on
from the decision where it stood."""

from __future__ import annotations

import queue
from collections.abc import Iterator

import pytest

from hebei.common.routing import MatchRouter
from hebei.seatclient.stream import (
    CLOSED,
    MESSAGE,
    MOVED,
    MOVED_TEXT,
    RECONNECTING,
    PlayStream,
)
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.common.routed_replicas import Directory, Replica, start_replica
from tests.integration.seatclient.moving_play import MatchCourse, move, moving_servicer

MATCH = "m-moving"


@pytest.fixture
def replicas() -> Iterator[tuple[Replica, Replica, Directory]]:
    """Replicas a (owning the match) and b, sharing the match's course."""
    directory, course = Directory(), MatchCourse()
    a, b = (
        start_replica(name, directory.get, asyncio=True, servicer=moving_servicer(course))
        for name in ("a", "b")
    )
    a.owned.add(MATCH)
    directory.set(MATCH, a.owner())
    yield a, b, directory
    a.stop()
    b.stop()


def next_item(inbox: queue.Queue) -> tuple[str, object]:
    return inbox.get(timeout=10)


def decision_of(item: tuple[str, object]) -> int:
    kind, message = item
    assert kind == MESSAGE, item
    assert isinstance(message, table_pb2.PlayResponse)
    return message.observation.decision_id


def rest_after_close(stream: PlayStream, inbox: queue.Queue) -> list[tuple[str, object]]:
    """What the inbox still holds once the closed stream's reader ended."""
    stream.wait(5)
    rest = []
    while not inbox.empty():
        rest.append(inbox.get_nowait())
    return rest


def answer(stream: PlayStream, decision_id: int) -> None:
    stream.send(pb.Action(kind=pb.ACTION_KIND_PASS, decision_id=decision_id))


def test_a_play_stream_follows_its_match_to_another_replica(
    replicas: tuple[Replica, Replica, Directory],
) -> None:
    a, b, directory = replicas
    inbox: queue.Queue = queue.Queue()
    join = table_pb2.Join(match_id=MATCH, seat=1, seat_token="t", client_name="test")
    with MatchRouter(f"{b.address},{a.address}") as router:
        stream = PlayStream(router, join, inbox).start()
        try:
            # b, the first entry, refuses naming a: the first join lands there, silently.
            assert decision_of(next_item(inbox)) == 1
            answer(stream, 1)
            assert decision_of(next_item(inbox)) == 2
            move(MATCH, a, b, directory)
            assert next_item(inbox) == (MOVED, MOVED_TEXT)
            # Rejoined at b: the decision where it stood, then on.
            assert decision_of(next_item(inbox)) == 2
            assert router.owner(MATCH) == b.address
            answer(stream, 2)
            assert decision_of(next_item(inbox)) == 3
            move(MATCH, b, a, directory)  # and back: one calm line again
            assert next_item(inbox) == (MOVED, MOVED_TEXT)
            assert decision_of(next_item(inbox)) == 3
            answer(stream, 3)
            assert decision_of(next_item(inbox)) == 4
        finally:
            stream.close()
        rest = rest_after_close(stream, inbox)
    assert rest == [(CLOSED, None)]
    assert a.calls == 2 and b.calls == 2  # each: one refusal (or none) and one stream served


def test_a_single_engine_away_is_still_a_reconnecting_line(
    replicas: tuple[Replica, Replica, Directory],
) -> None:
    """One entry, as today's single address: a stream that drops says RECONNECTING (the
    engine is away), and MOVED never appears."""
    a, _, _ = replicas
    inbox: queue.Queue = queue.Queue()
    join = table_pb2.Join(match_id=MATCH, seat=0, seat_token="t", client_name="test")
    with MatchRouter(a.address) as router:
        stream = PlayStream(router, join, inbox, give_up=0.5).start()
        try:
            assert decision_of(next_item(inbox)) == 1
            a.stop()
            kinds = []
            while (item := next_item(inbox))[0] != CLOSED:
                kinds.append(item[0])
        finally:
            stream.close()
    assert kinds and set(kinds) == {RECONNECTING}


def test_a_dead_first_entry_is_passed_over_without_a_reconnecting_line(
    replicas: tuple[Replica, Replica, Directory],
) -> None:
    """One replica of several down (killed, not yet back): a seat whose first join lands on
    it goes on to the next entry silently and plays; no RECONNECTING, no MOVED."""
    a, _, directory = replicas
    dead = start_replica("dead", directory.get, asyncio=True)
    dead.stop()
    inbox: queue.Queue = queue.Queue()
    join = table_pb2.Join(match_id=MATCH, seat=2, seat_token="t", client_name="test")
    with MatchRouter(f"{dead.address},{a.address}") as router:
        stream = PlayStream(router, join, inbox).start()
        try:
            first = next_item(inbox)
            assert decision_of(first) == 1, first
            answer(stream, 1)
            assert decision_of(next_item(inbox)) == 2
        finally:
            stream.close()
        rest = rest_after_close(stream, inbox)
    assert rest == [(CLOSED, None)]
