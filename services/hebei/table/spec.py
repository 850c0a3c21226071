"""What OpenMatch fixed about a match: its seats (:class:`SeatSpec`), the match itself
(:class:`MatchSpec`, and its stored form), and the statuses a match goes through.

Plain data, read by the table, the host and the request checks alike: nothing here holds live
state (the live seat is :class:`hebei.table.seat.Seat`).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

from hebei.common import convert
from hebei.common.validation import MAX_NAME_LENGTH
from hebei.rules.match import MatchLength
from hebei.table.store import StoredMatch
from hebei.table.timecontrol import TimeControl
from hebei.v1 import types_pb2 as pb

WAITING, PLAYING, FINISHED, DISSOLVED = "waiting", "playing", "finished", "dissolved"
STATUSES = {
    WAITING: pb.MATCH_STATUS_WAITING,
    PLAYING: pb.MATCH_STATUS_PLAYING,
    FINISHED: pb.MATCH_STATUS_FINISHED,
    DISSOLVED: pb.MATCH_STATUS_DISSOLVED,
}
STATUS_NAMES = {v: k for k, v in STATUSES.items()}
SEATS = (0, 1, 2, 3)


def shown_name(name: str) -> str:
    """A player name as shown: at most MAX_NAME_LENGTH characters (a match stored before
    names were bounded may hold a longer one; it must not swell every observation)."""
    return name[:MAX_NAME_LENGTH]


def hash_token(token: str) -> str:
    """The stored form of a seat token (tokens themselves are never stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat as opened: who plays it and the hash of its token."""

    seat: int
    player_id: str
    player_name: str
    kind: int
    token_hash: str
    bot_policy: str = ""
    bot_level: int = 0

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "player_id": self.player_id,
            "player_name": self.player_name,
            "kind": self.kind,
            "token_hash": self.token_hash,
            "bot_policy": self.bot_policy,
            "bot_level": self.bot_level,
        }

    @classmethod
    def from_json(cls, obj: dict) -> SeatSpec:
        return cls(**obj)


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """Everything OpenMatch fixed about a match."""

    match_id: str
    table_id: str
    tournament_id: str
    round_no: int
    profile: str
    length: MatchLength
    seed: int
    seats: tuple[SeatSpec, ...]
    time_control: TimeControl | None  # None: the defaults of each seat kind
    fingerprint: str = ""
    opened_at: float = field(default_factory=time.time)
    evaluation: bool = False  # the caller chose the seed (duplicate/bot evaluation)
    claim_window: float = 0.0  # seconds from a discard to what follows it, at least
    results_hidden: bool = False  # no score nor seed for anonymous reads until revealed

    def spec_json(self) -> dict:
        spec = {
            "profile": self.profile,
            "length": self.length.to_json(),
            "seed": self.seed,
            "seats": [s.to_json() for s in self.seats],
            "time_control": None if self.time_control is None else self.time_control.to_json(),
        }
        if self.evaluation:
            spec["evaluation"] = True
        if self.claim_window:
            spec["claim_window"] = self.claim_window
        if self.results_hidden:
            spec["results_hidden"] = True
        return spec

    def fill_time_control(self, message: pb.TimeControl) -> None:
        """Set ``message`` (a MatchInfo's) to the match's time control as it was asked for."""
        if self.time_control is not None:
            message.per_decision.CopyFrom(
                convert.duration_from_seconds(self.time_control.per_decision)
            )
            message.time_bank.CopyFrom(convert.duration_from_seconds(self.time_control.bank))
        if self.claim_window:
            message.claim_window.CopyFrom(convert.duration_from_seconds(self.claim_window))

    def stored(self) -> StoredMatch:
        return StoredMatch(
            match_id=self.match_id,
            table_id=self.table_id,
            tournament_id=self.tournament_id,
            round_no=self.round_no,
            fingerprint=self.fingerprint,
            spec=self.spec_json(),
            status=WAITING,
            hands_played=0,
            scores=[0, 0, 0, 0],
            event_count=0,
            opened_at=self.opened_at,
            ended_at=None,
        )

    @classmethod
    def from_stored(cls, row: StoredMatch) -> MatchSpec:
        spec = row.spec
        control = spec.get("time_control")
        return cls(
            match_id=row.match_id,
            table_id=row.table_id,
            tournament_id=row.tournament_id,
            round_no=row.round_no,
            profile=spec["profile"],
            length=MatchLength.from_json(spec["length"]),
            seed=int(spec["seed"]),
            seats=tuple(SeatSpec.from_json(s) for s in spec["seats"]),
            time_control=None if control is None else TimeControl.from_json(control),
            fingerprint=row.fingerprint,
            opened_at=row.opened_at,
            evaluation=bool(spec.get("evaluation", False)),
            claim_window=float(spec.get("claim_window", 0.0)),
            results_hidden=bool(spec.get("results_hidden", False)),
        )
