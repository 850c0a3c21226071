"""Clients' routers of match-scoped calls over several table replicas: each match's calls go to
its owner, found through the entry addresses and followed through takeovers without help.

:class:`MatchRouter` serves synchronous channels (threads: the web gateway, the terminal's
Play stream, matchmaking, the bot service); :class:`AsyncMatchRouter` ``grpc.aio`` channels on
one event loop (the bot fleet's seat sessions). Both keep one channel per replica address
(:class:`~hebei.common.routing.caches.ChannelPool`) and each match's route
(:class:`~hebei.common.routing.caches.RouteBook`), both bounded.

- ``call(match_id, fn)``: a unary call, ``fn(channel, timeout)`` being one attempt; redirects
  followed, owners lost found again through the entries, within a deadline
  (:mod:`hebei.common.routing.plan`); its result, its own failure (NOT_FOUND...) or
  :class:`~hebei.common.routing.plan.NoRoute`.
- Streams (Play, Spectate): ``address, channel = stream_channel(match_id)`` to open one;
  ``note_served(match_id, address)`` once it answered; ``note_failure(match_id, error,
  address)`` when it ended, before the client's own reconnect waits and opens it again (a
  redirect sends the next open to the owner at once; a lost owner sends it to the next entry);
  ``rejoin_schedule(backoff)``: the waits of the stream's reconnect loop
  (:class:`~hebei.common.routing.rejoin.RejoinSchedule`, its takeover window the router's
  deadline).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

import grpc
import grpc.aio

from hebei.common.client import DEFAULT_TIMEOUT_SECONDS, create_aio_channel, create_channel
from hebei.common.routing.addresses import parse_addresses
from hebei.common.routing.caches import MAX_CHANNELS, MAX_MATCHES, ChannelPool, RouteBook
from hebei.common.routing.convention import is_refusal, owner_of
from hebei.common.routing.plan import (
    DEFAULT_BACKOFF,
    DEFAULT_DEADLINE_SECONDS,
    MAX_HOPS,
    CallPlan,
    RouteBackoff,
    check_settings,
)
from hebei.common.routing.rejoin import RejoinSchedule
from hebei.common.tls import ClientTls

__all__ = ["AsyncMatchRouter", "MatchRouter", "Route", "RouteSettings"]

C = TypeVar("C")
T = TypeVar("T")
# Failures of a stream that say its replica does not (or no longer) serve the match.
REROUTE_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


class Route(NamedTuple, Generic[C]):
    """Where a stream goes: the replica's address and the channel to it."""

    address: str
    channel: C


def _entries(entry_addresses: Sequence[str] | str) -> tuple[str, ...]:
    if isinstance(entry_addresses, str):
        return parse_addresses(entry_addresses)
    return parse_addresses(",".join(entry_addresses)) if entry_addresses else ()


@dataclass(frozen=True, slots=True)
class RouteSettings:
    """A router's bounds: a call's default total deadline (twice the takeover bound, 7.2 s),
    redirects followed in a row, replica channels and match routes kept, the backoff."""

    deadline_seconds: float = DEFAULT_DEADLINE_SECONDS
    max_hops: int = MAX_HOPS
    max_channels: int = MAX_CHANNELS
    max_matches: int = MAX_MATCHES
    backoff: RouteBackoff = DEFAULT_BACKOFF

    def __post_init__(self) -> None:
        check_settings(self.deadline_seconds, max_hops=self.max_hops)


DEFAULT_SETTINGS = RouteSettings()


class _Router(Generic[C]):
    """What both routers share: the caches, the plans, the stream bookkeeping."""

    def __init__(
        self,
        entry_addresses: Sequence[str] | str,
        channel_factory: Callable[[str], C],
        on_evict: Callable[[C], None],
        settings: RouteSettings,
        rng: random.Random | None,
    ) -> None:
        self.settings = settings
        self.book = RouteBook(
            _entries(entry_addresses), settings.max_matches, down_seconds=settings.deadline_seconds
        )
        self.channels: ChannelPool[C] = ChannelPool(
            channel_factory, on_evict, settings.max_channels
        )
        self.rng = rng or random.Random()

    @property
    def entries(self) -> tuple[str, ...]:
        return self.book.entries

    def owner(self, match_id: str) -> str | None:
        """The match's last known owner (None: not known yet, or lost)."""
        return self.book.owner(match_id)

    def channel_for(self, match_id: str) -> C:
        """The channel to the match's owner, or to an entry address while it is not known."""
        return self.channels.get(self.book.address_for(match_id))

    def stream_channel(self, match_id: str) -> Route[C]:
        """Where to open a stream on ``match_id`` now: ``(address, channel)``; hand the address
        back to :meth:`note_served` and :meth:`note_failure`."""
        address = self.book.address_for(match_id)
        return Route(address, self.channels.get(address))

    def note_served(self, match_id: str, address: str) -> None:
        """A stream at ``address`` was answered: that replica serves the match."""
        self.book.learn(match_id, address)
        self.book.reached(address)

    def note_failure(
        self, match_id: str, error: BaseException, address: str | None = None
    ) -> str | None:
        """A call or stream on ``match_id`` (at ``address``, when known) ended with ``error``:
        re-route the match if the error says to, and return where its next stream goes (None:
        the error says nothing of routing, e.g. NOT_FOUND or a wrong token)."""
        owner = owner_of(error)
        if owner is not None and owner != address:
            self.book.learn(match_id, owner)
            return owner
        if is_refusal(error):
            return self.book.forget(match_id, address)
        code = getattr(error, "code", None)
        if callable(code) and code() in REROUTE_CODES:  # out of reach, or stuck
            return self.book.forget(match_id, address, unreachable=True)
        return None

    def rejoin_schedule(self, backoff: RouteBackoff) -> RejoinSchedule:
        """A new stream loop's schedule of waits: ``backoff`` for failures that are not a
        takeover, the takeover window the router's deadline, its redirects in a row the
        router's."""
        return RejoinSchedule(
            backoff,
            takeover_window=self.settings.deadline_seconds,
            max_hops=self.settings.max_hops,
            rng=self.rng,
        )

    def _plan(
        self,
        match_id: str,
        deadline: float | None,
        attempt_timeout: float | None,
        idempotent: bool,
    ) -> CallPlan:
        return CallPlan(
            match_id,
            self.book,
            deadline_seconds=deadline if deadline is not None else self.settings.deadline_seconds,
            attempt_seconds=attempt_timeout,
            max_hops=self.settings.max_hops,
            backoff=self.settings.backoff,
            idempotent=idempotent,
            rng=self.rng,
        )


