"""One match at one table: the rules match, four seats, their clocks and the event log.

Everything a table does happens under its lock, in short steps: a seat's action, a seat
joining or leaving, a deadline. Each step applies what it must to the ``hebei.rules`` hand,
auto-plays the seats that are auto-played (RULES.md §3, at most :data:`STEP_ACTIONS` actions a
step: a longer run goes on in a later step, so no table holds its lock or the timer thread for
long), appends the new events to the log, submits them to the store as one group, and pushes
one observation per connected seat (and the new public events to spectators). Messages leave
only once their events are durable.

What a seat sees is what a player at a real table sees. While a discard (or an added kong)
waits for claims, only the seats that may claim it hear of it: the others get no observation
until the window closes (for them the next turn simply begins a little later), so a seat with
nothing to claim cannot tell whether another seat could have. A decision id is the seat's own
decision count above random bits (it counts nothing of the other seats nor of the log, and
cannot be guessed), and a refusal says the same whether or not the seat has a decision open.

The machine's failures do not decide matches:

- a decision's clock runs only while its seat is connected, and from the moment the seat
  could be told of it (the event log was written): when the log is slow or down the deadline
  moves (:meth:`Table._on_deadline`);
- when every seat is auto-played the table *pauses* instead of playing the match out by
  itself (a ``match_paused`` event); a seat coming back resumes it, and after
  ``pause_seconds`` without anyone it is dissolved as a technical draw;
- when the engine stops it *suspends* its tables (:meth:`Table.suspend`): clocks stop and
  the streams end with UNAVAILABLE, which is not the seats leaving; a resumed table gives its
  seats ``rejoin_seconds`` to come back before the absent ones are auto-played;
- when the event log refuses a table's events (:meth:`Table.fail_storage`) that table alone
  is dissolved, loudly.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from hebei.common import convert
from hebei.common.auth import same_token
from hebei.common.errors import (
    Conflict,
    FailedPrecondition,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
)
from hebei.common.validation import MAX_NAME_LENGTH
from hebei.rules.actions import Action, ActionKind
from hebei.rules.chain import Chain, Link
from hebei.rules.errors import IllegalActionError, NotationError, ReplayError
from hebei.rules.hand import HandState, Phase
from hebei.rules.match import Match, MatchLength
from hebei.rules.profile import get_profile
from hebei.rules.replay import ACTION_TYPES, MATCH_LEVEL, replay_hand
from hebei.rules.views import observe, public_event
from hebei.table import metrics
from hebei.table.rows import DictRows
from hebei.table.scheduler import Scheduler, Timer
from hebei.table.sessions import Outbound
from hebei.table.store import EventRow, EventStore, Group, MatchUpdate, OutboxRow, StoredMatch
from hebei.table.timecontrol import SeatClock, TimeControl, default_for
from hebei.v1 import ledger_pb2, matchmaking_pb2, table_pb2
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)

WAITING, PLAYING, FINISHED, DISSOLVED = "waiting", "playing", "finished", "dissolved"
STATUSES = {
    WAITING: pb.MATCH_STATUS_WAITING,
    PLAYING: pb.MATCH_STATUS_PLAYING,
    FINISHED: pb.MATCH_STATUS_FINISHED,
    DISSOLVED: pb.MATCH_STATUS_DISSOLVED,
}
STATUS_NAMES = {v: k for k, v in STATUSES.items()}
# Events of the table (not of the game): skipped when the rules replay the log.
TABLE_EVENTS = frozenset(
    {
        "seat_auto",
        "seat_resumed",
        "seat_connected",
        "seat_disconnected",
        "match_dissolved",
        "match_paused",
        "match_resumed",
        "seat_replaced",  # ReplaceSeat: who plays the seat, its new token's hash, why
        "match_concluding",  # ConcludeMatch: the match ends after the hand in progress
    }
)
SEAT_KIND_NAMES = {pb.SEAT_KIND_PERSON: "person", pb.SEAT_KIND_BOT: "bot"}
SEATS = (0, 1, 2, 3)
STEP_ACTIONS = 64  # auto-played actions (and deals) in one step of a table
HAND_BREAK_PACES = 10  # a hand's settlement is shown this many bot paces before the next deal
# A spectator's backlog is built this many messages at a time, as it reads (Table.backlog).
BACKLOG_CHUNK = 256
HOLD_SECONDS = 0.25  # how often a held deadline looks again whether the seat was told
LAG_TOLERANCE = 0.05  # seconds of event log delay not given back to a seat's clock
SETTLE_SECONDS = 0.5  # after a seat drops, before the engine plays for it
# ... a bot seat: its drop is the machine's failure (a worker died), not a player leaving, so
# the table waits at its decisions this long for the fleet to take the seat over (matchmaking
# re-queues an empty bot seat within seconds) before the engine plays for it.
BOT_SETTLE_SECONDS = 20.0
RESUME_GRACE_SECONDS = 5.0  # a paused match resumed: the seats that dropped may follow
DECISION_RANDOM_BITS = 31  # the unguessable low bits of a decision id
STOPPING = "the table engine is stopping: reconnect (the match resumes where it stopped)"
PAUSED_REASON = "every seat is auto-played"
# A bot seat the fleet did not fill (absent at the start, or gone and not taken over within
# BOT_SETTLE_SECONDS) when it must act: the platform's failure, not a player's, so the table
# pauses for it instead of playing it.
FLEET_REASON = "the bot fleet has not filled seat {seat}"
FLEET_GONE = frozenset({"absent", "disconnect"})
CLAIM_PHASES = (Phase.CLAIMS, Phase.ROB)
HOLD_AFTER = frozenset({"discard", "added_kong"})  # events a claim window's floor follows
FILLER = "filler for {name}"  # a person's seat held by a client that joined as a bot
REVOKED = "your seat was given to a bot"  # a Join with a token ReplaceSeat revoked, and why


def revoked_message(reason: str) -> str:
    """What the client of a token ReplaceSeat revoked is told (PERMISSION_DENIED)."""
    return f"{REVOKED}: {reason}" if reason else REVOKED


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


class LogEntry(NamedTuple):
    """One event of the log, with its public sequence number if spectators see it and, for a
    rules event, its hash in the match's chain (built when read: see :mod:`hebei.table.rows`)."""

    event: dict
    hand_no: int
    time: float
    public_seq: int | None
    chain: str | None = None


def _log_entry(event: dict, values: tuple) -> LogEntry:
    return LogEntry(event, *values)


def _public_entry(view: dict, values: tuple) -> tuple[int, dict, int, float]:
    seq, hand_no, at = values
    return seq, view, hand_no, at


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
        """The seat's part of the stored match row (see :meth:`Table.table_state`)."""
        return {"played_by": self.played_by, "person_joined": self.person_joined}


def _settle_seconds(seat: Seat) -> float:
    """How long after a seat drops the engine waits before playing for it."""
    return BOT_SETTLE_SECONDS if seat.spec.kind == pb.SEAT_KIND_BOT else SETTLE_SECONDS


def _never(spec: MatchSpec) -> bool:
    return False


def rejection(decision_id: int, code: str, message: str) -> table_pb2.PlayResponse:
    metrics.ACTIONS_REJECTED.labels(code).inc()
    return table_pb2.PlayResponse(
        rejected=table_pb2.ActionRejected(decision_id=decision_id, code=code, message=message)
    )


