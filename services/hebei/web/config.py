"""The gateway's settings from ``HEBEI_WEB_*`` (and shared ``HEBEI_*``) variables.

Addresses: ``HEBEI_WEB_TABLE_ADDRESS`` (required: the table engine's replicas, host:port or a
comma-separated list naming every replica) and ``HEBEI_WEB_MATCHMAKING_ADDRESS`` (required),
``HEBEI_WEB_LEDGER_ADDRESS`` (optional: its health in the operators' view),
``HEBEI_WEB_BOTSERVICE_ADDRESS`` (optional: the bot service that answers the table page's hints
and the review page; without it those say so). The shared
``HEBEI_OPERATOR_TOKEN`` unlocks the operators' view (without it, that view answers 503).
``HEBEI_WEB_SERVICE_TOKEN`` (else the shared ``HEBEI_SERVICE_TOKEN``, which ``hebei up``
passes): the gateway's own calls that carry it get the services' own pools — its Spectate
streams on the table engine, its Review calls on the bot service — so a crowd of anonymous
clients at those services never takes the gateway's share. It is sent with those calls only,
and a Spectate only of a match whose results are not hidden: it never shows the gateway more
than anyone sees. Without it the gateway shares the anonymous pools.

``HEBEI_WEB_TRUSTED_PROXIES`` (CIDRs, comma-separated; default none): the reverse proxies in
front of the gateway. A request from one of them is counted by the client its
``X-Forwarded-For`` (or ``Forwarded``) header names — the rightmost hop that is not a trusted
proxy — by every per-address bound; from any other peer, by the peer's address (headers
ignored). Connections are counted before any header is read: a trusted proxy's connections
count towards the total only (the proxy bounds its own clients' connections).

Bounds (each a variable, see :class:`WebConfig`): connections per client address and in total,
and how long a request may take to arrive in full (see :mod:`hebei.web.server`); spectators'
SSE streams per client address and in total (a seat's own streams have a pool of their own:
``max_seat_streams`` per seat, never competing with spectators); tables followed at once (one
Spectate stream each, shared by every browser; with the service token in the engine's service
pool, else keep it under ``HEBEI_TABLE_MAX_SPECTATORS_PER_PEER``) and how many of them one
address alone may hold; seats played through the gateway per address and in total, counted
once the engine accepted the seat's token and only while live (seats still being checked have
a small pool of their own, per address and in total); how long one SSE response lasts before
the browser resumes it, how long a seat with no browser is kept, an optional delay for
spectators.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from hebei.common.config import LOG_LEVELS, ConfigError, EnvReader
from hebei.common.routing import parse_addresses
from hebei.web.limits import parse_networks

DEFAULT_PORT = 8080


def _addresses(read: EnvReader, name: str) -> dict[str, str]:
    """``name=host:port,...`` as a dict (for the Prometheus endpoints shown to operators)."""
    raw = read.optional_text(name)
    if raw is None:
        return {}
    found = {}
    for item in raw.split(","):
        key, sep, address = item.strip().partition("=")
        if not sep or not key or ":" not in address:
            raise ConfigError(f"HEBEI_WEB_{name} must be name=host:port,..., got {raw!r}")
        found[key.strip()] = address.strip()
    return found


def _networks(read: EnvReader, name: str) -> tuple[str, ...]:
    raw = read.optional_text(name) or ""
    try:
        return parse_networks(raw)
    except ValueError:
        raise ConfigError(
            f"HEBEI_WEB_{name} must be addresses or networks (CIDR), comma-separated, got {raw!r}"
        ) from None


def _address(read: EnvReader, name: str, required: bool) -> str | None:
    value = read.text(name) if required else read.optional_text(name)
    if value is not None and (":" not in value or value.startswith(":")):
        raise ConfigError(f"HEBEI_WEB_{name} must be host:port, got {value!r}")
    return value


def _table_replicas(read: EnvReader) -> str:
    """HEBEI_WEB_TABLE_ADDRESS: the engine's replicas, ``host:port[,host:port...]``."""
    raw = read.text("TABLE_ADDRESS")
    try:
        return ",".join(parse_addresses(raw))
    except ValueError as error:
        raise ConfigError(f"HEBEI_WEB_TABLE_ADDRESS: {error}") from None


