"""Routing of match-scoped calls over several table replicas (issue 46): each match has one
owner replica at a time (:mod:`hebei.common.ownership`); a replica refuses calls on matches it
does not own with a status naming the owner, and clients follow it, and follow takeovers,
without help.

- :mod:`.convention`: the refusal both sides share — UNAVAILABLE, ``match M is served by table
  replica R at ADDR`` (or ``... is being taken over; try again``), trailing metadata
  ``hebei-owner`` (the owner's address, absent while nobody serves the match),
  ``hebei-not-served: 1`` and ``grpc-retry-pushback-ms: -1``; :func:`abort_not_owner` (a
  synchronous servicer), :func:`abort_not_owner_async` (``grpc.aio``), :func:`owner_of`,
  :func:`is_refusal`.
- :mod:`.router`: :class:`MatchRouter` (synchronous channels) and :class:`AsyncMatchRouter`
  (``grpc.aio``): ``call(match_id, fn)`` for unary calls, ``stream_channel`` /
  ``note_served`` / ``note_failure`` for streams and their reconnect loops.
- :mod:`.plan`: one call's course — redirects (at most :data:`MAX_HOPS` in a row, no loops),
  entries in turn with capped jittered backoff, within a deadline (default
  :data:`DEFAULT_DEADLINE_SECONDS`, twice the 3.6 s takeover bound); :class:`NoRoute`.
- :mod:`.rejoin`: :class:`RejoinSchedule`, the waits of a stream's rejoin loop — a named owner
  at once, every :data:`TAKEOVER_RETRY_SECONDS` (0.25 s) while the match is being taken over
  (within the router's deadline), a doubling backoff otherwise.
- :mod:`.caches`: the bounded owner book and channel pool; :mod:`.addresses`:
  :func:`parse_addresses` ("a:1,b:2").

Use::

    router = MatchRouter(parse_addresses(setting), token=token)      # or MatchRouter(setting)
    info = router.call(match_id, lambda ch, t: TableServiceStub(ch).GetMatch(req, timeout=t))

    schedule = router.rejoin_schedule(RouteBackoff(0.2, 5.0))        # one per stream's loop
    address, channel = router.stream_channel(match_id)                # a stream's (re)open
    ...                                                               # first message:
    router.note_served(match_id, address); schedule.served()
    ...                                                               # it ended with error:
    router.note_failure(match_id, error, address)
    wait = schedule.after(error, address)                             # wait.seconds, reopen

    # in a replica's servicer, for a match it does not own (owner: a Directory Holder or None)
    await abort_not_owner_async(context, match_id, directory.key_owner(match_id))

This package imports neither the database driver nor :mod:`hebei.common.ownership`: clients
(the web gateway, the terminal) use it without them.
"""

from hebei.common.routing.addresses import parse_addresses
from hebei.common.routing.caches import MAX_CHANNELS, MAX_MATCHES, ChannelPool, RouteBook
from hebei.common.routing.convention import (
    NOT_SERVED_KEY,
    OWNER_KEY,
    Owner,
    OwnerLike,
    Refusal,
    abort_not_owner,
    abort_not_owner_async,
    is_refusal,
    owner_of,
    refusal,
)
from hebei.common.routing.plan import (
    DEFAULT_DEADLINE_SECONDS,
    MAX_HOPS,
    TAKEOVER_BOUND_SECONDS,
    CallPlan,
    NoRoute,
    RouteBackoff,
)
from hebei.common.routing.rejoin import (
    TAKEOVER_RETRY_SECONDS,
    RejoinSchedule,
    RejoinWait,
    WaitKind,
)
from hebei.common.routing.router import AsyncMatchRouter, MatchRouter, Route, RouteSettings

__all__ = [
    "DEFAULT_DEADLINE_SECONDS",
    "MAX_CHANNELS",
    "MAX_HOPS",
    "MAX_MATCHES",
    "NOT_SERVED_KEY",
    "OWNER_KEY",
    "TAKEOVER_BOUND_SECONDS",
    "TAKEOVER_RETRY_SECONDS",
    "AsyncMatchRouter",
    "CallPlan",
    "ChannelPool",
    "MatchRouter",
    "NoRoute",
    "Owner",
    "OwnerLike",
    "Refusal",
    "RejoinSchedule",
    "RejoinWait",
    "Route",
    "RouteBackoff",
    "RouteBook",
    "RouteSettings",
    "WaitKind",
    "abort_not_owner",
    "abort_not_owner_async",
    "is_refusal",
    "owner_of",
    "parse_addresses",
    "refusal",
]
