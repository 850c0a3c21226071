"""Configuration from environment variables, validated at start.

A missing or invalid value raises :class:`ConfigError` whose message is one line naming the
variable; :func:`run_main` prints it as ``hebei-ledger: HEBEI_LEDGER_PORT must be an integer
0-65535, got 'abc'`` and exits with status 2.

Variables of one service use its prefix (``HEBEI_LEDGER_PORT``); shared settings use
``HEBEI_`` (``HEBEI_OPERATOR_TOKEN``) and may be overridden per service
(``HEBEI_LEDGER_OPERATOR_TOKEN``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NoReturn

from hebei.common.auth import is_metadata_text
from hebei.common.env import ConfigError, EnvReader
from hebei.common.secrets_check import weakness
from hebei.common.tls import ClientTls, TlsConfig

EXIT_CONFIG = 2
EXIT_STARTUP = 1


class StartupError(Exception):
    """The service could not start (e.g. its port is taken); the message is one line."""


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

# The default (gRPC port, metrics port) of each service, in one place for deploy/ and k8s/.
DEFAULT_PORTS: dict[str, tuple[int, int]] = {
    "table": (50051, 9101),
    "matchmaking": (50052, 9102),
    "ledger": (50053, 9103),
    "botservice": (50054, 9104),
}


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What every service's server needs; service-specific settings live beside it."""

    service: str  # short name: "ledger", "table", "matchmaking"
    host: str = "127.0.0.1"  # loopback unless HEBEI_HOST says otherwise (e.g. 0.0.0.0 in a pod)
    port: int = 0
    metrics_port: int | None = 0  # None: no metrics endpoint; 0: any free port
    max_workers: int = 16
    max_message_bytes: int = 4 * 1024 * 1024
    # After SIGTERM: NOT_SERVING but still answering for at most this long (see
    # hebei.common.server: it ends sooner once no call arrived for DRAIN_QUIET_SECONDS).
    drain_seconds: float = 5.0
    grace_seconds: float = 10.0  # then: in-flight calls get this long to finish
    operator_token: str = ""
    service_token: str | None = None
    tls: TlsConfig | None = None
    # How this service reaches the others (HEBEI_TLS_CA, HEBEI_TLS_CLIENT_CERT/KEY): every
    # channel it opens to another service uses it; None: plaintext.
    client_tls: ClientTls | None = None
    log_level: str = "INFO"
    # Wrong tokens before calls with a token are refused unchecked (hebei.common.auth):
    # from one client address, from all together, in this many seconds.
    auth_failures_per_peer: int = 10
    auth_failures_total: int = 100
    auth_failure_seconds: float = 60.0

    @property
    def program(self) -> str:
        """The program name used in messages, e.g. ``hebei-ledger``."""
        return f"hebei-{self.service}"

    @classmethod
    def from_env(
        cls,
        service: str,
        *,
        default_port: int,
        default_metrics_port: int,
        env: Mapping[str, str] | None = None,
    ) -> ServerConfig:
        """Read ``HEBEI_<SERVICE>_*`` (and shared ``HEBEI_*``) variables; raise ConfigError."""
        read = EnvReader(service, env)
        metrics_port = read.integer("METRICS_PORT", default_metrics_port, lo=-1, hi=65535)
        host = read.text("HOST", "127.0.0.1", shared=True)
        operator_token = read.text("OPERATOR_TOKEN", shared=True)
        service_token = read.optional_text("SERVICE_TOKEN", shared=True)
        for name, token in (("OPERATOR_TOKEN", operator_token), ("SERVICE_TOKEN", service_token)):
            if token is not None and not is_metadata_text(token):  # no client could send it
                raise ConfigError(f"HEBEI_{name} must be printable ASCII (it is sent as metadata)")
        if not is_loopback(host):
            # Reachable from other machines: a service token (which books settlements and opens
            # matches) must be its own secret, never the operator's.
            if service_token is None:
                raise ConfigError(
                    f"HEBEI_SERVICE_TOKEN is required when listening on {host} (not loopback)"
                )
            if service_token == operator_token:
                raise ConfigError("HEBEI_SERVICE_TOKEN must differ from HEBEI_OPERATOR_TOKEN")
            for name, token in (
                ("OPERATOR_TOKEN", operator_token),
                ("SERVICE_TOKEN", service_token),
            ):
                why = weakness(token)
                if why is not None:
                    raise ConfigError(f"HEBEI_{name} refused when listening on {host}: {why}")
        return cls(
            service=service,
            host=host,
            port=read.port("PORT", default_port),
            metrics_port=None if metrics_port < 0 else metrics_port,
            max_workers=read.integer("MAX_WORKERS", 16, lo=1, hi=1024, shared=True),
            max_message_bytes=read.integer(
                "MAX_MESSAGE_BYTES", 4 * 1024 * 1024, lo=1024, hi=256 * 1024 * 1024, shared=True
            ),
            drain_seconds=read.number("DRAIN_SECONDS", 5.0, hi=300, shared=True),
            grace_seconds=read.number("GRACE_SECONDS", 10.0, hi=3600, shared=True),
            operator_token=operator_token,
            service_token=service_token,
            tls=TlsConfig.from_env(read),
            client_tls=ClientTls.from_env(read),
            log_level=read.choice("LOG_LEVEL", "INFO", LOG_LEVELS, shared=True),
            auth_failures_per_peer=read.integer(
                "AUTH_MAX_FAILURES", 10, lo=1, hi=1_000_000, shared=True
            ),
            auth_failures_total=read.integer(
                "AUTH_MAX_FAILURES_TOTAL", 100, lo=1, hi=10_000_000, shared=True
            ),
            auth_failure_seconds=read.number("AUTH_FAILURE_SECONDS", 60.0, hi=86_400, shared=True),
        )


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    return host in ("localhost", "::1") or host.startswith("127.")


def run_main(program: str, main: Callable[[], None]) -> NoReturn:
    """Run a service's ``main``: configuration and start-up errors exit with one line."""
    try:
        main()
    except ConfigError as exc:
        print(f"{program}: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_CONFIG) from None
    except StartupError as exc:
        print(f"{program}: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_STARTUP) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    raise SystemExit(0)
