"""Settings of the bot fleet from ``HEBEI_BOTS_*`` (and the shared ``HEBEI_BROKER_URL``).

TLS to the table engine: ``HEBEI_BOTS_TLS_CA`` (or the shared ``HEBEI_TLS_CA``; ``system``: the
system's roots) and ``HEBEI_BOTS_TLS_CLIENT_CERT`` + ``..._CLIENT_KEY`` (mutual TLS). These, not
the seat ticket, decide a worker's credentials: a ticket only says the engine speaks TLS, so
whoever can queue tickets cannot make a worker trust another CA."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hebei.bots.policies import POLICIES
from hebei.common.config import ConfigError, EnvReader
from hebei.common.tls import ClientTls
from hebei.fleet.settings import DEFAULT_QUEUE_PREFIX, FleetSettings

DEFAULT_VISIBILITY_TIMEOUT = 7200.0  # must exceed the longest match (people: 8 s a decision)


@dataclass(frozen=True, slots=True)
class BotsConfig:
    """What a worker (and a producer of seat tasks) needs."""

    broker_url: str | None  # None: the embedded Redis
    redis_url: str | None  # lease store; None: the broker, which must then be Redis
    visibility_timeout: float = DEFAULT_VISIBILITY_TIMEOUT
    restore_interval: float = 10.0  # seconds between sweeps for unacknowledged seat tasks
    lease_seconds: float = 4.0  # a dead worker's seat is free this soon (renewed every third)
    policies: tuple[str, ...] = tuple(POLICIES)
    metrics_port: int | None = None  # None: no /metrics; 0: any free port
    metrics_host: str = "127.0.0.1"  # HEBEI_BOTS_HOST or HEBEI_HOST
    warm_hands: int = 8  # self-play hands at start to fill the shanten tables
    queue_prefix: str = DEFAULT_QUEUE_PREFIX  # queues <prefix>.<policy>: fleets share a broker
    client_tls: ClientTls | None = None  # how sessions reach the engine; None: as tickets say

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> BotsConfig:
        """Read and validate the environment; ConfigError names the bad variable."""
        read = EnvReader("bots", env)
        shared = EnvReader(None, env)
        policies = tuple(
            p.strip() for p in read.text("POLICIES", ",".join(POLICIES)).split(",") if p.strip()
        )
        unknown = [p for p in policies if p not in POLICIES]
        if unknown or not policies:
            raise ConfigError(
                f"HEBEI_BOTS_POLICIES must list policies among {', '.join(POLICIES)}, "
                f"got {','.join(policies) or 'none'}"
            )
        metrics_port = read.integer("METRICS_PORT", -1, lo=-1, hi=65535)
        return cls(
            broker_url=shared.optional_text("BROKER_URL"),
            redis_url=read.optional_text("REDIS_URL"),
            visibility_timeout=read.number("VISIBILITY_TIMEOUT", DEFAULT_VISIBILITY_TIMEOUT, lo=1),
            restore_interval=read.number("RESTORE_INTERVAL", 10.0, lo=0.1, hi=3600),
            lease_seconds=read.number("LEASE_SECONDS", 4.0, lo=0.3, hi=3600),
            policies=policies,
            metrics_port=None if metrics_port < 0 else metrics_port,
            metrics_host=read.text("HOST", "127.0.0.1", shared=True),
            warm_hands=read.integer("WARM_HANDS", 8, lo=0, hi=10_000),
            queue_prefix=read.text("QUEUE_PREFIX", DEFAULT_QUEUE_PREFIX),
            client_tls=ClientTls.from_env(read),
        )

    @property
    def fleet(self) -> FleetSettings:
        """Where the fleet is (its broker, queues and Redis), as its senders see it."""
        return FleetSettings(self.broker_url, self.redis_url, self.queue_prefix)

    def resolved_broker_url(self) -> str:
        """The broker URL, starting the embedded Redis if none is configured."""
        return self.fleet.resolved_broker_url()

    def resolved_redis_url(self) -> str:
        """The Redis of the seat leases and the worker registry
        (:meth:`FleetSettings.resolved_redis_url`)."""
        return self.fleet.resolved_redis_url()

    def queue_of(self, policy: str) -> str:
        """The Celery queue of a policy's seat tasks: workers consume the queues they serve."""
        return self.fleet.queue_of(policy)
