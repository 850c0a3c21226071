"""The seat ticket: everything a bot session needs to play one seat of one match.

Validated where it is made (a sender refuses a bad seat before queuing it); it travels to the
workers as a ``SeatTask`` message (:mod:`hebei.fleet.seat_task`), and an older sender's JSON
form (:meth:`SeatTicket.to_json`) is still read.

Its target names the table engine's replicas: one ``host:port`` or a comma-separated list of
them (the entries of :class:`hebei.common.routing.AsyncMatchRouter`, which finds the match's
owner among them and follows it through takeovers).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from hebei.common.routing import parse_addresses
from hebei.common.validation import MAX_SEED

__all__ = ["SeatTicket"]


@dataclass(frozen=True, slots=True)
class SeatTicket:
    """Everything a session needs to play a seat (the payload of a seat task)."""

    target: str  # the table engine's replicas: host:port[,host:port...]
    match_id: str
    seat: int
    seat_token: str
    policy: str = "expert"
    level: int | None = None
    seed: int = 0  # the policy's randomness
    pace: float = 0.0  # seconds a decision takes at least (a human-like pace); 0: at once
    # The engine speaks TLS. Only a flag: the worker's own settings (its CA, its client
    # certificate) decide the credentials; without any, the system's roots are trusted.
    tls: bool = False

    def __post_init__(self) -> None:
        try:
            parse_addresses(self.target)
        except ValueError as exc:
            raise ValueError(
                f"target must be host:port[,host:port...] of the table engine, got "
                f"{self.target!r}: {exc}"
            ) from None
        if not self.match_id:
            raise ValueError("match_id is required")
        if self.seat not in (0, 1, 2, 3):
            raise ValueError(f"seat must be 0-3, got {self.seat!r}")
        if not self.seat_token:
            raise ValueError("seat_token is required")
        if not 0 <= self.pace <= 60:
            raise ValueError(f"pace must be 0-60 seconds, got {self.pace!r}")
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed must be 0-{MAX_SEED:,}, got {self.seed!r}")

    @property
    def entries(self) -> tuple[str, ...]:
        """The table engine's replica addresses the target names, in order."""
        return parse_addresses(self.target)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: object) -> SeatTicket:
        """A ticket from its JSON form; ValueError with a clear message if malformed."""
        if not isinstance(obj, dict):
            raise ValueError(f"a seat ticket is an object, got {type(obj).__name__}")
        known = set(cls.__dataclass_fields__)
        unknown = set(obj) - known
        if unknown:
            raise ValueError(f"unknown seat ticket fields: {', '.join(sorted(unknown))}")
        try:
            return cls(**obj)
        except TypeError as exc:
            raise ValueError(f"bad seat ticket: {exc}") from None
