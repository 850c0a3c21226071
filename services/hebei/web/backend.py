"""The gateway's side of the contracts: channels, stubs, unary calls off the event loop, and
gRPC status codes as HTTP errors.

The table engine may be several replicas (``HEBEI_WEB_TABLE_ADDRESS`` lists them): a call on
one match goes to its owner through :attr:`Backend.router` (:meth:`Backend.call_match`,
redirects and takeovers followed), the matches list asks every replica
(:meth:`Backend.list_tables`), and ``channels["table"]`` reaches the first one (health, the
seat's Play stream).

Public reads go out without a token (a tournament that hides its results hides them here too);
operator calls carry the token the operator typed into the page, so the services check it
themselves, and ``hebei-actor`` names who acted.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hebei.common.auth import actor_metadata, bearer_metadata, client_metadata
from hebei.common.client import IDEMPOTENT_METHODS, create_channel
from hebei.common.routing import DEFAULT_DEADLINE_SECONDS, MatchRouter
from hebei.common.routing.fanout import ask_every_entry, merge_matches
from hebei.v1 import (
    bot_pb2_grpc,
    ledger_pb2_grpc,
    matchmaking_pb2_grpc,
    table_pb2,
    table_pb2_grpc,
)
from hebei.web.config import WebConfig

__all__ = ["Backend", "HttpError", "get_match_attempt", "http_error"]

# gRPC status -> HTTP status, for errors the pages show (ARCHITECTURE: one mapping per side).
HTTP_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.CANCELLED: 503,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}


class HttpError(Exception):
    """An error answered as ``{"error": message, "code": name}`` with an HTTP status."""

    def __init__(self, status: int, message: str, code: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or {
            400: "INVALID_ARGUMENT",
            401: "UNAUTHENTICATED",
            403: "PERMISSION_DENIED",
            404: "NOT_FOUND",
            408: "DEADLINE_EXCEEDED",
            409: "FAILED_PRECONDITION",
            413: "TOO_LARGE",
            415: "UNSUPPORTED_MEDIA_TYPE",
            429: "RESOURCE_EXHAUSTED",
            503: "UNAVAILABLE",
        }.get(status, "ERROR")


def http_error(error: grpc.RpcError, service: str) -> HttpError:
    """A failed call as an HttpError: the service's one-line message, never a trace."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = (error.details() if hasattr(error, "details") else "") or ""
    line = details.strip().splitlines()[0] if details.strip() else code.name.lower()
    if code == grpc.StatusCode.UNAVAILABLE:
        line = f"{service} is unreachable right now; try again shortly"
    elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
        line = f"{service} did not answer in time"
    elif code not in HTTP_STATUS:
        line = f"{service} failed ({code.name})"
    return HttpError(HTTP_STATUS.get(code, 502), line, code.name)


