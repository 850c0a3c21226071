"""A table rebuilt from its match's stored log (a mixin of :class:`hebei.table.table.Table`).

:meth:`Recovery.resume` replays every hand through ``hebei.rules`` (each stored event checked
against its hash and signature as it is appended again: :mod:`hebei.table.eventlog`), then the
table's own events (who was auto-played, paused, replaced, concluding), and an unfinished match
carries on where its log stopped: the engine restarted, or another engine took the match over.
:meth:`Recovery.ended` reads an ended match whose log the rules cannot replay, as it is.

A mixin: replaying sets the table's whole state (status, hand, seats, pause) and carrying on
goes through the table's own flow, declared below.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Self

from hebei.rules.errors import ReplayError
from hebei.rules.hand import HandState
from hebei.rules.match import Match
from hebei.rules.replay import ACTION_TYPES, MATCH_LEVEL, replay_hand
from hebei.table.booking import settlement_of
from hebei.table.eventlog import TABLE_EVENTS
from hebei.table.pauses import PAUSED_REASON
from hebei.table.scheduler import Scheduler, Timer
from hebei.table.seat import Seat
from hebei.table.spec import DISSOLVED, FINISHED, PLAYING, SEATS, MatchSpec
from hebei.table.store import EventRow, EventStore, StoredMatch
from hebei.v1 import types_pb2 as pb


class Recovery:
    """The table's recovery from its log (see the module docstring)."""

    # What replaying sets of the table (see hebei.table.table.Table.__init__).
    match_id: str
    spec: MatchSpec
    status: str
    end_reason: str
    seats: list[Seat]
    match: Match
    hand: HandState | None
    settlements: dict[int, pb.Settlement]
    paused: bool
    paused_at: float | None
    pause_reason: str
    concluding: str | None
    _hand_logged: int
    _rejoin_timer: Timer | None
    _start_event: Callable[[], dict]
    _log_event: Callable[..., None]

    @classmethod
    def resume(
        cls,
        stored: StoredMatch,
        store: EventStore,
        scheduler: Scheduler,
        *,
        check: Callable[[MatchSpec], MatchSpec] | None = None,
        **kwargs,
    ) -> Self:
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
    def ended(cls, stored: StoredMatch, store: EventStore, scheduler: Scheduler) -> Self:
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
                    self.settlements[hand_no] = settlement_of(
                        self.spec, state, rules_rows[end - 1].time
                    )
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
