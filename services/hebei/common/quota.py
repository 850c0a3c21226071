"""Quotas per client address: how many calls of one kind a server runs at once, in all and from
one client address (the peer's host), so that one address can never take every slot. Stream
quotas bound long-lived streams: the table engine's (spectators, Play streams before their
Join) and matchmaking's (WatchTournament, QuickPlay); call quotas bound expensive unary calls:
the bot service's Review, the ledger's public reads. Beyond a bound the call is
RESOURCE_EXHAUSTED at once, before any work. Failure limits bound guessing: how many wrong
secrets (matchmaking's registration codes) one address may try in a window. An IPv6 client is
counted by its /64 network (:func:`client_key`)."""

from __future__ import annotations

import collections
import contextlib
import ipaddress
import math
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar, cast

from hebei.common.errors import ResourceExhausted

__all__ = [
    "CallQuota",
    "FailureLimit",
    "RecentResults",
    "StreamQuota",
    "client_key",
    "peer_host",
]

T = TypeVar("T")


def client_key(host: str) -> str:
    """The client an IP address stands for, as bounds per client address count it: an IPv4
    address itself; an IPv6 address its /64 network (one subscriber, one machine even, holds a
    whole /64 and could otherwise take a new address for every call), an IPv4-mapped one its
    IPv4 address. Anything else (a Unix socket's name) is returned as it is."""
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def peer_host(peer: str) -> str:
    """The client of a gRPC peer string (see :func:`client_key`): ``ipv4:10.0.0.7:5123`` ->
    ``10.0.0.7``, ``ipv6:[2001:db8::7]:5123`` -> ``2001:db8::/64``; another kind of peer
    (``unix:...``) as it is."""
    kind, _, address = peer.partition(":")
    if kind in ("ipv4", "ipv6") and ":" in address:
        return client_key(address.rsplit(":", 1)[0])
    return peer


class CallQuota:
    """At most ``total`` calls of one kind at once, ``per_peer`` from one client address;
    ``refused(reason)`` ("total" or "peer") is called for each call refused (a metric)."""

    unit = "calls"  # what the refusal says is bounded

    def __init__(
        self,
        rpc: str,
        total: int,
        per_peer: int,
        refused: Callable[[str], None] | None = None,
    ) -> None:
        self.rpc = rpc
        self.total = total
        self.per_peer = per_peer
        self.refused = refused
        self.open = 0
        self._by_peer: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def slot(self, peer: str) -> Iterator[None]:
        """Hold one slot of ``peer`` (a client address: see :func:`peer_host`) for the block."""
        with self._lock:
            if self.open >= self.total:
                reason, limit, whom = "total", self.total, "in all"
            elif self._by_peer[peer] >= self.per_peer:
                reason, limit, whom = "peer", self.per_peer, "from one client address"
            else:
                reason = ""
                self.open += 1
                self._by_peer[peer] += 1
        if reason:
            if self.refused is not None:
                self.refused(reason)
            raise ResourceExhausted(
                f"at most {limit} {self.rpc} {self.unit} {whom}; try again later"
            )
        try:
            yield
        finally:
            with self._lock:
                self.open -= 1
                self._by_peer[peer] -= 1
                if not self._by_peer[peer]:
                    del self._by_peer[peer]


class StreamQuota(CallQuota):
    """At most ``total`` streams of one kind at once, ``per_peer`` from one client address."""

    unit = "streams"


class FailureLimit:
    """At most ``limit`` failures (wrong guesses of a secret) from one client address in any
    ``window`` seconds: once it has made that many, :meth:`check` refuses its calls,
    RESOURCE_EXHAUSTED before any work, until the oldest leaves the window. At most
    ``max_peers`` addresses are remembered, the least recently failing forgotten first, so
    memory stays bounded whatever the number of addresses."""

    def __init__(
        self,
        what: str,
        limit: int,
        window: float,
        *,
        max_peers: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.what = what
        self.limit = limit
        self.window = window
        self.max_peers = max_peers
        self.clock = clock
        self._failures: collections.OrderedDict[str, collections.deque[float]] = (
            collections.OrderedDict()
        )
        self._lock = threading.Lock()

    def check(self, peer: str) -> None:
        """ResourceExhausted when ``peer`` has used up its failures for now."""
        now = self.clock()
        with self._lock:
            times = self._failures.get(peer)
            while times and times[0] <= now - self.window:
                times.popleft()
            if times is None or len(times) < self.limit:
                return
            wait = math.ceil(times[0] + self.window - now)
        raise ResourceExhausted(
            f"{self.limit} {self.what} from this client address in {self.window:g} s; "
            f"try again in {wait} s"
        )

    def recent(self, peer: str) -> int:
        """How many failures ``peer`` made in the window."""
        now = self.clock()
        with self._lock:
            times = self._failures.get(peer)
            return sum(1 for t in times if t > now - self.window) if times else 0

    def failed(self, peer: str) -> None:
        """Count one failure of ``peer``."""
        with self._lock:
            times = self._failures.pop(peer, None)
            if times is None:
                times = collections.deque(maxlen=self.limit)
                while len(self._failures) >= self.max_peers:
                    self._failures.popitem(last=False)
            times.append(self.clock())
            self._failures[peer] = times


class RecentResults:
    """Results of an expensive read by key, reused for ``seconds`` after they were worked out,
    so that a crowd asking for the same thing costs one read every ``seconds`` rather than
    one each. A miss works the result out in the caller's own thread (so it still takes its
    quota slot: nobody waits on another's read); a failure is not kept. At most ``max_keys``
    results are kept, the least recently used forgotten first; ``seconds`` 0 keeps nothing."""

    def __init__(
        self,
        seconds: float,
        max_keys: int = 1024,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.max_keys = max_keys
        self.clock = clock
        self._kept: collections.OrderedDict[object, tuple[float, object]] = (
            collections.OrderedDict()
        )
        self._lock = threading.Lock()

    def get(self, key: object, work_out: Callable[[], T]) -> T:
        """The result for ``key``: a kept one still fresh, else ``work_out()`` (kept)."""
        if self.seconds <= 0:
            return work_out()
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and self.clock() - kept[0] < self.seconds:
                self._kept.move_to_end(key)
                return cast(T, kept[1])
        started = self.clock()
        result = work_out()
        with self._lock:
            self._kept[key] = (started, result)
            self._kept.move_to_end(key)
            while len(self._kept) > self.max_keys:
                self._kept.popitem(last=False)
        return result
