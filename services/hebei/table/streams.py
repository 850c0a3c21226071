"""The match's open streams: each seat's session and the spectators' queues.

A seat's session (an :class:`~hebei.table.sessions.Outbound`) is held by its
:class:`~hebei.table.seat.Seat` while a client plays the seat; a spectator's queue is held here
from its subscription until it ends. The table pushes to them under its lock, and each message
leaves once the log up to it is durable. Whenever the table stops serving its match, every
stream ends at once: finished when the match is over (:meth:`Streams.finish`), failed with the
reason when the engine stops (:meth:`Streams.fail`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hebei.common.errors import DomainError
from hebei.table.eventlog import EventLog
from hebei.table.seat import Seat
from hebei.table.sessions import Outbound
from hebei.v1 import table_pb2
from hebei.v1 import types_pb2 as pb

STOPPING = "the table engine is stopping: reconnect (the match resumes where it stopped)"
# A spectator's backlog is built this many messages at a time, as it reads (Streams.backlog).
BACKLOG_CHUNK = 256

# The spectators' message of public event ``index`` of the log (its public seq: index + 1).
Render = Callable[[int], pb.Event]


class Streams:
    """The streams of one match (see the module docstring)."""

    def __init__(self, log: EventLog, seats: Sequence[Seat], seat_queue: int) -> None:
        self.log = log
        self.seats = seats
        self.seat_queue = seat_queue  # a seat session's bound (old observations dropped)
        self.spectators: list[Outbound] = []

    def open_seat(self, seat: Seat, *, decisions_only: bool) -> Outbound:
        """A new session for ``seat`` (its previous one must have been ended)."""
        session = Outbound(
            self.log.match_id,
            self.log.store,
            maxsize=self.seat_queue,
            decisions_only=decisions_only,
        )
        seat.session = session
        return session

    def seat_of(self, session: Outbound) -> Seat | None:
        """The seat ``session`` holds; None once a newer session replaced it."""
        return next((s for s in self.seats if s.session is session), None)

    def subscribe(self, from_seq: int, render: Render, *, ended: bool) -> Outbound:
        """A spectator's queue: public events from ``from_seq`` (0: only new ones); finished
        at once after them when the match has ``ended``."""
        public = self.log.public
        start = len(public) if from_seq == 0 else max(0, from_seq - 1)
        backlog = range(start, len(public))
        queue = Outbound(
            self.log.match_id, self.log.store, maxsize=len(backlog) + 1024, droppable=False
        )
        if self.log.durable_floor:
            queue.durable(self.log.durable_floor)
        for index in backlog:
            queue.push(public[index][0], table_pb2.SpectateResponse(event=render(index)))
        if ended:
            queue.finish()
        else:
            self.spectators.append(queue)
        return queue

    def backlog(
        self, from_seq: int, limit: int, render: Render, *, ended: bool
    ) -> tuple[list[table_pb2.SpectateResponse], int] | Outbound:
        """A spectator's next step from public event ``from_seq`` (see
        :meth:`hebei.table.table.Table.backlog`)."""
        public = self.log.public
        start = max(0, from_seq - 1)
        if len(public) - start <= limit:
            return self.subscribe(from_seq, render, ended=ended)
        durable = self.log.durable_seq()
        messages = []
        for index in range(start, start + limit):
            if public[index][0] > durable:
                break
            messages.append(table_pb2.SpectateResponse(event=render(index)))
        if not messages:
            return self.subscribe(from_seq, render, ended=ended)
        return messages, start + len(messages) + 1

    def unsubscribe(self, queue: Outbound) -> None:
        if queue in self.spectators:
            self.spectators.remove(queue)

    def publish(self, seq: int, public_seq: int, render: Render) -> None:
        """Push public event ``public_seq`` (event ``seq`` of the log) to the spectators; the
        message is built only for someone to read it."""
        if self.spectators:
            response = table_pb2.SpectateResponse(event=render(public_seq - 1))
            for queue in self.spectators:
                queue.push(seq, response)

    def discard_after(self, seq: int) -> None:
        """Drop from every stream the messages that wait for events after ``seq`` (the store
        refused them: nobody heard of them)."""
        for queue in [*(s.session for s in self.seats if s.session), *self.spectators]:
            queue.discard_after(seq)

    def finish(self) -> None:
        """The match is over: every stream ends once its messages are sent."""
        for seat in self.seats:
            if seat.session is not None:
                seat.session.finish()
        for queue in self.spectators:
            queue.finish()
        self.spectators = []

    def fail(self, error: DomainError) -> None:
        """The table stops serving the match: every stream ends with ``error``."""
        for seat in self.seats:
            if seat.session is not None:
                seat.session.fail(error)
        for queue in self.spectators:
            queue.fail(error)
        self.spectators = []
