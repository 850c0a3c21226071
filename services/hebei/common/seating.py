"""Reading a tournament's whole seating, over as many GetSeating replies as it takes: a reply
holds whole rounds up to about 1 MiB and tells where the next one starts (``next_round``)."""

from __future__ import annotations

from collections.abc import Callable

from hebei.v1 import matchmaking_pb2 as mm

__all__ = ["every_round", "next_request"]

MAX_REPLIES = 10_001  # a tournament has at most 10,000 rounds' numbers: never loop forever


def next_request(
    tournament_id: str, reply: mm.GetSeatingResponse | None
) -> mm.GetSeatingRequest | None:
    """The GetSeating request after ``reply`` (None: the first), or None when it was the last
    (or a reply that does not move on: a server's fault must not make a client loop)."""
    if reply is None:
        return mm.GetSeatingRequest(tournament_id=tournament_id)
    last = reply.rounds[-1].round_no if reply.rounds else 0
    if reply.next_round <= last:
        return None
    return mm.GetSeatingRequest(tournament_id=tournament_id, from_round=reply.next_round)


def every_round(
    fetch: Callable[[mm.GetSeatingRequest], mm.GetSeatingResponse], tournament_id: str
) -> list[mm.RoundSeating]:
    """Every seated round of ``tournament_id``, in order, ``fetch`` sending each request."""
    rounds: list[mm.RoundSeating] = []
    reply = None
    for _ in range(MAX_REPLIES):
        request = next_request(tournament_id, reply)
        if request is None:
            break
        reply = fetch(request)
        rounds.extend(reply.rounds)
    return rounds
