"""The server bootstrap: ``create_server`` builds, ``serve`` runs until SIGTERM.

A service's main is a few lines::

    def build(config: ServerConfig) -> ServiceSpec:
        servicer = LedgerServicer(database_url=EnvReader("ledger").text("DATABASE_URL", shared=True))
        return ServiceSpec("hebei.v1.LedgerService", add_LedgerServiceServicer_to_server, servicer)

    if __name__ == "__main__":
        run_service("ledger", build)

``run_service`` reads ``HEBEI_LEDGER_*`` / ``HEBEI_*`` (ports default to
``config.DEFAULT_PORTS``), serves until SIGTERM, and turns a ConfigError raised by the
configuration or by ``build`` into one line on stderr and exit status 2.

A service whose spec says ``asyncio=True`` (the table engine) is served by ``grpc.aio`` on one
event loop of its own thread (:class:`AsyncServer`): its handlers are coroutines, and the
asyncio forms of the same interceptors wrap them. Its :class:`Server` handle is the same (a
synchronous ``start``, ``drain``, ``stop``), so ``serve`` and the tests run either alike.

Every server gets grpc.health.v1 (a status per service and the overall ""), reflection,
message size limits, and the interceptors, outermost first: metrics, call log, error mapping,
auth, decoding (requests are parsed by ``hebei.common.errors.DecodeInterceptor``, so bytes
that are not a valid message are INVALID_ARGUMENT, never grpcio's INTERNAL). Health checks
run on a thread pool of their own: they are answered however busy the workers are (on an
asyncio server they are answered on the loop, which never blocks: blocking work runs on the
loop's executor).

On SIGTERM (or SIGINT) health turns NOT_SERVING at once and each service's ``drain`` hook
runs (the table engine stops its clocks and closes its long-lived streams with UNAVAILABLE,
which its clients read as "reconnect"). The server then keeps answering every call (the
drain) until no call but health checks has arrived for :data:`DRAIN_QUIET_SECONDS`, or for at
most ``drain_seconds`` (``HEBEI_DRAIN_SECONDS``, 5 s by default); only then does it stop
accepting calls and give those in flight ``grace_seconds`` (``HEBEI_GRACE_SECONDS``, 10 s) to
finish. Why: gRPC's stop cancels every call it received but had not handed to a handler yet
(under load a server is a fraction of a second behind its connections), so stopping at once
answered calls sent well before the signal with CANCELLED. Draining, health-checking clients
and load balancers go elsewhere while the calls already sent reach a handler and finish; an
idle server stops after DRAIN_QUIET_SECONDS. A call that still meets the stop (refused:
UNAVAILABLE, or cancelled unhandled: CANCELLED) is retried by every channel of
``hebei.common.client`` when its method is idempotent (``IDEMPOTENT_METHODS``). A second
signal skips the drain.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any, NoReturn

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from hebei.common.auth import (
    AsyncAuthInterceptor,
    AuthInterceptor,
    FailedAuthentications,
    TokenAuthority,
)
from hebei.common.config import DEFAULT_PORTS, ServerConfig, StartupError, run_main
from hebei.common.errors import (
    AsyncDecodeInterceptor,
    AsyncErrorInterceptor,
    DecodeInterceptor,
    ErrorInterceptor,
)
from hebei.common.interceptors import POOL_ATTRIBUTE, AsyncInterceptorChain
from hebei.common.logs import AsyncCallLogInterceptor, CallLogInterceptor, configure_logging
from hebei.common.metrics import (
    AsyncServerMetricsInterceptor,
    ServerMetricsInterceptor,
    start_metrics_server,
)

log = logging.getLogger("hebei.server")

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
OVERALL = ""  # the health service name meaning "the whole server"
HEALTH_THREADS = 4  # Health/Check's own workers (never the server's, however busy)
# The drain ends once no call (health checks aside) reached the server for this long: the calls
# it had received were all handed to a handler, and its clients have gone elsewhere.
DRAIN_QUIET_SECONDS = 1.0
HEALTH_PREFIX = "/grpc.health.v1.Health/"


class Activity:
    """When a call (health checks aside) last reached this server's handlers."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def saw(self, method: str) -> None:
        if not method.startswith(HEALTH_PREFIX):
            self.last = time.monotonic()

    def quiet_for(self) -> float:
        return time.monotonic() - self.last


class _ActivityInterceptor(grpc.ServerInterceptor):
    """Notes each call's arrival in :class:`Activity` (outermost: before any other work)."""

    def __init__(self, activity: Activity) -> None:
        self.activity = activity

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        self.activity.saw(details.method)
        return continuation(details)


