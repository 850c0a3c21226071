"""The gateway's ASGI middleware: the real client's address in every request's scope
(:class:`ClientAddress`), the same-origin check before any state change
(:class:`StateChangeGuard`) and the security headers on every response
(:class:`SecurityHeaders`).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from hebei.web.backend import HttpError
from hebei.web.inputs import check_state_change, error_response
from hebei.web.limits import TrustedProxies

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # seat keys live in page URLs
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        b"connect-src 'self'; frame-ancestors 'none'",
    ),
]


class ClientAddress:
    """Puts the real client's address in ``scope["client"]`` for every route and bound: the
    peer's own, or, from a trusted proxy (``HEBEI_WEB_TRUSTED_PROXIES``), the client its
    ``X-Forwarded-For`` / ``Forwarded`` header names (see :class:`TrustedProxies`)."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        peer = scope.get("client")
        if scope["type"] == "http" and peer and self.proxies.networks:
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1")
                for k, v in scope.get("headers", ())
                if k.lower() in (b"x-forwarded-for", b"forwarded")
            }
            host = self.proxies.client(peer[0], headers)
            if host != peer[0]:
                scope = {**scope, "client": (host, 0)}
        await self.app(scope, receive, send)


class StateChangeGuard:
    """:func:`check_state_change` before any route that is not a plain read."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            try:
                check_state_change(Request(scope))
            except HttpError as error:
                response = error_response(error.status, error.message, error.code)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)
