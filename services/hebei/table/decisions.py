"""The seats' decisions at a table: opening and closing them, their clocks and deadlines, the
bot pace and the claim window's floor (a mixin of :class:`hebei.table.table.Table`).

A decision's clock runs only while its seat plays itself and is connected, and from the moment
the seat could be told of it (the event log was written): when the log is slow or down the
deadline moves (:meth:`Decisions._hold_deadline`). While a discard (or an added kong) waits for
claims, only the seats that may claim it hear of it (:meth:`Decisions._hears_now`); with a claim
window's floor, nothing that follows is logged, told or auto-played before the floor is up
(:meth:`Decisions._holding`). At a table with people, the machine's actions wait for the bot
pace (:meth:`Decisions._pace_left`).

A mixin, not an object of its own: opening a decision, its clock, the hold and the pace read
and change the hand, the seats and the table's status together, in the same step and under the
same lock as the table's flow (:meth:`hebei.table.table.Table._progress`), which they call
back. The attributes it reads of the table are declared below.
"""

from __future__ import annotations

import logging
import math
import time

from hebei.rules.actions import Action, ActionKind
from hebei.rules.errors import IllegalActionError
from hebei.rules.hand import HandState, Phase
from hebei.rules.match import Match
from hebei.table import metrics
from hebei.table.scheduler import Scheduler
from hebei.table.seat import Seat
from hebei.table.spec import DISSOLVED, FINISHED, PLAYING
from hebei.table.store import EventStore
from hebei.v1 import types_pb2 as pb

log = logging.getLogger(__name__)

HOLD_SECONDS = 0.25  # how often a held deadline looks again whether the seat was told
LAG_TOLERANCE = 0.05  # seconds of event log delay not given back to a seat's clock
CLAIM_PHASES = (Phase.CLAIMS, Phase.ROB)
HOLD_AFTER = frozenset({"discard", "added_kong"})  # events a claim window's floor follows


class Decisions:
    """The decisions, clocks, pace and holds of a table (see the module docstring)."""

    # What it reads of the table (see hebei.table.table.Table.__init__).
    match_id: str
    store: EventStore
    scheduler: Scheduler
    status: str
    suspended: bool
    seats: list[Seat]
    match: Match
    hand: HandState | None
    pace: float
    floor: float
    _hand_logged: int
    _hold_until: float
    _hold_from: float

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

    def _hears_now(self, seat_no: int) -> bool:
        """False while a claim window is open that ``seat_no`` has no part in: it is told
        nothing until the window closes (see the module docstring). Once the match is over
        (dissolved during a held window too) every seat hears that it is."""
        if self.status in (FINISHED, DISSOLVED):
            return True
        hand = self.hand
        in_window = self.status == PLAYING and hand is not None and hand.phase in CLAIM_PHASES
        if self._holding():  # only a claimant of the held window, until it answers
            return in_window and seat_no in hand.pending and seat_no not in hand.responses
        return not in_window or seat_no in hand.pending