class _AsyncActivityInterceptor(grpc.aio.ServerInterceptor):
    """:class:`_ActivityInterceptor` for a ``grpc.aio`` server."""

    def __init__(self, activity: Activity) -> None:
        self.activity = activity

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        self.activity.saw(details.method)
        return await continuation(details)


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    """One gRPC service to host: its full name, the generated add function and the servicer."""

    name: str  # e.g. "hebei.v1.LedgerService"
    add_servicer: Callable[[Any, grpc.Server], None]
    servicer: Any
    # Called once when the server starts to stop (SIGTERM), before the calls in flight are
    # given their grace: e.g. close long-lived streams with UNAVAILABLE ("reconnect").
    drain: Callable[[], None] | None = None
    # The servicer's handlers are coroutines: the service is served by grpc.aio (every
    # service of one server must then be).
    asyncio: bool = False


def server_options(config: ServerConfig) -> list[tuple[str, Any]]:
    """Channel arguments of every server: message size limits, no port sharing."""
    return [
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.max_send_message_length", config.max_message_bytes),
        ("grpc.so_reuseport", 0),
    ]


@dataclass
class Server:
    """A built server: start it, mark services (not) serving, stop it gracefully."""

    grpc_server: grpc.Server
    config: ServerConfig
    port: int
    health: health.HealthServicer
    service_names: tuple[str, ...]
    metrics_port: int | None = None
    drains: tuple[Callable[[], None], ...] = ()
    activity: Activity = field(default_factory=Activity)
    _metrics_http: Any = field(default=None, repr=False)
    _drained: bool = field(default=False, repr=False)

    def start(self) -> None:
        """Start serving calls (and the metrics endpoint); every service reports SERVING."""
        if self.config.metrics_port is not None:
            try:
                self._metrics_http, self.metrics_port = start_metrics_server(
                    self.config.metrics_port, self.config.host
                )
            except OSError as exc:
                raise StartupError(
                    f"cannot serve metrics on {self.config.host}:{self.config.metrics_port}: "
                    f"{exc.strerror or exc}"
                ) from None
        self._start_grpc()
        self.set_serving(True)

    def set_serving(self, serving: bool, service: str | None = None) -> None:
        """Set one service's health status, or (service None) every service and the overall."""
        status = SERVING if serving else NOT_SERVING
        for name in (service,) if service else (*self.service_names, OVERALL):
            self._set_health(name, status)

    def _start_grpc(self) -> None:
        self.grpc_server.start()

    def _set_health(self, name: str, status: Any) -> None:
        self.health.set(name, status)

    def _stop_grpc(self, grace: float) -> None:
        self.health.enter_graceful_shutdown()
        self.grpc_server.stop(grace).wait()

    def drain(self) -> None:
        """Health NOT_SERVING, then each service's drain hook (once; see ServiceSpec.drain)."""
        self.set_serving(False)
        if self._drained:
            return
        self._drained = True
        for hook in self.drains:
            try:
                hook()
            except Exception:  # one service's hook must not keep the others from draining
                log.exception("drain hook failed")

    def wait_drained(self, seconds: float, interrupted: threading.Event | None = None) -> None:
        """Keep serving (NOT_SERVING) until no call arrived for DRAIN_QUIET_SECONDS, at most
        ``seconds``, or until ``interrupted`` is set."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            quiet = self.activity.quiet_for()
            if quiet >= DRAIN_QUIET_SECONDS:
                return
            wait = min(left, DRAIN_QUIET_SECONDS - quiet)
            if interrupted is not None and interrupted.wait(wait):
                return
            if interrupted is None:
                time.sleep(wait)

    def stop(self, grace: float | None = None) -> None:
        """Drain, refuse new calls, let calls in flight finish within ``grace`` seconds, stop."""
        self.drain()
        self._stop_grpc(self.config.grace_seconds if grace is None else grace)
        if self._metrics_http is not None:
            self._metrics_http.shutdown()
            self._metrics_http.server_close()
            self._metrics_http = None


@dataclass
class AsyncServer(Server):
    """A ``grpc.aio`` server on an event loop of its own thread, driven like :class:`Server`
    from any other thread (its calls wait for the loop)."""

    loop: asyncio.AbstractEventLoop | None = None
    thread: threading.Thread | None = None
    executor: futures.ThreadPoolExecutor | None = None

    def _on_loop(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coroutine`` on the loop and wait for it (nothing once the server stopped)."""
        if self.loop.is_closed() or not self.thread.is_alive():
            coroutine.close()
            return None
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def _start_grpc(self) -> None:
        self._on_loop(self.grpc_server.start())

    def _set_health(self, name: str, status: Any) -> None:
        self._on_loop(self.health.set(name, status))

    def _stop_grpc(self, grace: float) -> None:
        if self.loop.is_closed() or not self.thread.is_alive():
            return
        self._on_loop(self.health.enter_graceful_shutdown())
        self._on_loop(self.grpc_server.stop(grace))
        self._on_loop(_cancel_tasks())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.executor.shutdown(wait=False, cancel_futures=True)


