"""Fixtures shared by the integration areas that run real bot workers (bots, matchmaking, faults):
the seat leases' Redis, the fleet's environment and ``hebei bots worker`` processes.

Defined once here, not imported into each area's conftest: an imported fixture is a second
definition, and two instances of the session-scoped ``bots_env`` (each with its own queue
prefix, each setting the process's environment) sent one area's seat tasks to a queue its
workers did not read once the areas' tests interleaved (as under ``pytest -n``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from hebei.bots import celery_app
from hebei.common import embedded
from hebei.fleet.registry import live_workers
from hebei.fleet.settings import forget_settings
from tests.integration.seat_queues import purge_seat_queues


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
    forget_settings()
    yield env
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    celery_app._settings.clear()
    celery_app._redis.clear()
    forget_settings()


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
        while not any(w.startswith(name) for w in live_workers()):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"worker {name} did not start:\n{(tmp_path / f'{name}.log').read_text()}"
                )
            time.sleep(0.2)
        return worker

    yield start
    for worker in started:
        worker.stop()
    if started:
        purge_seat_queues()
