"""Every duration and count the ownership machinery uses, validated, and the bounds derived from
them (standard library only).

With the defaults (``Timings()``):

- ``heartbeat_seconds`` 1.0: a replica beats (one UPDATE of its registry row), reads the live
  replicas and rebalances once a second.
- ``statement_timeout_seconds`` 1.5: the server cancels a statement of the lock session after
  this (``SET statement_timeout``); the client's deadline below covers a stalled network too.
- ``validity_seconds`` = heartbeat + statement timeout = 2.5: a holder trusts its locks for at
  most this long after the start of its last successful round trip on the lock session; the
  watchdog declares them lost when it passes (and :meth:`Replica.owns` says no at once).
- ``check_seconds`` 0.1: the watchdog looks that often at the idle lock session's socket (the
  server's termination or a closed socket make it readable: then one round trip decides) and at
  the validity deadline; so a holder whose session the server ended learns it within ~0.1 s.
- ``takeover_grace_seconds`` = validity + check = 2.6: a replica that takes a shard or lease
  whose previous holder did not release it cleanly (its row is still there) serves it only
  after this long. The previous holder's last confirmed round trip started before the server
  released its lock, so it has declared the loss by then: never two holders at once (while the
  previous holder's process runs; a frozen process is told by ``owns`` when it wakes, and the
  writes' own keys, such as the event log's ``(match_id, seq)``, stay the last fence).
- ``server_idle_timeout_seconds`` 5.0: ``SET idle_session_timeout``: the server ends a lock
  session that sent nothing for this long (a hung or stopped process) and so frees its locks.
- ``keepalive_idle_seconds`` 2, ``keepalive_interval_seconds`` 1, ``keepalive_count`` 2: TCP
  keepalives on both ends (libpq's ``keepalives_*`` and the server's ``tcp_keepalives_*``): a
  peer whose host vanished is noticed in about 4 s; ``client_connection_check_interval`` 1 s
  lets the server notice a closed client during a statement.
- ``connect_timeout_seconds`` 3: opening the lock session.

A dead replica (kill -9, its connection closed or terminated) loses its locks at once on the
server; the others see it at their next beat and serve its shards after the grace: takeover in
at most heartbeat + grace + one beat's statements, about 3.6 s with the defaults (measured in
tests/integration/common/test_ownership.py).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Timings"]


def _check_range(name: str, value: float, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be {low} to {high}, got {value}")


@dataclass(frozen=True)
class Timings:
    """The ownership machinery's durations (seconds) and counts; see the module docstring."""

    heartbeat_seconds: float = 1.0
    statement_timeout_seconds: float = 1.5
    check_seconds: float = 0.1
    server_idle_timeout_seconds: float = 5.0
    keepalive_idle_seconds: int = 2
    keepalive_interval_seconds: int = 1
    keepalive_count: int = 2
    connect_timeout_seconds: int = 3

    def __post_init__(self) -> None:
        _check_range("heartbeat_seconds", self.heartbeat_seconds, 0.05, 60)
        _check_range("statement_timeout_seconds", self.statement_timeout_seconds, 0.05, 60)
        _check_range("check_seconds", self.check_seconds, 0.01, 1)
        _check_range("server_idle_timeout_seconds", self.server_idle_timeout_seconds, 1, 3600)
        for name in ("keepalive_idle_seconds", "keepalive_interval_seconds", "keepalive_count"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{name} must be an integer, got {value!r}")
            _check_range(name, value, 1, 3600)
        if not isinstance(self.connect_timeout_seconds, int):
            raise ValueError(
                f"connect_timeout_seconds must be an integer, got {self.connect_timeout_seconds!r}"
            )
        _check_range("connect_timeout_seconds", self.connect_timeout_seconds, 1, 60)
        if self.check_seconds >= self.heartbeat_seconds:
            raise ValueError(
                f"check_seconds ({self.check_seconds}) must be below heartbeat_seconds "
                f"({self.heartbeat_seconds})"
            )
        if self.server_idle_timeout_seconds <= self.validity_seconds:
            raise ValueError(
                f"server_idle_timeout_seconds ({self.server_idle_timeout_seconds}) must exceed "
                f"heartbeat + statement timeout ({self.validity_seconds}), else the server ends "
                "healthy lock sessions"
            )

    @property
    def validity_seconds(self) -> float:
        """How long after its last confirmed round trip a holder still trusts its locks."""
        return self.heartbeat_seconds + self.statement_timeout_seconds

    @property
    def takeover_grace_seconds(self) -> float:
        """How long a replica waits before serving what another did not release cleanly."""
        return self.validity_seconds + self.check_seconds

    @property
    def takeover_bound_seconds(self) -> float:
        """The documented bound from a holder's death to another serving its shards (plus the
        time of one beat's statements)."""
        return self.heartbeat_seconds + self.takeover_grace_seconds
