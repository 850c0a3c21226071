"""The launcher (hebei.stack.processes): the stack as real OS processes, started, checked,
played on and stopped, on the session's databases; and, in a child process on embedded ones,
nothing left behind after a clean exit or a crash."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import grpc
import psutil
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.common.client import create_channel
from hebei.fleet.registry import live_workers
from hebei.stack import processes
from hebei.stack.processes import (
    Stack,
    StackError,
    available_services,
    start_stack,
)
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.embedded.leftovers import leftover_servers, wait_for_no_leftovers
from tests.integration.table.conftest import new_match_request, token_of

FINISHED = (pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_DISSOLVED)


def health(address: str) -> int:
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return stub.Check(health_pb2.HealthCheckRequest(), timeout=10).status


def tree(pid: int) -> list[psutil.Process]:
    """A process and all its descendants."""
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def listening_hosts(processes: list[psutil.Process]) -> set[str]:
    hosts = set()
    for process in processes:
        for conn in process.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN:
                hosts.add(conn.laddr.ip.removeprefix("::ffff:"))  # v4 on a dual-stack socket
    return hosts


def gone(processes: list[psutil.Process], timeout: float = 60.0) -> list[psutil.Process]:
    """Wait for the processes to end; returns those still alive (zombies count as ended)."""
    _gone, alive = psutil.wait_procs(processes, timeout=timeout)
    return [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]


def play_one_match(stack: Stack, env: dict[str, str]) -> str:
    """Open a one-hand match of four bots on the stack's table engine, queue its seats for the
    stack's bot worker (``hebei bots send``), wait until it ends; returns its tournament id."""
    tournament_id = f"stack-{uuid.uuid4().hex[:8]}"
    request = new_match_request(hands=1, seed=11, per_decision=5.0, tournament_id=tournament_id)
    channel = create_channel(stack.address("table"), token=stack.operator_token, timeout=30)
    table = table_pb2_grpc.TableServiceStub(channel)
    try:
        table.OpenMatch(request)
        send_env = {**os.environ, **env, **stack.client_env}
        for seat in range(4):
            sent = subprocess.run(
                [sys.executable, "-c", "from hebei.cli import main; main()", "bots", "send",
                 "--target", stack.address("table"), "--match", request.match_id,
                 "--seat", str(seat), "--token", token_of(request.match_id, seat),
                 "--policy", "random", "--seed", str(seat)],
                env=send_env, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert sent.returncode == 0, sent.stderr
        deadline = time.monotonic() + 240
        while True:
            info = table.GetMatch(table_pb2.GetMatchRequest(match_id=request.match_id)).match
            if info.status in FINISHED:
                break
            assert time.monotonic() < deadline, f"the match did not finish: {info}"
            time.sleep(0.5)
        assert info.status == pb.MATCH_STATUS_FINISHED
    finally:
        channel.close()
    return tournament_id


def test_the_launcher_runs_ledger_table_and_a_worker_that_play_a_match(
    running: list[Stack], options, stack_env: dict[str, str], data_dir: Path
):
    lines: list[str] = []
    stack = start_stack(options(worker_processes=2), status=lines.append)
    running.append(stack)
    assert "starting the ledger" in lines and "starting the table engine" in lines
    assert "starting the bot worker (2 Celery processes)" in lines
    assert set(stack.addresses) == {"ledger", "table"}
    assert stack.operator_token != stack.service_token
    for service in ("ledger", "table"):
        assert stack.address(service).startswith("127.0.0.1:")
        assert health(stack.address(service)) == health_pb2.HealthCheckResponse.SERVING
        url = f"http://{stack.metrics_address(service)}/metrics"
        with urllib.request.urlopen(url, timeout=10) as reply:
            assert b"grpc_server_started_total" in reply.read()
        assert (data_dir / "logs" / f"{service}.log").is_file()
    with pytest.raises(KeyError, match="matchmaking"):
        stack.address("matchmaking")
    processes = [p for child in stack.children.values() for p in tree(child.pid)]
    assert listening_hosts(processes) == {"127.0.0.1"}  # nothing on 0.0.0.0
    (worker,) = stack.bot_workers
    assert stack.bot_processes == 2
    with redis.Redis.from_url(stack.registry_url) as registry:
        names = [n for n in live_workers(registry) if n.startswith(f"{worker.worker_name}-")]
    assert len(names) == 2

    # The processes are wired together: the worker plays the seats at the table engine, and
    # the table engine books the hand in the ledger with its service token.
    tournament_id = play_one_match(stack, stack_env)
    channel = create_channel(stack.address("ledger"), token=stack.operator_token, timeout=30)
    ledger = ledger_pb2_grpc.LedgerServiceStub(channel)
    deadline = time.monotonic() + 120
    while True:
        audit = ledger.Audit(ledger_pb2.AuditRequest(tournament_id=tournament_id))
        if sum(t.entries for t in audit.tournaments if t.tournament_id == tournament_id) >= 1:
            break
        assert time.monotonic() < deadline, "the ledger did not book the hand"
        time.sleep(0.5)
    assert audit.ok
    channel.close()

    stack.stop()
    assert gone(processes) == []
    # services last, then the embedded servers it started: none here (the session's servers
    # are given), but with a RabbitMQ broker and no HEBEI_BOTS_REDIS_URL a Redis for the leases
    leases_embedded = "starting Redis for the seat leases (embedded)" in lines
    assert lines[lines.index("stopping the ledger, the table engine") :] == [
        "stopping the ledger, the table engine",
        *(["stopping the embedded servers"] if leases_embedded else []),
    ]
    stack.stop()  # twice is fine


def test_a_killed_service_is_reported_by_name(running: list[Stack], options):
    stack = start_stack(options(services=("ledger", "table")))
    running.append(stack)
    stack.check()
    os.kill(stack.children["table"].pid, signal.SIGKILL)
    with pytest.raises(StackError) as failure:
        stack.wait(timeout=120)
    message = str(failure.value)
    assert message.startswith("the table engine was killed by SIGKILL: ")
    assert "\n" not in message and "table.log" in message
    ledger = stack.children["ledger"]
    stack.stop()
    assert not ledger.running()


def test_a_service_that_cannot_start_fails_the_start_in_one_line(options):
    lines: list[str] = []
    bad = options(services=("ledger", "table"), env={"HEBEI_LEDGER_SCHEMA": "Not A Schema"})
    with pytest.raises(StackError) as failure:
        start_stack(bad, status=lines.append)
    message = str(failure.value)
    assert message.startswith("the ledger exited with code 2: ")
    assert "HEBEI_LEDGER_SCHEMA" in message and "\n" not in message
    assert any(line.startswith("stopping") for line in lines)  # the table engine was stopped


def test_a_port_taken_meanwhile_means_a_new_start_on_other_ports(
    running: list[Stack], options, monkeypatch: pytest.MonkeyPatch
):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    real = processes._free_ports
    calls: list[list[int]] = []

    def first_one_taken(count: int) -> list[int]:
        chosen = real(count)
        if not calls:
            chosen[0] = port  # as if another process took the ledger's port meanwhile
        calls.append(chosen)
        return chosen

    monkeypatch.setattr(processes, "_free_ports", first_one_taken)
    lines: list[str] = []
    try:
        stack = start_stack(options(services=("ledger",)), status=lines.append)
        running.append(stack)
    finally:
        taken.close()
    assert len(calls) == 2
    assert "a port was taken meanwhile: starting again on other ports" in lines
    assert stack.address("ledger") == f"127.0.0.1:{calls[1][0]}" != f"127.0.0.1:{port}"
    assert health(stack.address("ledger")) == health_pb2.HealthCheckResponse.SERVING


def test_unknown_services_and_bad_counts_are_refused(options):
    with pytest.raises(StackError, match="unknown service 'tables'"):
        start_stack(options(services=("ledger", "tables")))
    with pytest.raises(StackError, match="worker_processes"):
        start_stack(options(worker_processes=0))


@pytest.mark.skipif(
    "matchmaking" not in available_services(), reason="no matchmaking service in this tree"
)
def test_matchmaking_runs_by_default_once_it_exists(running: list[Stack], options):
    stack = start_stack(options(services=None))
    running.append(stack)
    assert set(stack.addresses) == {"ledger", "table", "matchmaking"}
    for service in ("ledger", "table", "matchmaking"):
        assert health(stack.address(service)) == health_pb2.HealthCheckResponse.SERVING
        assert stack.metrics_address(service).startswith("127.0.0.1:")


# ------------------------------------------------------------- embedded, in a child process

LAUNCHER = """
import json, sys, time
from hebei.stack.processes import StackOptions, start_stack
with start_stack(StackOptions(services=("ledger", "table", "bots"))) as stack:
    pids = [child.pid for child in stack.children.values()]
    print(json.dumps({"pids": pids, "addresses": stack.addresses}), flush=True)
    if sys.argv[1] == "wait":
        time.sleep(600)
"""


def launch(data_dir: Path, mode: str) -> subprocess.Popen:
    """The launcher in a child process on embedded PostgreSQL and Redis in data_dir."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("HEBEI_DATABASE_URL", "HEBEI_BROKER_URL")
    }
    env["HEBEI_DATA_DIR"] = str(data_dir)
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, mode],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def started(launcher: subprocess.Popen) -> tuple[dict, list[psutil.Process]]:
    """What the launcher printed once ready, and every process it runs (not itself)."""
    line = launcher.stdout.readline()
    assert line, launcher.stderr.read()[-2000:]
    report = json.loads(line)
    children = tree(launcher.pid)[1:]
    assert {p.pid for p in children} >= set(report["pids"])
    return report, children


def test_the_launcher_on_embedded_databases_leaves_nothing_running(data_dir: Path):
    launcher = launch(data_dir, "exit")
    report, children = started(launcher)
    assert leftover_servers(data_dir)  # embedded PostgreSQL and Redis run meanwhile
    assert launcher.wait(180) == 0, launcher.stderr.read()[-2000:]
    assert leftover_servers(data_dir) == []
    assert gone(children) == []
    assert set(report["addresses"]) == {"ledger", "table"}


def test_a_crashed_launcher_leaves_nothing_running(data_dir: Path):
    launcher = launch(data_dir, "wait")
    _report, children = started(launcher)
    launcher.kill()  # SIGKILL: no clean-up of its own runs
    launcher.wait(30)
    assert gone(children, timeout=120) == []  # PR_SET_PDEATHSIG stops the services
    assert wait_for_no_leftovers(data_dir) == []  # the watchdog stops the embedded servers
