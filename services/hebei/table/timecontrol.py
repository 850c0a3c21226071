"""Per-seat time control: a per-decision allowance plus a time bank spent on longer decisions."""

from __future__ import annotations

from dataclasses import dataclass

from hebei.v1 import types_pb2 as pb


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Seconds per decision and the match's time bank for one seat."""

    per_decision: float
    bank: float

    def __post_init__(self) -> None:
        if self.per_decision <= 0 or self.bank < 0:
            raise ValueError(
                f"time control needs per_decision > 0 and bank >= 0, got "
                f"{self.per_decision}, {self.bank}"
            )

    def to_json(self) -> dict:
        return {"per_decision": self.per_decision, "bank": self.bank}

    @classmethod
    def from_json(cls, obj: dict) -> TimeControl:
        return cls(float(obj["per_decision"]), float(obj["bank"]))


PERSON_DEFAULT = TimeControl(per_decision=8.0, bank=30.0)
BOT_DEFAULT = TimeControl(per_decision=2.0, bank=0.0)


def default_for(kind: int) -> TimeControl:
    """The default time control of a seat kind (bots decide fast and have no bank)."""
    return BOT_DEFAULT if kind == pb.SEAT_KIND_BOT else PERSON_DEFAULT


class SeatClock:
    """One seat's clock: opens a decision with its deadline, books the time it took."""

    __slots__ = ("bank", "control", "opened")

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank = control.bank
        self.opened: float | None = None

    def open(self, now: float) -> float:
        """Start a decision at ``now``; return its deadline (per-decision time + the bank)."""
        self.opened = now
        return now + self.control.per_decision + self.bank

    def restart(self, at: float) -> float:
        """The open decision counts from ``at`` instead (the seat could not see it before);
        return its new deadline."""
        self.opened = at
        return at + self.control.per_decision + self.bank

    def close(self, now: float) -> float:
        """End the open decision at ``now``: spend the bank beyond the per-decision time;
        return how long the decision took."""
        if self.opened is None:
            return 0.0
        took = now - self.opened
        self.bank = max(0.0, self.bank - max(0.0, took - self.control.per_decision))
        self.opened = None
        return took

    def expire(self) -> None:
        """The decision ran out of time: the bank is spent."""
        self.bank = 0.0
        self.opened = None
