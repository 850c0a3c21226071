"""The whole local stack as separate OS processes: what ``hebei up`` runs, usable from code.

::

    from hebei.stack.processes import StackOptions, start_stack

    with start_stack(StackOptions(worker_processes=2), status=print) as stack:
        stack.address("table")            # "127.0.0.1:PORT" (several replicas: "P1,P2")
        stack.metrics_address("ledger")   # the ledger's /metrics
        stack.operator_token, stack.database_url, stack.broker_url
        stack.wait()                      # until a process exits (StackError) or Ctrl-C
    # leaving the block (or stack.stop()) stops everything start_stack started

What runs:

- PostgreSQL and Redis, embedded in this process (``hebei.common.embedded``, data under the
  data dir) unless ``database_url`` / ``broker_url`` or ``HEBEI_DATABASE_URL`` /
  ``HEBEI_BROKER_URL`` name servers; the children always get URLs and start nothing;
- the ledger, the table engine and the matchmaking service (``python -m hebei.<service>``,
  matchmaking once ``hebei.matchmaking.service`` and its ``__main__`` exist), each on
  127.0.0.1 with a gRPC port and a metrics port chosen here, a fresh operator token and a
  distinct service token; with ``table_replicas`` / ``matchmaking_replicas`` (1-8 each) the
  engine and matchmaking run as that many processes, each with its own ports, replica id and
  advertised address, and every client of the engine is given the list of all of them
  (``hebei.stack.replicas``: names, replica ids, who is given which address);
- ``bot_workers`` bot workers (``hebei bots worker``), each of ``worker_processes`` Celery
  processes, each process serving its /metrics on 127.0.0.1 (a block of consecutive ports
  chosen here: ``Stack.bot_metrics_addresses``);
- with ``monitoring``, a Prometheus (the ``prometheus`` program, e.g. Debian's package, when
  it is installed) on 127.0.0.1 scraping every /metrics above with the job names of
  ``deploy/monitoring`` (:data:`METRICS_JOBS`) and evaluating that bundle's recording rules
  and alerts (``Stack.prometheus_address``; ``Stack.monitoring_note`` says why it did not
  start). Its configuration and data live under ``<data dir>/prometheus``.

Each child's output goes to ``<log dir>/<name>.log`` (the previous run's to ``<name>.log.1``).
A service is ready when grpc.health.v1 reports SERVING, a bot worker when all its processes
appear in the fleet's worker registry (``live_workers``), Prometheus when it has scraped
every target once (so what happens next is recorded). A child that exits or is not ready
within ``ready_timeout`` fails the start with one line naming it and its log's last line.

Stopping (:meth:`Stack.stop`): Prometheus, then the bot workers (SIGTERM: they hand their
seats back), then the services, each sent SIGTERM and given ``stop_timeout`` seconds before
SIGKILL goes to its whole process group; then the embedded servers started here are released
(stopped unless another live process uses them).

Signals: while :func:`start_stack` runs, SIGINT (Ctrl-C) and SIGTERM stop the start (it then
raises KeyboardInterrupt after stopping what it started); while the stack runs, both raise
KeyboardInterrupt in the main thread (leave the ``with`` block or call stop); while it stops, a
second signal skips the waits and kills at once. Handlers are only installed when
``start_stack`` is called from the main thread.

No orphans if this process crashes: every child runs in its own session and process group
(so Ctrl-C in a terminal reaches only this process, which stops them in order), and on Linux
starts through a tiny wrapper that sets ``PR_SET_PDEATHSIG`` = SIGTERM (ctypes) and then execs
the command, so the child is stopped as soon as the thread that started it ends; the bot worker
passes SIGKILL-on-parent-death on to its Celery processes. Call :func:`start_stack` from a
thread that lives as long as the stack (the main thread). The embedded servers have a watchdog
of their own (see ``hebei.common.embedded``).

Its parts: :mod:`hebei.stack.children` (one child process: spawn, stop, respawn, its log),
:mod:`hebei.stack.readiness` (when a child is ready), :mod:`hebei.stack.replicas` (the
replicas' names, ids and who is given which address), :mod:`hebei.stack.prometheus` (the
stack's Prometheus), :mod:`hebei.stack.discovery` (the stack file).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hebei.stack.children import Child, StackError, bot_worker_argv
from hebei.stack.discovery import StackInfo, process_started
from hebei.stack.prometheus import monitoring_dir, prometheus_config, prometheus_scraping
from hebei.stack.readiness import PortTaken, wait_until_ready
from hebei.stack.replicas import (
    ServiceProcess,
    check_replicas,
    client_addresses,
    peer_address,
    replica_settings,
    service_processes,
)

__all__ = [
    "METRICS_JOBS",
    "SERVICES",
    "Stack",
    "StackError",
    "StackOptions",
    "available_services",
    "start_stack",
]

HOST = "127.0.0.1"
# In start order; "bots": the workers.
SERVICES = ("ledger", "table", "matchmaking", "botservice", "bots")
GRPC_SERVICES = ("ledger", "table", "matchmaking", "botservice")
# Run only when asked (``hebei up`` does): the bot service (hints and reviews for people)
# plays no part in a tournament, so demos and benchmarks go without it.
OPTIONAL_SERVICES = ("botservice",)
LABELS = {
    "ledger": "the ledger",
    "table": "the table engine",
    "matchmaking": "the matchmaking service",
    "botservice": "the bot service",
}
PEERS = {  # the addresses each service is given
    "table": ("ledger", "matchmaking"),
    "matchmaking": ("table", "ledger"),
    "botservice": ("table",),
}
# The Prometheus job of each process kind: the names deploy/monitoring's alerts, rules and
# dashboards select by (docker-compose and the Kubernetes monitors use them too).
METRICS_JOBS = {
    "ledger": "hebei-ledger",
    "table": "hebei-table",
    "matchmaking": "hebei-matchmaking",
    "botservice": "hebei-botservice",
    "bots": "hebei-bots",
    "web": "hebei-web",
}
START_ATTEMPTS = 3
RESTART_WINDOW = 600.0  # seconds: restarts older than this no longer count towards the limit
RESTART_BACKOFF = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)  # seconds before the 1st, 2nd, ... restart

# Variables the stack sets for its children. They are dropped from the caller's environment
# first, per-service variants included: HEBEI_LEDGER_DATABASE_URL there would beat the
# HEBEI_DATABASE_URL the stack sets, HEBEI_TLS_CERT would turn on TLS, and so on.
_SHARED_KEYS = (
    "HOST", "OPERATOR_TOKEN", "SERVICE_TOKEN", "DATABASE_URL", "BROKER_URL", "DATA_DIR",
    "TLS_CERT", "TLS_KEY", "TLS_CLIENT_CA",
)  # fmt: skip
_SERVICE_KEYS = (
    *_SHARED_KEYS, "PORT", "METRICS_PORT", "LEDGER_ADDRESS", "TABLE_ADDRESS",
    "MATCHMAKING_ADDRESS", "TABLE_ENDPOINT", "REPLICA_ID", "ADVERTISE_ADDRESS",
)  # fmt: skip
_OWNED = frozenset(
    {f"HEBEI_{key}" for key in _SHARED_KEYS}
    | {f"HEBEI_{svc.upper()}_{key}" for svc in (*SERVICES, "web") for key in _SERVICE_KEYS}
    | {"HEBEI_WEB_METRICS"}
)
# Defaults for a laptop, unless the caller's environment says otherwise.
_DEFAULT_ENV = {
    "HEBEI_GRACE_SECONDS": "3",  # calls in flight (Play streams) get this long at stop
    "HEBEI_BOTS_WARM_HANDS": "2",  # a quick start rather than full shanten tables
}


def available_services() -> tuple[str, ...]:
    """The services :func:`start_stack` runs by default: all of :data:`SERVICES` but the
    :data:`OPTIONAL_SERVICES`, the matchmaking service once its module (and ``python -m``
    entry) exists."""
    present = all(
        importlib.util.find_spec(name) is not None
        for name in ("hebei.matchmaking.service", "hebei.matchmaking.__main__")
    )
    return tuple(
        s for s in SERVICES if s not in OPTIONAL_SERVICES and (s != "matchmaking" or present)
    )


@dataclass(frozen=True, slots=True)
class StackOptions:
    services: tuple[str, ...] | None = None  # None: available_services()
    data_dir: Path | None = None  # None: hebei.common.embedded.default_data_dir()
    log_dir: Path | None = None  # None: <data_dir>/logs
    database_url: str | None = None  # None: $HEBEI_DATABASE_URL, else embedded
    broker_url: str | None = None  # None: $HEBEI_BROKER_URL, else embedded
    bot_workers: int = 1  # `hebei bots worker` processes
    worker_processes: int = 1  # Celery processes of each
    worker_sessions: int = 32  # seat sessions (threads) per Celery process
    env: Mapping[str, str] = field(default_factory=dict)  # extra environment of every child
    ready_timeout: float = 180.0  # seconds for every process to be ready
    stop_timeout: float = 30.0  # seconds a process gets after SIGTERM before SIGKILL
    monitoring: bool = False  # also run Prometheus (when the program is installed)
    monitoring_dir: Path | None = None  # None: monitoring_dir(), the repository's bundle
    scrape_seconds: float = 5.0  # Prometheus's scrape and rule evaluation interval
    prometheus: str = "prometheus"  # the program (a name on PATH or a path)
    web: bool = False  # also run the web gateway (hebei.web) in front of the services
    # Restarts of one process (a service, a bot worker, the web gateway) that exits while the
    # stack runs (Stack.wait), in RESTART_WINDOW seconds; 0: one that exits stops the stack.
    restarts: int = 0
    # Replicas of the table engine and of matchmaking, 1-8 each (hebei.stack.replicas).
    table_replicas: int = 1
    matchmaking_replicas: int = 1


def _free_ports(count: int) -> list[int]:
    """``count`` distinct free ports on 127.0.0.1 (all held open while choosing)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.bind((HOST, 0))
        return [int(sock.getsockname()[1]) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _free_port_block(count: int, avoid: set[int], attempts: int = 200) -> int:
    """The first of ``count`` consecutive free ports on 127.0.0.1, none in ``avoid`` (ports
    chosen for others but not bound yet): a bot worker's processes serve /metrics on its
    metrics port and the ones after it."""
    for _ in range(attempts):
        (base,) = _free_ports(1)
        if base + count > 65536 or avoid & set(range(base, base + count)):
            continue
        sockets = []
        try:
            for port in range(base, base + count):
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sockets.append(sock)
                sock.bind((HOST, port))
            return base
        except OSError:
            continue
        finally:
            for sock in sockets:
                sock.close()
    raise StackError(f"found no {count} consecutive free ports on {HOST}")


def redact(url: str) -> str:
    """A URL without its password, for printing."""
    scheme, sep, rest = url.partition("://")
    credentials, at, _host = rest.partition("/")[0].rpartition("@")
    user, _colon, password = credentials.partition(":")
    if not sep or not at or not password:
        return url
    return f"{scheme}://{user}:***@{rest[len(credentials) + 1 :]}"


# ------------------------------------------------------------------------------ signals


class _Signals:
    """SIGINT/SIGTERM while the stack starts (noted), runs (KeyboardInterrupt) and stops
    (skip the waits)."""

    def __init__(self) -> None:
        self.phase = "starting"
        self.received = threading.Event()
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._previous[signum] = signal.signal(signum, self._handle)

    def _handle(self, _signum: int, _frame: object) -> None:
        self.received.set()
        if self.phase == "running":
            self.phase = "stopping"  # once: a second signal must not break off the stop
            raise KeyboardInterrupt

    def enter(self, phase: str) -> None:
        self.phase = phase
        self.received.clear()

    def restore(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()


# -------------------------------------------------------------------------------- stack


class Stack:
    """The running stack; :func:`start_stack` makes one. A context manager: leaving the
    block stops it."""

    def __init__(self, options: StackOptions, status: Callable[[str], None]) -> None:
        from hebei.common import embedded

        self.options = options
        self.status = status
        self.services = tuple(options.services or available_services())
        self.data_dir = Path(options.data_dir or embedded.default_data_dir()).resolve()
        self.log_dir = Path(options.log_dir or self.data_dir / "logs").resolve()
        self.operator_token = secrets.token_urlsafe(24)
        self.service_token = secrets.token_urlsafe(24)
        self.database_url = ""
        self.broker_url = ""
        self.bots_redis_url: str | None = None  # the seat leases' Redis, when not the broker
        self.children: dict[str, Child] = {}
        # the gRPC processes to run: each service, each replica of the replicated ones
        self.processes = service_processes(
            (s for s in GRPC_SERVICES if s in self.services),
            {"table": options.table_replicas, "matchmaking": options.matchmaking_replicas},
        )
        self.prometheus_address: str | None = None  # 127.0.0.1:PORT of the stack's Prometheus
        self.web_url: str | None = None  # http://127.0.0.1:PORT/ of the web gateway
        self.monitoring_note: str | None = None  # why Prometheus did not start, if it did not
        self.started = time.time()
        self._tag = secrets.token_hex(3)
        self._release: list[Callable[[], None]] = []  # embedded servers to release at stop
        self._restarts: dict[str, list[float]] = {}  # child name -> when it was restarted
        self._restart_due: dict[str, float] = {}  # child name -> when to restart it
        self._signals = _Signals()
        self._stopped = False

    # ----------------------------------------------------------------- what callers use

    def address(self, service: str) -> str:
        """``127.0.0.1:PORT`` of a gRPC service (ledger, table, matchmaking), or of one
        replica by its process name (``table-1``); a service of several replicas: their
        comma-separated list (``127.0.0.1:P1,127.0.0.1:P2``, what its clients take)."""
        address = self.addresses.get(service) or self.replica_addresses.get(service)
        if address is None:
            raise KeyError(f"this stack runs no {service} service")
        return address

    def metrics_address(self, service: str) -> str:
        """``127.0.0.1:PORT`` of a service's Prometheus endpoint (``/metrics``)."""
        child = self.children.get(service)
        if child is None or child.metrics_address is None:
            raise KeyError(f"this stack serves no metrics for {service}")
        return child.metrics_address

    @property
    def addresses(self) -> dict[str, str]:
        """Each gRPC service's address as its clients take it (a comma-separated list for a
        service of several replicas)."""
        return client_addresses(self.processes, self.replica_addresses)

    @property
    def replica_addresses(self) -> dict[str, str]:
        """``127.0.0.1:PORT`` of each gRPC process by its name (``table-0``, ``table-1``, ...
        for replicas; ``table`` while the engine runs once)."""
        return {n: c.address for n, c in self.children.items() if c.address is not None}

    @property
    def metrics_addresses(self) -> dict[str, str]:
        return {
            n: c.metrics_address
            for n, c in self.children.items()
            if c.metrics_address is not None and c.address is not None
        }

    @property
    def web_metrics_address(self) -> str | None:
        """``127.0.0.1:PORT`` of the web gateway's ``/metrics`` (None: no gateway)."""
        web = self.children.get("web")
        return None if web is None else web.metrics_address

    @property
    def bot_metrics_addresses(self) -> list[str]:
        """``127.0.0.1:PORT`` of each bot worker process's ``/metrics``."""
        return [address for c in self.bot_workers for address in c.process_metrics]

    @property
    def bot_workers(self) -> list[Child]:
        return [c for c in self.children.values() if c.worker_name is not None]

    @property
    def bot_processes(self) -> int:
        return sum(c.processes for c in self.bot_workers)

    @property
    def registry_url(self) -> str:
        """The Redis of the seat leases and the bot workers' registry: the broker, or with a
        RabbitMQ broker ``HEBEI_BOTS_REDIS_URL`` (or the embedded Redis started for it)."""
        return self.bots_redis_url or self.broker_url

    @property
    def client_env(self) -> dict[str, str]:
        """What a client of this stack needs in its environment (``send_seat`` included):
        ``os.environ.update(stack.client_env)`` in this process, or pass it to a child."""
        env = {
            "HEBEI_OPERATOR_TOKEN": self.operator_token,
            "HEBEI_DATABASE_URL": self.database_url,
            "HEBEI_BROKER_URL": self.broker_url,
        }
        if self.bots_redis_url:
            env["HEBEI_BOTS_REDIS_URL"] = self.bots_redis_url
        if "HEBEI_BOTS_QUEUE_PREFIX" in self.options.env:
            env["HEBEI_BOTS_QUEUE_PREFIX"] = self.options.env["HEBEI_BOTS_QUEUE_PREFIX"]
        return env

    def info(self) -> StackInfo:
        """What ``stack.json`` holds for this stack (run by this process)."""
        return StackInfo(
            pid=os.getpid(),
            started=process_started(os.getpid()) or self.started,
            addresses=self.addresses,
            metrics=self.metrics_addresses,
            replicas=self.replica_addresses,
            operator_token=self.operator_token,
            database_url=self.database_url,
            broker_url=self.broker_url,
            bots_redis_url=self.bots_redis_url,
            bot_processes=self.bot_processes,
            data_dir=str(self.data_dir),
            log_dir=str(self.log_dir),
        )

    def check(self) -> None:
        """Raise StackError (one line) if one of the stack's processes has exited."""
        for child in self.children.values():
            if not child.running():
                raise StackError(child.exit_message())

    def wait(self, timeout: float | None = None) -> None:
        """Block until a process exits (StackError), a signal arrives (KeyboardInterrupt) or
        ``timeout`` seconds pass. With ``options.restarts``, a process that exits is started
        again instead (:meth:`supervise`): StackError only once one exceeds the limit."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while deadline is None or time.monotonic() < deadline:
            if self.options.restarts > 0:
                self.supervise()
            else:
                self.check()
            time.sleep(0.2)

    def supervise(self) -> None:
        """Start again each process that exited, on the same ports, with the same tokens and
        environment, after a backoff (RESTART_BACKOFF); each restart is one status line.
        StackError (one line) when a process exited more than ``options.restarts`` times in
        RESTART_WINDOW seconds: the stack gives up (and is then stopped by its owner)."""
        now = time.monotonic()
        for child in self.children.values():
            if child.running():
                self._restart_due.pop(child.name, None)
                continue
            due = self._restart_due.get(child.name)
            if due is None:
                history = [
                    t for t in self._restarts.get(child.name, []) if now - t < RESTART_WINDOW
                ]
                self._restarts[child.name] = history
                if len(history) >= self.options.restarts:
                    raise StackError(
                        f"{child.exit_message()}; gave up after {len(history)} "
                        f"restart{'' if len(history) == 1 else 's'} in "
                        f"{RESTART_WINDOW / 60:.0f} minutes"
                    )
                delay = RESTART_BACKOFF[min(len(history), len(RESTART_BACKOFF) - 1)]
                self._restart_due[child.name] = now + delay
                self.status(f"{child.exit_message()}; restarting it in {delay:g} s")
            elif now >= due:
                del self._restart_due[child.name]
                self._restarts[child.name].append(now)
                child.respawn()
                count = len(self._restarts[child.name])
                self.status(
                    f"restarted {child.label} (pid {child.pid}, restart {count} of at most "
                    f"{self.options.restarts} in {RESTART_WINDOW / 60:.0f} minutes)"
                )

    def stop(self) -> None:
        """Stop every process, then release the embedded servers; safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        self._signals.enter("stopping")
        hurry = self._signals.received
        try:
            prometheus = [c for c in self.children.values() if c.ready_check is not None]
            services = [c for c in self.children.values() if c.address]
            for group in (prometheus, self.bot_workers, services):
                if not group:
                    continue
                self.status(f"stopping {', '.join(c.label for c in group)}")
                for child in group:
                    child.terminate()
                deadline = time.monotonic() + self.options.stop_timeout
                for child in group:
                    child.reap(deadline, hurry)
            if self._release:
                self.status("stopping the embedded servers")
            for release in reversed(self._release):
                with contextlib.suppress(Exception):  # one failure must not keep the others
                    release()
            self._release.clear()
        finally:
            self._signals.restore()

    def __enter__(self) -> Stack:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    # ----------------------------------------------------------------------- starting

    def _interrupted(self) -> None:
        if self._signals.received.is_set():
            raise KeyboardInterrupt

    def _start(self) -> None:
        unknown = [s for s in self.services if s not in SERVICES]
        if unknown:
            raise StackError(
                f"unknown service {unknown[0]!r}; the stack runs {', '.join(SERVICES)}"
            )
        if "matchmaking" in self.services and "matchmaking" not in available_services():
            raise StackError("the matchmaking service is not available yet (hebei.matchmaking)")
        options = self.options
        if options.bot_workers < 0 or options.worker_processes < 1 or options.worker_sessions < 1:
            raise StackError("bot_workers must be >= 0, worker_processes and sessions >= 1")
        try:
            check_replicas(options.table_replicas, options.matchmaking_replicas)
        except ValueError as exc:
            raise StackError(str(exc)) from None
        self._signals.install()
        self._start_databases()
        self._interrupted()
        for attempt in range(1, START_ATTEMPTS + 1):
            self._spawn_all()
            try:
                children = list(self.children.values())
                if children:
                    self.status(f"waiting for {', '.join(c.label for c in children)}")
                wait_until_ready(
                    children,
                    options.ready_timeout,
                    self.registry_url,
                    self._interrupted,
                )
                break
            except PortTaken as exc:
                if attempt == START_ATTEMPTS:
                    raise StackError(str(exc)) from None
                self.status("a port was taken meanwhile: starting again on other ports")
                for child in self.children.values():
                    child.stop(options.stop_timeout)
                self.children.clear()
        self._signals.enter("running")

    def _start_databases(self) -> None:
        from hebei.common import embedded

        database_url = self.options.database_url or os.environ.get(embedded.DATABASE_URL_ENV)
        broker_url = self.options.broker_url or os.environ.get(embedded.BROKER_URL_ENV)
        if database_url:
            self.status(f"using PostgreSQL at {redact(database_url)}")
        else:
            self.status(f"starting PostgreSQL (embedded, data in {self.data_dir / 'postgres'})")
            handle = embedded.start_postgres(self.data_dir)
            self._release.append(handle.close)
            database_url = handle.url
        if broker_url:
            self.status(f"using the broker at {redact(broker_url)}")
        else:
            self.status(f"starting Redis (embedded, data in {self.data_dir / 'redis'})")
            redis_handle = embedded.start_redis(self.data_dir)
            self._release.append(redis_handle.release)
            broker_url = redis_handle.url
        self.bots_redis_url = os.environ.get("HEBEI_BOTS_REDIS_URL") or None
        if not self.bots_redis_url and not broker_url.startswith(("redis://", "rediss://")):
            # RabbitMQ: the seat leases still need one Redis that every worker shares.
            self.status("starting Redis for the seat leases (embedded)")
            redis_handle = embedded.start_redis(self.data_dir)
            self._release.append(redis_handle.release)
            self.bots_redis_url = redis_handle.url
        self.database_url, self.broker_url = database_url, broker_url

    def _env(
        self,
        service: str,
        addresses: dict[str, str],
        process: ServiceProcess | None = None,
        metrics_port: int | None = None,
    ) -> dict[str, str]:
        """A child's environment: the shared settings, a gRPC process's ports and replica
        settings, its peers' addresses (``addresses``: process name -> host:port; see
        :func:`hebei.stack.replicas.peer_address`)."""
        env = {k: v for k, v in os.environ.items() if k not in _OWNED}
        for key, value in _DEFAULT_ENV.items():
            env.setdefault(key, value)
        env.update(self.options.env)
        env.update(
            PYTHONUNBUFFERED="1",
            HEBEI_HOST=HOST,
            HEBEI_OPERATOR_TOKEN=self.operator_token,
            HEBEI_SERVICE_TOKEN=self.service_token,
            HEBEI_DATABASE_URL=self.database_url,
            HEBEI_BROKER_URL=self.broker_url,
            HEBEI_DATA_DIR=str(self.data_dir),
        )
        if self.bots_redis_url:
            env["HEBEI_BOTS_REDIS_URL"] = self.bots_redis_url
        prefix = f"HEBEI_{service.upper()}_"
        if process is not None:
            address = addresses[process.name]
            env[prefix + "PORT"] = address.rpartition(":")[2]
            env[prefix + "METRICS_PORT"] = str(metrics_port)
            env.update(replica_settings(process, address))
        for peer in PEERS.get(service, ()):
            index = process.index if process is not None else 0
            found = peer_address(peer, self.processes, addresses, index)
            if found is not None:
                env[f"{prefix}{peer.upper()}_ADDRESS"] = found
        if service == "matchmaking" and prefix + "TABLE_ADDRESS" in env:
            # what seat tickets and seatings name: every engine replica, like its own address
            env[prefix + "TABLE_ENDPOINT"] = env[prefix + "TABLE_ADDRESS"]
        return env

    def _spawn_all(self) -> None:
        processes = self.processes
        chosen = iter(_free_ports(2 * len(processes) + 3))
        ports = {p.name: (next(chosen), next(chosen)) for p in processes}
        prometheus_port, web_port, web_metrics_port = next(chosen), next(chosen), next(chosen)
        taken = {port for pair in ports.values() for port in pair}
        taken |= {prometheus_port, web_port, web_metrics_port}
        addresses = {name: f"{HOST}:{pair[0]}" for name, pair in ports.items()}
        for process in processes:
            self._interrupted()
            label = process.label(LABELS[process.service])
            self.status(f"starting {label}")
            argv = [sys.executable, "-m", f"hebei.{process.service}"]
            env = self._env(process.service, addresses, process, ports[process.name][1])
            child = Child.spawn(
                process.name, label, argv, env, self.log_dir / f"{process.name}.log"
            )
            child.address = addresses[process.name]
            child.metrics_address = f"{HOST}:{ports[process.name][1]}"
            child.service = process.service
            self.children[process.name] = child
        workers = self.options.bot_workers if "bots" in self.services else 0
        for index in range(1, workers + 1):
            self._interrupted()
            processes = self.options.worker_processes
            label = "the bot worker" if workers == 1 else f"bot worker {index}"
            plural = "es" if processes > 1 else ""
            self.status(f"starting {label} ({processes} Celery process{plural})")
            name = f"local{index}-{self._tag}"
            metrics_port = _free_port_block(processes, taken)
            taken.update(range(metrics_port, metrics_port + processes))
            argv = bot_worker_argv(
                processes, self.options.worker_sessions, name, metrics_port=metrics_port
            )
            child = Child.spawn(
                f"bots-{index}",
                label,
                argv,
                self._env("bots", addresses),
                self.log_dir / f"bots-{index}.log",
            )
            child.worker_name, child.processes = name, processes
            child.process_metrics = tuple(f"{HOST}:{metrics_port + i}" for i in range(processes))
            self.children[child.name] = child
        if self.options.web:
            self._spawn_web(web_port, web_metrics_port, addresses)
        if self.options.monitoring:
            self._spawn_prometheus(prometheus_port)

    def _spawn_web(self, port: int, metrics_port: int, addresses: dict[str, str]) -> None:
        """Start the web gateway in front of the services (``python -m hebei.web``), its
        /metrics on ``metrics_port``; ``addresses``: each gRPC process's."""
        from hebei.web.server import ready

        self._interrupted()
        self.status("starting the web gateway")
        env = self._env("web", addresses)
        env["HEBEI_WEB_PORT"], env["HEBEI_WEB_METRICS_PORT"] = str(port), str(metrics_port)
        for service in ("table", "matchmaking", "ledger", "botservice"):
            found = peer_address(service, self.processes, addresses)
            if found is not None:
                env[f"HEBEI_WEB_{service.upper()}_ADDRESS"] = found
        env["HEBEI_WEB_METRICS"] = ",".join(
            f"{name}={child.metrics_address}"
            for name, child in self.children.items()
            if child.address and child.metrics_address
        )
        argv = [sys.executable, "-m", "hebei.web"]
        child = Child.spawn("web", "the web gateway", argv, env, self.log_dir / "web.log")
        address = f"{HOST}:{port}"
        child.ready_check = lambda: ready(address)
        child.metrics_address = f"{HOST}:{metrics_port}"
        self.children["web"] = child
        self.web_url = f"http://{address}/"

    def _spawn_prometheus(self, port: int) -> None:
        """Start Prometheus scraping every /metrics of the stack, or say why not."""
        program = shutil.which(self.options.prometheus)
        if program is None:
            self.monitoring_note = (
                f"no {self.options.prometheus} program found (Debian: apt-get install "
                "prometheus): the stack runs without it"
            )
            self.status(self.monitoring_note)
            return
        bundle = self.options.monitoring_dir or monitoring_dir()
        if bundle is None:
            self.monitoring_note = "no monitoring bundle (deploy/monitoring): no rules or alerts"
            self.status(self.monitoring_note)
        targets: dict[str, list[str]] = {}
        for c in self.children.values():  # a replicated service: one job, every replica
            if c.address and c.metrics_address and c.service in METRICS_JOBS:
                targets.setdefault(METRICS_JOBS[c.service], []).append(c.metrics_address)
        targets[METRICS_JOBS["bots"]] = self.bot_metrics_addresses
        if self.web_metrics_address:
            targets[METRICS_JOBS["web"]] = [self.web_metrics_address]
        folder = self.data_dir / "prometheus"
        folder.mkdir(parents=True, exist_ok=True)
        config = folder / "prometheus.yml"
        config.write_text(prometheus_config(targets, bundle, self.options.scrape_seconds))
        address = f"{HOST}:{port}"
        argv = [
            program,
            f"--config.file={config}",
            f"--storage.tsdb.path={folder / 'data'}",
            "--storage.tsdb.retention.time=2d",
            f"--web.listen-address={address}",
        ]
        self.status(f"starting Prometheus on {address}")
        env = {k: v for k, v in os.environ.items() if k not in _OWNED}
        child = Child.spawn("prometheus", "Prometheus", argv, env, self.log_dir / "prometheus.log")
        count = sum(len(addresses) for addresses in targets.values())
        child.ready_check = lambda: prometheus_scraping(address, count)
        self.children["prometheus"] = child
        self.prometheus_address = address


def start_stack(
    options: StackOptions | None = None, status: Callable[[str], None] | None = None
) -> Stack:
    """Start the stack (see the module doc) and return it once every process is ready.

    ``status`` receives one progress line per step (``starting the ledger``). Raises
    StackError (one line) when something fails to start, KeyboardInterrupt when SIGINT or
    SIGTERM arrives meanwhile; either way, whatever was started is stopped first.
    """
    stack = Stack(options or StackOptions(), status or (lambda _text: None))
    try:
        stack._start()
    except BaseException:
        stack.stop()
        raise
    return stack
