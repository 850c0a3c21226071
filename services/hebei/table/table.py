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

The table is made of parts, each in its own module. It owns two objects: the match's event log
and its one writer (:class:`~hebei.table.eventlog.EventLog`), and the match's open streams, the
seats' sessions and the spectators' queues (:class:`~hebei.table.streams.Streams`); what it
books for the other services is built by :mod:`hebei.table.booking`. Its behaviour over the
hand, the seats and the timers is shared out among mixins, one a module, because it reads and
changes that shared state in one step under one lock: the seats' requests
(:mod:`hebei.table.seatactions`), the decisions, clocks, pace and claim windows
(:mod:`hebei.table.decisions`), the pauses (:mod:`hebei.table.pauses`), what a seat is told
(:mod:`hebei.table.observations`) and the recovery from the stored log
(:mod:`hebei.table.recovery`). This module holds the table's state and its flow: the steps of
the match, the hands' end and booking, the match's end, suspension and failure.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

from hebei.common import convert
from hebei.common.errors import DomainError, Unavailable
from hebei.rules.hand import HandState
from hebei.rules.match import Match
from hebei.rules.profile import get_profile
from hebei.table import booking, metrics
from hebei.table.decisions import Decisions
from hebei.table.eventlog import EventLog, LogEntry
from hebei.table.observations import Observations
from hebei.table.pauses import PAUSED_REASON, Pauses
from hebei.table.recovery import Recovery
from hebei.table.rows import DictRows
from hebei.table.scheduler import Scheduler, Timer
from hebei.table.seat import Seat
from hebei.table.seatactions import SeatActions
from hebei.table.sessions import Outbound
from hebei.table.spec import (
    DISSOLVED,
    FINISHED,
    PLAYING,
    SEATS,
    STATUSES,
    WAITING,
    MatchSpec,
    shown_name,
)
from hebei.table.store import EventRow, EventStore, MatchUpdate
from hebei.table.streams import BACKLOG_CHUNK, STOPPING, Streams
from hebei.table.timecontrol import default_for
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)

STEP_ACTIONS = 64  # auto-played actions (and deals) in one step of a table
HAND_BREAK_PACES = 10  # a hand's settlement is shown this many bot paces before the next deal
# A bot seat the fleet did not fill (absent at the start, or gone and not taken over within
# BOT_SETTLE_SECONDS) when it must act: the platform's failure, not a player's, so the table
# pauses for it instead of playing it.
FLEET_REASON = "the bot fleet has not filled seat {seat}"
FLEET_GONE = frozenset({"absent", "disconnect"})


def _never(spec: MatchSpec) -> bool:
    return False


