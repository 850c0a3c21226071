"""How other commands find the stack that ``hebei up`` runs: ``<data dir>/stack.json``.

``hebei up`` holds an exclusive lock on ``<data dir>/stack.lock`` for as long as it runs (the
kernel drops it if the process dies), so a second ``hebei up`` on the same data directory
knows one is running. Once every service is ready it writes ``stack.json`` (mode 0600: it holds
the operator token) with the addresses, metrics addresses, operator token, database and broker
URLs and its own pid and start time, and removes the file when it stops. A service of several
replicas (the table engine, matchmaking: ``hebei up --table-replicas N``) has its address as
its clients take it, the comma-separated list of its replicas, in ``addresses``, and each
replica by its process name (``table-0``, ``table-1``, ...) in ``replicas`` and ``metrics``.

:func:`find_stack` reads the file and returns None unless the process that wrote it still
runs (the pid and its start time must match, so a reused pid does not count): a stack killed
with SIGKILL leaves a file behind that nobody trusts.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STACK_FILE = "stack.json"
LOCK_FILE = "stack.lock"
VERSION = 1


@dataclass(frozen=True, slots=True)
class StackInfo:
    """A running stack, as written to ``stack.json``."""

    pid: int  # the process that runs the stack (``hebei up``)
    started: float  # that process's start time (seconds since the epoch)
    addresses: dict[str, str]  # service -> host:port (ledger, table, matchmaking), or a list
    metrics: dict[str, str]  # process (service, or replica "table-1") -> host:port of /metrics
    operator_token: str
    database_url: str
    broker_url: str
    bots_redis_url: str | None = None  # the seat leases' Redis when the broker is not Redis
    bot_processes: int = 0
    data_dir: str = ""
    log_dir: str = ""
    replicas: dict[str, str] = field(default_factory=dict)  # process -> host:port, each replica

    def address(self, service: str) -> str:
        """``host:port`` of a gRPC service (the comma-separated list of its replicas when it
        runs several), or of one replica by its process name (``table-1``); KeyError names
        the services this stack runs."""
        try:
            return self.addresses.get(service) or self.replicas[service]
        except KeyError:
            raise KeyError(
                f"this stack runs no {service} service (it runs {', '.join(self.addresses)})"
            ) from None

    def metrics_address(self, service: str) -> str:
        """``host:port`` of a service's Prometheus endpoint (``/metrics``)."""
        try:
            return self.metrics[service]
        except KeyError:
            raise KeyError(f"this stack serves no metrics for {service}") from None

    def to_json(self) -> dict[str, Any]:
        return {"version": VERSION, **asdict(self)}

    @classmethod
    def from_json(cls, data: Any) -> StackInfo:
        """Parse the file's content; ValueError when it is not a stack file of this version."""
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise ValueError("not a stack file of this version")
        try:
            return cls(
                pid=int(data["pid"]),
                started=float(data["started"]),
                addresses={str(k): str(v) for k, v in data["addresses"].items()},
                metrics={str(k): str(v) for k, v in data["metrics"].items()},
                operator_token=str(data["operator_token"]),
                database_url=str(data["database_url"]),
                broker_url=str(data["broker_url"]),
                bots_redis_url=data.get("bots_redis_url"),
                bot_processes=int(data.get("bot_processes", 0)),
                data_dir=str(data.get("data_dir", "")),
                log_dir=str(data.get("log_dir", "")),
                replicas={str(k): str(v) for k, v in (data.get("replicas") or {}).items()},
            )
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"incomplete stack file ({exc})") from None


def stack_file(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<data dir>/stack.json``; the data dir defaults as for the embedded databases."""
    from hebei.common.embedded import default_data_dir

    return (Path(data_dir) if data_dir is not None else default_data_dir()) / STACK_FILE


def process_started(pid: int) -> float | None:
    """The start time of process ``pid`` (seconds since the epoch), None if it does not run."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return float(process.create_time())
    except psutil.Error:
        return None


def is_running(info: StackInfo) -> bool:
    """Whether the process that wrote ``info`` still runs (and is the same process)."""
    started = process_started(info.pid)
    return started is not None and abs(started - info.started) < 2.0


def read_stack_file(path: Path) -> StackInfo | None:
    """The stack file's content, None when it is missing or unreadable (alive or not)."""
    try:
        return StackInfo.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def find_stack(data_dir: str | os.PathLike[str] | None = None) -> StackInfo | None:
    """The stack that ``hebei up`` runs on this data directory, or None when none runs."""
    info = read_stack_file(stack_file(data_dir))
    return info if info is not None and is_running(info) else None


def write_stack_file(path: Path, info: StackInfo) -> None:
    """Write ``info`` atomically, readable by its owner only (0600)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(info.to_json(), handle, indent=2)
            handle.write("\n")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def remove_stack_file(path: Path, pid: int | None = None) -> None:
    """Remove the stack file if it is ours (written by ``pid``, default this process)."""
    info = read_stack_file(path)
    if info is not None and info.pid == (os.getpid() if pid is None else pid):
        with contextlib.suppress(OSError):
            path.unlink()


class StackRunning(Exception):
    """Another process runs a stack on this data directory (its info, when it is ready)."""

    def __init__(self, path: Path, info: StackInfo | None) -> None:
        self.path = path
        self.info = info
        if info is not None:
            where = ", ".join(f"{name} {address}" for name, address in info.addresses.items())
            text = f"a stack is already running here (pid {info.pid}: {where})"
        else:
            text = f"a stack is already starting or running here ({path.parent})"
        super().__init__(f"{text}; stop it first (Ctrl-C in its terminal)")


class StackLock:
    """The lock ``hebei up`` holds while it runs: :meth:`acquire` raises StackRunning when
    another process holds it."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._fd: int | None = None

    def acquire(self) -> None:
        import fcntl

        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            path = self.data_dir / STACK_FILE
            raise StackRunning(path, find_stack(self.data_dir)) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # the lock goes with the descriptor; the file stays
            self._fd = None

    def __enter__(self) -> StackLock:
        self.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self.release()
