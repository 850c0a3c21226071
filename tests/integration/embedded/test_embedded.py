"""Embedded Redis and PostgreSQL for runs without services: real servers, real clients."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis
from celery import Celery
from celery.contrib.testing.worker import start_worker

from hebei.common import embedded


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A private directory, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="hebei-embedded-test-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_embedded_redis_serves_redis_py_and_a_celery_worker(scratch: Path):
    server = embedded.start_redis(scratch)
    try:
        assert server.url.startswith("redis://127.0.0.1:")
        assert embedded.start_redis(scratch) is server  # started once per data directory
        client = redis.Redis.from_url(server.url)
        assert client.ping()
        app = Celery("embedded-test", broker=server.url, backend=server.url)
        app.conf.broker_connection_retry_on_startup = True

        @app.task(name="embedded_test.add")
        def add(x: int, y: int) -> int:
            return x + y

        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            assert add.delay(2, 3).get(timeout=20) == 5
    finally:
        server.stop()
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(server.url, socket_connect_timeout=1).ping()


def test_urls_prefer_the_environment(monkeypatch: pytest.MonkeyPatch, scratch: Path):
    monkeypatch.setenv("HEBEI_DATABASE_URL", "postgresql://configured/db")
    monkeypatch.setenv("HEBEI_BROKER_URL", "redis://configured:6379/0")
    assert embedded.database_url(scratch) == "postgresql://configured/db"
    assert embedded.broker_url(scratch) == "redis://configured:6379/0"
    assert list(scratch.iterdir()) == []  # nothing was started


def test_default_data_dir(monkeypatch: pytest.MonkeyPatch, scratch: Path):
    monkeypatch.delenv("HEBEI_DATA_DIR", raising=False)
    (scratch / "pyproject.toml").write_text("")
    (scratch / "sub").mkdir()
    monkeypatch.chdir(scratch / "sub")
    assert embedded.default_data_dir() == scratch.resolve() / ".hebei"
    monkeypatch.setenv("HEBEI_DATA_DIR", str(scratch / "elsewhere"))
    assert embedded.default_data_dir() == (scratch / "elsewhere").resolve()


def test_embedded_postgres_keeps_its_data_across_a_restart(scratch: Path):
    server = embedded.start_postgres(scratch)
    try:
        assert server.url.endswith(f"/{embedded.DATABASE_NAME}?host={server.pgdata}")
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute("CREATE TABLE kept (value int); INSERT INTO kept VALUES (42)")
        server.stop()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(server.url, connect_timeout=2)
        server.start()
        with psycopg.connect(server.url) as conn:
            assert conn.execute("SELECT value FROM kept").fetchone() == (42,)
    finally:
        server.close()