async def _cancel_tasks() -> None:
    """Cancel what still runs on the loop (readers of streams that ended) and wait for it."""
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop's event loop when it is installed, else asyncio's own: the asyncio server's and
    the bots' seat loop's (measured there: 7-10% less of the seat loop's CPU per decision
    outside the policy, 32 sessions on a stand-in engine)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def _loop_thread(name: str) -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    """A new event loop (:func:`new_event_loop`) running on a daemon thread of its own."""
    loop = new_event_loop()

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:
            loop.close()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return loop, thread


def _as_specs(specs: ServiceSpec | Sequence[ServiceSpec]) -> tuple[ServiceSpec, ...]:
    return (specs,) if isinstance(specs, ServiceSpec) else tuple(specs)


def _check_port_free(host: str, port: int) -> None:
    """Raise StartupError with one line when ``host:port`` is taken (grpc would only log it)."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise StartupError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    family, kind, proto, _name, sockaddr = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(sockaddr)
        except OSError as exc:
            raise StartupError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def authority(config: ServerConfig) -> TokenAuthority:
    """The tokens a server accepts, and its bound on wrong ones (HEBEI_AUTH_MAX_FAILURES...)."""
    service_tokens = [config.service_token] if config.service_token else []
    failures = FailedAuthentications(
        config.auth_failures_per_peer, config.auth_failures_total, config.auth_failure_seconds
    )
    return TokenAuthority(config.operator_token, service_tokens, failures=failures)


def create_server(
    specs: ServiceSpec | Sequence[ServiceSpec],
    config: ServerConfig,
    *,
    interceptors: Sequence[grpc.ServerInterceptor] = (),
) -> Server:
    """Build (not start) a server hosting ``specs`` on ``config.host:config.port``.

    ``config.port`` 0 picks a free port, returned as ``Server.port``. Extra ``interceptors``
    run inside the standard ones.
    """
    specs = _as_specs(specs)
    if any(spec.asyncio for spec in specs):
        if not all(spec.asyncio for spec in specs):
            raise ValueError("an asyncio service cannot share a server with synchronous ones")
        return _create_async_server(specs, config, interceptors)
    activity = Activity()
    standard: list[grpc.ServerInterceptor] = [
        _ActivityInterceptor(activity),
        ServerMetricsInterceptor(),
        CallLogInterceptor(),
        ErrorInterceptor(),
        AuthInterceptor(authority(config)),
        DecodeInterceptor(),  # innermost: see hebei.common.errors
    ]
    grpc_server = grpc.server(
        futures.ThreadPoolExecutor(
            max_workers=config.max_workers, thread_name_prefix=f"{config.service}-rpc"
        ),
        interceptors=[*standard, *interceptors],
        options=server_options(config),
    )
    health_servicer = _health_servicer()
    port = _add_services(grpc_server, specs, health_servicer, config)
    for name in (*_names(specs), OVERALL):
        health_servicer.set(name, NOT_SERVING)  # until start()
    return _built(Server, specs, activity, grpc_server, config, port, health_servicer)


def _built(
    kind: type[Server], specs: Sequence[ServiceSpec], activity: Activity, *args: Any, **extra: Any
) -> Any:
    """A ``kind`` of :class:`Server` for ``specs``: ``args`` (the gRPC server, config, port,
    health servicer), the services' names and drain hooks, ``activity``, ``extra``."""
    drains = tuple(spec.drain for spec in specs if spec.drain is not None)
    return kind(*args, _names(specs), drains=drains, activity=activity, **extra)


def _names(specs: Sequence[ServiceSpec]) -> tuple[str, ...]:
    return tuple(spec.name for spec in specs)


def _add_services(
    grpc_server: Any, specs: Sequence[ServiceSpec], health_servicer: Any, config: ServerConfig
) -> int:
    """Add the services, health and reflection to ``grpc_server`` (either kind) and its
    port; returns the port."""
    for spec in specs:
        spec.add_servicer(spec.servicer, grpc_server)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, grpc_server)
    reflection.enable_server_reflection(
        (*_names(specs), health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
         reflection.SERVICE_NAME),
        grpc_server,
    )  # fmt: skip
    address = f"{config.host}:{config.port}"
    _check_port_free(config.host, config.port)
    try:
        if config.tls is not None:
            port = grpc_server.add_secure_port(address, config.tls.server_credentials())
        else:
            port = grpc_server.add_insecure_port(address)
    except RuntimeError as exc:
        raise StartupError(f"cannot listen on {address}: {exc}") from None
    if port == 0:
        raise StartupError(f"cannot listen on {address}")
    return port


