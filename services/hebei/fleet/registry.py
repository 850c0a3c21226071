"""The registry of live bot workers: every worker process writes itself to one Redis hash a
few times a minute (:mod:`hebei.bots.celery_app`), and whoever wants to know which workers
are live and what they serve (``hebei bots workers``, the stack waiting for its worker) reads
it here."""

from __future__ import annotations

import json
import threading
import time

import redis

from hebei.fleet.settings import FleetSettings, current_settings

__all__ = ["WORKERS_KEY", "WORKER_TTL", "live_workers", "registry_client"]

# The hash of the live workers: worker name -> JSON {policies, pid, sessions, started, seen}
# (under the seat leases' prefix, hebei.bots.lease.PREFIX; a test keeps the two alike).
WORKERS_KEY = "hebei:bots:workers"
WORKER_TTL = 30.0  # a worker not seen for this long is gone

_clients: dict[FleetSettings, redis.Redis] = {}
_clients_lock = threading.Lock()


def registry_client(settings: FleetSettings | None = None) -> redis.Redis:
    """The Redis client of the worker registry (one per process and fleet)."""
    settings = settings or current_settings()
    with _clients_lock:
        client = _clients.get(settings)
        if client is None:
            client = _clients[settings] = redis.Redis.from_url(
                settings.resolved_redis_url(), socket_timeout=5, health_check_interval=30
            )
        return client


def live_workers(client: redis.Redis | None = None) -> dict[str, dict]:
    """Workers seen in the last :data:`WORKER_TTL` seconds: name -> {policies, pid, ...}."""
    client = client or registry_client()
    now = time.time()
    out = {}
    for name, raw in client.hgetall(WORKERS_KEY).items():
        info = json.loads(raw)
        if now - info.get("seen", 0) <= WORKER_TTL:
            out[name.decode() if isinstance(name, bytes) else name] = info
    return out
