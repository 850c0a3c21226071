"""Tokens: the operator token for operator RPCs, service tokens between services, seat tokens.

Callers send ``authorization: Bearer <token>`` metadata. :data:`METHOD_ROLES` is the
machine-readable list of the RPCs that need a token (the proto comments say the same in words;
a test keeps them in step). A method not listed is public.

- missing token, or a token that is not the operator's or a service's: UNAUTHENTICATED;
- a service token on an operator-only method: PERMISSION_DENIED.

Seat tokens travel in ``TableService.Play``'s Join message; the Play servicer checks them with
:func:`check_seat_token`.
"""

from __future__ import annotations

import contextlib
import enum
import hmac
import secrets
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import grpc

from hebei.common import metrics
from hebei.common.errors import PermissionDenied, ResourceExhausted, Unauthenticated
from hebei.common.interceptors import AsyncHandlerInterceptor, HandlerInterceptor, RpcInfo
from hebei.common.quota import FailureLimit, peer_host

AUTHORIZATION = "authorization"
BEARER = "Bearer "


class Role(enum.IntEnum):
    """Who may call: each role may do what the roles below it may."""

    PUBLIC = 0
    SERVICE = 1  # another hebei service (or the operator)
    OPERATOR = 2  # the operator only


# Every RPC that needs a token, and the least role that may call it.
METHOD_ROLES: Mapping[str, Role] = {
    "/hebei.v1.TableService/OpenMatch": Role.SERVICE,  # matchmaking opens matches
    "/hebei.v1.TableService/Dissolve": Role.SERVICE,  # matchmaking removes players
    "/hebei.v1.TableService/ReplaceSeat": Role.SERVICE,  # matchmaking revokes a seat
    "/hebei.v1.TableService/ConcludeMatch": Role.SERVICE,  # a round's time limit
    "/hebei.v1.TableService/RevealMatchResults": Role.SERVICE,  # hidden round results shown
    "/hebei.v1.MatchmakingService/CreateTournament": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/StartTournament": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/Pause": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/Resume": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/RemovePlayer": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/CancelTournament": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/PreviewRound": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/SwapSeats": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/AssignPenalty": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/CancelPenalty": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/DissolveTable": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/ListOperatorActions": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/RevealResults": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/CorrectMatchResult": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/UndoCorrection": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/RepairRound": Role.OPERATOR,
    "/hebei.v1.MatchmakingService/ReportMatchResult": Role.SERVICE,  # the table engine reports
    "/hebei.v1.MatchmakingService/RequestBots": Role.SERVICE,
    "/hebei.v1.LedgerService/PostSettlement": Role.SERVICE,  # the table engine books hands
    "/hebei.v1.LedgerService/ReverseEntry": Role.OPERATOR,
    "/hebei.v1.LedgerService/PostAdjustment": Role.SERVICE,  # matchmaking: penalties, uma
    "/hebei.v1.LedgerService/CancelAdjustment": Role.SERVICE,  # matchmaking cancels penalties
    "/hebei.v1.LedgerService/SetResultsHidden": Role.SERVICE,  # matchmaking hides results
}
OPERATOR_METHODS = frozenset(m for m, role in METHOD_ROLES.items() if role is Role.OPERATOR)


def new_token(nbytes: int = 24) -> str:
    """A fresh random token (URL-safe text)."""
    return secrets.token_urlsafe(nbytes)


def same_token(expected: str, given: str) -> bool:
    """Constant-time comparison of two tokens."""
    return hmac.compare_digest(expected.encode(), given.encode())


def bearer_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata carrying ``token``."""
    return ((AUTHORIZATION, BEARER + token),)


def token_from_metadata(metadata: Sequence[tuple[str, Any]] | None) -> str | None:
    """The bearer token of a call's metadata, or None."""
    for key, value in metadata or ():
        if key == AUTHORIZATION:
            text = value.decode() if isinstance(value, bytes) else str(value)
            if text.startswith(BEARER) and text[len(BEARER) :].strip():
                return text[len(BEARER) :].strip()
            return None
    return None


ACTOR = "hebei-actor"  # who acted (an operator's name), recorded with operator actions


def is_metadata_text(text: str) -> bool:
    """Whether ``text`` can travel as a call metadata value as it is (gRPC refuses anything
    but printable ASCII, "INTERNAL: Invalid metadata")."""
    return text.isascii() and text.isprintable()


def actor_metadata(name: str) -> tuple[tuple[str, str], ...]:
    """Call metadata naming who acts. A metadata value must be printable ASCII, so the name
    is percent-encoded (UTF-8): a name such as 李裁判 travels, and comes back
    with :func:`actor_from_metadata`; a plain ASCII name is sent as it is."""
    return ((ACTOR, urllib.parse.quote(name, safe=" !#$&'()*+,-./:;=?@[]^_`{|}~")),)


def actor_from_metadata(metadata: Sequence[tuple[str, Any]] | None) -> str | None:
    """The name :func:`actor_metadata` sent, decoded (not checked: the caller bounds it)."""
    for key, value in metadata or ():
        if key == ACTOR:
            text = value.decode() if isinstance(value, bytes) else str(value)
            return urllib.parse.unquote(text, errors="replace")
    return None


CLIENT = "hebei-client"  # the address of the person a trusted service calls for
MAX_CLIENT_LENGTH = 64


def client_metadata(address: str) -> tuple[tuple[str, str], ...]:
    """Call metadata naming the client a service (the web gateway) calls for, so that the
    callee's per-address bounds count that person, not the service's one address. Honoured
    only beside a service or operator token (:func:`calling_client`)."""
    return ((CLIENT, address[:MAX_CLIENT_LENGTH]),) if is_metadata_text(address) else ()


