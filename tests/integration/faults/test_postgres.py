"""PostgreSQL stopped for 10 s under a tournament played through the whole stack
(processes). The stack runs on a PostgreSQL of this test's own (embedded, even when
``HEBEI_DATABASE_URL`` names a server: stopping a shared server would break whatever else
uses it); Redis is the session's.

Meanwhile nothing can be written: the engine holds its tables' clocks (no seat is told of a
decision that is not durable, so nobody times out), the ledger and matchmaking answer
UNAVAILABLE and the round director waits. When PostgreSQL is back everything goes on by
itself, no process restarted: the tournament finishes with nothing played by the machine,
every hand booked once, the scores those of the replayed logs and the ledger."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hebei.common import embedded
from tests.integration.faults.harness import FaultStack, check_tournament

OUTAGE = 10.0  # seconds


@pytest.fixture
def private_stack(
    broker_url: str, lease_url: str, request: pytest.FixtureRequest
) -> Iterator[tuple[FaultStack, embedded.EmbeddedPostgres]]:
    folder = Path(tempfile.mkdtemp(prefix="hebei-faults-pg-"))
    logs = Path(tempfile.mkdtemp(prefix="hebei-faults-"))
    postgres = embedded.start_postgres(folder)
    stack = FaultStack(postgres.url, broker_url, lease_url, logs)
    try:
        stack.start()
        yield stack, postgres
    finally:
        stack.close()
        postgres.start()  # the test may leave it stopped; close() wants it running
        postgres.close()
        shutil.rmtree(folder, ignore_errors=True)
        if request.session.testsfailed:
            print(f"fault suite logs kept in {logs}")
        else:
            shutil.rmtree(logs, ignore_errors=True)


@pytest.mark.slow
def test_postgres_down_for_ten_seconds_mid_round(private_stack) -> None:
    stack, postgres = private_stack
    stack.add_worker(sessions=48)
    tid = stack.run_tournament(rounds=2, hands=8)
    stack.wait_mid_round(tid, 1)
    postgres.stop("fast")
    down_at = time.monotonic()
    time.sleep(OUTAGE)
    assert all(s.running() for s in stack.services.values()), stack.logs()
    postgres.start()
    assert time.monotonic() - down_at >= OUTAGE
    check_tournament(stack, tid)
    assert all(s.running() for s in stack.services.values()), stack.logs()
