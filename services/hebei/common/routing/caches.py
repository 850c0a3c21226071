"""The router's two bounded caches, both thread-safe and least-recently-used first out:

- :class:`RouteBook`: where each match's next call goes — its last known owner, or an entry
  address taken in turn (a match whose owner was lost moves to the entry after the one that
  failed, so callers spread over the entries and never hammer one); an entry that could not
  be reached is passed over for :data:`DOWN_SECONDS` while another is not known to be down
  (a dead replica, still listed, does not take every other attempt during a takeover);
- :class:`ChannelPool`: one channel per replica address, the evicted one handed to a closing
  callback (the synchronous router closes it, the asyncio one schedules its close on its loop).

No I/O of their own: the routers hold them.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["DOWN_SECONDS", "MAX_CHANNELS", "MAX_MATCHES", "ChannelPool", "RouteBook"]

MAX_CHANNELS = 64  # replica addresses with an open channel (far above any replica count)
MAX_MATCHES = 10_000  # matches whose route is remembered
# How long an entry that could not be reached is passed over: the routers' default deadline,
# twice the takeover bound (hebei.common.routing.plan.DEFAULT_DEADLINE_SECONDS; a unit test
# holds them equal); a router gives its own deadline.
DOWN_SECONDS = 7.2

C = TypeVar("C")


def _check_bound(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


@dataclass(frozen=True, slots=True)
class _Route:
    address: str
    owner: bool  # learned from a redirect or a served call; else an entry tried in turn


class RouteBook:
    """Each match's route (at most ``max_matches``, least recently used forgotten first) over
    the non-empty ``entries``; an entry that could not be reached is passed over for
    ``down_seconds`` (at most one mark per entry); ``clock``: injectable for tests."""

    def __init__(
        self,
        entries: Sequence[str],
        max_matches: int = MAX_MATCHES,
        *,
        down_seconds: float = DOWN_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(entries, str) or not entries:
            raise ValueError("a router needs at least one entry address (a sequence of host:port)")
        _check_bound("max_matches", max_matches)
        if not 0 <= down_seconds <= 3600:
            raise ValueError(f"down_seconds must be 0-3600, got {down_seconds!r}")
        self.entries = tuple(entries)
        self.max_matches = max_matches
        self.down_seconds = down_seconds
        self.clock = clock
        self._routes: collections.OrderedDict[str, _Route] = collections.OrderedDict()
        self._next_entry = 0
        self._down_until: dict[str, float] = {}  # entries that could not be reached
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._routes)

    def _up(self, index: int) -> str:
        """The entry at ``index`` or, when it is down, the first after it that is not (the entry
        at ``index`` when all are)."""
        now = self.clock()
        count = len(self.entries)
        for step in range(count):
            address = self.entries[(index + step) % count]
            if self._down_until.get(address, 0.0) <= now:
                return address
        return self.entries[index % count]

    def _take_entry(self) -> str:
        address = self._up(self._next_entry)
        self._next_entry = (self.entries.index(address) + 1) % len(self.entries)
        return address

    def down(self) -> list[str]:
        """The entries passed over now."""
        with self._lock:
            now = self.clock()
            return [a for a in self.entries if self._down_until.get(a, 0.0) > now]

    def reached(self, address: str) -> None:
        """A call at ``address`` was answered: it is not down."""
        with self._lock:
            self._down_until.pop(address, None)

    def _put(self, match_id: str, route: _Route) -> None:
        self._routes[match_id] = route
        self._routes.move_to_end(match_id)
        while len(self._routes) > self.max_matches:
            self._routes.popitem(last=False)

    def address_for(self, match_id: str) -> str:
        """Where ``match_id``'s next call goes: its known owner, else the next entry in turn
        (remembered, so the match's calls stay there until it fails)."""
        with self._lock:
            route = self._routes.get(match_id)
            if route is not None:
                self._routes.move_to_end(match_id)
                return route.address
            address = self._take_entry()
            self._put(match_id, _Route(address, owner=False))
            return address

    def owner(self, match_id: str) -> str | None:
        """The match's last known owner (None: unknown)."""
        with self._lock:
            route = self._routes.get(match_id)
            return route.address if route is not None and route.owner else None

    def learn(self, match_id: str, address: str) -> None:
        """``address`` owns ``match_id`` (a refusal named it, or it served a call)."""
        with self._lock:
            self._put(match_id, _Route(address, owner=True))

    def forget(self, match_id: str, failed: str | None = None, *, unreachable: bool = False) -> str:
        """The match's route at ``failed`` did not answer (or went round in a loop): move it to
        the entry after ``failed`` (the next in turn when ``failed`` is not an entry), passing
        over the entries that are down, and return it. ``unreachable``: ``failed`` could not be
        reached (not a refusal): an entry is marked down. When another caller has already moved
        the match away from ``failed``, its choice stands (the four seats of a match failing at
        once move it once)."""
        with self._lock:
            if unreachable and failed in self.entries:
                self._down_until[failed] = self.clock() + self.down_seconds
            route = self._routes.get(match_id)
            if failed is not None and route is not None and route.address != failed:
                self._routes.move_to_end(match_id)
                return route.address
            if failed in self.entries:
                address = self._up(self.entries.index(failed) + 1)
            else:
                address = self._take_entry()
            self._put(match_id, _Route(address, owner=False))
            return address


class ChannelPool(Generic[C]):
    """One channel per address, made by ``factory``; beyond ``max_channels`` the least recently
    used is dropped and handed to ``on_evict`` (a call still running on it ends with
    CANCELLED, and its client's reconnect routes it again)."""

    def __init__(
        self,
        factory: Callable[[str], C],
        on_evict: Callable[[C], None],
        max_channels: int = MAX_CHANNELS,
    ) -> None:
        _check_bound("max_channels", max_channels)
        self.factory = factory
        self.on_evict = on_evict
        self.max_channels = max_channels
        self._channels: collections.OrderedDict[str, C] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._closed = False

    def __len__(self) -> int:
        return len(self._channels)

    def addresses(self) -> list[str]:
        """The addresses with an open channel, least recently used first."""
        with self._lock:
            return list(self._channels)

    def get(self, address: str) -> C:
        """The channel to ``address`` (made on first use)."""
        evicted: list[C] = []
        with self._lock:
            if self._closed:
                raise ValueError("the router is closed")
            channel = self._channels.get(address)
            if channel is None:
                channel = self._channels[address] = self.factory(address)
                while len(self._channels) > self.max_channels:
                    evicted.append(self._channels.popitem(last=False)[1])
            else:
                self._channels.move_to_end(address)
        for old in evicted:
            self.on_evict(old)
        return channel

    def close(self) -> list[C]:
        """Forget every channel and return them (to be closed); later gets raise."""
        with self._lock:
            self._closed = True
            channels = list(self._channels.values())
            self._channels.clear()
        return channels