def calling_client(context: grpc.ServicerContext, authority: TokenAuthority) -> str:
    """The client address a call's per-address bounds count: the ``hebei-client`` a service
    or the operator forwards (the person behind the web gateway), else the peer's own
    address. Anonymous callers cannot choose it: without a valid token it is ignored."""
    from hebei.common.quota import peer_host

    metadata = context.invocation_metadata() or ()
    forwarded = next((str(v) for k, v in metadata if k == CLIENT), "")
    token = token_from_metadata(metadata)
    if forwarded and token is not None and authority.role_of(token) is not None:
        return f"client:{forwarded[:MAX_CLIENT_LENGTH]}"
    return peer_host(context.peer())


def has_token(context: grpc.ServicerContext) -> bool:
    """Whether a call reaching its servicer carries a token: behind :class:`AuthInterceptor`
    (on every server ``hebei.common.server`` builds) that is a valid operator or service token,
    an unknown one having been refused UNAUTHENTICATED; without one the caller is anonymous."""
    return token_from_metadata(context.invocation_metadata()) is not None


def check_seat_token(expected: str, given: str | None) -> None:
    """Raise Unauthenticated when ``given`` is empty, PermissionDenied when it is not the seat's."""
    if not given:
        raise Unauthenticated("a seat token is required to join a seat")
    if not expected or not same_token(expected, given):
        raise PermissionDenied("wrong seat token for this seat")


# Wrong tokens tolerated before calls with a token are refused unchecked: from one client
# address, and from all addresses together (then each address that sent a wrong token in the
# window is refused until its failures age out; an address that sent none is still checked,
# so the operator keeps working through a guessing attack from elsewhere).
AUTH_FAILURES_PER_PEER = 10
AUTH_FAILURES_TOTAL = 100
AUTH_FAILURE_SECONDS = 60.0


class FailedAuthentications:
    """Slows token guessing. A call that brings a token from an address that has sent
    ``per_peer`` wrong tokens in the last ``window`` seconds, or any wrong token while all
    addresses together have sent ``total``, is refused RESOURCE_EXHAUSTED before its token is
    looked at: no answer says whether a guess was right until the window has passed."""

    def __init__(
        self,
        per_peer: int = AUTH_FAILURES_PER_PEER,
        total: int = AUTH_FAILURES_TOTAL,
        window: float = AUTH_FAILURE_SECONDS,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.peers = FailureLimit("wrong tokens", per_peer, window, clock=clock)
        self.everyone = FailureLimit("wrong tokens", total, window, clock=clock)
        self.window = window

    def check(self, peer: str) -> None:
        try:
            self.peers.check(peer)
            if self.peers.recent(peer):
                self.everyone.check("")
        except ResourceExhausted:
            metrics.AUTH_FAILURES.labels("throttled").inc()
            raise

    def failed(self, peer: str) -> None:
        metrics.AUTH_FAILURES.labels("unknown").inc()
        self.peers.failed(peer)
        self.everyone.failed("")


class TokenAuthority:
    """Knows the operator token and the service tokens, and who may call what."""

    def __init__(
        self,
        operator_token: str,
        service_tokens: Sequence[str] = (),
        method_roles: Mapping[str, Role] = METHOD_ROLES,
        failures: FailedAuthentications | None = None,
    ) -> None:
        if not operator_token:
            raise ValueError("the operator token must not be empty")
        self._tokens: list[tuple[str, Role]] = [(operator_token, Role.OPERATOR)]
        self._tokens += [(token, Role.SERVICE) for token in service_tokens if token]
        self.method_roles = method_roles
        self.failures = failures or FailedAuthentications()

    def role_of(self, token: str) -> Role | None:
        """The role a token grants, or None for an unknown token."""
        found = None
        for known, role in self._tokens:  # check all: no early exit timing difference
            if same_token(known, token) and (found is None or role > found):
                found = role
        return found

    def check(
        self, full_method: str, metadata: Sequence[tuple[str, Any]] | None, peer: str = ""
    ) -> Role:
        """The caller's role for ``full_method``; raise Unauthenticated or PermissionDenied
        (ResourceExhausted, unchecked, for a ``peer`` that sent too many wrong tokens)."""
        needed = self.method_roles.get(full_method, Role.PUBLIC)
        token = token_from_metadata(metadata)
        if token is None:
            if needed is Role.PUBLIC:
                return Role.PUBLIC
            raise Unauthenticated(f"{full_method} needs a token: 'authorization: Bearer ...'")
        self.failures.check(peer)
        role = self.role_of(token)
        if role is None:
            self.failures.failed(peer)
            raise Unauthenticated("unknown token")
        if role < needed:
            raise PermissionDenied(f"{full_method} is for the {needed.name.lower()} only")
        return role


class AuthInterceptor(HandlerInterceptor):
    """Refuses calls whose token does not grant the method's role (see :data:`METHOD_ROLES`)."""

    def __init__(self, authority: TokenAuthority) -> None:
        self.authority = authority

    @contextlib.contextmanager
    def scope(self, request: Any, context: grpc.ServicerContext, info: RpcInfo) -> Iterator[Any]:
        self.authority.check(
            info.full_method, context.invocation_metadata(), peer_host(context.peer())
        )
        yield request


class AsyncAuthInterceptor(AsyncHandlerInterceptor, AuthInterceptor):
    """:class:`AuthInterceptor` on the asyncio server."""
