"""Fixtures of the launcher tests: a private data dir, and an environment that keeps the
stack's schemas and bot queues apart from every other test (and dropped afterwards)."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hebei.stack.processes import Stack, StackOptions
from tests.conftest import drop_schemas, unique_name

SCHEMA_VARIABLES = ("HEBEI_LEDGER_SCHEMA", "HEBEI_TABLE_SCHEMA", "HEBEI_MATCHMAKING_SCHEMA")


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A private, short data directory (unix socket paths inside it must stay short)."""
    folder = Path(tempfile.mkdtemp(prefix="hebei-stack-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def stack_env(database_url: str) -> Iterator[dict[str, str]]:
    """Extra environment for the stack's processes: fresh schemas, private bot queues."""
    env = {name: unique_name("stack") for name in SCHEMA_VARIABLES}
    env["HEBEI_BOTS_QUEUE_PREFIX"] = unique_name("stackbots")
    # People's tables pace their bots (0.8 s by default): a short pace keeps the tests quick
    # and still paced (tests/integration/table/test_pace.py checks the pace itself).
    env["HEBEI_TABLE_BOT_PACE_SECONDS"] = "0.05"
    yield env
    drop_schemas(database_url, [env[name] for name in SCHEMA_VARIABLES])


@pytest.fixture
def options(database_url: str, broker_url: str, data_dir: Path, stack_env: dict[str, str]):
    """StackOptions on the session's databases, in a private data dir, with private schemas."""

    def make(**fields) -> StackOptions:
        fields.setdefault("services", ("ledger", "table", "bots"))
        return StackOptions(
            database_url=database_url,
            broker_url=broker_url,
            data_dir=data_dir,
            env={**stack_env, **fields.pop("env", {})},
            **fields,
        )

    return make


@pytest.fixture
def running() -> Iterator[list[Stack]]:
    """Stacks a test started; each is stopped afterwards, whatever happened."""
    stacks: list[Stack] = []
    yield stacks
    for stack in stacks:
        stack.stop()


def wait_for(
    condition: Callable[[], object], timeout: float, what: str, step: float = 0.05
) -> None:
    """Wait until ``condition()`` is true (AssertionError naming ``what`` after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out after {timeout:g} s waiting for {what}"
        time.sleep(step)
