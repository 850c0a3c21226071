"""Fixtures of the fault suite: the whole stack as processes (:mod:`.harness`) on the
session's PostgreSQL and Redis (embedded, or ``HEBEI_DATABASE_URL`` / ``HEBEI_BROKER_URL``),
one per test module; each test gets it with every process running."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.faults.harness import FaultStack


@pytest.fixture(scope="module")
def fault_stack_of_module(
    database_url: str, broker_url: str, lease_url: str, request: pytest.FixtureRequest
) -> Iterator[FaultStack]:
    folder = Path(tempfile.mkdtemp(prefix="hebei-faults-"))
    stack = FaultStack(database_url, broker_url, lease_url, folder)
    try:
        stack.start()
        yield stack
    finally:
        stack.close()
        stack.drop_schemas()
        if not request.session.testsfailed:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"fault suite logs kept in {folder}")


@pytest.fixture
def fault_stack(fault_stack_of_module: FaultStack) -> Iterator[FaultStack]:
    """The module's stack, every service running and no seat task queued; the workers a
    test starts are stopped after it."""
    stack = fault_stack_of_module
    stack.ensure_running()
    stack.purge_queues()
    yield stack
    for worker in stack.workers:
        worker.stop()
    stack.workers.clear()
    stack.purge_queues()
