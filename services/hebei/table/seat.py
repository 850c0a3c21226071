"""The live state of one seat at a table (:class:`Seat`): who holds it, its stream, its clock,
its open decision and whether the engine plays it; and how long a dropped seat is waited for.

A decision id is the seat's own decision count above :data:`DECISION_RANDOM_BITS` random bits:
it counts nothing of the other seats nor of the log, and cannot be guessed.
"""

from __future__ import annotations

import secrets
import threading

from hebei.common import convert
from hebei.common.auth import same_token
from hebei.rules.actions import Action
from hebei.table import metrics
from hebei.table.scheduler import Timer
from hebei.table.sessions import Outbound
from hebei.table.spec import SeatSpec, shown_name
from hebei.table.timecontrol import SeatClock, TimeControl
from hebei.v1 import types_pb2 as pb

SEAT_KIND_NAMES = {pb.SEAT_KIND_PERSON: "person", pb.SEAT_KIND_BOT: "bot"}
SETTLE_SECONDS = 0.5  # after a seat drops, before the engine plays for it
# ... a bot seat: its drop is the machine's failure (a worker died), not a player leaving, so
# the table waits at its decisions this long for the fleet to take the seat over (matchmaking
# re-queues an empty bot seat within seconds) before the engine plays for it.
BOT_SETTLE_SECONDS = 20.0
DECISION_RANDOM_BITS = 31  # the unguessable low bits of a decision id
FILLER = "filler for {name}"  # a person's seat held by a client that joined as a bot
REVOKED = "your seat was given to a bot"  # a Join with a token ReplaceSeat revoked, and why


def revoked_message(reason: str) -> str:
    """What the client of a token ReplaceSeat revoked is told (PERMISSION_DENIED)."""
    return f"{REVOKED}: {reason}" if reason else REVOKED


class _RandomBits:
    """:data:`DECISION_RANDOM_BITS` random bits at a time from the OS's CSPRNG, read 4 KiB at
    once (``secrets.randbits`` reads the OS for each: a system call on every decision)."""

    SIZE = 4096

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._buffer = b""
        self._at = 0

    def take(self) -> int:
        with self._lock:
            if self._at + 4 > len(self._buffer):
                self._buffer, self._at = secrets.token_bytes(self.SIZE), 0
            value = int.from_bytes(self._buffer[self._at : self._at + 4], "little")
            self._at += 4
        return value & ((1 << DECISION_RANDOM_BITS) - 1)


_random_bits = _RandomBits()


class Seat:
    """The live state of one seat."""

    __slots__ = (
        "_public",
        "answer",
        "answer_seconds",
        "asked_at",
        "auto_reason",
        "bot_client",
        "clock",
        "connected",
        "deadline_wall",
        "decision_id",
        "decision_seq",
        "decisions",
        "joined",
        "person_joined",
        "replaced_by",
        "revoked",
        "session",
        "settle_until",
        "spec",
        "timer",
        "token_hash",
        "wait_seconds",
    )

    def __init__(self, spec: SeatSpec, control: TimeControl) -> None:
        self.spec = spec
        self.clock = SeatClock(control)
        self.connected = False
        self.joined = False
        self.person_joined = False  # a client that did not join as a bot held the seat
        self.bot_client = False  # the seat's last client joined as a bot (Join.bot)
        self.replaced_by = ""  # ReplaceSeat: who plays the seat for its player
        self.token_hash = spec.token_hash  # ReplaceSeat may give the seat a new token
        self.revoked: dict[str, str] = {}  # tokens ReplaceSeat revoked (hashes): why
        self.auto_reason: str | None = None
        self.session: Outbound | None = None
        self.decision_id = 0  # the open decision (see new_decision_id), 0 if none
        # The bot pace (see Table.pace): since when the seat has had to act (monotonic; None
        # while it has not, or has not been told), and its answer held until the pace is up.
        self.asked_at: float | None = None
        self.answer: Action | None = None
        self.decision_seq = 0  # the log position of the observation that told the seat of it
        self.decisions = 0  # this seat's decisions so far (at least)
        self.deadline_wall = 0.0
        self.timer: Timer | None = None
        self.settle_until = 0.0  # a dropped seat is not played for before (monotonic)
        self._public: convert.SeatPublic | None = None  # see public()
        # The decision histograms' children of the seat's kind (no labels() per decision).
        self.wait_seconds = metrics.DECISION_WAIT_SECONDS.labels(self.kind_name)
        self.answer_seconds = metrics.DECISION_ANSWER_SECONDS.labels(self.kind_name)

    def new_decision_id(self) -> int:
        """A fresh decision id: this seat's own decision count above 31 random bits. It grows
        with each decision of the seat (clients may order them), it tells nothing of the other
        seats nor of the log, and the next one cannot be guessed."""
        self.decisions += 1
        return (self.decisions << DECISION_RANDOM_BITS) | _random_bits.take()

    @property
    def kind_name(self) -> str:
        return SEAT_KIND_NAMES.get(self.spec.kind, "person")

    @property
    def played_by(self) -> str:
        """Who plays the seat for its player, as shown (SeatInfo.played_by): what ReplaceSeat
        set, else a filler while the last client of a person's seat joined as a bot; empty
        while the player plays it."""
        if self.replaced_by:
            return self.replaced_by
        if self.bot_client and self.spec.kind == pb.SEAT_KIND_PERSON:
            return FILLER.format(name=shown_name(self.spec.player_name))
        return ""

    def public(self) -> convert.SeatPublic:
        """What others see of the seat (kept while it holds: every observation shows all
        four seats, and a seat connects or is auto-played again rarely). A seat a bot plays
        for its player is shown by its ``played_by``, never by the player's name."""
        auto = self.auto_reason is not None
        name = self.played_by or shown_name(self.spec.player_name)
        kept = self._public
        if (
            kept is None
            or kept.connected != self.connected
            or kept.auto_played != auto
            or kept.player_name != name
        ):
            kept = self._public = convert.SeatPublic(name, self.spec.kind, self.connected, auto)
        return kept

    def revoked_reason(self, digest: str) -> str | None:
        """Why ReplaceSeat revoked the token of hash ``digest``; None if it did not."""
        for revoked, reason in self.revoked.items():
            if same_token(revoked, digest):
                return reason
        return None

    def replace(self, event: dict) -> bool:
        """Apply a ``seat_replaced`` event (live, or read back from the log); True when the
        seat's token changed (the old one is revoked)."""
        self.replaced_by = str(event.get("played_by") or "")
        new = event.get("token_hash")
        if not new or new == self.token_hash:
            return False
        self.revoked[self.token_hash] = str(event.get("reason") or "")
        self.revoked.pop(new, None)  # a token given back is no longer revoked
        self.token_hash = new
        return True

    def held_by(self, bot: bool) -> None:
        """A client joined the seat (``bot``: as a bot), live or read back from the log."""
        self.bot_client = bot
        self.person_joined = self.person_joined or not bot

    def state_json(self) -> dict:
        """The seat's part of the stored match row (see
        :meth:`hebei.table.table.Table.table_state`)."""
        return {"played_by": self.played_by, "person_joined": self.person_joined}


def settle_seconds(seat: Seat) -> float:
    """How long after a seat drops the engine waits before playing for it."""
    return BOT_SETTLE_SECONDS if seat.spec.kind == pb.SEAT_KIND_BOT else SETTLE_SECONDS
