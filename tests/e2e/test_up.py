"""`hebei up` as a user runs it: the stack in the foreground, its stack file, a stop on
SIGTERM or Ctrl-C that leaves nothing running, one line for whatever goes wrong."""

from __future__ import annotations

import os
import queue
import re
import signal
import stat
import subprocess
import threading
from pathlib import Path

import grpc
import psutil
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.stack.discovery import StackInfo, find_stack, stack_file, write_stack_file
from hebei.stack.processes import available_services
from tests.e2e.conftest import hebei_program
from tests.e2e.test_play import run_remote
from tests.integration.embedded.leftovers import leftover_servers
from tests.integration.stack.conftest import stack_env  # noqa: F401 (a fixture)

ADDRESS = re.compile(r"127\.0\.0\.1:\d+")
SERVICES = [s for s in available_services() if s != "bots"] + ["botservice"]  # up runs it too


class Up:
    """A running ``hebei up``: its output lines as they come."""

    def __init__(self, env: dict[str, str], cwd: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [hebei_program(), "up", *args],
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, prefix: str, timeout: float = 300.0) -> str:
        """The first line starting with ``prefix`` (fails at the end of the output)."""
        while True:
            line = self._queue.get(timeout=timeout)
            if line is None:
                self.process.wait(30)
                raise AssertionError(f"hebei up ended: {self.process.stderr.read()[-2000:]}")
            self.lines.append(line)
            if line.startswith(prefix):
                return line

    def fields(self) -> dict[str, str]:
        """``name: value`` lines printed so far."""
        return dict(line.split(": ", 1) for line in self.lines if ": " in line)

    def finish(self, timeout: float = 180.0) -> tuple[int, str]:
        """Wait for the end; returns the exit status and stderr."""
        code = self.process.wait(timeout)
        while (line := self._queue.get(timeout=30)) is not None:
            self.lines.append(line)
        return code, self.process.stderr.read()

    def descendants(self) -> list[psutil.Process]:
        return psutil.Process(self.process.pid).children(recursive=True)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)


def serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10
        )
    return reply.status == health_pb2.HealthCheckResponse.SERVING


def ended(processes: list[psutil.Process], timeout: float = 60.0) -> list[psutil.Process]:
    """Wait for the processes to end; returns those still running."""
    _gone, alive = psutil.wait_procs(processes, timeout=timeout)
    return [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]


@pytest.fixture
def configured_env(
    database_url: str,
    broker_url: str,
    data_dir: Path,
    stack_env: dict[str, str],  # noqa: F811
) -> dict[str, str]:
    """``hebei up``'s environment: the session's databases, a private data dir and schemas."""
    return dict(
        os.environ,
        HEBEI_DATABASE_URL=database_url,
        HEBEI_BROKER_URL=broker_url,
        HEBEI_DATA_DIR=str(data_dir),
        **stack_env,
    )


