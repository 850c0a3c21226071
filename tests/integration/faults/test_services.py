"""Each service killed and stopped under a tournament played through the whole stack
(processes): ``kill -9`` mid-round 1, then SIGTERM mid-round 2, each time started again on
the same port, schema and environment.

- the table engine: killed, its tables resume from their logs; stopped, it drains (the seats'
  streams end with UNAVAILABLE "reconnect", the calls finish, exit status 0); either way the
  bot sessions join again and the restarted engine gives them their rejoin window;
- the ledger (down 3 s each time): the engine's outbox keeps the settlements until they are
  booked, and the round director retries its adjustments and the standings check;
- matchmaking (down 3 s each time): the engine's outbox keeps the match results, and the new
  process carries the tournament on from PostgreSQL.

Nothing is played by the machine at all: no seat is auto-played, no action auto-played, no
match paused or dissolved; every hand is booked once and every score agrees with the
replayed log and the ledger (:func:`~tests.integration.faults.harness.check_tournament`).
"""

from __future__ import annotations

import time

import pytest

from tests.integration.faults.harness import SERVICES, check_tournament

DOWN = {"table": 0.0, "ledger": 3.0, "matchmaking": 3.0}  # seconds, before the restart
STOP_BOUND = 30.0  # seconds a SIGTERM may take: the grace is 5 s


@pytest.mark.slow
@pytest.mark.parametrize("service", SERVICES)
def test_kill_9_then_sigterm_mid_round(fault_stack, service) -> None:
    stack = fault_stack
    worker = stack.add_worker(sessions=48)
    tid = stack.run_tournament(rounds=2, hands=8)
    process = stack.services[service]

    stack.wait_mid_round(tid, 1)
    process.kill()
    time.sleep(DOWN[service])
    stack.restart(service)

    stack.wait_mid_round(tid, 2)
    stopping = time.monotonic()
    code = process.terminate(timeout=60)
    took = time.monotonic() - stopping
    assert code == 0, f"{service} exited with {code} after SIGTERM\n{process.tail()}"
    assert took < STOP_BOUND, took
    time.sleep(DOWN[service])
    stack.restart(service)

    check_tournament(stack, tid)  # nothing excused: the machine played nothing
    if service == "table":  # the drain told the seats to come back, and they did
        assert "the table engine is stopping: reconnect" in worker.log(), worker.tail()
    print(f"\n{service}: SIGTERM took {took:.1f} s")
