"""When the stack's processes are ready (:mod:`hebei.stack.processes`): grpc.health.v1
SERVING for a service, every Celery process in the fleet's worker registry for a bot worker,
its ``ready_check`` for Prometheus (:func:`hebei.stack.prometheus.prometheus_scraping`); and the start that lost a port race
(:class:`PortTaken`), which the stack retries on other ports.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hebei.stack.children import Child, StackError, last_log_line

__all__ = [
    "PORT_TAKEN",
    "PortTaken",
    "bot_worker_registered",
    "wait_until_ready",
]

# A start lost a port race (the services' own words, and Prometheus's).
PORT_TAKEN = ("cannot listen on", "cannot serve metrics on", "bind: address already in use")


class PortTaken(StackError):
    """A service could not listen on a port chosen for it: another process took it."""


def bot_worker_registered(worker: Child, client: Any) -> bool:
    """Whether every Celery process of ``worker`` is in the fleet's worker registry."""
    from hebei.fleet.registry import live_workers

    prefix = f"{worker.worker_name}-"
    return sum(1 for name in live_workers(client) if name.startswith(prefix)) >= worker.processes


def wait_until_ready(
    children: list[Child],
    timeout: float,
    registry_url: str | None = None,
    check: Callable[[], None] = lambda: None,
) -> None:
    """Wait until every child is ready: grpc.health.v1 SERVING for a service, every Celery
    process in the worker registry (the Redis at ``registry_url``) for a bot worker, its
    ``ready_check`` for Prometheus.

    Raises StackError (one line naming the child and its log's last line) when a child exits
    or is not ready within ``timeout`` seconds; ``check`` runs between polls (it may raise).
    """
    import grpc
    import redis
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    pending = list(children)
    channels = {c.name: grpc.insecure_channel(c.address) for c in pending if c.address}
    registry = None
    if any(c.worker_name for c in pending) and registry_url:
        registry = redis.Redis.from_url(registry_url, socket_timeout=5, socket_connect_timeout=5)
    try:
        while pending:
            check()
            for child in list(pending):
                if not child.running():
                    message = child.exit_message()
                    if any(text in message for text in PORT_TAKEN):
                        raise PortTaken(message)
                    raise StackError(message)
                if child.name in channels:
                    stub = health_pb2_grpc.HealthStub(channels[child.name])
                    try:
                        reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=2)
                        ready = reply.status == health_pb2.HealthCheckResponse.SERVING
                    except grpc.RpcError:
                        ready = False
                elif child.ready_check is not None:
                    ready = child.ready_check()
                else:
                    try:
                        ready = registry is not None and bot_worker_registered(child, registry)
                    except redis.RedisError:
                        ready = False
                if ready:
                    pending.remove(child)
            if pending and time.monotonic() > deadline:
                child = pending[0]
                raise StackError(
                    f"{child.label} was not ready within {timeout:.0f} s: "
                    f"{last_log_line(child.log_path)} (log: {child.log_path})"
                )
            if pending:
                time.sleep(0.2)
    finally:
        for channel in channels.values():
            channel.close()
        if registry is not None:
            registry.close()
