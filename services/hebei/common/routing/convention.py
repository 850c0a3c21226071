"""The redirect convention a table replica and its clients share (issue 46): how a replica
refuses a call on a match it does not own, and how a client reads the refusal.

A refused call ends, before the replica did anything, with

- status ``UNAVAILABLE`` — what today's idempotent retries and reconnect loops already treat as
  transient, so a client that knows nothing of routing still tries again;
- a one-line message naming the match and its owner: ``match M is served by table replica R at
  ADDR``, or ``match M is being taken over; try again`` while nobody serves it (no live owner,
  or one still in its takeover grace);
- trailing metadata ``hebei-owner: ADDR`` (the owner's host:port; absent while nobody serves
  the match), ``hebei-not-served: 1`` (on every refusal: the call did nothing, so even a
  non-idempotent one may be sent again elsewhere), and ``grpc-retry-pushback-ms: -1``, which
  stops the channel's own retries (:data:`hebei.common.client.RETRY_POLICY`) from asking the
  same replica four more times (about 0.8 s): where to go next is the router's business.

Server side: :func:`abort_not_owner` (a synchronous servicer, ``context.abort`` style) and
:func:`abort_not_owner_async` (``grpc.aio``, the table engine's), both from :func:`refusal`.
Client side: :func:`owner_of` and :func:`is_refusal` read any ``grpc.RpcError`` (synchronous or
``grpc.aio``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn, Protocol

import grpc

__all__ = [
    "NOT_SERVED_KEY",
    "OWNER_KEY",
    "PUSHBACK_KEY",
    "Owner",
    "OwnerLike",
    "Refusal",
    "abort_not_owner",
    "abort_not_owner_async",
    "is_refusal",
    "owner_of",
    "refusal",
]

OWNER_KEY = "hebei-owner"
NOT_SERVED_KEY = "hebei-not-served"
PUSHBACK_KEY = "grpc-retry-pushback-ms"  # gRFC A6: a negative value means "do not retry"
REFUSAL_CODE = grpc.StatusCode.UNAVAILABLE
MAX_MATCH_ID_SHOWN = 200  # characters of a match id in a refusal's message


class OwnerLike(Protocol):
    """Who holds a match: :class:`hebei.common.ownership.Holder` is one, :class:`Owner` too."""

    @property
    def replica_id(self) -> str: ...

    @property
    def address(self) -> str: ...

    @property
    def serving(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Owner:
    """A match's owner, for a caller without a :class:`~hebei.common.ownership.Holder`."""

    replica_id: str
    address: str
    serving: bool = True


@dataclass(frozen=True, slots=True)
class Refusal:
    """The status, message and trailing metadata of a refused call."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str], ...]


def _metadata_safe(value: str) -> bool:
    """Whether ``value`` can travel as an ASCII metadata value."""
    return bool(value) and value.isascii() and value.isprintable()


def refusal(match_id: str, owner: OwnerLike | None) -> Refusal:
    """The refusal of a call on ``match_id`` by a replica that does not own it; ``owner``: who
    does (None, or not ``serving`` yet: it is being taken over)."""
    shown = match_id if len(match_id) <= MAX_MATCH_ID_SHOWN else match_id[:199] + "…"
    metadata = [(NOT_SERVED_KEY, "1"), (PUSHBACK_KEY, "-1")]
    if owner is not None and owner.serving and _metadata_safe(owner.address):
        details = f"match {shown} is served by table replica {owner.replica_id} at {owner.address}"
        metadata.insert(0, (OWNER_KEY, owner.address))
    else:
        details = f"match {shown} is being taken over; try again"
    return Refusal(REFUSAL_CODE, details, tuple(metadata))


def abort_not_owner(
    context: grpc.ServicerContext, match_id: str, owner: OwnerLike | None
) -> NoReturn:
    """End the call of a synchronous servicer with :func:`refusal` (raises, as
    ``context.abort`` does)."""
    refused = refusal(match_id, owner)
    context.set_trailing_metadata(refused.trailing_metadata)
    context.abort(refused.code, refused.details)
    raise AssertionError("context.abort returned")  # pragma: no cover - it always raises


async def abort_not_owner_async(context: Any, match_id: str, owner: OwnerLike | None) -> NoReturn:
    """End the call of a ``grpc.aio`` servicer (a unary handler or a stream, before or after
    its first message) with :func:`refusal` (raises, as ``await context.abort`` does)."""
    refused = refusal(match_id, owner)
    context.set_trailing_metadata(refused.trailing_metadata)
    await context.abort(refused.code, refused.details)
    raise AssertionError("context.abort returned")  # pragma: no cover - it always raises


def _trailing(error: BaseException) -> dict[str, str]:
    """An error's trailing metadata as a dict (empty when it has none: a local failure, a
    :class:`~hebei.common.routing.plan.NoRoute`, an error that is not a call)."""
    read = getattr(error, "trailing_metadata", None)
    if read is None:
        return {}
    try:
        pairs = read() or ()
    except Exception:  # a call object that cannot say: nothing to read
        return {}
    return {key: value for key, value in pairs if isinstance(value, str)}


def _code(error: BaseException) -> grpc.StatusCode | None:
    read = getattr(error, "code", None)
    try:
        return read() if read is not None else None
    except Exception:
        return None


def owner_of(error: BaseException) -> str | None:
    """The address a refused call names as the match's owner (``hebei-owner``); None when it
    names none (being taken over, or not a refusal at all)."""
    if _code(error) != REFUSAL_CODE:
        return None
    owner = _trailing(error).get(OWNER_KEY, "")
    return owner or None


def is_refusal(error: BaseException) -> bool:
    """Whether ``error`` is a replica's refusal of a match it does not serve (the call did
    nothing there), as opposed to a failure of the call itself."""
    return _code(error) == REFUSAL_CODE and _trailing(error).get(NOT_SERVED_KEY) == "1"