class Backend:
    """Channels and stubs to the table engine, matchmaking and (optionally) the ledger and the
    bot service."""

    def __init__(self, config: WebConfig) -> None:
        self.config = config
        # Anonymous: a call's token travels in its metadata.
        self.router = MatchRouter(config.table_address, timeout=config.call_timeout)
        self.channels: dict[str, grpc.Channel] = {
            "table": create_channel(self.router.entries[0], timeout=config.call_timeout),
            "matchmaking": create_channel(config.matchmaking_address, timeout=config.call_timeout),
        }
        if config.ledger_address:
            self.channels["ledger"] = create_channel(
                config.ledger_address, timeout=config.call_timeout
            )
        if config.botservice_address:
            self.channels["botservice"] = create_channel(
                config.botservice_address, timeout=config.call_timeout
            )
        self.table = table_pb2_grpc.TableServiceStub(self.channels["table"])
        self.matchmaking = matchmaking_pb2_grpc.MatchmakingServiceStub(self.channels["matchmaking"])
        self.ledger = (
            ledger_pb2_grpc.LedgerServiceStub(self.channels["ledger"])
            if "ledger" in self.channels
            else None
        )
        self.botservice = (
            bot_pb2_grpc.BotServiceStub(self.channels["botservice"])
            if "botservice" in self.channels
            else None
        )
        self.addresses = {
            "table": config.table_address,
            "matchmaking": config.matchmaking_address,
            **({"ledger": config.ledger_address} if config.ledger_address else {}),
            **({"botservice": config.botservice_address} if config.botservice_address else {}),
        }
        # Unary calls run here, never on the event loop.
        self.executor = ThreadPoolExecutor(max_workers=32, thread_name_prefix="hebei-web-call")

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        for channel in self.channels.values():
            channel.close()
        self.router.close()

    async def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in the call pool."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, functools.partial(fn, *args, **kwargs))

    async def call(
        self,
        service: str,
        method: str,
        request: Any,
        *,
        token: str | None = None,
        actor: str | None = None,
        client: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        """A unary call off the loop; a failure raises HttpError with the service's message.
        ``client``: the person's address, forwarded (``hebei-client``) when ``token`` is the
        service token, so matchmaking's per-address bounds count the person, not the gateway."""
        stub = {
            "table": self.table,
            "matchmaking": self.matchmaking,
            "ledger": self.ledger,
            "botservice": self.botservice,
        }[service]
        if stub is None:
            variable = f"HEBEI_WEB_{service.upper()}_ADDRESS"
            raise HttpError(
                503, f"the gateway has no {LABELS.get(service, service)} configured ({variable})"
            )
        metadata = _metadata(token, actor, client)
        fn = getattr(stub, method)
        try:
            return await self.run(
                fn, request, timeout=timeout or self.config.call_timeout, metadata=metadata
            )
        except grpc.RpcError as error:
            raise http_error(error, LABELS.get(service, service)) from None

    async def call_match(
        self,
        match_id: str,
        method: str,
        request: Any,
        *,
        token: str | None = None,
        actor: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        """A unary TableService call on ``match_id`` at its owner (off the loop), sent again
        after a redirect, and after a lost replica only if the method is idempotent
        (:data:`~hebei.common.client.IDEMPOTENT_METHODS`); a failure raises HttpError."""
        metadata = _metadata(token, actor, None)
        timeout = timeout or self.config.call_timeout

        def attempt(channel: grpc.Channel, left: float) -> Any:
            fn = getattr(table_pb2_grpc.TableServiceStub(channel), method)
            return fn(request, timeout=left, metadata=metadata)

        try:
            return await self.run(
                self.router.call,
                match_id,
                attempt,
                deadline=max(timeout, DEFAULT_DEADLINE_SECONDS),
                attempt_timeout=timeout,
                idempotent=method in IDEMPOTENT_METHODS[TABLE_SERVICE],
            )
        except grpc.RpcError as error:
            raise http_error(error, LABELS["table"]) from None

    async def list_tables(self, request: table_pb2.ListTablesRequest) -> list[Any]:
        """ListTables at every replica, each match once (see
        :mod:`hebei.common.routing.fanout`), at most the request's page size."""

        def page(channel: grpc.Channel, timeout: float) -> list[Any]:
            stub = table_pb2_grpc.TableServiceStub(channel)
            return list(stub.ListTables(request, timeout=timeout).matches)

        try:
            answers = await self.run(ask_every_entry, self.router, page, self.config.call_timeout)
        except grpc.RpcError as error:
            raise http_error(error, LABELS["table"]) from None
        merged = merge_matches(answers)
        return merged[: request.page_size] if request.page_size else merged

    def health(self, service: str) -> dict[str, Any]:
        """grpc.health.v1 of one service (blocking): status and round trip."""
        started = time.perf_counter()
        stub = health_pb2_grpc.HealthStub(self.channels[service])
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=2.0)
            status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        except grpc.RpcError as error:
            code = error.code() if hasattr(error, "code") else None
            status = "UNREACHABLE" if code == grpc.StatusCode.UNAVAILABLE else "ERROR"
        return {
            "service": service,
            "address": self.addresses[service],
            "status": status.lower(),
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }


TABLE_SERVICE = "hebei.v1.TableService"


def get_match_attempt(match_id: str) -> Callable[[grpc.Channel, float], Any]:
    """One anonymous GetMatch of ``match_id``, for :meth:`MatchRouter.call` (threads that
    block anyway: the feeds' producers)."""
    request = table_pb2.GetMatchRequest(match_id=match_id)

    def attempt(channel: grpc.Channel, timeout: float) -> Any:
        return table_pb2_grpc.TableServiceStub(channel).GetMatch(request, timeout=timeout)

    return attempt


def _metadata(
    token: str | None, actor: str | None, client: str | None
) -> list[tuple[str, str]] | None:
    """A call's metadata: the bearer token, who acted, and (with a token) the person's
    address."""
    metadata: list[tuple[str, str]] = list(bearer_metadata(token)) if token else []
    if actor:
        metadata.extend(actor_metadata(actor))
    if client and token:
        metadata.extend(client_metadata(client))
    return metadata or None


LABELS = {
    "table": "the table engine",
    "matchmaking": "matchmaking",
    "ledger": "the ledger",
    "botservice": "the bot service",
}
