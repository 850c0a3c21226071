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

from hebei.common.client import create_channel
from hebei.stack.discovery import StackInfo, find_stack, stack_file, write_stack_file
from hebei.stack.processes import available_services
from hebei.v1 import ledger_pb2, ledger_pb2_grpc, matchmaking_pb2_grpc
from hebei.v1 import matchmaking_pb2 as mm
from tests.e2e.conftest import hebei_program
from tests.e2e.test_play import run_remote
from tests.integration.embedded.leftovers import leftover_servers
from tests.integration.stack.conftest import (
    stack_env,  # noqa: F401 (a fixture)
    wait_for,
)

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


def start_tournament(address: str, token: str) -> str:
    """8 bots, 3 Swiss rounds of 3 hands, each discard held 0.1 s (so it lasts): its id."""
    with create_channel(address, token=token, timeout=60) as channel:
        stub = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
        config = mm.TournamentConfig(
            name="up restarts", rounds=3, seed=3, seating=mm.SEATING_MODE_SWISS,
            filler_bot_policy="random",
        )  # fmt: skip
        config.length.hands = 3
        config.time_control.per_decision.FromSeconds(5)
        config.time_control.claim_window.FromMilliseconds(100)
        tid = stub.CreateTournament(mm.CreateTournamentRequest(config=config)).tournament
        tid = tid.tournament_id
        for number in range(8):
            bot = mm.BotEntrant(policy="random", name=f"random #{number}")
            stub.Register(mm.RegisterRequest(tournament_id=tid, bot=bot))
        stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    return tid


def tournament_status(address: str, token: str, tid: str) -> int:
    with create_channel(address, token=token, timeout=30) as channel:
        stub = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
        got = stub.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert got.status != mm.TOURNAMENT_STATUS_CANCELLED, got.status_reason
    return got.status


def back(address: str) -> bool:
    """Whether the service at ``address`` serves again (not while it starts)."""
    try:
        return serving(address)
    except grpc.RpcError:
        return False


def web_answers(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"{url}api/health", timeout=10) as reply:
            return reply.status == 200
    except OSError:
        return False


# What is killed (a direct child of `hebei up` whose command line holds the word), its label
# in the output, and how to tell it is back (None: its restart line is enough).
KILLED = [
    ("hebei.matchmaking", "the matchmaking service", "matchmaking"),
    ("hebei.ledger", "the ledger", "ledger"),
    ("hebei.table", "the table engine", "table"),
    ("worker", "the bot worker", None),
    ("hebei.web", "the web gateway", "web"),
]


def test_up_restarts_each_process_killed_during_a_tournament_on_the_same_ports(
    configured_env: dict[str, str], data_dir: Path
):
    up = Up(configured_env, data_dir, "--workers", "1", "--processes", "2", "--no-botservice")
    try:
        up.wait_for("ready:")
        fields = up.fields()
        found = find_stack(data_dir)
        assert found is not None
        token = found.operator_token
        tid = start_tournament(fields["matchmaking"], token)
        for word, label, check in KILLED:
            children = psutil.Process(up.process.pid).children()
            (victim,) = [p for p in children if word in " ".join(p.cmdline())]
            victim.kill()
            up.wait_for(f"{label} was killed by SIGKILL")
            restarted = up.wait_for(f"restarted {label} (pid ")
            assert str(victim.pid) not in restarted
            if check == "web":
                wait_for(lambda: web_answers(fields["web"]), 120, "the web gateway")
            elif check is not None:
                wait_for(lambda c=check: back(fields[c]), 120, f"{label} serving")
        assert find_stack(data_dir) == found  # the same ports, the same operator token
        wait_for(
            lambda: (
                tournament_status(fields["matchmaking"], token, tid)
                == mm.TOURNAMENT_STATUS_FINISHED
            ),
            600,
            "the tournament to finish",
            step=1.0,
        )
        with create_channel(fields["ledger"], token=token, timeout=60) as channel:
            ledger = ledger_pb2_grpc.LedgerServiceStub(channel)
            assert ledger.Audit(ledger_pb2.AuditRequest(tournament_id=tid)).ok
            audit = ledger.Audit(ledger_pb2.AuditRequest())
            assert audit.ok, audit.problems
        processes = up.descendants()
        up.process.send_signal(signal.SIGTERM)
        code, stderr = up.finish()
        assert code == 0, stderr
        assert ended(processes) == []
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
