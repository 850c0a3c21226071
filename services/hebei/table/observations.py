"""What a table tells: each seat's observation and the protobuf form of the events seats and
spectators read (a mixin of :class:`hebei.table.table.Table`).

What a seat sees is what a player at a real table sees: its own hand, the public state of the
others and the last event it may know of (:func:`hebei.table.eventlog.view`). An observation is
queued on the seat's session (:meth:`Observations._push`) and leaves once the log up to it is
durable; pushing the observation of a new decision marks the log position its clock counts
from. A mixin: it reads the whole live state of the table (hand, scores, seats, settlements),
declared below.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from hebei.common import convert
from hebei.rules.hand import HandState
from hebei.rules.match import Match
from hebei.rules.views import observe
from hebei.table.eventlog import EventLog, view
from hebei.table.seat import Seat
from hebei.table.spec import MatchSpec
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb


class Observations:
    """The messages of a table (see the module docstring)."""

    # What it reads of the table (see hebei.table.table.Table.__init__).
    spec: MatchSpec
    match_id: str
    over: bool
    seats: list[Seat]
    match: Match
    hand: HandState | None
    settlements: dict[int, pb.Settlement]
    eventlog: EventLog
    published_seed: Callable[[], int]
    _hears_now: Callable[[int], bool]

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

    def _public_message(self, index: int) -> pb.Event:
        """The spectators' message of public event ``index`` of the log (its public seq:
        ``index + 1``)."""
        _seq, public, hand_no, at = self.eventlog.public[index]
        return self._to_proto(public, hand_no, at, index + 1)

    def _last_event(self, seat_no: int) -> pb.Event | None:
        for entry in itertools.islice(
            reversed(self.eventlog.entries), 16
        ):  # rows built as they are read
            seen = view(entry.event, seat_no)
            if seen is None:
                continue
            seq = entry.public_seq or len(self.eventlog.public)
            message = self._to_proto(seen, entry.hand_no, entry.time, seq)
            if message is not None:
                return message
        return None

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

    def _push(self, seat: Seat, *, force: bool = False) -> None:
        """Queue ``seat``'s observation (sent once the log up to here is durable). A
        decisions-only session gets it only when it must act on it: a decision it has not
        been told of (or, ``force``, its new deadline), a change of whether its seat is
        auto-played, and the end of the match."""
        session = seat.session
        if session is None or not self._hears_now(seat.spec.seat):
            return
        seq = len(self.eventlog)
        new_decision = bool(seat.decision_id) and not seat.decision_seq
        if session.decisions_only:
            auto = seat.auto_reason is not None
            if not (new_decision or force or self.over or auto != session.told_auto):
                return
            session.told_auto = auto
        if new_decision:
            seat.decision_seq = seq  # the seat can hear of its decision once seq is durable
        session.push(seq, self._observation(seat.spec.seat))
