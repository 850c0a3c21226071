"""Client channels: default deadlines, retries of idempotent methods, metrics, tokens, TLS.

``create_channel("localhost:50053", token=...)`` returns a channel whose unary calls carry a
deadline even when the caller gives none, whose idempotent methods (:data:`IDEMPOTENT_METHODS`)
are retried on UNAVAILABLE and on CANCELLED by the server (what a stopping server refused or
cancelled before handling it) through the channel's service config, and whose calls are counted
in the grpc_client_* metrics.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from hebei.common.auth import bearer_metadata
from hebei.common.metrics import ClientMetricsInterceptor
from hebei.common.tls import ClientTls

DEFAULT_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024

# Methods safe to repeat: reads, and writes made idempotent by a key in the request or by
# what they do (the proto comments say so). Only these are retried; every other method is
# tried once, whatever happened to it.
IDEMPOTENT_METHODS: Mapping[str, tuple[str, ...]] = {
    # OpenMatch by match_id; ReplaceSeat and ConcludeMatch: the same request again changes
    # nothing; the rest read.
    "hebei.v1.TableService": (
        "OpenMatch",
        "GetMatch",
        "ListTables",
        "Spectate",
        "ReplaceSeat",
        "ConcludeMatch",
    ),
    # CreateTournament and AssignPenalty by request_id, ReportMatchResult by match_id,
    # CheckIn (checked in stays checked in); the rest read.
    "hebei.v1.MatchmakingService": (
        "CreateTournament",
        "GetTournament",
        "GetStandings",
        "WatchTournament",
        "ReportMatchResult",
        "CheckIn",
        "AssignPenalty",
        "GetSeating",
        "ListOperatorActions",
        "GetRatings",
    ),
    # The keyed posts (Settlement, Adjustment and CancelAdjustment.idempotency_key); reads.
    "hebei.v1.LedgerService": (
        "PostSettlement",
        "PostAdjustment",
        "CancelAdjustment",
        "GetStandings",
        "GetHistory",
        "Audit",
    ),
    "hebei.v1.BotService": ("ListPolicies", "Suggest", "Review"),  # pure functions
    "grpc.health.v1.Health": ("Check",),
}

# Retried: UNAVAILABLE (no server, a connection lost, a server stopping that refused the call)
# and CANCELLED from the server (a stopping server cancels the calls it received but had not
# handed to a handler yet, and after its grace those still running). gRPC retries only
# statuses the server sent, never the caller's own cancel or deadline, and only until a
# response arrived (a stream's first message). Safe for the methods above only.
RETRY_POLICY: Mapping[str, Any] = {
    "maxAttempts": 5,
    "initialBackoff": "0.05s",
    "maxBackoff": "2s",
    "backoffMultiplier": 2,
    "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED"],
}


def service_config(idempotent: Mapping[str, Sequence[str]] = IDEMPOTENT_METHODS) -> str:
    """The channel's service config (JSON): retries (:data:`RETRY_POLICY`) for idempotent
    methods only."""
    names = [
        {"service": service, "method": method}
        for service, methods in idempotent.items()
        for method in methods
    ]
    return json.dumps({"methodConfig": [{"name": names, "retryPolicy": dict(RETRY_POLICY)}]})


class _CallDetails(
    collections.namedtuple(
        "_CallDetails",
        ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression"),
    ),
    grpc.ClientCallDetails,
):
    """The details of an outgoing call, with our token and default deadline added."""


class DefaultsInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds the bearer token to every call and a deadline to unary-response calls without one.

    Streaming-response calls (Play, Spectate, Watch...) are long-lived by design: the caller
    chooses their deadline.
    """

    def __init__(self, token: str | None, timeout: float) -> None:
        self.metadata = bearer_metadata(token) if token else ()
        self.timeout = timeout

    def _details(self, details: grpc.ClientCallDetails, default_timeout: bool) -> _CallDetails:
        timeout = details.timeout
        if timeout is None and default_timeout:
            timeout = self.timeout
        metadata = [*(details.metadata or ()), *self.metadata]
        return _CallDetails(
            details.method,
            timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details, True), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, request_iterator: Any) -> Any:
        return continuation(self._details(details, True), request_iterator)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details, False), request)

    def intercept_stream_stream(
        self, continuation: Any, details: Any, request_iterator: Any
    ) -> Any:
        return continuation(self._details(details, False), request_iterator)


