"""Small helpers of the table integration tests, and the engine as a real process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import grpc

from hebei.table.eventlog import TABLE_EVENTS
from hebei.v1 import table_pb2, table_pb2_grpc

REPO = Path(__file__).resolve().parents[3]


def wait_for(predicate: Callable[[], bool], timeout: float = 20.0, step: float = 0.02) -> bool:
    """Poll ``predicate`` until true or ``timeout`` seconds passed; its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


def stored_events(store, match_id: str) -> list[dict]:
    """Every event of a match as stored in PostgreSQL."""
    return [row.event for row in store.load_match(match_id).events]


def rules_events(events: list[dict]) -> list[dict]:
    """The rules events of a log (what replay_match reads)."""
    return [e for e in events if e["type"] not in TABLE_EVENTS]


def engine_env(
    database_url: str, schema: str, *, ledger: str = "", matchmaking: str = "", **extra: str
) -> dict[str, str]:
    """The environment of ``python -m hebei.table`` under test (``extra``: HEBEI_... = value)."""
    from tests.integration.table.conftest import OPERATOR_TOKEN, SERVICE_TOKEN

    env = {
        **os.environ,
        "HEBEI_TABLE_PORT": str(free_port()),
        "HEBEI_TABLE_METRICS_PORT": "-1",
        "HEBEI_HOST": "127.0.0.1",
        "HEBEI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "HEBEI_SERVICE_TOKEN": SERVICE_TOKEN,
        "HEBEI_DATABASE_URL": database_url,
        "HEBEI_TABLE_SCHEMA": schema,
        "HEBEI_LOG_LEVEL": "WARNING",
        # The machine's moves at a table with people are paced (0.8 s by default): a short
        # pace keeps these tests quick and still paced (test_pace.py checks the pace itself).
        "HEBEI_TABLE_BOT_PACE_SECONDS": "0.05",
        **extra,
    }
    if ledger:
        env["HEBEI_LEDGER_ADDRESS"] = ledger
    if matchmaking:
        env["HEBEI_MATCHMAKING_ADDRESS"] = matchmaking
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class EngineProcess:
    """``python -m hebei.table`` as a subprocess on a fixed port."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.address = f"127.0.0.1:{env['HEBEI_TABLE_PORT']}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "hebei.table"], env=self.env, stdout=log, stderr=log,
                cwd=REPO,
            )  # fmt: skip
        channel = grpc.insecure_channel(self.address)
        stub = table_pb2_grpc.TableServiceStub(channel)

        def up() -> bool:
            assert self.process.poll() is None, self.log_path.read_text()[-2000:]
            try:
                stub.ListTables(table_pb2.ListTablesRequest(), timeout=1)
                return True
            except grpc.RpcError:
                return False

        assert wait_for(up, timeout=30, step=0.1), self.log_path.read_text()[-2000:]
        channel.close()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def terminate(self, timeout: float = 60) -> int:
        """SIGTERM, then the exit status (the engine drains and stops by itself)."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def rss_kib(self) -> int:
        """The process's resident memory, KiB (Linux)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def replica_env(
    database_url: str,
    schema: str,
    replica_id: str,
    log_key: str,
    *,
    ledger: str = "",
    matchmaking: str = "",
    **extra: str,
) -> dict[str, str]:
    """The environment of an engine replica process under test: ``replica_id``, the tests' log
    key, seats given 20 s to rejoin (a takeover never auto-plays them), ``extra`` on top."""
    return engine_env(
        database_url,
        schema,
        ledger=ledger,
        matchmaking=matchmaking,
        HEBEI_TABLE_REPLICA_ID=replica_id,
        HEBEI_TABLE_LOG_KEY=log_key,
        HEBEI_TABLE_READY_SECONDS="5",
        HEBEI_TABLE_REJOIN_SECONDS="20",
        **extra,
    )


def shards_served_by(directory, replica_id: str) -> frozenset[int]:
    """The shards ``replica_id`` serves now, by an ownership ``Directory``."""
    return frozenset(
        shard
        for shard, holder in directory.shard_owners().items()
        if holder.replica_id == replica_id and holder.serving
    )
