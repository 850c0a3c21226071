"""Bot seat sessions over several table replicas (issue 46), against real table engines: a
ticket whose first replica does not own the match joins the owner it names, and a match taken
over mid-match by another engine (the first one stopped, its successor resuming the match from
the log on another address) is rejoined there by every seat, with the same token and seat as
after an engine restart, and finishes with no seat auto-played for it.

A small routed replica (:mod:`tests.integration.common.routed_replicas`) stands in front as the
first entry: it owns nothing and names each match's owner from the test's directory (None
while the match is being taken over)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from hebei.bots.policies import make_policy
from hebei.bots.session import Backoff, Outcome, SeatSession, SessionResult
from hebei.common.routing import Owner
from hebei.fleet.ticket import SeatTicket
from hebei.v1 import types_pb2 as pb
from tests.integration.bots.conftest import (
    Engine,
    open_bot_match,
    start_engine,
    stop_engine,
    token_of,
)
from tests.integration.common.routed_replicas import Directory, Replica, start_replica


@pytest.fixture
def front() -> Iterator[tuple[Replica, Directory]]:
    directory = Directory()
    replica = start_replica("front", directory.get, asyncio=True)
    yield replica, directory
    replica.stop()


def play_seats(target: str, match_id: str) -> tuple[list[SeatSession], list[threading.Thread]]:
    """The match's four seats, each played by a session in a thread of its own."""
    sessions = [
        SeatSession(
            SeatTicket(target, match_id, seat, token_of(match_id, seat), "efficiency", pace=0.02),
            make_policy("efficiency", seed=seat),
            backoff=Backoff(give_up=60),
        )
        for seat in range(4)
    ]
    threads = [threading.Thread(target=s.run, daemon=True) for s in sessions]
    for thread in threads:
        thread.start()
    return sessions, threads


def finish(sessions: list[SeatSession], threads: list[threading.Thread]) -> list[SessionResult]:
    for thread in threads:
        thread.join(120)
    for session in sessions:
        session.stop.set()
    return [session.result for session in sessions]


def test_seats_follow_their_match_to_the_engine_that_took_it_over(
    database_url: str, fresh_schema: str, front: tuple[Replica, Directory]
) -> None:
    replica, directory = front
    first = start_engine(database_url, fresh_schema)
    running: list[Engine] = [first]
    try:
        match_id = open_bot_match(first, hands=2, seed=21, per_decision=3.0)
        directory.set(match_id, Owner("engine-1", first.address))
        sessions, threads = play_seats(f"{replica.address},{first.address}", match_id)
        first.wait_for(match_id, lambda info: info.hands_played >= 1, timeout=90)
        refused_before = replica.calls
        directory.set(match_id, None)  # being taken over
        stop_engine(running.pop(), grace=1.0)
        successor = start_engine(database_url, fresh_schema)
        running.append(successor)
        directory.set(match_id, Owner("engine-2", successor.address))
        results = finish(sessions, threads)
        assert [r.outcome for r in results] == [Outcome.FINISHED] * 4, [
            r.to_json() for r in results
        ]
        assert refused_before >= 1  # the first joins were sent on to the owner
        assert replica.calls > refused_before  # the rejoins asked the front again
        assert all(r.reconnects >= 1 for r in results)  # the takeover
        info = successor.match(match_id)
        assert info.status == pb.MATCH_STATUS_FINISHED and info.hands_played == 2
        auto = [e for e in successor.events(match_id) if e.type == pb.EVENT_TYPE_SEAT_AUTO]
        assert not auto, auto
    finally:
        for engine in running:
            stop_engine(engine)