@dataclass(frozen=True, slots=True)
class WebConfig:
    """What the gateway needs; every bound documented beside its default."""

    table_address: str  # the engine's replicas: host:port or a comma-separated list
    matchmaking_address: str
    ledger_address: str | None = None
    botservice_address: str | None = None  # hints and reviews (BotService Suggest, Review)
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT  # 0: any free port
    operator_token: str | None = None
    service_token: str | None = None  # the services' own pools (see the module doc)
    trusted_proxies: tuple[str, ...] = ()  # CIDRs whose X-Forwarded-For is believed
    spectator_delay: float = 0.0  # seconds a spectator's view lags the table
    max_connections: int = 1024  # TCP connections open at once (idle, reading or streaming)
    max_connections_per_client: int = 32  # ... from one client address
    request_seconds: float = 10.0  # a request's head and body must arrive within this long
    max_streams: int = 256  # SSE streams open at once
    max_streams_per_client: int = 8  # ... from one client address
    max_tables: int = 12  # tables followed at once (one Spectate stream to the engine each)
    max_tables_per_client: int = 3  # ... that one client address is the only reader of
    max_sessions: int = 64  # seats played through the gateway at once (the engine took them)
    max_sessions_per_client: int = 8  # ... live from one client address (a NAT's people too)
    max_joining: int = 16  # seat sessions whose token the engine has not accepted yet ...
    max_joining_per_client: int = 2  # ... from one client address
    max_seat_streams: int = 2  # SSE streams of one seat (its own pool, not max_streams)
    max_quick_play_per_client: int = 2  # quick-play requests waiting at once per address
    stream_seconds: float = 300.0  # one SSE response at most this long; the browser resumes
    session_idle_seconds: float = 120.0  # a seat with no browser is let go after this long
    ended_keep_seconds: float = 600.0  # a finished table or seat stays readable this long
    call_timeout: float = 10.0  # deadline of each unary gRPC call
    quick_play_timeout: float = 60.0  # seconds to wait for quick play to seat the person
    hints_per_minute: float = 20.0  # hints computed for one seat a minute, sustained ...
    hint_burst: int = 5  # ... with this burst (the same decision asked again: from memory)
    max_advice_calls: int = 4  # Suggest and Review calls at the bot service at once
    max_reviews_per_client: int = 1  # reviews one client address waits for at once
    review_timeout: float = 120.0  # deadline of one Review call
    metrics: dict[str, str] = field(default_factory=dict)  # name -> host:port of /metrics
    log_level: str = "INFO"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WebConfig:
        """Read and validate the environment (ConfigError names the bad variable)."""
        read = EnvReader("web", env)
        return cls(
            table_address=_table_replicas(read),
            matchmaking_address=_address(read, "MATCHMAKING_ADDRESS", True) or "",
            ledger_address=_address(read, "LEDGER_ADDRESS", False),
            botservice_address=_address(read, "BOTSERVICE_ADDRESS", False),
            host=read.text("HOST", "127.0.0.1", shared=True),
            port=read.port("PORT", DEFAULT_PORT),
            operator_token=read.optional_text("OPERATOR_TOKEN", shared=True),
            service_token=read.optional_text("SERVICE_TOKEN", shared=True),
            trusted_proxies=_networks(read, "TRUSTED_PROXIES"),
            spectator_delay=read.number("SPECTATOR_DELAY_SECONDS", 0.0, hi=3600),
            max_connections=read.integer("MAX_CONNECTIONS", 1024, lo=1, hi=100_000),
            max_connections_per_client=read.integer(
                "MAX_CONNECTIONS_PER_CLIENT", 32, lo=1, hi=10_000
            ),
            request_seconds=read.number("REQUEST_SECONDS", 10.0, lo=0.1, hi=600),
            max_streams=read.integer("MAX_STREAMS", 256, lo=1, hi=100_000),
            max_streams_per_client=read.integer("MAX_STREAMS_PER_CLIENT", 8, lo=1, hi=10_000),
            max_tables=read.integer("MAX_TABLES", 12, lo=1, hi=10_000),
            max_tables_per_client=read.integer("MAX_TABLES_PER_CLIENT", 3, lo=1, hi=10_000),
            max_sessions=read.integer("MAX_SESSIONS", 64, lo=1, hi=10_000),
            max_sessions_per_client=read.integer("MAX_SESSIONS_PER_CLIENT", 8, lo=1, hi=1000),
            max_joining=read.integer("MAX_JOINING", 16, lo=1, hi=10_000),
            max_joining_per_client=read.integer("MAX_JOINING_PER_CLIENT", 2, lo=1, hi=1000),
            max_seat_streams=read.integer("MAX_SEAT_STREAMS", 2, lo=1, hi=100),
            max_quick_play_per_client=read.integer("MAX_QUICK_PLAY_PER_CLIENT", 2, lo=1, hi=100),
            stream_seconds=read.number("STREAM_SECONDS", 300.0, lo=1.0, hi=86_400),
            session_idle_seconds=read.number("SESSION_IDLE_SECONDS", 120.0, lo=1.0, hi=86_400),
            ended_keep_seconds=read.number("ENDED_KEEP_SECONDS", 600.0, lo=1.0, hi=86_400),
            call_timeout=read.number("CALL_TIMEOUT_SECONDS", 10.0, lo=0.1, hi=600),
            quick_play_timeout=read.number("QUICK_PLAY_TIMEOUT_SECONDS", 60.0, lo=1.0, hi=600),
            hints_per_minute=read.number("HINTS_PER_MINUTE", 20.0, lo=0.1, hi=6000),
            hint_burst=read.integer("HINT_BURST", 5, lo=1, hi=1000),
            max_advice_calls=read.integer("MAX_ADVICE_CALLS", 4, lo=1, hi=1000),
            max_reviews_per_client=read.integer("MAX_REVIEWS_PER_CLIENT", 1, lo=1, hi=100),
            review_timeout=read.number("REVIEW_TIMEOUT_SECONDS", 120.0, lo=1.0, hi=3600),
            metrics=_addresses(read, "METRICS"),
            log_level=read.choice("LOG_LEVEL", "INFO", LOG_LEVELS, shared=True),
        )