class Table(SeatActions, Decisions, Pauses, Observations, Recovery):
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
        self.eventlog = EventLog(spec.match_id, store)  # the log, and its one writer
        self.streams = Streams(self.eventlog, self.seats, seat_queue)  # sessions, spectators
        self.settlements: dict[int, pb.Settlement] = {}  # by 1-based hand number
        self.hand: HandState | None = None  # the hand being played, or the last one
        self._hand_logged = 0  # how many of self.hand.events are in the log
        # The claim window's floor (spec.claim_window): until _hold_until (monotonic) what
        # followed the last discard waits (see _holding); _hold_mark: how many of the hand's
        # events may be logged meanwhile (up to that discard).
        self._hold_until = 0.0
        self._hold_from = 0.0  # when the hold began (monotonic)
        self._hold_mark = 0
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

    @property
    def log(self) -> DictRows[LogEntry]:
        """The match's events as the table holds them (:attr:`EventLog.entries`)."""
        return self.eventlog.entries

    @property
    def public(self) -> DictRows[tuple[int, dict, int, float]]:
        """What spectators see of them (:attr:`EventLog.public`)."""
        return self.eventlog.public

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
                event_count=len(self.eventlog.public),
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
            return self.eventlog.rules_events()

    # ------------------------------------------------------------------ the match

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
                self.eventlog.update(self._update())
            self._broadcast()
            self._commit()

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

    def dissolve(self, reason: str) -> None:
        """End the match now; its current hand is not settled."""
        with self.lock:
            if not self.over:
                self._dissolve(reason or "dissolved")

    def _dissolve(self, reason: str) -> None:
        self._finish_match(DISSOLVED, reason)
        self._broadcast()
        self.streams.finish()
        self._commit()

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

    def suspend(self, error: DomainError | None = None) -> None:
        """The engine is stopping, or this replica no longer serves the match: stop every
        clock and timer of the table and end its streams with ``error`` (UNAVAILABLE: the
        engine is stopping; :class:`hebei.table.ownership.NotServed`: another replica takes
        the match over). Not the seats leaving: nothing is auto-played. The match resumes
        from its log when the engine is back, or on its new owner."""
        with self.lock:
            if self.suspended:
                return
            self.suspended = True
            self._cancel_timers()
            self.streams.fail(error or Unavailable(STOPPING))
            self._commit()

    def fail_storage(self, reason: str) -> None:
        """The event log refused this table's events: the events not written are dropped
        (nobody heard of them: messages wait for durability) and the match is dissolved,
        its result reported; the other tables are not affected."""
        with self.lock:
            if self.over:
                return
            durable = self.eventlog.drop_undurable()
            self.streams.discard_after(durable)
            hands = [e for e in self.eventlog.entries.data() if e["type"] == "hand_end"]
            self.match.scores = [
                sum(h["settlement"]["total"][seat] for h in hands) for seat in SEATS
            ]
            self.match.hand_no = len(hands)
            metrics.MATCHES_FAILED.labels("event_log").inc()
            self._dissolve(f"technical: {reason}")

    def subscribe(self, from_seq: int) -> Outbound:
        """A spectator's queue: public events from ``from_seq`` (0: only new ones)."""
        with self.lock:
            if self.suspended:
                raise Unavailable(STOPPING)
            return self.streams.subscribe(from_seq, self._public_message, ended=self.over)

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
            return self.streams.backlog(from_seq, limit, self._public_message, ended=self.over)

    def unsubscribe(self, queue: Outbound) -> None:
        with self.lock:
            self.streams.unsubscribe(queue)

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
        self.eventlog.update(self._update())

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
            self.settlements[hand_no] = booking.settlement_of(self.spec, hand, time.time())
        for event in new:
            self._log_event(event, hand_no)
        if complete and hand.ended and self.match.hand is hand:
            self._book_hand(hand)

    def _book_hand(self, hand: HandState) -> None:
        """The hand ended: its settlement goes to the outbox with the hand_end event."""
        settlement = self.settlements[hand.hand_no + 1]
        self.eventlog.book(booking.settlement_row(settlement))
        metrics.HANDS_COMPLETED.labels(hand.result.outcome.value).inc()
        self._hand_ended_at = time.monotonic()
        if self.match.finish_hand():
            self._finish_match(FINISHED, "")
        else:
            self.eventlog.update(self._update())

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
        self.eventlog.book(
            booking.result_row(
                self.spec, status, self.match.hand_no, self.match.scores, reason, self.ended_at
            )
        )
        self.eventlog.update(self._update(ended=True))
        if self.on_end is not None:
            self.on_end(self)

    def _update(self, ended: bool = False) -> MatchUpdate:
        return MatchUpdate(
            self.status,
            self.match.hand_no,
            tuple(self.match.scores),
            len(self.eventlog.public),
            ended,
            self.table_state(),
        )

    # ------------------------------------------------------------------ the log

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
        """Append ``event`` to the log (and to the group being written: see
        :meth:`hebei.table.eventlog.EventLog.append`), publish it to the spectators."""
        hand_no = self._current_hand_no() if hand_no is None else hand_no
        at = time.time() if at is None else at
        public_seq = self.eventlog.append(event, hand_no, at, write=write, stored=stored)
        if public_seq is not None:
            self.streams.publish(len(self.eventlog), public_seq, self._public_message)

    def _commit(self) -> None:
        """The step's events, outbox rows and match row go to the store as one group; an ended
        match's streams end."""
        self.eventlog.submit()
        if self.over:
            self.streams.finish()

    # ------------------------------------------------------------------ observations

    def _broadcast(self) -> None:
        hand = self.hand
        if hand is not None and self._hand_logged < len(hand.events) and not self._holding():
            self._after_apply()  # a claim window's floor ended: log what waited, then tell
            return
        for seat in self.seats:
            self._start_clock_if_due(seat)  # a decision held by a claim window's floor
            self._push(seat)
