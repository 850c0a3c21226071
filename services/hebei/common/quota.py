"""Quotas per client address: how many calls of one kind a server runs at once, in all and from
one client address (the peer's host), so that one address can never take every slot. Stream
quotas bound long-lived streams: the table engine's (spectators, Play streams before their
Join) and matchmaking's (WatchTournament, QuickPlay); call quotas bound expensive unary calls:
the bot service's Review, the ledger's public reads. Beyond a bound the call is
RESOURCE_EXHAUSTED at once, before any work."""

from __future__ import annotations

import collections
import contextlib
import threading
from collections.abc import Callable, Iterator

from hebei.common.errors import ResourceExhausted

__all__ = ["CallQuota", "StreamQuota", "peer_host"]


def peer_host(peer: str) -> str:
    """The client address of a gRPC peer string without its port (``ipv4:10.0.0.7:5123`` ->
    ``ipv4:10.0.0.7``, ``ipv6:[::1]:5123`` -> ``ipv6:[::1]``)."""
    kind, _, address = peer.partition(":")
    if kind in ("ipv4", "ipv6") and ":" in address:
        return f"{kind}:{address.rsplit(':', 1)[0]}"
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
