"""The gateway's settings from ``HEBEI_WEB_*`` (and shared ``HEBEI_*``) variables.

Addresses: ``HEBEI_WEB_TABLE_ADDRESS`` and ``HEBEI_WEB_MATCHMAKING_ADDRESS`` (required),
``HEBEI_WEB_LEDGER_ADDRESS`` (optional: its health in the operators' view),
``HEBEI_WEB_BOTSERVICE_ADDRESS`` (optional: the bot service that answers the table page's hints
and the review page; without it those say so). The shared
``HEBEI_OPERATOR_TOKEN`` unlocks the operators' view (without it, that view answers 503).

Bounds (each a variable, see :class:`WebConfig`): connections per client address and in total,
and how long a request may take to arrive in full (see :mod:`hebei.web.server`); SSE streams
per client address and in total,
tables followed at once (one Spectate stream each, shared by every browser: keep it under the
table engine's ``HEBEI_TABLE_MAX_SPECTATORS_PER_PEER``), seats played through the gateway per
address and in total, how long one SSE response lasts before the browser resumes it, how long
a seat with no browser is kept, an optional delay for spectators.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from hebei.common.config import LOG_LEVELS, ConfigError, EnvReader

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


def _address(read: EnvReader, name: str, required: bool) -> str | None:
    value = read.text(name) if required else read.optional_text(name)
    if value is not None and (":" not in value or value.startswith(":")):
        raise ConfigError(f"HEBEI_WEB_{name} must be host:port, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class WebConfig:
    """What the gateway needs; every bound documented beside its default."""

    table_address: str
    matchmaking_address: str
    ledger_address: str | None = None
    botservice_address: str | None = None  # hints and reviews (BotService Suggest, Review)
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT  # 0: any free port
    operator_token: str | None = None
    spectator_delay: float = 0.0  # seconds a spectator's view lags the table
    max_connections: int = 1024  # TCP connections open at once (idle, reading or streaming)
    max_connections_per_client: int = 32  # ... from one client address
    request_seconds: float = 10.0  # a request's head and body must arrive within this long
    max_streams: int = 256  # SSE streams open at once
    max_streams_per_client: int = 8  # ... from one client address
    max_tables: int = 12  # tables followed at once (one Spectate stream to the engine each)
    max_sessions: int = 64  # seats played through the gateway at once
    max_sessions_per_client: int = 4  # ... opened from one client address
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
            table_address=_address(read, "TABLE_ADDRESS", True) or "",
            matchmaking_address=_address(read, "MATCHMAKING_ADDRESS", True) or "",
            ledger_address=_address(read, "LEDGER_ADDRESS", False),
            botservice_address=_address(read, "BOTSERVICE_ADDRESS", False),
            host=read.text("HOST", "127.0.0.1", shared=True),
            port=read.port("PORT", DEFAULT_PORT),
            operator_token=read.optional_text("OPERATOR_TOKEN", shared=True),
            spectator_delay=read.number("SPECTATOR_DELAY_SECONDS", 0.0, hi=3600),
            max_connections=read.integer("MAX_CONNECTIONS", 1024, lo=1, hi=100_000),
            max_connections_per_client=read.integer(
                "MAX_CONNECTIONS_PER_CLIENT", 32, lo=1, hi=10_000
            ),
            request_seconds=read.number("REQUEST_SECONDS", 10.0, lo=0.1, hi=600),
            max_streams=read.integer("MAX_STREAMS", 256, lo=1, hi=100_000),
            max_streams_per_client=read.integer("MAX_STREAMS_PER_CLIENT", 8, lo=1, hi=10_000),
            max_tables=read.integer("MAX_TABLES", 12, lo=1, hi=10_000),
            max_sessions=read.integer("MAX_SESSIONS", 64, lo=1, hi=10_000),
            max_sessions_per_client=read.integer("MAX_SESSIONS_PER_CLIENT", 4, lo=1, hi=1000),
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
