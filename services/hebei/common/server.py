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

Every server gets grpc.health.v1 (a status per service and the overall ""), reflection,
message size limits, and the interceptors, outermost first: metrics, call log, error mapping,
auth, decoding (requests are parsed by ``hebei.common.errors.DecodeInterceptor``, so bytes
that are not a valid message are INVALID_ARGUMENT, never grpcio's INTERNAL). Health checks
run on a thread pool of their own: they are answered however busy the workers are.

On SIGTERM (or SIGINT) health turns NOT_SERVING and each service's ``drain`` hook runs (the
table engine stops its clocks and closes its long-lived streams with UNAVAILABLE, which its
clients read as "reconnect"); the server keeps answering for ``drain_seconds`` (so load
balancers notice), then stops accepting calls and gives the calls in flight
``grace_seconds`` to finish.
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
from collections.abc import Callable, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any, NoReturn

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from hebei.common.auth import AuthInterceptor, TokenAuthority
from hebei.common.config import DEFAULT_PORTS, ServerConfig, StartupError, run_main
from hebei.common.errors import DecodeInterceptor, ErrorInterceptor
from hebei.common.interceptors import POOL_ATTRIBUTE
from hebei.common.logs import CallLogInterceptor, configure_logging
from hebei.common.metrics import ServerMetricsInterceptor, start_metrics_server

log = logging.getLogger("hebei.server")

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
OVERALL = ""  # the health service name meaning "the whole server"
HEALTH_THREADS = 4  # Health/Check's own workers (never the server's, however busy)


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    """One gRPC service to host: its full name, the generated add function and the servicer."""

    name: str  # e.g. "hebei.v1.LedgerService"
    add_servicer: Callable[[Any, grpc.Server], None]
    servicer: Any
    # Called once when the server starts to stop (SIGTERM), before the calls in flight are
    # given their grace: e.g. close long-lived streams with UNAVAILABLE ("reconnect").
    drain: Callable[[], None] | None = None


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
        self.grpc_server.start()
        self.set_serving(True)

    def set_serving(self, serving: bool, service: str | None = None) -> None:
        """Set one service's health status, or (service None) every service and the overall."""
        status = SERVING if serving else NOT_SERVING
        for name in (service,) if service else (*self.service_names, OVERALL):
            self.health.set(name, status)

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

    def stop(self, grace: float | None = None) -> None:
        """Drain, refuse new calls, let calls in flight finish within ``grace`` seconds, stop."""
        self.drain()
        self.health.enter_graceful_shutdown()
        self.grpc_server.stop(self.config.grace_seconds if grace is None else grace).wait()
        if self._metrics_http is not None:
            self._metrics_http.shutdown()
            self._metrics_http.server_close()
            self._metrics_http = None


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
    service_tokens = [config.service_token] if config.service_token else []
    standard: list[grpc.ServerInterceptor] = [
        ServerMetricsInterceptor(),
        CallLogInterceptor(),
        ErrorInterceptor(),
        AuthInterceptor(TokenAuthority(config.operator_token, service_tokens)),
        DecodeInterceptor(),  # innermost: see hebei.common.errors
    ]
    grpc_server = grpc.server(
        futures.ThreadPoolExecutor(
            max_workers=config.max_workers, thread_name_prefix=f"{config.service}-rpc"
        ),
        interceptors=[*standard, *interceptors],
        options=server_options(config),
    )
    for spec in specs:
        spec.add_servicer(spec.servicer, grpc_server)
    health_servicer = _health_servicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, grpc_server)
    names = tuple(spec.name for spec in specs)
    for name in (*names, OVERALL):
        health_servicer.set(name, NOT_SERVING)  # until start()
    reflection.enable_server_reflection(
        (*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
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
    drains = tuple(spec.drain for spec in specs if spec.drain is not None)
    return Server(grpc_server, config, port, health_servicer, names, drains=drains)


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
            stop_requested.clear()
            stop_requested.wait(config.drain_seconds)  # a second signal skips the drain
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
