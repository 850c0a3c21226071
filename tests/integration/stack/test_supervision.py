"""The launcher's supervision (``StackOptions.restarts``, what ``hebei up`` uses): a process
that dies is started again on the same ports with the same tokens, each restart said in one
status line; past the limit the stack gives up with one line."""

from __future__ import annotations

import os
import signal

import grpc
import pytest
from grpc_health.v1 import health_pb2

from hebei.stack.processes import Stack, StackError, start_stack
from tests.integration.stack.conftest import wait_for
from tests.integration.stack.test_processes import health


def restarted(stack: Stack, service: str, pid: int) -> bool:
    stack.wait(timeout=0.5)  # supervises meanwhile
    child = stack.children[service]
    if child.pid == pid or not child.running():
        return False
    try:
        return health(child.address) == health_pb2.HealthCheckResponse.SERVING
    except grpc.RpcError:  # not listening yet
        return False


def test_a_killed_service_is_restarted_then_given_up_past_the_limit(running, options):
    lines: list[str] = []
    stack = start_stack(options(services=("ledger", "table"), restarts=1), status=lines.append)
    running.append(stack)
    table = stack.children["table"]
    address, metrics, token = table.address, table.metrics_address, stack.operator_token
    first = table.pid
    os.kill(first, signal.SIGKILL)
    wait_for(lambda: restarted(stack, "table", first), 120, "the table engine's restart")
    assert (table.address, table.metrics_address, stack.operator_token) == (
        address,
        metrics,
        token,
    )
    assert any(line.startswith("the table engine was killed by SIGKILL") for line in lines)
    assert any(line.startswith("restarted the table engine (pid ") for line in lines)

    os.kill(table.pid, signal.SIGKILL)  # a second death in the window: past the limit
    with pytest.raises(StackError) as failure:
        stack.wait(timeout=120)
    message = str(failure.value)
    assert message.startswith("the table engine was killed by SIGKILL: ")
    assert "gave up after 1 restart in 10 minutes" in message and "\n" not in message
    ledger = stack.children["ledger"]
    assert ledger.running()  # giving up stops nothing by itself: the owner stops the stack
    stack.stop()
    assert not ledger.running()
