"""The seat task as a contract: the Celery task's name and its one argument, the bytes of a
:class:`hebei.v1.bot_pb2.SeatTask` (protos/hebei/v1/bot.proto).

The workers' task :data:`TASK_NAME` takes the serialized ``SeatTask``, so a sender needs
nothing of the workers and a worker in another language can consume the queues. A task
queued by an older sender (a JSON ticket and the time it was sent) is still read.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError

from hebei.fleet.ticket import SeatTicket
from hebei.v1 import bot_pb2

__all__ = ["TASK_NAME", "decode_seat_task", "encode_seat_task"]

# The Celery task that plays one seat (its name on the queue since the first fleet: it names
# the worker's module, which a sender does not import).
TASK_NAME = "hebei.bots.play_seat"


def encode_seat_task(ticket: SeatTicket, sent_at: float | None = None) -> bytes:
    """The ``SeatTask`` bytes of ``ticket``, queued at ``sent_at`` (Unix seconds)."""
    message = bot_pb2.SeatTask(
        target=ticket.target,
        match_id=ticket.match_id,
        seat=ticket.seat,
        seat_token=ticket.seat_token,
        policy=ticket.policy,
        level=ticket.level or 0,
        seed=ticket.seed,
        pace=ticket.pace,
        tls=ticket.tls,
        sent_at=sent_at or 0.0,
    )
    return message.SerializeToString()


def decode_seat_task(
    payload: object, sent_at: float | None = None
) -> tuple[SeatTicket, float | None]:
    """``(ticket, sent_at)`` from a task's argument; ValueError with a clear message if it
    is not a ``SeatTask`` (or a legacy JSON ticket, whose ``sent_at`` came separately)."""
    if isinstance(payload, dict):
        return SeatTicket.from_json(payload), sent_at
    if not isinstance(payload, (bytes, bytearray, memoryview)):
        raise ValueError(f"a seat task is SeatTask bytes, got {type(payload).__name__}")
    message = bot_pb2.SeatTask()
    try:
        message.ParseFromString(bytes(payload))
    except DecodeError as exc:
        raise ValueError(f"a seat task is not a SeatTask message: {exc}") from None
    ticket = SeatTicket(
        target=message.target,
        match_id=message.match_id,
        seat=message.seat,
        seat_token=message.seat_token,
        policy=message.policy or "expert",
        level=message.level or None,
        seed=message.seed,
        pace=message.pace,
        tls=message.tls,
    )
    return ticket, (message.sent_at or None)