class Table:
    """A match at a table (see the module docstring). Public methods take the lock."""

    def __init__(
        self,
        spec: MatchSpec,
        store: EventStore,
        scheduler: Scheduler,
        *,
        seat_queue: int = 256,
        on_end: Callable[[Table], None] | None = None,
        pause_seconds: float = 120.0,
        rejoin_seconds: float = 15.0,
        bot_pace: float = 0.0,
    ) -> None:
        self.spec = spec
        self.store = store
        self.scheduler = scheduler
        self.seat_queue = seat_queue
        self.on_end = on_end
        self.pause_seconds = pause_seconds  # a paused match waits this long for a seat
        self.rejoin_seconds = rejoin_seconds  # a resumed match waits this long for its seats
        # The bot pace: at a table with a person's seat, the engine applies an action the
        # machine makes (a bot's, a filler's, an auto-played seat's) no sooner than this long
        # after the seat was asked, and holds every discard at least this long (the claim
        # window's floor): the time between events is the same whoever could claim (see
        # _pace_left). Zero at tables of bots only.
        people = any(s.kind == pb.SEAT_KIND_PERSON for s in spec.seats)
        self.pace = bot_pace if people else 0.0
        self.floor = max(spec.claim_window, self.pace)  # a discard is held this long
        # Between a hand's settlement and the next deal, at a table with people: time to read
        # the settlement before the next hand asks anything (HAND_BREAK_PACES paces: 8 s at
        # the default pace; none at tables of bots only).
        self.hand_break = HAND_BREAK_PACES * self.pace
        self._hand_ended_at: float | None = None  # monotonic, for the break
        self.lock = threading.RLock()
        self.profile = get_profile(spec.profile)
        self.match = Match(spec.seed, spec.length, self.profile)
        self.status = WAITING
        self.seats = [Seat(s, spec.time_control or default_for(s.kind)) for s in spec.seats]
        self.log: DictRows[LogEntry] = DictRows(_log_entry)
        # Every rules event is chained and signed as it is logged (hebei.rules.chain).
        self.chain = Chain(spec.match_id, getattr(store, "log_key", None))
        # What spectators see: (log seq, the public event, its hand number, its time), the
        # message built only when someone reads it (see _public_message).
        self.public: DictRows[tuple[int, dict, int, float]] = DictRows(_public_entry)
        self.spectators: list[Outbound] = []
        # Events known durable without the store's watermark (which forgets an evicted
        # match): those read from the log, or every one once the table is evicted.
        self.durable_floor = 0
        self.settlements: dict[int, pb.Settlement] = {}  # by 1-based hand number
        self.hand: HandState | None = None  # the hand being played, or the last one
        self._hand_logged = 0  # how many of self.hand.events are in the log
        # The claim window's floor (spec.claim_window): until _hold_until (monotonic) what
        # followed the last discard waits (see _holding); _hold_mark: how many of the hand's
        # events may be logged meanwhile (up to that discard).
        self._hold_until = 0.0
        self._hold_from = 0.0  # when the hold began (monotonic)
        self._hold_mark = 0
        self._group = Group(spec.match_id)
        self._ready_timer: Timer | None = None
        self.ready_deadline: float | None = None  # wall time the ready check ends (waiting)
        self._pause_timer: Timer | None = None
        self._rejoin_timer: Timer | None = None
        self._continuation: Timer | None = None
        self.paused = False  # every seat auto-played, or a bot seat unfilled: waiting
        self.pause_reason = PAUSED_REASON
        self.paused_at: float | None = None
        self.suspended = False  # the engine is stopping: no clocks, no streams, no steps
        self.ended_at: float | None = None
        self.end_reason = ""
        self.concluding: str | None = None  # ConcludeMatch's reason: ends after this hand
        # Whether the ended match's seed must still be withheld (set by the host: an
        # evaluation match while a match sharing its wall is live).
        self.seed_withheld: Callable[[MatchSpec], bool] = _never

    # ------------------------------------------------------------------ reading

    @property
    def match_id(self) -> str:
        return self.spec.match_id

    @property
    def over(self) -> bool:
        return self.status in (FINISHED, DISSOLVED)

    def info(self) -> table_pb2.MatchInfo:
        """The public state of the match (the seed only once it has ended)."""
        with self.lock:
            message = table_pb2.MatchInfo(
                table_id=self.spec.table_id,
                match_id=self.match_id,
                tournament_id=self.spec.tournament_id,
                round_no=self.spec.round_no,
                status=STATUSES[self.status],
                hand_no=0 if self.hand is None else self.hand.hand_no + 1,
                hands_played=self.match.hand_no,
                seats=[
                    table_pb2.SeatInfo(
                        seat=s.spec.seat,
                        player_id=s.spec.player_id,
                        player_name=shown_name(s.spec.player_name),
                        kind=s.spec.kind,
                        connected=s.connected,
                        auto_played=s.auto_reason is not None,
                        score=self.match.scores[s.spec.seat],
                        played_by=s.played_by,
                        person_joined=s.person_joined,
                    )
                    for s in self.seats
                ],
                rule_profile=pb.RuleProfile(name=self.spec.profile),
                length=convert.length_to_proto(self.spec.length),
                opened_at=convert.timestamp_from_seconds(self.spec.opened_at),
                event_count=len(self.public),
                evaluation=self.spec.evaluation,
                paused=self.paused and not self.over,
                concluding=self.concluding is not None,
                results_hidden=self.spec.results_hidden,
            )
            self.spec.fill_time_control(message.time_control)
            if self.status == WAITING and self.ready_deadline is not None:
                message.ready_deadline.CopyFrom(convert.timestamp_from_seconds(self.ready_deadline))
            if self.over:
                message.seed = self.published_seed()
                if self.ended_at is not None:
                    message.ended_at.CopyFrom(convert.timestamp_from_seconds(self.ended_at))
            return message

    def published_seed(self) -> int:
        """The seed as it may be read now: once the match has ended, unless the host withholds
        it (an evaluation match while a match sharing its wall is live); else 0."""
        return self.spec.seed if self.over and not self.seed_withheld(self.spec) else 0

    def table_state(self) -> dict:
        """What the stored match row keeps of the table beyond the game, for reads that do
        not load the log (GetMatch, ListTables of an ended match)."""
        return {
            "seats": [s.state_json() for s in self.seats],
            "concluding": self.concluding is not None,
        }

    def rules_log(self) -> list[dict]:
        """The rules events of the log (what :func:`hebei.rules.replay.replay_match` reads)."""
        with self.lock:
            return [e for e in self.log.data() if e["type"] not in TABLE_EVENTS]

    # ------------------------------------------------------------------ seats

    def check_token(self, seat: int, token: str) -> None:
        """Raise Unauthenticated unless ``token`` is the seat's (PermissionDenied, with the
        reason, for a token ReplaceSeat revoked)."""
        if not token:
            raise Unauthenticated("a seat token is required to join a seat")
        digest = hash_token(token)
        with self.lock:
            if same_token(self.seats[seat].token_hash, digest):
                return
            reason = self.seats[seat].revoked_reason(digest)
        if reason is not None:
            raise PermissionDenied(revoked_message(reason))
        raise Unauthenticated(f"wrong seat token for seat {seat} of match {self.match_id}")

    def join(
        self, seat_no: int, token: str, *, decisions_only: bool = False, bot: bool = False
    ) -> Outbound:
        """Seat ``seat_no`` (re)connects: a new session replaces the previous one, an
        auto-played seat takes over again, and the match starts when all four have joined.
        ``decisions_only``: the session gets only the observations it must act on (see
        :meth:`_push`); ``bot``: the client is a bot (in a person's seat, the seat is shown
        as played by a filler while it holds it)."""
        with self.lock:
            self.check_token(seat_no, token)  # under the lock: ReplaceSeat cannot slip between
            if self.suspended:
                raise Unavailable(STOPPING)
            seat = self.seats[seat_no]
            if seat.session is not None:
                seat.session.fail(self._displaced(seat, bot))
            session = Outbound(
                self.match_id, self.store, maxsize=self.seat_queue, decisions_only=decisions_only
            )
            seat.session = session
            if self.over:
                session.push(len(self.log), self._observation(seat_no))
                session.finish()
                return session
            seat.connected = True
            seat.joined = True
            seat.held_by(bot)
            event = {"type": "seat_connected", "seat": seat_no}
            if bot:
                event["bot"] = True  # read back: who held the seat (person_joined, played_by)
            self._log_event(event)
            self._group.update = self._update()
            if seat.auto_reason is not None and self.status == PLAYING:
                self._resume(seat, "reconnect")
            if self.status == WAITING:
                if all(s.joined for s in self.seats):
                    self._start()
            else:
                self._start_clock_if_due(seat)
                self._rejoined()
                self._progress()
            for other in self.seats:  # the new stream is told where the match is
                self._push(other, force=other is seat)
            self._commit()
            return session

    def _displaced(self, seat: Seat, bot: bool) -> Exception:
        """Why the stream holding ``seat`` ends as another client joins it: a person taking
        their seat back from a filler bot ends the bot's session for good (FAILED_PRECONDITION,
        which a bot does not retry); a bot never pushes out a person at the table (its own
        join is refused the same way, and the person's stream goes on)."""
        person_seat = seat.spec.kind != pb.SEAT_KIND_BOT
        if person_seat and seat.connected and bot and not seat.bot_client:
            raise FailedPrecondition("the seat's person is at the table: a filler is not needed")
        if person_seat and seat.bot_client and not bot:
            return FailedPrecondition("the seat's person took it back")
        return Conflict("the seat joined again from another stream")

    def leave(self, session: Outbound) -> None:
        """A seat's stream ended: the seat is disconnected and auto-played, from a moment
        later (:data:`SETTLE_SECONDS`): when every seat drops at once (a bot worker holding
        all four dies) the table pauses before the machine has played anything for them, as
        soon as the last one is gone. A bot seat is waited for longer
        (:data:`BOT_SETTLE_SECONDS`): the fleet takes it over."""
        with self.lock:
            seat = next((s for s in self.seats if s.session is session), None)
            if seat is None:
                return  # replaced by a newer session
            if self._disconnect(seat):
                self._broadcast()
                self._commit()

    def _disconnect(self, seat: Seat) -> bool:
        """The seat's stream is gone (see :meth:`leave`); False when that changes nothing
        else (the match is over, or the engine is stopping)."""
        seat.session = None
        seat.connected = False
        if self.over or self.suspended:
            return False  # a stopping engine closed the stream: not the seat leaving
        self._log_event({"type": "seat_disconnected", "seat": seat.spec.seat})
        if self.status == PLAYING and seat.auto_reason is None:
            self._set_auto(seat, "disconnect")
            settle = _settle_seconds(seat)
            seat.settle_until = time.monotonic() + settle
            if all(s.auto_reason is not None for s in self.seats):
                self._progress()  # the last seat gone: the table pauses now
            else:
                self._continue_later(settle)
        return True

    def replace_seat(self, seat_no: int, token_hash: str, played_by: str, reason: str) -> None:
        """ReplaceSeat: a bot plays seat ``seat_no`` for its player from now on, shown as
        ``played_by``. With a new token (its hash; empty: keep the token) the old one is
        revoked at once: its stream ends with PERMISSION_DENIED and the reason, and so does
        any later Join with it. Logged (``seat_replaced``), so a restart keeps it; the same
        request again changes nothing. FailedPrecondition once the match has ended."""
        with self.lock:
            if self.over:
                raise FailedPrecondition(
                    f"match {self.match_id} is {self.status}: its seats can no longer change"
                )
            seat = self.seats[seat_no]
            new_token = bool(token_hash) and token_hash != seat.token_hash
            if not new_token and seat.replaced_by == played_by:
                return
            event = {"type": "seat_replaced", "seat": seat_no, "played_by": played_by}
            if reason:
                event["reason"] = reason
            if new_token:
                event["token_hash"] = token_hash
            self._log_event(event)
            seat.replace(event)
            session = seat.session
            if new_token and session is not None:
                session.fail(PermissionDenied(revoked_message(reason)))
                self._disconnect(seat)  # at once: the revoked stream acts no more
            self._group.update = self._update()
            self._broadcast()
            self._commit()

    def conclude(self, reason: str) -> None:
        """ConcludeMatch: the match ends after the hand in progress (no new hand is dealt)
        and finishes with the scores as they stand; a match still waiting for its seats, or
        between hands, finishes now. Logged (``match_concluding`` at once, then the rules'
        ``match_concluded`` before ``match_end``), so a restart keeps it and the log replays.
        Nothing more once asked, or once the match has ended."""
        with self.lock:
            if self.over or self.concluding is not None:
                return
            self.concluding = reason
            self._log_event({"type": "match_concluding", "reason": reason})
            if self.status == WAITING:
                self._begin()
            self.match.conclude(reason)
            if self.match.finished:
                self._finish_match(FINISHED, "")
            else:
                self._group.update = self._update()
            self._broadcast()
            self._commit()

    def answers_open_decision(self, session: Outbound, decision_id: int) -> bool:
        """Whether ``decision_id`` is the open decision of ``session``'s seat: an answer the
        seat was asked for, which the stream's rate limit lets through (a quick bot answers
        more decisions a second than the limit allows other messages). Read without the lock:
        a message racing the decision's close is merely counted against the limit."""
        if not decision_id:
            return False
        seat = next((s for s in self.seats if s.session is session), None)
        return seat is not None and seat.decision_id == decision_id

    def act(self, session: Outbound, message: pb.Action) -> None:
        """A seat's message: a seat-control action or an answer to its decision. A refusal
        goes back on the seat's stream as an ActionRejected; the stream stays open."""
        with self.lock:
            seat = next((s for s in self.seats if s.session is session), None)
            if seat is None or self.suspended:
                return
            answer = self._act(seat, message)
            if answer is not None:
                session.push(len(self.log), answer, keep=True)
            self._commit()

    def _act(self, seat: Seat, message: pb.Action) -> table_pb2.PlayResponse | None:
        decision = message.decision_id
        if message.kind == pb.ACTION_KIND_HAND_OVER:
            if self.status == PLAYING and seat.auto_reason is None:
                self._set_auto(seat, "hand_over")
                self._progress()
                self._broadcast()
            return None
        if message.kind == pb.ACTION_KIND_TAKE_OVER:
            if self.status == PLAYING and seat.auto_reason is not None:
                self._resume(seat, "take_over")
                self._progress()
                self._broadcast()
            return None
        try:
            action = convert.action_from_proto(message)
        except NotationError as exc:
            return rejection(decision, "INVALID_ARGUMENT", str(exc))
        if self.status != PLAYING:
            return rejection(decision, "FAILED_PRECONDITION", f"the match is {self.status}")
        if seat.auto_reason is not None:
            return rejection(
                decision,
                "FAILED_PRECONDITION",
                f"the seat is auto-played ({seat.auto_reason}); send TAKE_OVER first",
            )
        if not seat.decision_id or decision != seat.decision_id or seat.answer is not None:
            # The same words whether or not the seat has a decision open: a refusal must not
            # tell a seat about a decision it has not been shown (e.g. during a claim window).
            return rejection(
                decision,
                "FAILED_PRECONDITION",
                f"decision {decision} is not the seat's open decision",
            )
        if (
            message.kind == pb.ACTION_KIND_WIN
            and seat.spec.kind != pb.SEAT_KIND_PERSON
            and self.hand.accepts_false_win(seat.spec.seat)
        ):  # §9 诈胡: only people declare a win they do not have
            return rejection(decision, "FAILED_PRECONDITION", "a bot seat cannot win now")
        now = time.monotonic()
        held = self._pace_left(seat, now) > 0
        try:
            if held:
                self._check_legal(seat.spec.seat, action)
            else:
                self.hand.apply(seat.spec.seat, action)
        except IllegalActionError as exc:
            return rejection(decision, "FAILED_PRECONDITION", str(exc))
        took = seat.clock.close(now)
        seat.wait_seconds.observe(took)
        session = seat.session
        if session is not None and session.decisions_only and session.sent_at:
            # Such a stream's last message is the decision it answers (nothing else is sent
            # to it meanwhile): the round trip's part outside the engine's commit and wake-up.
            seat.answer_seconds.observe(now - session.sent_at)
        if held:  # answered: its clock stopped, applied when the pace is up (_apply_answers)
            seat.answer = action
            if seat.timer is not None:
                seat.timer.cancel()
                seat.timer = None
            self._progress()  # wakes when the pace is up (_apply_answers)
            return None
        seat.asked_at = None
        self._close_decision(seat)
        self._after_apply()
        self._progress()
        return None

    def _check_legal(self, seat_no: int, action: Action) -> None:
        """Raise IllegalActionError unless ``action`` is one ``hand.apply`` would take now."""
        hand = self.hand
        if action in hand.legal_actions(seat_no):
            return
        if action.kind is ActionKind.WIN and hand.accepts_false_win(seat_no):
            return
        options = ", ".join(str(a) for a in hand.legal_actions(seat_no))
        raise IllegalActionError(f"seat {seat_no} cannot {action} now (legal: {options})")

    def _paced(self, seat: Seat) -> bool:
        """Whether the machine makes this seat's actions (a bot seat, a filler bot in a
        person's seat, an auto-played seat): those wait for the pace; a person's never do."""
        return seat.spec.kind == pb.SEAT_KIND_BOT or seat.bot_client or seat.auto_reason is not None

    def _pace_left(self, seat: Seat, now: float) -> float:
        """Seconds before the seat's action may be applied (0 or less: now). The pace counts
        from the moment the seat was asked: for a claim, the discard (whose hold lasts at
        least the pace, so every claim is answered, paced, within it)."""
        if not self.pace or seat.asked_at is None or not self._paced(seat):
            return 0.0
        return seat.asked_at + self.pace - now

    def _apply_answers(self) -> bool:
        """Apply the held answers whose pace is up (True if one was); wake for the others."""
        now = time.monotonic()
        later = math.inf
        for seat in self.seats:
            if seat.answer is None:
                continue
            left = self._pace_left(seat, now)
            if left > 0:
                later = min(later, left)
                continue
            action, seat.answer, seat.asked_at = seat.answer, None, None
            self._close_decision(seat)
            try:
                self.hand.apply(seat.spec.seat, action)
            except IllegalActionError:  # checked when it came: the hand cannot have moved
                log.exception("match %s: a held answer no longer applies", self.match_id)
                return False
            self._after_apply()
            return True
        if later < math.inf:
            self._continue_later(later)
        return False

    def on_ready_timeout(self) -> None:
        """The ready check ran out: absent seats are auto-played and the match starts (and
        pauses at once when all four are absent)."""
        with self.lock:
            self._ready_timer = None
            if self.status != WAITING or self.suspended:
                return
            self._start()
            self._broadcast()
            self._commit()

    def _on_rejoin_timeout(self) -> None:
        """A resumed match waited long enough: the seats not back are auto-played."""
        with self.lock:
            self._rejoin_timer = None
            if self.status != PLAYING or self.suspended:
                return
            for seat in self.seats:
                if not seat.connected and seat.auto_reason is None:
                    self._set_auto(seat, "absent")
            self._progress()
            self._broadcast()
            self._commit()

    def _on_deadline(self, seat_no: int, decision_id: int, held: bool = False) -> None:
        with self.lock:
            seat = self.seats[seat_no]
            if self.status != PLAYING or self.suspended or seat.decision_id != decision_id:
                return
            seat.timer = None
            if not self._clock_runs(seat):
                return
            if self._hold_deadline(seat, held):
                self._commit()
                return
            seat.wait_seconds.observe(seat.clock.control.per_decision + seat.clock.bank)
            seat.clock.expire()
            self._close_decision(seat)
            self._set_auto(seat, "timeout")
            self._progress()
            self._broadcast()
            self._commit()

    def _hold_deadline(self, seat: Seat, held: bool) -> bool:
        """At a deadline: True (and the deadline moved) when the seat could not be told of
        its decision in time, because the event log was slow or down. The decision's time
        counts from the moment its observation could leave."""
        told = (
            self.store.durable_time(self.match_id, seat.decision_seq) if seat.decision_seq else None
        )
        number, decision = seat.spec.seat, seat.decision_id
        if told is None:  # not written yet: the seat has not heard of it
            if not held:
                metrics.CLOCKS_HELD.inc()
            seat.timer = self.scheduler.call_later(
                HOLD_SECONDS, lambda: self._on_deadline(number, decision, held=True)
            )
            return True
        opened = seat.clock.opened
        if opened is None or told - opened <= LAG_TOLERANCE:
            return False
        now = time.monotonic()
        deadline = seat.clock.restart(told)
        if deadline <= now:
            return False
        if not held:
            metrics.CLOCKS_HELD.inc()
        seat.deadline_wall = time.time() + (deadline - now)
        seat.timer = self.scheduler.call_at(deadline, lambda: self._on_deadline(number, decision))
        self._push(seat, force=True)  # its new deadline
        return True

    def dissolve(self, reason: str) -> None:
        """End the match now; its current hand is not settled."""
        with self.lock:
            if not self.over:
                self._dissolve(reason or "dissolved")

    def _dissolve(self, reason: str) -> None:
        self._finish_match(DISSOLVED, reason)
        self._broadcast()
        self._end_streams()
        self._commit()

    def _on_pause_timeout(self) -> None:
        """Nobody came back to the paused match: it is dissolved as a technical draw."""
        with self.lock:
            self._pause_timer = None
            if not self.paused or self.over or self.suspended:
                return
            reason = (
                f"technical draw: nobody came back within {self.pause_seconds:g} s"
                f" ({self.pause_reason})"
            )
            log.warning("match %s dissolved: %s", self.match_id, reason)
            metrics.PAUSES.labels("dissolved").inc()
            self._dissolve(reason)

    def discard(self) -> None:
        """This object is not the table (another copy was built at the same time): its timers
        must never act."""
        with self.lock:
            self.suspended = True
            self._cancel_timers()

    def _cancel_timers(self) -> None:
        for timer in (
            self._ready_timer,
            self._pause_timer,
            self._rejoin_timer,
            self._continuation,
            *(s.timer for s in self.seats),
        ):
            if timer is not None:
                timer.cancel()
        self._ready_timer = self._pause_timer = self._rejoin_timer = None
        self._continuation = None
        for seat in self.seats:
            seat.timer = None

    def suspend(self, message: str = STOPPING) -> None:
        """The engine is stopping: stop every clock and timer of the table and end its streams
        with UNAVAILABLE (not the seats leaving: nothing is auto-played). The match resumes
        from its log when the engine is back."""
        with self.lock:
            if self.suspended:
                return
            self.suspended = True
            self._cancel_timers()
            error = Unavailable(message)
            for seat in self.seats:
                if seat.session is not None:
                    seat.session.fail(error)
            for queue in self.spectators:
                queue.fail(error)
            self.spectators = []
            self._commit()

    def fail_storage(self, reason: str) -> None:
        """The event log refused this table's events: the events not written are dropped
        (nobody heard of them: messages wait for durability) and the match is dissolved,
        its result reported; the other tables are not affected."""
        with self.lock:
            if self.over:
                return
            durable = self.store.durable_seq(self.match_id)
            self.log.truncate(durable)
            self.chain.rewind(next((e.chain for e in reversed(self.log) if e.chain), None))
            self.public.truncate(sum(1 for entry in self.public if entry[0] <= durable))
            for queue in [*(s.session for s in self.seats if s.session), *self.spectators]:
                queue.discard_after(durable)
            hands = [e for e in self.log.data() if e["type"] == "hand_end"]
            self.match.scores = [
                sum(h["settlement"]["total"][seat] for h in hands) for seat in SEATS
            ]
            self.match.hand_no = len(hands)
            self._group = Group(self.match_id, reset=True)
            metrics.MATCHES_FAILED.labels("event_log").inc()
            self._dissolve(f"technical: {reason}")

    def subscribe(self, from_seq: int) -> Outbound:
        """A spectator's queue: public events from ``from_seq`` (0: only new ones)."""
        with self.lock:
            if self.suspended:
                raise Unavailable(STOPPING)
            start = len(self.public) if from_seq == 0 else max(0, from_seq - 1)
            backlog = range(start, len(self.public))
            queue = Outbound(
                self.match_id, self.store, maxsize=len(backlog) + 1024, droppable=False
            )
            if self.durable_floor:
                queue.durable(self.durable_floor)
            for index in backlog:
                event = self._public_message(index)
                queue.push(self.public[index][0], table_pb2.SpectateResponse(event=event))
            if self.over:
                queue.finish()
            else:
                self.spectators.append(queue)
            return queue

    def backlog(
        self, from_seq: int, limit: int = BACKLOG_CHUNK
    ) -> tuple[list[table_pb2.SpectateResponse], int] | Outbound:
        """A spectator's next step from public event ``from_seq`` (1 or more): up to ``limit``
        messages of the backlog and the seq that follows them, or, once no more than
        ``limit`` are left (or the next is not durable yet), its live queue
        (:meth:`subscribe`), which holds the rest. A spectator of a long match so costs one
        chunk at a time, as it reads: never the whole log built at once, under the lock, for a
        client that may never read it."""
        with self.lock:
            if self.suspended:
                raise Unavailable(STOPPING)
            start = max(0, from_seq - 1)
            if len(self.public) - start <= limit:
                return self.subscribe(from_seq)
            durable = self.store.durable_seq(self.match_id)
            messages = []
            for index in range(start, start + limit):
                if self.public[index][0] > durable:
                    break
                messages.append(table_pb2.SpectateResponse(event=self._public_message(index)))
            if not messages:
                return self.subscribe(from_seq)
            return messages, start + len(messages) + 1

    def unsubscribe(self, queue: Outbound) -> None:
        with self.lock:
            if queue in self.spectators:
                self.spectators.remove(queue)

    # ------------------------------------------------------------------ the flow

    def open_waiting(self, ready_seconds: float) -> None:
        """Arm the ready check of a waiting match."""
        with self.lock:
            if self.status == WAITING and self._ready_timer is None:
                self._ready_timer = self.scheduler.call_later(ready_seconds, self.on_ready_timeout)
                self.ready_deadline = time.time() + ready_seconds

    def _start_event(self) -> dict:
        """The match_start event (an evaluation match says so: its seed was chosen)."""
        event = self.match.start_event()
        if self.spec.evaluation:
            event["evaluation"] = True
        return event

    def _begin(self) -> None:
        """The waiting match begins: the ready check ends, match_start is logged."""
        if self._ready_timer is not None:
            self._ready_timer.cancel()
            self._ready_timer = None
        self.status = PLAYING
        self._log_event(self._start_event())
        self._group.update = self._update()

    def _start(self) -> None:
        self._begin()
        for seat in self.seats:
            if not seat.connected:
                self._set_auto(seat, "absent")
        self._progress()

    def _progress(self) -> None:
        """Deal, open decisions and auto-play until a seat that plays itself must decide; at
        most :data:`STEP_ACTIONS` actions now (the rest in a later step). A table whose every
        seat is auto-played pauses instead."""
        steps = 0
        while self.status == PLAYING and not self.suspended:
            if self._apply_answers():  # an answer held for the pace
                continue
            if self._holding():  # a claim window's floor: the rest comes when it is up
                self._continue_later(self._hold_until - time.monotonic())
                return
            if self.hand is not None and self._hand_logged < len(self.hand.events):
                self._after_apply()  # a floor just ended: what waited is logged and told
                continue  # (it may have ended the match)
            if steps >= STEP_ACTIONS:
                self._continue_later()
                return
            steps += 1
            if self.match.hand is None:
                wait = self._hand_break_left()
                if wait > 0:
                    self._continue_later(wait)
                    return
                self.hand = self.match.next_hand()
                self._hand_logged = 0
                self._after_apply()
                continue
            autos = self._sync_decisions()
            if not autos:
                return
            if all(s.auto_reason is not None for s in self.seats):
                self._pause()
                return
            seat = self.seats[autos[0]]
            settling = seat.settle_until - time.monotonic()
            if settling > 0:  # it dropped a moment ago: maybe every seat is dropping
                self._continue_later(settling)
                return
            if seat.spec.kind == pb.SEAT_KIND_BOT and seat.auto_reason in FLEET_GONE:
                self._pause(FLEET_REASON.format(seat=seat.spec.seat))
                return
            pace = self._pace_left(seat, time.monotonic())
            if pace > 0:
                self._continue_later(pace)
                return
            seat.asked_at = None
            self.hand.apply(seat.spec.seat, self.hand.auto_action(seat.spec.seat), auto=True)
            metrics.AUTO_PLAYS.labels(seat.auto_reason or "auto").inc()
            self._after_apply()

    def _hand_break_left(self) -> float:
        """How long the next deal still waits for the last hand's settlement to be read."""
        if self._hand_ended_at is None or not self.hand_break:
            return 0.0
        return self._hand_ended_at + self.hand_break - time.monotonic()

    def _continue_later(self, delay: float = 0.0) -> None:
        """Go on with :meth:`_progress` in a later step (on the timer thread)."""
        when = time.monotonic() + delay
        if self._continuation is not None:
            if self._continuation.when <= when:
                return
            self._continuation.cancel()
        self._continuation = self.scheduler.call_at(when, self._continue)

    def _continue(self) -> None:
        with self.lock:
            self._continuation = None
            if self.over or self.suspended:
                return
            self._progress()
            self._broadcast()
            self._commit()

    def _pause(self, reason: str = PAUSED_REASON, *, at_least: float = 0.0) -> None:
        """Every seat is auto-played, or the fleet did not fill a bot seat that must act: wait
        for a seat to come back (see the module docstring)."""
        if not self.paused:
            self.paused, self.paused_at = True, time.time()
            self.pause_reason = reason
            metrics.PAUSES.labels("paused").inc()
            log.info("match %s paused: %s", self.match_id, reason)
            self._log_event({"type": "match_paused", "reason": reason})
        if self._pause_timer is None:
            left = self.paused_at + self.pause_seconds - time.time()
            self._pause_timer = self.scheduler.call_later(
                max(left, at_least), self._on_pause_timeout
            )

    def _unpause(self) -> None:
        """A seat is back: the match goes on. The seats that had dropped get a few seconds to
        come back too (a restarted bot worker's seats rejoin one after the other) before the
        engine plays for them."""
        if not self.paused:
            return
        self.paused, self.paused_at = False, None
        now = time.monotonic()
        for seat in self.seats:
            if not seat.connected and seat.auto_reason == "disconnect":
                seat.settle_until = now + max(RESUME_GRACE_SECONDS, _settle_seconds(seat))
        if self._pause_timer is not None:
            self._pause_timer.cancel()
            self._pause_timer = None
        metrics.PAUSES.labels("resumed").inc()
        self._log_event({"type": "match_resumed"})

    def _rejoined(self) -> None:
        """Every seat that plays itself is back: the rejoin window of a resumed match ends."""
        if self._rejoin_timer is not None and all(
            s.connected or s.auto_reason is not None for s in self.seats
        ):
            self._rejoin_timer.cancel()
            self._rejoin_timer = None

    def _after_apply(self) -> None:
        mark = self._new_discard()
        if mark:  # what follows it waits (see _holding), from the moment it is logged
            self._hold_until, self._hold_mark = math.inf, mark
        try:
            self._log_hand_events()
        finally:
            if mark:
                self._hold_from = time.monotonic()
                self._hold_until = self._hold_from + self.floor
                self._continue_later(self.floor)
        self._sync_decisions()
        self._broadcast()

    def _new_discard(self) -> int:
        """With a claim window's floor (``spec.claim_window``, or the bot pace): the position
        after the last discard (or added kong) among the hand's events not yet logged, else 0."""
        if not self.floor or self.hand is None:
            return 0
        events = self.hand.events
        for index in range(len(events) - 1, self._hand_logged - 1, -1):
            if events[index]["type"] in HOLD_AFTER:
                return index + 1
        return 0

    def _holding(self) -> bool:
        """While a discard's claim window is held open: the seats that may claim it hear of
        it and answer; nothing that follows (the claims' outcome, the next draw) is logged,
        told or auto-played, and no other seat's clock runs, until the window's time is up.
        So the next turn begins as late whether or not a seat could claim, and an answer
        within the window is told by nothing."""
        return self._hold_until > time.monotonic()

    def _sync_decisions(self) -> list[int]:
        """Close decisions no longer asked, open new ones; return the auto-played seats that
        must act now."""
        hand = self.match.hand
        to_act = () if hand is None or self.status != PLAYING else hand.to_act()
        autos = []
        # Asked within a hold: from when the discard was logged (see _pace_left).
        now = self._hold_from if self._holding() else time.monotonic()
        for seat in self.seats:
            number = seat.spec.seat
            if number not in to_act:
                seat.asked_at = seat.answer = None
                if seat.decision_id:
                    self._close_decision(seat)
                continue
            if seat.asked_at is None and self._hears_now(number):
                seat.asked_at = now
            if seat.answer is not None:
                continue  # answered; applied when the pace is up (_apply_answers)
            if seat.auto_reason is not None:
                autos.append(number)
            elif not seat.decision_id:
                self._open_decision(seat)
        return autos

    def _open_decision(self, seat: Seat) -> None:
        seat.decision_id = seat.new_decision_id()
        seat.decision_seq = 0  # set when its observation is pushed (see _broadcast)
        seat.deadline_wall = 0.0
        self._start_clock_if_due(seat)

    def _clock_runs(self, seat: Seat) -> bool:
        """A decision's clock runs only while its seat plays itself and is connected (and
        the engine is not stopping)."""
        return (
            self.status == PLAYING
            and not self.suspended
            and seat.connected
            and seat.auto_reason is None
            and self._hears_now(seat.spec.seat)
        )

    def _start_clock_if_due(self, seat: Seat) -> None:
        if (
            not seat.decision_id
            or seat.timer is not None
            or seat.answer is not None
            or not self._clock_runs(seat)
        ):
            return
        now = time.monotonic()
        deadline = seat.clock.open(now)
        seat.deadline_wall = time.time() + (deadline - now)
        number, decision = seat.spec.seat, seat.decision_id
        seat.timer = self.scheduler.call_at(deadline, lambda: self._on_deadline(number, decision))

    def _close_decision(self, seat: Seat) -> None:
        seat.decision_id = 0
        seat.decision_seq = 0
        seat.deadline_wall = 0.0
        if seat.timer is not None:
            seat.timer.cancel()
            seat.timer = None

    def _set_auto(self, seat: Seat, reason: str) -> None:
        if seat.decision_id:
            seat.clock.close(time.monotonic())
            self._close_decision(seat)
        seat.auto_reason = reason
        self._log_event({"type": "seat_auto", "seat": seat.spec.seat, "reason": reason})

    def _resume(self, seat: Seat, reason: str) -> None:
        seat.auto_reason = None
        self._log_event({"type": "seat_resumed", "seat": seat.spec.seat, "reason": reason})
        self._unpause()

    # ------------------------------------------------------------------ hands

    def _log_hand_events(self) -> None:
        hand = self.hand
        end = min(len(hand.events), self._hold_mark) if self._holding() else len(hand.events)
        new = hand.events[self._hand_logged : end]
        if not new:
            return
        self._hand_logged = end
        hand_no = hand.hand_no + 1
        complete = end == len(hand.events)
        if complete and hand.ended and hand_no not in self.settlements:
            self.settlements[hand_no] = self._settlement(hand, time.time())
        for event in new:
            self._log_event(event, hand_no)
        if complete and hand.ended and self.match.hand is hand:
            self._book_hand(hand)

    def _settlement(self, hand: HandState, ended_at: float) -> pb.Settlement:
        revealed = {}
        for win in hand.result.settlement.wins:
            counts = list(hand.hands[win.winner])
            if counts[win.win_tile] and win.discarder is None:
                counts[win.win_tile] -= 1
            concealed = [k for k, c in enumerate(counts) for _ in range(c)]
            revealed[win.winner] = (concealed, tuple(hand.melds[win.winner]))
        return convert.settlement_to_proto(
            hand.result.settlement,
            match_id=self.match_id,
            hand_no=hand.hand_no + 1,
            dealer=hand.dealer,
            player_ids=[s.spec.player_id for s in self.seats],
            table_id=self.spec.table_id,
            tournament_id=self.spec.tournament_id,
            round_no=self.spec.round_no,
            rule_profile=self.spec.profile,
            ended_at=ended_at,
            revealed=revealed,
        )

    def _book_hand(self, hand: HandState) -> None:
        """The hand ended: its settlement goes to the outbox with the hand_end event."""
        settlement = self.settlements[hand.hand_no + 1]
        self._group.outbox.append(
            OutboxRow(
                "settlement",
                settlement.idempotency_key,
                ledger_pb2.PostSettlementRequest(settlement=settlement).SerializeToString(),
            )
        )
        metrics.HANDS_COMPLETED.labels(hand.result.outcome.value).inc()
        self._hand_ended_at = time.monotonic()
        if self.match.finish_hand():
            self._finish_match(FINISHED, "")
        else:
            self._group.update = self._update()

    def _finish_match(self, status: str, reason: str) -> None:
        for seat in self.seats:
            seat.asked_at = seat.answer = None
            self._close_decision(seat)
        for timer in (self._ready_timer, self._pause_timer, self._rejoin_timer):
            if timer is not None:
                timer.cancel()
        self._ready_timer = self._pause_timer = self._rejoin_timer = None
        self.paused = False
        self.status = status
        self.end_reason = reason
        self.ended_at = time.time()
        metrics.MATCHES_ENDED.labels(metrics.ended_status(status, reason)).inc()
        if status == FINISHED:
            if self.match.conclusion is not None:  # ended early: the rules replay it so
                self._log_event(self.match.conclusion_event())
            self._log_event(self.match.end_event())
        else:
            self._log_event({"type": "match_dissolved", "reason": reason})
        result = matchmaking_pb2.ReportMatchResultRequest(
            match_id=self.match_id,
            table_id=self.spec.table_id,
            tournament_id=self.spec.tournament_id,
            round_no=self.spec.round_no,
            status=STATUSES[status],
            hands_played=self.match.hand_no,
            seats=[
                matchmaking_pb2.MatchSeatResult(
                    seat=s.spec.seat, player_id=s.spec.player_id, score=self.match.scores[i]
                )
                for i, s in enumerate(self.seats)
            ],
            reason=reason,
            ended_at=convert.timestamp_from_seconds(self.ended_at),
        )
        self._group.outbox.append(
            OutboxRow("match_result", self.match_id, result.SerializeToString())
        )
        self._group.update = self._update(ended=True)
        if self.on_end is not None:
            self.on_end(self)

    def _update(self, ended: bool = False) -> MatchUpdate:
        return MatchUpdate(
            self.status,
            self.match.hand_no,
            tuple(self.match.scores),
            len(self.public),
            ended,
            self.table_state(),
        )

    # ------------------------------------------------------------------ the log

    def _view(self, event: dict, viewer: int | None) -> dict | None:
        kind = event["type"]
        if kind in TABLE_EVENTS:
            return event
        return public_event(event, viewer)

    def _to_proto(self, event: dict, hand_no: int, at: float, seq: int) -> pb.Event | None:
        # Only HAND_END carries the settlement (with every win): a WIN answered while other
        # seats still decide is logged before the hand is settled, and an event must read the
        # same live and when rebuilt from the log.
        settlement = self.settlements.get(hand_no) if event["type"] == "hand_end" else None
        if event["type"] == "match_end":  # the seed, if it may be read now (not stored)
            event = {**event, "seed": self.published_seed() or None}
        return convert.event_to_proto(
            event, seq=seq, match_id=self.match_id, hand_no=hand_no, time=at, settlement=settlement
        )

    def _current_hand_no(self) -> int:
        return 0 if self.hand is None or self.hand.ended else self.hand.hand_no + 1

    def _log_event(
        self,
        event: dict,
        hand_no: int | None = None,
        at: float | None = None,
        *,
        write: bool = True,
        stored: EventRow | None = None,
    ) -> None:
        """Append ``event`` to the log (and to the group being written), publish it. A rules
        event is chained and signed (in memory: the hash and signature are written with it);
        ``stored``: the row it was read from, whose hash and signature must be the same."""
        hand_no = self._current_hand_no() if hand_no is None else hand_no
        at = time.time() if at is None else at
        seq = len(self.log) + 1
        link = None if event["type"] in TABLE_EVENTS else self.chain.append(event)
        if stored is not None and link is not None:
            self._check_stored(stored, link)
        public = self._view(event, None)
        public_seq = None  # its number among the events spectators see (None: not one)
        if public is not None and public["type"] in convert.EVENT_TYPE_NAMES:
            public_seq = len(self.public) + 1
        chain = None if link is None else link.hash
        self.log.append(event, hand_no, at, public_seq, chain)
        if write:
            mac = None if link is None else link.mac
            self._group.events.append(EventRow(seq, hand_no, event, at, chain, mac))
        if public_seq is not None:
            self.public.append(public, seq, hand_no, at)
            if self.spectators:  # the message is built only for someone to read it
                response = table_pb2.SpectateResponse(event=self._public_message(public_seq - 1))
                for queue in self.spectators:
                    queue.push(seq, response)

    def _public_message(self, index: int) -> pb.Event:
        """The spectators' message of ``self.public[index]`` (its public seq: index + 1)."""
        _seq, public, hand_no, at = self.public[index]
        return self._to_proto(public, hand_no, at, index + 1)

    def _check_stored(self, row: EventRow, link: Link) -> None:
        """A stored event must carry the hash and signature the engine gives it (rows logged
        before logs were signed carry none): anything else is an edited log."""
        where = f"match {self.match_id}: event {row.seq} ({row.event.get('type')})"
        if row.chain is not None and row.chain != link.hash:
            raise ReplayError(f"{where} does not match its stored hash: the log was edited")
        if (
            row.mac is not None
            and link.mac is not None
            and not hmac.compare_digest(row.mac, link.mac)
        ):
            raise ReplayError(
                f"{where}: its signature does not verify with this engine's log key (the log "
                "was edited, or HEBEI_TABLE_LOG_KEY changed)"
            )

    def _commit(self) -> None:
        group = self._group
        if group.events or group.outbox or group.update is not None:
            self.store.submit(group)
            self._group = Group(self.match_id)
        if self.over:
            self._end_streams()

    def _end_streams(self) -> None:
        for seat in self.seats:
            if seat.session is not None:
                seat.session.finish()
        for queue in self.spectators:
            queue.finish()
        self.spectators = []

    # ------------------------------------------------------------------ observations

    def _last_event(self, seat_no: int) -> pb.Event | None:
        for entry in itertools.islice(reversed(self.log), 16):  # rows built as they are read
            seen = self._view(entry.event, seat_no)
            if seen is None:
                continue
            seq = entry.public_seq or len(self.public)
            message = self._to_proto(seen, entry.hand_no, entry.time, seq)
            if message is not None:
                return message
        return None

    def _hears_now(self, seat_no: int) -> bool:
        """False while a claim window is open that ``seat_no`` has no part in: it is told
        nothing until the window closes (see the module docstring)."""
        hand = self.hand
        in_window = self.status == PLAYING and hand is not None and hand.phase in CLAIM_PHASES
        if self._holding():  # only a claimant of the held window, until it answers
            return in_window and seat_no in hand.pending and seat_no not in hand.responses
        return not in_window or seat_no in hand.pending

    def _observation(self, seat_no: int) -> table_pb2.PlayResponse:
        seat = self.seats[seat_no]
        publics = [s.public() for s in self.seats]
        if self.hand is None:
            message = pb.Observation(
                table_id=self.spec.table_id,
                match_id=self.match_id,
                seat=seat_no,
                phase=pb.PHASE_MATCH_END if self.over else pb.PHASE_WAITING,
                match_finished=self.over,
                seats=[
                    pb.SeatView(
                        seat=i,
                        player_name=p.player_name,
                        kind=p.kind,
                        connected=p.connected,
                        auto_played=p.auto_played,
                    )
                    for i, p in enumerate(publics)
                ],
                rule_profile=pb.RuleProfile(name=self.spec.profile),
                length=convert.length_to_proto(self.spec.length),
            )
            return table_pb2.PlayResponse(observation=message)
        hand_no = self.hand.hand_no + 1
        decision = seat.decision_id
        response = table_pb2.PlayResponse()
        convert.observation_to_proto(
            observe(self.hand, seat_no, self.match.scores),
            table_id=self.spec.table_id,
            match_id=self.match_id,
            seats=publics,
            decision_id=decision,
            deadline=seat.deadline_wall if decision and seat.deadline_wall else None,
            time_bank=seat.clock.bank,
            last_event=self._last_event(seat_no),
            settlement=self.settlements.get(hand_no) if self.hand.ended else None,
            match_finished=self.over,
            rule_profile=self.spec.profile,
            length=self.spec.length,
            wind_round=self.spec.length.wind_round,
            into=response.observation,
        )
        return response

    def _broadcast(self) -> None:
        hand = self.hand
        if hand is not None and self._hand_logged < len(hand.events) and not self._holding():
            self._after_apply()  # a claim window's floor ended: log what waited, then tell
            return
        for seat in self.seats:
            self._start_clock_if_due(seat)  # a decision held by a claim window's floor
            self._push(seat)

    def _push(self, seat: Seat, *, force: bool = False) -> None:
        """Queue ``seat``'s observation (sent once the log up to here is durable). A
        decisions-only session gets it only when it must act on it: a decision it has not
        been told of (or, ``force``, its new deadline), a change of whether its seat is
        auto-played, and the end of the match."""
        session = seat.session
        if session is None or not self._hears_now(seat.spec.seat):
            return
        seq = len(self.log)
        new_decision = bool(seat.decision_id) and not seat.decision_seq
        if session.decisions_only:
            auto = seat.auto_reason is not None
            if not (new_decision or force or self.over or auto != session.told_auto):
                return
            session.told_auto = auto
        if new_decision:
            seat.decision_seq = seq  # the seat can hear of its decision once seq is durable
        session.push(seq, self._observation(seat.spec.seat))

    # ------------------------------------------------------------------ recovery

    @classmethod
    def resume(
        cls,
        stored: StoredMatch,
        store: EventStore,
        scheduler: Scheduler,
        *,
        check: Callable[[MatchSpec], MatchSpec] | None = None,
        **kwargs,
    ) -> Table:
        """Rebuild a match from its log (replaying every hand through ``hebei.rules``); an
        unfinished one carries on: its missing events are written, decisions reopened, seats
        that were auto-played stay so, and the others have ``rejoin_seconds`` to come back
        (their clocks do not run meanwhile). ``check`` vets the stored spec first."""
        spec = MatchSpec.from_stored(stored)
        if check is not None:
            check(spec)
        table = cls(spec, store, scheduler, **kwargs)
        with table.lock:
            table._replay(stored.events)
            if stored.status in (FINISHED, DISSOLVED):
                table.status = stored.status
                table.ended_at = stored.ended_at
            elif table.status == PLAYING:
                if table.hand is not None and table.match.hand is table.hand:
                    table._log_hand_events()  # events the rules made after the last stored one
                if table.match.finished and not table.over:
                    table._finish_match(FINISHED, "")
                if table.paused:
                    table._pause(table.pause_reason, at_least=table.rejoin_seconds)
                if not table.over and any(s.auto_reason is None for s in table.seats):
                    table._rejoin_timer = scheduler.call_later(
                        table.rejoin_seconds, table._on_rejoin_timeout
                    )
                table._progress()
                table._commit()
            return table

    @classmethod
    def ended(cls, stored: StoredMatch, store: EventStore, scheduler: Scheduler) -> Table:
        """An ended match whose log the rules cannot replay (it was dissolved because of
        that): its stored events and totals as they are, to read and spectate."""
        table = cls(MatchSpec.from_stored(stored), store, scheduler)
        with table.lock:
            for row in stored.events:
                table._log_event(row.event, row.hand_no, row.time, write=False)
                table._replay_table_event(row)
            table.status = stored.status if stored.status in (FINISHED, DISSOLVED) else DISSOLVED
            table.match.scores = list(stored.scores)
            table.match.hand_no = stored.hands_played
            table.ended_at = stored.ended_at
        return table

    def _replay(self, rows: Sequence[EventRow]) -> None:
        rules_rows = [r for r in rows if r.event["type"] not in TABLE_EVENTS]
        if rules_rows:
            if rules_rows[0].event != self._start_event():
                raise ReplayError(f"match {self.match_id}: the log does not start as its seed")
            self.status = PLAYING
            pos = 1
            while pos < len(rules_rows) and rules_rows[pos].event["type"] == "hand_start":
                end = pos + 1
                while end < len(rules_rows) and rules_rows[end].event["type"] not in MATCH_LEVEL:
                    end += 1
                expected = self.match.next_hand()
                if rules_rows[pos].event != expected.events[0]:
                    raise ReplayError(f"match {self.match_id}: hand {pos} is not its seed's")
                state = replay_hand([r.event for r in rules_rows[pos:end]], complete=False)
                self.match.hand = state
                self.hand = state
                self._hand_logged = end - pos
                if state.ended and self._hand_logged == len(state.events):
                    hand_no = state.hand_no + 1
                    self.settlements[hand_no] = self._settlement(state, rules_rows[end - 1].time)
                    self.match.finish_hand()
                pos = end
        for row in rows:
            self._log_event(row.event, row.hand_no, row.time, write=False, stored=row)
            self._replay_table_event(row)

    def _replay_table_event(self, row: EventRow) -> None:
        """The table's state after one stored event (status, auto-played seats, pause)."""
        event, kind = row.event, row.event["type"]
        seat = event.get("seat")
        if kind == "match_end":
            self.status = FINISHED
        elif kind == "match_dissolved":
            self.status = DISSOLVED
            self.end_reason = event.get("reason", "")
        elif kind == "seat_auto" and seat in SEATS:
            self.seats[seat].auto_reason = event.get("reason") or "auto"
        elif kind == "seat_resumed" and seat in SEATS:
            self.seats[seat].auto_reason = None
        elif kind == "match_paused":
            self.paused, self.paused_at = True, row.time
            self.pause_reason = event.get("reason") or PAUSED_REASON
        elif kind == "match_resumed":
            self.paused, self.paused_at = False, None
        elif kind == "seat_connected" and seat in SEATS:
            self.seats[seat].held_by(bool(event.get("bot")))
        elif kind == "seat_replaced" and seat in SEATS:
            self.seats[seat].replace(event)
        elif kind == "match_concluding":
            self.concluding = str(event.get("reason") or "")
            self.match.conclude(self.concluding)
        elif kind in ACTION_TYPES and seat in SEATS:
            # Each decision ends in an action of its seat (its own or auto-played): counting
            # them from one above keeps the ids after a restart above every id given before.
            self.seats[seat].decisions = max(self.seats[seat].decisions, 1) + 1
