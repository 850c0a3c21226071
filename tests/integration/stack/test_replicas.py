"""The stack's replicas (issue 46: ``hebei up --table-replicas N --matchmaking-replicas M``):
each replica a process with its own ports, replica id and advertised address, every client of
the engine given all of them, the stack file listing each, a dead replica restarted on its
own; bad counts refused with one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2

from hebei.stack.discovery import find_stack, stack_file, write_stack_file
from hebei.stack.processes import Stack, StackError, available_services, start_stack
from hebei.stack.replicas import (
    MAX_REPLICAS,
    check_replicas,
    client_addresses,
    peer_address,
    replica_settings,
    service_processes,
)
from tests.integration.stack.conftest import wait_for
from tests.integration.stack.test_processes import health
from tests.integration.stack.test_supervision import restarted

SERVING = health_pb2.HealthCheckResponse.SERVING
needs_matchmaking = pytest.mark.skipif(
    "matchmaking" not in available_services(), reason="no matchmaking service in this tree"
)


# ------------------------------------------------------------------------- the plan alone


def test_the_processes_their_names_and_who_is_given_which_address():
    services = ("ledger", "table", "matchmaking", "botservice")
    plan = service_processes(services, {"table": 3, "matchmaking": 2})
    assert [p.name for p in plan] == [
        "ledger", "table-0", "table-1", "table-2", "matchmaking-0", "matchmaking-1",
        "botservice",
    ]  # fmt: skip
    assert [p.replica_id for p in plan if p.service == "table"] == ["table-0", "table-1", "table-2"]
    assert plan[1].label("the table engine") == "the table engine table-0"
    addresses = {p.name: f"127.0.0.1:{1000 + i}" for i, p in enumerate(plan)}
    every_engine = "127.0.0.1:1001,127.0.0.1:1002,127.0.0.1:1003"
    assert peer_address("table", plan, addresses) == every_engine
    # matchmaking: one replica each, spread (any replica takes a result)
    assert [peer_address("matchmaking", plan, addresses, i) for i in range(3)] == [
        "127.0.0.1:1004", "127.0.0.1:1005", "127.0.0.1:1004",
    ]  # fmt: skip
    assert peer_address("web", plan, addresses) is None
    assert client_addresses(plan, addresses) == {
        "ledger": "127.0.0.1:1000", "table": every_engine, "matchmaking": "127.0.0.1:1004",
        "botservice": "127.0.0.1:1006",
    }  # fmt: skip
    assert replica_settings(plan[2], "127.0.0.1:1002") == {
        "HEBEI_TABLE_REPLICA_ID": "table-1",
        "HEBEI_TABLE_ADVERTISE_ADDRESS": "127.0.0.1:1002",
    }
    assert replica_settings(plan[0], "127.0.0.1:1000") == {}  # the ledger is no replica


def test_one_replica_keeps_the_names_of_today():
    plan = service_processes(("ledger", "table", "matchmaking"), {})
    assert [p.name for p in plan] == ["ledger", "table", "matchmaking"]
    assert plan[1].replica_id == "table-0" and plan[1].label("the table engine") == (
        "the table engine"
    )


@pytest.mark.parametrize("counts", [(0, 1), (1, 0), (MAX_REPLICAS + 1, 1), (1, -1)])
def test_replica_counts_are_bounded(counts):
    with pytest.raises(ValueError, match=r"^--table-replicas and --matchmaking-replicas must be"):
        check_replicas(*counts)
    check_replicas(1, MAX_REPLICAS)


def test_start_stack_refuses_bad_counts_in_one_line(options):
    with pytest.raises(StackError, match=r"must be 1-8, got 9 and 1$"):
        start_stack(options(table_replicas=9))


@pytest.mark.parametrize(
    "args",
    [["--table-replicas", "0"], ["--matchmaking-replicas", "9"], ["--table-replicas", "x"]],
)
def test_up_refuses_bad_counts_with_one_line_and_code_2(args: list[str], data_dir: Path):
    env = dict(os.environ, HEBEI_DATA_DIR=str(data_dir))
    done = subprocess.run(
        [sys.executable, "-c", "from hebei.cli import main; main()", "up", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("hebei: ") and "replicas" in done.stderr
    assert not stack_file(data_dir).exists()


# ------------------------------------------------------------------------- a running stack


@needs_matchmaking
def test_two_engines_and_two_matchmakings_start_answer_and_are_listed(
    running: list[Stack], options
):
    lines: list[str] = []
    stack = start_stack(
        options(
            services=("ledger", "table", "matchmaking", "botservice"),
            table_replicas=2,
            matchmaking_replicas=2,
            restarts=1,
        ),
        status=lines.append,
    )
    running.append(stack)
    names = ["ledger", "table-0", "table-1", "matchmaking-0", "matchmaking-1", "botservice"]
    assert list(stack.replica_addresses) == names
    for name in names:
        assert health(stack.address(name)) == SERVING, name
        assert stack.metrics_address(name).startswith("127.0.0.1:")
    assert "starting the table engine table-1" in lines
    engines = [stack.replica_addresses["table-0"], stack.replica_addresses["table-1"]]
    matchmakings = [stack.replica_addresses[f"matchmaking-{i}"] for i in range(2)]
    assert stack.address("table") == ",".join(engines)
    assert len(set(stack.replica_addresses.values())) == len(names)  # each its own port

    # each replica's own settings, and every client of the engine given all of them
    for index, engine in enumerate(engines):
        env = stack.children[f"table-{index}"].env
        assert env["HEBEI_TABLE_REPLICA_ID"] == f"table-{index}"
        assert env["HEBEI_TABLE_ADVERTISE_ADDRESS"] == engine
        assert env["HEBEI_TABLE_PORT"] == engine.rpartition(":")[2]
        assert env["HEBEI_TABLE_MATCHMAKING_ADDRESS"] == matchmakings[index]
    for index, address in enumerate(matchmakings):
        env = stack.children[f"matchmaking-{index}"].env
        assert env["HEBEI_MATCHMAKING_REPLICA_ID"] == f"matchmaking-{index}"
        assert env["HEBEI_MATCHMAKING_ADVERTISE_ADDRESS"] == address
        assert env["HEBEI_MATCHMAKING_TABLE_ADDRESS"] == ",".join(engines)
        assert env["HEBEI_MATCHMAKING_TABLE_ENDPOINT"] == ",".join(engines)
    assert stack.children["botservice"].env["HEBEI_BOTSERVICE_TABLE_ADDRESS"] == ",".join(engines)

    # the stack file lists every replica
    write_stack_file(stack_file(stack.data_dir), stack.info())
    found = find_stack(stack.data_dir)
    assert found is not None and found.replicas == stack.replica_addresses
    assert found.address("table") == ",".join(engines)
    assert found.address("table-1") == engines[1]
    assert set(found.metrics) == set(names)

    # a replica that dies is started again on its own ports; the others are left alone
    table_1 = stack.children["table-1"]
    first, others = table_1.pid, {n: stack.children[n].pid for n in names if n != "table-1"}
    os.kill(first, signal.SIGKILL)
    wait_for(lambda: restarted(stack, "table-1", first), 120, "table-1's restart")
    assert table_1.address == engines[1]
    assert {n: stack.children[n].pid for n in others} == others
    assert any(line.startswith("restarted the table engine table-1 (pid ") for line in lines)