def channel_options(max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> list[tuple[str, Any]]:
    """Channel arguments: retries on, the service config, message size limits."""
    return [
        ("grpc.enable_retries", 1),
        ("grpc.service_config", service_config()),
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
    ]


def create_channel(
    target: str,
    *,
    token: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    tls: bool | ClientTls | None = False,
    tls_ca_file: Path | None = None,
    tls_cert_file: Path | None = None,
    tls_key_file: Path | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
) -> grpc.Channel:
    """A channel to ``target`` (host:port) with defaults, retries, metrics and the token.

    TLS is used when ``tls`` is a :class:`ClientTls` (the service's configuration: its CA and
    client certificate), when it is true (the system's roots) or when a TLS file is given:
    ``tls_ca_file`` is the CA to trust (system roots otherwise), ``tls_cert_file`` +
    ``tls_key_file`` a client certificate.
    """
    options = channel_options(max_message_bytes)
    tls = _client_tls(tls, tls_ca_file, tls_cert_file, tls_key_file)
    if tls is not None:
        channel = grpc.secure_channel(target, tls.credentials(), options=options)
    else:
        channel = grpc.insecure_channel(target, options=options)
    return grpc.intercept_channel(
        channel, ClientMetricsInterceptor(), DefaultsInterceptor(token, timeout)
    )


def _client_tls(
    tls: bool | ClientTls | None,
    ca_file: Path | None = None,
    cert_file: Path | None = None,
    key_file: Path | None = None,
) -> ClientTls | None:
    """The TLS settings a channel uses (see :func:`create_channel`), None for plaintext."""
    if not isinstance(tls, ClientTls) and (tls or ca_file or cert_file):
        return ClientTls(ca_file, cert_file, key_file)
    return tls if isinstance(tls, ClientTls) else None


def create_aio_channel(
    target: str,
    *,
    tls: bool | ClientTls | None = False,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
) -> grpc.aio.Channel:
    """An asyncio channel to ``target`` for long-lived streams (the bot fleet's Play streams:
    many seats of one process on one channel and one event loop). Same options and TLS as
    :func:`create_channel`, no interceptors: such a caller records its
    :class:`~hebei.common.metrics.ClientStreamMetrics` itself (an intercepted asyncio
    stream costs a task and a queue per message). Create it on the loop that uses it."""
    options = channel_options(max_message_bytes)
    settings = _client_tls(tls)
    if settings is not None:
        return grpc.aio.secure_channel(target, settings.credentials(), options=options)
    return grpc.aio.insecure_channel(target, options=options)


def handshake_error(
    target: str, tls: bool | ClientTls | None, timeout: float = 5.0
) -> grpc.RpcError | None:
    """None when ``target`` answers a health check over ``tls`` (which needs no token): the
    connection, and the TLS handshake with these files, work; else the call's error."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with create_channel(target, tls=tls, timeout=timeout) as channel:
        try:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        except grpc.RpcError as exc:
            return exc
    return None


TLS_FAILURE_WORDS = ("ssl_", "handshake", "certificate", "socket closed", "tsi_")


def is_tls_failure(error: grpc.RpcError) -> bool:
    """Whether a call failed in the TLS handshake, not because the server is away: a
    certificate the client does not trust, or the server closing the connection while it
    starts (a TLS server to a plaintext client, a mutual-TLS server to a client without a
    certificate it accepts)."""
    details = (error.details() if hasattr(error, "details") else str(error)) or ""
    return any(word in details.lower() for word in TLS_FAILURE_WORDS)


def describe_tls_failure(error: grpc.RpcError) -> str:
    """A short reason for a failed connection, in words (grpc's details are long)."""
    details = (error.details() if hasattr(error, "details") else str(error)) or ""
    lowered = details.lower()
    if "certificate_verify_failed" in lowered or "certificate verify failed" in lowered:
        return "its certificate is not signed by the CA trusted here"
    if "socket closed" in lowered:
        return (
            "it closed the connection during the handshake: it wants TLS, or a client "
            "certificate it trusts"
        )
    if "wrong_version_number" in lowered or "wrong version number" in lowered:
        return "it does not speak TLS"
    if "connection refused" in lowered:
        return "connection refused"
    return details.splitlines()[0][:200] if details else error.code().name
