"""A real ``hebei bots worker`` (Celery on Redis) plays whole matches against a real table
engine; a worker SIGKILLed mid-match has its seats taken over, and no seat is played twice."""

from __future__ import annotations

import time

import redis

from hebei.bots.lease import answered_decisions, lease_history
from hebei.fleet.client import send_seat
from hebei.fleet.ticket import SeatTicket
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb
from tests.integration.bots.conftest import Engine, free_port, open_bot_match, scrape, token_of

LINEUP = ("expert", "efficiency", "random", "expert:1")


def send_lineup(engine: Engine, match_id: str, pace: float = 0.0) -> None:
    for seat, spec in enumerate(LINEUP):
        name, _, level = spec.partition(":")
        ticket = SeatTicket(
            engine.address,
            match_id,
            seat,
            token_of(match_id, seat),
            policy=name,
            level=int(level) if level else None,
            seed=seat,
            pace=pace,
        )
        send_seat(ticket)


def finished(info: table_pb2.MatchInfo) -> bool:
    return info.status == pb.MATCH_STATUS_FINISHED


def check_seats_played_once(client: redis.Redis, match_id: str) -> dict[int, list[int]]:
    """Per seat: the fencing tokens in the order their leases were taken. Asserts that the
    decisions' answers never go back to an older session (no interleaving of two)."""
    fences = {}
    for seat in range(4):
        history = lease_history(client, match_id, seat)
        acquired = [r.fence for r in history if r.event == "acquire"]
        assert acquired == sorted(acquired) and len(set(acquired)) == len(acquired)
        answers = answered_decisions(client, match_id, seat)
        assert answers, f"seat {seat} answered nothing"
        by_decision = [answers[d] for d in sorted(answers)]
        assert by_decision == sorted(by_decision), f"seat {seat}: sessions interleaved"
        assert set(by_decision) <= set(acquired)
        fences[seat] = acquired
    return fences


def test_worker_plays_a_whole_match(engine: Engine, start_worker, lease_redis) -> None:
    port = free_port()
    start_worker(sessions=4, metrics_port=port)
    match_id = open_bot_match(engine, hands=3, seed=11, per_decision=2.0)
    send_lineup(engine, match_id)

    info = engine.wait_for(match_id, finished, timeout=90)

    assert info.hands_played == 3
    assert sum(s.score for s in info.seats) == 0
    events = engine.events(match_id)
    assert not [e for e in events if e.auto_played], "a bot missed a decision"
    assert not [e for e in events if e.type == pb.EVENT_TYPE_SEAT_AUTO]
    fences = check_seats_played_once(lease_redis, match_id)
    assert fences == {seat: [1] for seat in range(4)}  # one session per seat, no redelivery
    for seat in range(4):
        history = lease_history(lease_redis, match_id, seat)
        assert [r.event for r in history] == ["acquire", "release"]
    metrics = scrape(port)
    for policy in ("expert", "efficiency", "random"):
        assert metrics[f'hebei_bot_decision_seconds_count{{policy="{policy}"}}'] > 10
        assert metrics[f'hebei_bot_seat_sessions_active{{policy="{policy}"}}'] == 0
        assert metrics[f'hebei_bot_task_queue_wait_seconds_count{{policy="{policy}"}}'] >= 1
    # Exported at 0 from the start (every known reason), and still 0: no failure.
    failures = {k: v for k, v in metrics.items() if k.startswith("hebei_bot_failures_total{")}
    assert failures and not any(failures.values()), failures


