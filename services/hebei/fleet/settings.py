"""Where the bot fleet is: the broker, the queue names and the Redis of the worker registry.

Every sender of seat tasks and every worker reads them from the same variables:

- ``HEBEI_BROKER_URL``: the broker (Redis or RabbitMQ); unset, the embedded Redis;
- ``HEBEI_BOTS_QUEUE_PREFIX``: seat tasks go to the queue ``<prefix>.<policy>`` (default
  ``bots``), so several fleets share one broker;
- ``HEBEI_BOTS_REDIS_URL``: the Redis of the worker registry and the seat leases; unset, the
  broker when it is Redis.

The workers' own settings (:class:`hebei.bots.config.BotsConfig`) hold these three too and
name the queues, the broker and the Redis through :class:`FleetSettings`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

from hebei.common.config import ConfigError, EnvReader

__all__ = ["DEFAULT_QUEUE_PREFIX", "FleetSettings", "current_settings", "forget_settings"]

DEFAULT_QUEUE_PREFIX = "bots"


@dataclass(frozen=True, slots=True)
class FleetSettings:
    """The broker, the queue prefix and the registry's Redis of one fleet."""

    broker_url: str | None  # None: the embedded Redis
    redis_url: str | None  # worker registry and seat leases; None: the broker, then Redis
    queue_prefix: str = DEFAULT_QUEUE_PREFIX  # queues are <prefix>.<policy>

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> FleetSettings:
        """Read the environment; ConfigError names a bad variable."""
        read = EnvReader("bots", env)
        return cls(
            broker_url=EnvReader(None, env).optional_text("BROKER_URL"),
            redis_url=read.optional_text("REDIS_URL"),
            queue_prefix=read.text("QUEUE_PREFIX", DEFAULT_QUEUE_PREFIX),
        )

    def resolved_broker_url(self) -> str:
        """The broker URL, starting the embedded Redis if none is configured."""
        if self.broker_url:
            return self.broker_url
        from hebei.common import embedded

        return embedded.broker_url()

    def resolved_redis_url(self) -> str:
        """The Redis of the seat leases and the worker registry: ``HEBEI_BOTS_REDIS_URL``, else
        the broker when it is Redis (the embedded one included).

        Every worker and producer must share it, so with another broker (RabbitMQ) it must be
        given: a Redis per process would let two workers hold one seat.
        """
        if self.redis_url:
            return self.redis_url
        broker = self.resolved_broker_url()
        if broker.startswith(("redis://", "rediss://", "unix://")):
            return broker
        scheme = broker.split("://", 1)[0]
        raise ConfigError(
            f"HEBEI_BOTS_REDIS_URL is required with an {scheme} broker: the seat leases live in "
            "a Redis that every worker shares"
        )

    def queue_of(self, policy: str) -> str:
        """The Celery queue of a policy's seat tasks: workers consume the queues they serve."""
        return f"{self.queue_prefix}.{policy}"

    def unacked_keys(self) -> dict[str, str]:
        """The Redis broker's keys of unacknowledged tasks (its transport options): one hash
        per fleet (queue prefix), so fleets sharing a Redis never redeliver each other's seat
        tasks at their own visibility timeouts. (RabbitMQ ignores these.)"""
        return {
            "unacked_key": f"{self.queue_prefix}.unacked",
            "unacked_index_key": f"{self.queue_prefix}.unacked_index",
            "unacked_mutex_key": f"{self.queue_prefix}.unacked_mutex",
        }


_current: list[FleetSettings] = []
_current_lock = threading.Lock()


def current_settings() -> FleetSettings:
    """This process's fleet settings, read from the environment once (:func:`forget_settings`
    reads them again)."""
    with _current_lock:
        if not _current:
            _current.append(FleetSettings.from_env())
        return _current[0]


def forget_settings() -> None:
    """Read the environment again on the next :func:`current_settings` (after a change)."""
    with _current_lock:
        _current.clear()
