"""Fixtures of the bot fleet tests: a table engine on port 0 (fresh schema, no ledger), real
``hebei bots worker`` processes on the session's Redis, and the lease store to audit."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import redis

from hebei.bots import celery_app
from hebei.common import embedded
from hebei.common.server import Server, create_server
from hebei.table.service import TableConfig, TableEngine
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.table.conftest import OPERATOR, new_match_request, server_config, token_of

__all__ = ["OPERATOR", "new_match_request", "token_of"]


@dataclass
class Engine:
    engine: TableEngine
    server: Server
    channel: grpc.Channel
    stub: table_pb2_grpc.TableServiceStub

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def match(self, match_id: str) -> table_pb2.MatchInfo:
        return self.stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=5).match

    def wait_for(
        self, match_id: str, done: Callable[[table_pb2.MatchInfo], bool], timeout: float
    ) -> table_pb2.MatchInfo:
        """Poll the match until ``done(info)``; fail the test after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            info = self.match(match_id)
            if done(info):
                return info
            if time.monotonic() > deadline:
                pytest.fail(f"match {match_id} not there after {timeout}s: {info}")
            time.sleep(0.1)

    def events(self, match_id: str) -> list[pb.Event]:
        """Every public event of a finished match."""
        stream = self.stub.Spectate(
            table_pb2.SpectateRequest(match_id=match_id, from_seq=1), timeout=20
        )
        return [message.event for message in stream]


@pytest.fixture
def engine(
    request: pytest.FixtureRequest, database_url: str, fresh_schema: str
) -> Iterator[Engine]:
    """A table engine on port 0; a test may set other :class:`TableConfig` fields by
    parametrising this fixture indirectly with a dict of them."""
    config = TableConfig(
        server=server_config("table", max_workers=200),
        database_url=database_url,
        schema=fresh_schema,
        ready_seconds=30.0,
        **getattr(request, "param", {}),
    )
    table_engine = TableEngine(config)
    server = create_server(table_engine.spec(), config.server)
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    yield Engine(table_engine, server, channel, table_pb2_grpc.TableServiceStub(channel))
    channel.close()
    server.stop(0)
    table_engine.close()


@pytest.fixture(scope="session")
def lease_url(broker_url: str, embedded_dir: Path) -> str:
    """The Redis of the seat leases: the broker when it is Redis; with another broker
    (HEBEI_BROKER_URL=amqp://... for RabbitMQ) HEBEI_BOTS_REDIS_URL, else an embedded Redis."""
    if broker_url.startswith(("redis://", "rediss://")):
        return broker_url
    return os.environ.get("HEBEI_BOTS_REDIS_URL") or embedded.embedded_redis(embedded_dir)


@pytest.fixture(scope="session")
def bots_env(broker_url: str, lease_url: str) -> Iterator[dict[str, str]]:
    """Environment of the fleet under test: the session's broker and lease Redis, private
    queues, short leases, quick sweeps for unacknowledged tasks, no warm-up. Also applied to
    this process (the producer side of ``send_seat``)."""
    env = {
        "HEBEI_BROKER_URL": broker_url,
        "HEBEI_BOTS_REDIS_URL": lease_url,
        "HEBEI_BOTS_QUEUE_PREFIX": f"test-{uuid.uuid4().hex[:8]}",
        "HEBEI_BOTS_LEASE_SECONDS": "1.5",
        "HEBEI_BOTS_VISIBILITY_TIMEOUT": "8",
        "HEBEI_BOTS_RESTORE_INTERVAL": "1",
        "HEBEI_BOTS_WARM_HANDS": "0",
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    celery_app._settings.clear()
    celery_app._redis.clear()
    yield env
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    celery_app._settings.clear()
    celery_app._redis.clear()


@pytest.fixture
def lease_redis(bots_env: dict[str, str]) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(bots_env["HEBEI_BOTS_REDIS_URL"])
    yield client
    client.close()


@dataclass
class Worker:
    name: str
    process: subprocess.Popen
    log_path: Path

    def tail(self, lines: int = 40) -> str:
        """The last lines of its log (for a failure message)."""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL the worker and its processes (its whole process group)."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()


@pytest.fixture
def start_worker(bots_env: dict[str, str], tmp_path: Path) -> Iterator[Callable[..., Worker]]:
    """``start_worker(sessions=N)``: a ``hebei bots worker`` process (one Celery process,
    N seat sessions), returned once it is registered as live; stopped afterwards."""
    started: list[Worker] = []

    def start(
        sessions: int = 4, policies: str = "random,efficiency,expert", metrics_port: int = -1
    ) -> Worker:
        name = f"w{uuid.uuid4().hex[:6]}"
        log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115 (kept open for the child)
        argv = [str(Path(sys.executable).with_name("hebei")), "bots", "worker"]
        argv += ["--processes", "1", "--sessions", str(sessions), "--name", name]
        argv += ["--policies", policies, "--loglevel", "INFO", "--metrics-port", str(metrics_port)]
        process = subprocess.Popen(
            argv,
            env={**os.environ, **bots_env},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        worker = Worker(name, process, tmp_path / f"{name}.log")
        started.append(worker)
        deadline = time.monotonic() + 60
        while not any(w.startswith(name) for w in celery_app.live_workers()):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"worker {name} did not start:\n{(tmp_path / f'{name}.log').read_text()}"
                )
            time.sleep(0.2)
        return worker

    yield start
    for worker in started:
        worker.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def scrape(port: int) -> dict[str, float]:
    """The samples of a /metrics page: ``'name{labels}' -> value``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            samples[key] = float(value)
    return samples


def open_bot_match(engine: Engine, *, hands: int, seed: int, per_decision: float) -> str:
    request = new_match_request(hands=hands, seed=seed, per_decision=per_decision)
    engine.stub.OpenMatch(request, metadata=OPERATOR, timeout=10)
    return request.match_id