class MatchRouter(_Router[grpc.Channel]):
    """Routes match-scoped calls over synchronous channels (thread-safe).

    ``entry_addresses``: a sequence of ``host:port`` or one comma-separated setting
    (:func:`~hebei.common.routing.addresses.parse_addresses`). ``channel_factory(address)``
    makes a channel; by default :func:`hebei.common.client.create_channel` with ``token``,
    ``tls`` and ``timeout`` (the default deadline of each unary attempt). ``settings``: the
    bounds (:class:`RouteSettings`; an evicted channel is closed); ``rng``: the backoff's
    jitter (tests)."""

    def __init__(
        self,
        entry_addresses: Sequence[str] | str,
        channel_factory: Callable[[str], grpc.Channel] | None = None,
        *,
        token: str | None = None,
        tls: bool | ClientTls | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        settings: RouteSettings = DEFAULT_SETTINGS,
        rng: random.Random | None = None,
    ) -> None:
        if channel_factory is None:
            channel_factory = functools.partial(
                create_channel, token=token, tls=tls, timeout=timeout
            )
        elif token or tls:
            raise ValueError("token and tls are for the default channel factory: give either")
        super().__init__(entry_addresses, channel_factory, _close, settings, rng)

    def call(
        self,
        match_id: str,
        fn: Callable[[grpc.Channel, float], T],
        *,
        deadline: float | None = None,
        attempt_timeout: float | None = None,
        idempotent: bool = True,
    ) -> T:
        """``fn(channel, timeout)`` (one unary attempt, e.g. ``lambda ch, t:
        TableServiceStub(ch).GetMatch(request, timeout=t)``) at the match's owner, following
        redirects and takeovers within ``deadline`` seconds; ``attempt_timeout`` caps each
        attempt; ``idempotent=False``: sent again only after a refusal (see
        :mod:`hebei.common.routing.plan`). Raises the call's own failure or NoRoute."""
        plan = self._plan(match_id, deadline, attempt_timeout, idempotent)
        while True:
            channel = self.channels.get(plan.starting())
            try:
                result = fn(channel, plan.attempt_timeout())
            except grpc.RpcError as error:
                time.sleep(plan.failed(error))
                continue
            plan.served()
            return result

    def close(self) -> None:
        """Close every channel (calls and streams on them end with CANCELLED)."""
        for channel in self.channels.close():
            _close(channel)

    def __enter__(self) -> MatchRouter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _close(channel: Any) -> None:
    with contextlib.suppress(Exception):
        channel.close()


class AsyncMatchRouter(_Router[grpc.aio.Channel]):
    """:class:`MatchRouter` over ``grpc.aio`` channels, for one event loop: build and use it
    on that loop (its channels belong to it). The default factory is
    :func:`hebei.common.client.create_aio_channel` with ``tls``; such channels carry no token
    of their own: give the call's metadata in ``fn``."""

    def __init__(
        self,
        entry_addresses: Sequence[str] | str,
        channel_factory: Callable[[str], grpc.aio.Channel] | None = None,
        *,
        tls: bool | ClientTls | None = None,
        settings: RouteSettings = DEFAULT_SETTINGS,
        rng: random.Random | None = None,
    ) -> None:
        if channel_factory is None:
            channel_factory = functools.partial(create_aio_channel, tls=tls)
        elif tls:
            raise ValueError("tls is for the default channel factory: give either")
        self._closing: set[asyncio.Task[Any]] = set()
        super().__init__(entry_addresses, channel_factory, self._close_later, settings, rng)

    def _close_later(self, channel: grpc.aio.Channel) -> None:
        """Close an evicted channel on the loop (its close is a coroutine)."""
        task = asyncio.get_running_loop().create_task(channel.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def call(
        self,
        match_id: str,
        fn: Callable[[grpc.aio.Channel, float], Awaitable[T]],
        *,
        deadline: float | None = None,
        attempt_timeout: float | None = None,
        idempotent: bool = True,
    ) -> T:
        """:meth:`MatchRouter.call` with ``await fn(channel, timeout)``."""
        plan = self._plan(match_id, deadline, attempt_timeout, idempotent)
        while True:
            channel = self.channels.get(plan.starting())
            try:
                result = await fn(channel, plan.attempt_timeout())
            except grpc.RpcError as error:
                await asyncio.sleep(plan.failed(error))
                continue
            plan.served()
            return result

    async def close(self) -> None:
        """Close every channel (calls and streams on them end with CANCELLED)."""
        channels = self.channels.close()
        await asyncio.gather(*(c.close() for c in channels), *self._closing, return_exceptions=True)

    async def __aenter__(self) -> AsyncMatchRouter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
