"""What a seat's client does at a table (a mixin of :class:`hebei.table.table.Table`): join the
seat (with its token) and leave it, act (answer its decision, hand the seat over to the engine
or take it back), and what ReplaceSeat does to a seat.

A refusal goes back on the seat's stream as an ActionRejected (:func:`rejection`) and says the
same whether or not the seat has a decision open. A seat dropping is not played for at once
(:func:`hebei.table.seat.settle_seconds`). A mixin: each request runs as one step of the table,
under its lock, through its flow, declared below.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from hebei.common import convert
from hebei.common.auth import same_token
from hebei.common.errors import (
    Conflict,
    FailedPrecondition,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
)
from hebei.rules.errors import IllegalActionError, NotationError
from hebei.rules.hand import HandState
from hebei.table import metrics
from hebei.table.eventlog import EventLog
from hebei.table.seat import Seat, revoked_message, settle_seconds
from hebei.table.sessions import Outbound
from hebei.table.spec import PLAYING, WAITING, hash_token
from hebei.table.streams import STOPPING, Streams
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb


def rejection(decision_id: int, code: str, message: str) -> table_pb2.PlayResponse:
    metrics.ACTIONS_REJECTED.labels(code).inc()
    return table_pb2.PlayResponse(
        rejected=table_pb2.ActionRejected(decision_id=decision_id, code=code, message=message)
    )


class SeatActions:
    """The seats' requests at a table (see the module docstring)."""

    # What it reads of the table (see hebei.table.table.Table.__init__).
    lock: threading.RLock
    match_id: str
    status: str
    suspended: bool
    over: bool
    seats: list[Seat]
    hand: HandState | None
    eventlog: EventLog
    streams: Streams
    _log_event: Callable[..., None]
    _commit: Callable[[], None]
    _progress: Callable[[], None]
    _broadcast: Callable[[], None]

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
        :meth:`~hebei.table.observations.Observations._push`); ``bot``: the client is a bot
        (in a person's seat, the seat is shown as played by a filler while it holds it)."""
        with self.lock:
            self.check_token(seat_no, token)  # under the lock: ReplaceSeat cannot slip between
            if self.suspended:
                raise Unavailable(STOPPING)
            seat = self.seats[seat_no]
            if seat.session is not None:
                seat.session.fail(self._displaced(seat, bot))
            session = self.streams.open_seat(seat, decisions_only=decisions_only)
            if self.over:
                session.push(len(self.eventlog), self._observation(seat_no))
                session.finish()
                return session
            seat.connected = True
            seat.joined = True
            seat.held_by(bot)
            event = {"type": "seat_connected", "seat": seat_no}
            if bot:
                event["bot"] = True  # read back: who held the seat (person_joined, played_by)
            self._log_event(event)
            self.eventlog.update(self._update())
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
        later (:data:`~hebei.table.seat.SETTLE_SECONDS`): when every seat drops at once (a
        bot worker holding all four dies) the table pauses before the machine has played
        anything for them, as soon as the last one is gone. A bot seat is waited for longer
        (:data:`~hebei.table.seat.BOT_SETTLE_SECONDS`): the fleet takes it over."""
        with self.lock:
            seat = self.streams.seat_of(session)
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
            settle = settle_seconds(seat)
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
            self.eventlog.update(self._update())
            self._broadcast()
            self._commit()

    def answers_open_decision(self, session: Outbound, decision_id: int) -> bool:
        """Whether ``decision_id`` is the open decision of ``session``'s seat: an answer the
        seat was asked for, which the stream's rate limit lets through (a quick bot answers
        more decisions a second than the limit allows other messages). Read without the lock:
        a message racing the decision's close is merely counted against the limit."""
        if not decision_id:
            return False
        seat = self.streams.seat_of(session)
        return seat is not None and seat.decision_id == decision_id

    def act(self, session: Outbound, message: pb.Action) -> None:
        """A seat's message: a seat-control action or an answer to its decision. A refusal
        goes back on the seat's stream as an ActionRejected; the stream stays open."""
        with self.lock:
            seat = self.streams.seat_of(session)
            if seat is None or self.suspended:
                return
            answer = self._act(seat, message)
            if answer is not None:
                session.push(len(self.eventlog), answer, keep=True)
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