def test_up_runs_the_stack_until_sigterm_and_leaves_nothing(
    configured_env: dict[str, str], data_dir: Path
):
    up = Up(configured_env, data_dir, "--workers", "1", "--processes", "2")
    try:
        up.wait_for("ready:")
        fields = up.fields()
        for service in SERVICES:
            assert ADDRESS.fullmatch(fields[service]), up.lines
            assert serving(fields[service])
        metrics = dict(part.split(" ") for part in fields["metrics"].split(", "))
        assert set(metrics) == set(SERVICES) and all(ADDRESS.fullmatch(a) for a in metrics.values())
        assert fields["bots"] == "2 worker processes"
        assert fields["logs"] == str(data_dir / "logs")
        assert any(line.startswith("starting the ledger") for line in up.lines)
        web = fields["web"]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", web), web
        import urllib.request

        with urllib.request.urlopen(web, timeout=10) as page:
            assert page.status == 200 and "hebei" in page.read().decode()

        path = data_dir / "stack.json"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        found = find_stack(data_dir)
        assert found is not None and found.pid == up.process.pid
        assert found.addresses == {s: fields[s] for s in SERVICES}
        assert found.metrics == metrics and found.operator_token
        assert found.database_url == configured_env["HEBEI_DATABASE_URL"]
        assert found.broker_url == configured_env["HEBEI_BROKER_URL"]

        second = subprocess.run(
            [hebei_program(), "up"],
            env=configured_env,
            cwd=data_dir,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 1
        assert second.stderr.startswith("hebei: a stack is already running here")
        assert f"pid {up.process.pid}" in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1
        assert find_stack(data_dir) == found  # the second left the first alone

        processes = up.descendants()
        assert len(processes) >= len(SERVICES) + 3  # services, a worker and its 2 processes
        up.process.send_signal(signal.SIGTERM)
        code, stderr = up.finish()
        assert code == 0, stderr
        assert up.lines[-1] == "stopped"
        assert ended(processes) == []
        assert not path.exists() and find_stack(data_dir) is None
        assert leftover_servers(data_dir) == []
    finally:
        up.kill()


def test_up_on_embedded_databases_stops_on_ctrl_c_and_leaves_nothing(data_dir: Path):
    env = {
        k: v for k, v in os.environ.items() if k not in ("HEBEI_DATABASE_URL", "HEBEI_BROKER_URL")
    }
    env["HEBEI_DATA_DIR"] = str(data_dir)
    up = Up(env, data_dir)
    try:
        up.wait_for("ready:")
        fields = up.fields()
        assert fields["bots"] == "1 worker process"
        assert str(data_dir / "postgres") in fields["database"]
        assert fields["broker"].startswith("redis://127.0.0.1:")
        assert any(line.startswith("starting PostgreSQL (embedded") for line in up.lines)
        assert leftover_servers(data_dir)  # the embedded servers run meanwhile
        processes = up.descendants()
        up.process.send_signal(signal.SIGINT)
        code, stderr = up.finish()
        assert code == 0, stderr
        assert leftover_servers(data_dir) == []
        assert ended(processes) == []
        assert not (data_dir / "stack.json").exists()
    finally:
        up.kill()


def test_up_reports_a_service_that_dies_and_stops_the_rest(
    configured_env: dict[str, str], data_dir: Path
):
    up = Up(configured_env, data_dir, "--workers", "0", "--no-botservice")
    try:
        up.wait_for("ready:")
        assert up.fields()["bots"] == "0 worker processes"
        assert "botservice" not in up.fields()
        processes = up.descendants()
        (table,) = [p for p in processes if "hebei.table" in p.cmdline()]
        table.kill()
        code, stderr = up.finish()
        assert code == 1
        assert stderr.startswith("hebei: the table engine was killed by SIGKILL: ")
        assert len(stderr.strip().splitlines()) == 1
        assert ended(processes) == []
        assert not (data_dir / "stack.json").exists()
    finally:
        up.kill()


@pytest.mark.parametrize(
    "args",
    [["--workers", "-1"], ["--processes", "0"], ["--workers", "abc"], ["--bogus"]],
)
def test_up_refuses_bad_options_in_one_line(args: list[str], data_dir: Path):
    env = dict(os.environ, HEBEI_DATA_DIR=str(data_dir))
    result = subprocess.run(
        [hebei_program(), "up", *args],
        env=env,
        cwd=data_dir,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("hebei: ") and len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_play_joins_a_remote_seat_at_the_running_stack_by_default(play_env, table_engine, data_dir):
    args = ["--match", "no-such", "--seat", "1", "--token", "t"]
    alone = run_remote(play_env, *args)
    assert alone.returncode == 2 and "give --address too" in alone.stderr
    ours = StackInfo(
        pid=os.getpid(),
        started=psutil.Process().create_time(),
        addresses={"table": table_engine.address},
        metrics={},
        operator_token="operator",
        database_url="postgresql://nowhere/db",
        broker_url="redis://nowhere:6379/0",
    )
    write_stack_file(stack_file(data_dir), ours)  # as if this process ran `hebei up`
    found = run_remote(play_env, *args)
    assert found.stderr.strip() == "hebei: NOT_FOUND: no match 'no-such'"  # it reached the table
