"""Bot workers failing under a tournament played through the whole stack (processes).

- A worker is killed (SIGKILL to its process group) while another worker runs: its seats are
  queued again by the round director (after 3 s unconnected) and taken over by the other
  worker once the dead holder's seat leases expire. The machine must not play them
  meanwhile: a table whose every seat dropped pauses, and a seat beside live ones must not
  be auto-played either (a worker's death is the machine's failure, not the player's).
  Measured: how long a seat stays auto-played (paused) after its worker died.
- A worker is frozen (SIGSTOP) past its seats' decision deadline, then thawed (SIGCONT): its
  seats time out and are auto-played meanwhile, as a slow player's are (RULES.md §3), and
  take their seats back when it thaws. Nothing else is auto-played.
"""

from __future__ import annotations

import time

import pytest

from hebei.v1 import types_pb2 as pb
from tests.integration.faults.harness import (
    ET,
    PER_DECISION,
    Excuse,
    FaultStack,
    check_tournament,
    matches_played,
    resumed_after,
    seconds,
    wait_for,
)

TAKEOVER_BOUND = 30.0  # seconds; the target is 5 (re-queued after 3 s), the bound generous
THAW_BOUND = 10.0  # seconds after SIGCONT by which a frozen worker's seats are its own again


def _kill(stack: FaultStack, tid: str, victim, seats: set[tuple[str, int]]):
    """SIGKILL ``victim``; once the tournament finished: when, the matches, and the seconds
    each of ``seats`` stayed auto-played."""
    killed_at = time.time()
    victim.kill()
    stack.wait_finished(tid)
    played = matches_played(stack, tid)
    back = resumed_after(played, seats, killed_at)
    shown = ", ".join(f"{m[-5:]}/{s}: {t:.1f} s" for (m, s), t in sorted(back.items()))
    print(f"\nseats of the killed worker back after: {shown or 'none'}")
    return killed_at, played, back


def _check_takeover(stack, tid, seats, killed_at, back) -> None:
    """Nothing played for the dead seats (seat_auto "disconnect" only), every one of them
    taken over within the bound."""
    excuses = [
        Excuse(m, s, frozenset({"disconnect"}), killed_at, killed_at + TAKEOVER_BOUND)
        for m, s in seats
    ]
    check_tournament(stack, tid, excuses, rounds=1)
    assert set(back) == set(seats), f"seats never taken over: {set(seats) - set(back)}"
    assert max(back.values()) <= TAKEOVER_BOUND, back


@pytest.mark.slow
def test_a_killed_worker_s_tables_pause_until_another_worker_takes_them_over(fault_stack):
    """Every seat of the round on the worker that dies: its tables wait (nothing is played
    for anybody: a dropped bot seat is waited for), paused at most once, and go on when the
    other worker has joined every seat again."""
    stack = fault_stack
    doomed = stack.add_worker(sessions=16)
    # The most hands a match may have: the first worker plays every seat alone while the
    # second one starts (seconds on a loaded machine), and the round must still be on then.
    tid = stack.run_tournament(rounds=1, hands=64)
    wait_for(lambda: len(stack.held_seats(doomed)) == 8, 60, "the first worker on every seat")
    stack.add_worker(sessions=48)  # started only now: it holds none of the round's seats
    infos = stack.round_matches(tid, 1)
    assert all(i.status == pb.MATCH_STATUS_PLAYING and i.hands_played < 56 for i in infos), (
        "the round ran out before the second worker was up: more hands needed"
    )
    print(f"\nhands played when the second worker was up: {[i.hands_played for i in infos]}")
    seats = stack.held_seats(doomed)
    killed_at, played, back = _kill(stack, tid, doomed, seats)
    for match_id, match in played.items():
        paused = [seconds(e.time) for e in match.events if e.type == ET.EVENT_TYPE_MATCH_PAUSED]
        resumed = [seconds(e.time) for e in match.events if e.type == ET.EVENT_TYPE_MATCH_RESUMED]
        assert len(paused) == len(resumed) <= 1, (match_id, paused, resumed)
        if paused:
            print(f"{match_id}: paused {paused[0] - killed_at:.1f} s after the kill, "
                  f"for {resumed[0] - paused[0]:.1f} s")  # fmt: skip
    _check_takeover(stack, tid, seats, killed_at, back)


@pytest.mark.slow
def test_a_killed_worker_s_seats_beside_live_ones_are_not_played_by_the_machine(fault_stack):
    """Two seats on the worker that dies, the others on a live worker: the dead seats are
    taken over by the live worker, and the machine plays nothing for them meanwhile."""
    stack = fault_stack
    doomed = stack.add_worker(sessions=2)  # it can take two seats only: the tables are mixed
    tid = stack.run_tournament(rounds=1, hands=24)
    wait_for(lambda: len(stack.held_seats(doomed)) == 2, 60, "two seats on the first worker")
    stack.add_worker(sessions=48)  # the other seats wait for it (the ready check is 15 s)
    stack.wait_mid_round(tid)
    seats = stack.held_seats(doomed)
    killed_at, _played, back = _kill(stack, tid, doomed, seats)
    _check_takeover(stack, tid, seats, killed_at, back)


@pytest.mark.slow
def test_a_frozen_worker_s_seats_time_out_and_come_back_when_it_thaws(fault_stack):
    """Two seats on the worker frozen for 5 s (decisions: 3 s; its seat leases: 10 s, longer
    than the freeze — with the default 4 s a frozen worker's seats are handed to another):
    only they time out and are auto-played, only while frozen (and a moment after), and the
    worker takes both back when it thaws."""
    stack = fault_stack
    frozen = stack.add_worker(sessions=2, HEBEI_BOTS_LEASE_SECONDS="10")  # beside live seats
    tid = stack.run_tournament(rounds=1, hands=24)
    wait_for(lambda: len(stack.held_seats(frozen)) == 2, 60, "two seats on the first worker")
    stack.add_worker(sessions=48)  # the other seats wait for it (the ready check is 15 s)
    stack.wait_mid_round(tid)
    seats = stack.held_seats(frozen)
    frozen_at = time.time()
    frozen.freeze()
    time.sleep(PER_DECISION + 2.0)  # past the decision deadline, within the seat lease
    thawed_at = time.time()
    frozen.thaw()
    stack.wait_finished(tid)
    played = matches_played(stack, tid)
    timeouts = {
        (m, e.seat)
        for m, match in played.items()
        for e in match.events
        if e.type == ET.EVENT_TYPE_SEAT_AUTO and e.reason == "timeout"
    }
    assert timeouts and timeouts <= seats, (timeouts, seats)  # only the frozen seats
    back = resumed_after(played, seats, frozen_at)
    assert set(back) == seats, f"seats not taken back after the thaw: {back}"
    print(f"\nfrozen for {thawed_at - frozen_at:.1f} s: seats back after {sorted(back.values())} s")
    assert max(back.values()) <= thawed_at - frozen_at + THAW_BOUND, back
    excuses = [
        Excuse(m, s, frozenset({"timeout"}), frozen_at, thawed_at + THAW_BOUND, played=True)
        for m, s in seats
    ]
    check_tournament(stack, tid, excuses, rounds=1)