def _create_async_server(
    specs: tuple[ServiceSpec, ...],
    config: ServerConfig,
    interceptors: Sequence[grpc.aio.ServerInterceptor],
) -> AsyncServer:
    """:func:`create_server` for asyncio services: the server is built on its loop's thread;
    the loop's default executor (``run_in_executor(None, ...)``: blocking work of the
    handlers) has ``config.max_workers`` threads."""
    # The same five in the same order, run as one interceptor (one wrapper per call, one
    # async generator per message of a request stream, not five and three).
    standard = AsyncInterceptorChain(
        [
            AsyncServerMetricsInterceptor(),
            AsyncCallLogInterceptor(),
            AsyncErrorInterceptor(),
            AsyncAuthInterceptor(authority(config)),
            AsyncDecodeInterceptor(),  # innermost, as on the synchronous server
        ]
    )
    activity = Activity()
    loop, thread = _loop_thread(f"{config.service}-loop")
    executor = futures.ThreadPoolExecutor(
        max_workers=config.max_workers, thread_name_prefix=f"{config.service}-rpc"
    )

    async def build() -> tuple[Any, Any, int]:
        loop.set_default_executor(executor)
        grpc_server = grpc.aio.server(
            interceptors=[_AsyncActivityInterceptor(activity), standard, *interceptors],
            options=server_options(config),
        )
        health_servicer = health.aio.HealthServicer()
        port = _add_services(grpc_server, specs, health_servicer, config)
        for name in (*_names(specs), OVERALL):
            await health_servicer.set(name, NOT_SERVING)  # until start()
        return grpc_server, health_servicer, port

    try:
        grpc_server, health_servicer, port = asyncio.run_coroutine_threadsafe(
            build(), loop
        ).result()
    except BaseException:
        loop.call_soon_threadsafe(loop.stop)
        executor.shutdown(wait=False)
        raise
    return _built(
        AsyncServer, specs, activity, grpc_server, config, port, health_servicer,
        loop=loop, thread=thread, executor=executor,
    )  # fmt: skip


def _health_servicer() -> health.HealthServicer:
    """grpc.health.v1 whose Check runs on threads of its own (not the server's workers)."""
    servicer = health.HealthServicer(experimental_non_blocking=True)
    check = servicer.Check
    pool = futures.ThreadPoolExecutor(max_workers=HEALTH_THREADS, thread_name_prefix="health")

    def Check(request: Any, context: Any) -> Any:
        return check(request, context)

    setattr(Check, POOL_ATTRIBUTE, pool)
    servicer.Check = Check  # type: ignore[method-assign]
    return servicer


def serve(
    specs: ServiceSpec | Sequence[ServiceSpec],
    config: ServerConfig,
    *,
    ready: Callable[[Server], None] | None = None,
) -> None:
    """Run a server until SIGTERM or SIGINT, then stop it gracefully (see module docstring).

    ``ready`` is called once the server is started (e.g. to print or record its ports).
    """
    configure_logging(config.program, config.log_level)
    server = create_server(specs, config)
    stop_requested = threading.Event()

    def request_stop(signum: int, _frame: object) -> None:
        log.info("signal %s: stopping", signal.Signals(signum).name)
        stop_requested.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.start()
        log.info(
            "serving %s on port %d",
            ", ".join(server.service_names),
            server.port,
            extra={"port": server.port, "metrics_port": server.metrics_port},
        )
        if ready is not None:
            ready(server)
        while not stop_requested.wait(0.5):
            pass
        server.drain()
        if config.drain_seconds > 0:
            stop_requested.clear()  # a second signal skips the drain
            server.wait_drained(config.drain_seconds, stop_requested)
        server.stop()
        log.info("stopped")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_service(
    service: str,
    build: Callable[[ServerConfig], ServiceSpec | Sequence[ServiceSpec]],
    *,
    ready: Callable[[Server], None] | None = None,
) -> NoReturn:
    """The whole main of a service: configuration, ``build`` the servicers, serve, exit."""

    def main() -> None:
        default_port, default_metrics_port = DEFAULT_PORTS.get(service, (0, 0))
        config = ServerConfig.from_env(
            service, default_port=default_port, default_metrics_port=default_metrics_port
        )
        serve(build(config), config, ready=ready)

    run_main(f"hebei-{service}", main)
