"""No embedded server outlives the processes using it: a clean exit with connections still
open (the leak of every ``hebei demo``), a SIGKILL, two processes sharing one data dir, and
``hebei demo`` itself. Real processes; ``pgrep`` filtered by the test's data dir."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.e2e.conftest import hebei_program
from tests.integration.embedded.leftovers import (
    leftover_servers,
    running_servers,
    wait_for_no_leftovers,
)

# Starts the embedded servers of $HEBEI_DATA_DIR, prints their URLs, then (per argv) opens
# extra Redis connections, waits for a line on stdin, and exits normally.
USER = """
import json, sys
import redis
from hebei.common import embedded
server = embedded.start_redis()
url = embedded.embedded_postgres() if "postgres" in sys.argv else None
extra = [redis.Redis.from_url(server.url) for _ in range(3)]
for client in extra:
    client.ping()
print(json.dumps({"redis": server.url, "postgres": url}), flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def data_dir() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="hebei-left-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def embedded_env(data_dir: Path) -> dict[str, str]:
    """This environment without configured servers, with data in data_dir."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("HEBEI_DATABASE_URL", "HEBEI_BROKER_URL")
    }
    env["HEBEI_DATA_DIR"] = str(data_dir)
    return env


def user(data_dir: Path, *args: str) -> tuple[subprocess.Popen, dict]:
    process = subprocess.Popen(
        [sys.executable, "-c", USER, *args],
        env=embedded_env(data_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert line, process.stderr.read()[-2000:]
    return process, json.loads(line)


def finish(process: subprocess.Popen) -> None:
    process.stdin.write("\n")
    process.stdin.flush()
    assert process.wait(120) == 0, process.stderr.read()[-2000:]


def test_a_clean_exit_stops_redis_even_with_connections_open(data_dir: Path):
    process, urls = user(data_dir)
    assert running_servers(data_dir) == {"redis-server"}
    finish(process)
    assert leftover_servers(data_dir) == []
    assert not (data_dir / "redis" / "redis.db.settings").exists()
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(urls["redis"], socket_connect_timeout=2).ping()


def test_a_killed_process_leaves_no_server_running(data_dir: Path):
    process, _urls = user(data_dir, "postgres")
    assert running_servers(data_dir) == {"redis-server", "postgres"}
    process.kill()  # no exit hooks run: the watchdog releases the servers
    process.wait(30)
    assert wait_for_no_leftovers(data_dir) == []


def test_the_last_of_two_processes_stops_the_shared_servers(data_dir: Path):
    first, first_urls = user(data_dir, "postgres")
    second, second_urls = user(data_dir, "postgres")
    assert first_urls == second_urls  # one server each, shared
    finish(first)
    assert running_servers(data_dir) == {"redis-server", "postgres"}  # the second uses them
    assert redis.Redis.from_url(second_urls["redis"]).ping()
    finish(second)
    assert leftover_servers(data_dir) == []


def test_hebei_demo_leaves_no_server_running(data_dir: Path):
    result = subprocess.run(
        [hebei_program(), "demo", "--players", "4", "--rounds", "1", "--hands", "1", "--json"],
        env=embedded_env(data_dir / "data"),
        cwd=data_dir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["audit_ok"] is True
    assert leftover_servers(data_dir) == []


@pytest.mark.parametrize("end", ["exit", "kill"])
def test_servers_whose_data_dir_was_deleted_still_stop(data_dir: Path, end: str):
    process, _urls = user(data_dir, "postgres")
    shutil.rmtree(data_dir)  # e.g. a test's temporary folder, removed under the servers
    assert running_servers(data_dir) == {"redis-server", "postgres"}
    if end == "exit":
        finish(process)
    else:
        process.kill()
        process.wait(30)
    assert wait_for_no_leftovers(data_dir) == []