def test_sigkill_a_worker_mid_match(engine: Engine, start_worker, lease_redis) -> None:
    first = start_worker(sessions=2)  # reserves two seat tasks and starts them
    # Long enough that the redelivery (visibility timeout 8 s) comes well before the end.
    match_id = open_bot_match(engine, hands=12, seed=5, per_decision=1.0)
    send_lineup(engine, match_id, pace=0.03)
    deadline = time.monotonic() + 30
    held = {}
    while len(held) < 2 and time.monotonic() < deadline:
        held = {
            seat: lease_history(lease_redis, match_id, seat)
            for seat in range(4)
            if lease_history(lease_redis, match_id, seat)
        }
        time.sleep(0.1)
    first_seats = sorted(held)
    assert len(first_seats) == 2, held
    start_worker(sessions=4)  # takes the two queued seats, has room for two more
    engine.wait_for(match_id, lambda info: info.status == pb.MATCH_STATUS_PLAYING, timeout=30)
    engine.wait_for(match_id, lambda info: info.hands_played >= 1, timeout=60)

    first.kill()
    killed_at = time.time()

    info = engine.wait_for(match_id, finished, timeout=120)
    assert info.hands_played == 12
    fences = check_seats_played_once(lease_redis, match_id)
    for seat in first_seats:
        # The killed session's lease, then the new worker's, after the old one expired.
        assert fences[seat][:2] == [1, 2], (seat, fences)
        history = lease_history(lease_redis, match_id, seat)
        takeover = next(r for r in history if r.fence == 2 and r.event == "acquire")
        assert takeover.at > killed_at
        answers = answered_decisions(lease_redis, match_id, seat)
        assert 2 in answers.values(), f"seat {seat} was never played again"
    for seat in set(range(4)) - set(first_seats):
        # Only the first session answered (a copy redelivered after the visibility timeout
        # may take the free lease once the match is over, and then finds nothing to play).
        assert set(answered_decisions(lease_redis, match_id, seat).values()) == {1}
    events = engine.events(match_id)
    reasons = {(e.seat, e.reason) for e in events if e.type == pb.EVENT_TYPE_SEAT_AUTO}
    assert {seat for seat, _ in reasons} == set(first_seats)  # only the killed seats
    resumed = {e.seat for e in events if e.type == pb.EVENT_TYPE_SEAT_RESUMED}
    assert resumed >= set(first_seats)


def test_a_second_task_for_a_live_seat_leaves_it_to_its_holder(
    engine: Engine, start_worker, lease_redis
) -> None:
    port = free_port()
    # Room beyond the four seats: seat tasks that earlier tests handed back to the shared
    # queue may still be retrying their (stopped) engines in some of the sessions.
    start_worker(sessions=12, metrics_port=port)
    match_id = open_bot_match(engine, hands=3, seed=5, per_decision=2.0)
    send_lineup(engine, match_id, pace=0.05)  # about 3 s a hand: the holder outlives the wait
    engine.wait_for(match_id, lambda info: info.hands_played >= 1 or finished(info), timeout=60)
    send_seat(SeatTicket(engine.address, match_id, 0, token_of(match_id, 0), LINEUP[0], seed=9))

    engine.wait_for(match_id, finished, timeout=120)

    check_seats_played_once(lease_redis, match_id)
    # The holder lets go once it has read the match's end, a moment after the engine ended it.
    deadline = time.monotonic() + 10
    while True:
        history = lease_history(lease_redis, match_id, 0)
        released = [r.at for r in history if r.event == "release" and r.fence == 1]
        if released:
            break
        assert time.monotonic() < deadline, [(r.event, r.fence, r.at) for r in history]
        time.sleep(0.1)
    first_release = released[0]
    later = [r for r in history if r.event == "acquire" and r.fence > 1]
    # A later acquisition (this suite's short visibility timeout redelivers long tasks) may
    # only come once the first holder let go at the match end.
    assert all(r.at >= first_release for r in later), [(r.event, r.fence, r.at) for r in history]
    deadline = time.monotonic() + 20
    while scrape(port).get('hebei_bot_redeliveries_total{outcome="seat_held"}', 0) < 1:
        assert time.monotonic() < deadline, "the duplicate seat task did not report seat_held"
        time.sleep(0.3)
