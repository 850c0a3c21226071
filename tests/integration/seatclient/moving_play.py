"""A scripted Play stream over routed replicas (:mod:`tests.integration.common.routed_replicas`)
whose match can move between them while a seat plays: the replicas share each match's course
(:class:`MatchCourse`, standing for the shared event log), the owner answers a Join with the
seat's open decision and each answer with the next one, and a replica that loses the match ends
its open streams with the routing refusal naming the new owner (as a table replica does when a
takeover takes its shard)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from hebei.common.routing import abort_not_owner_async
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.common.routed_replicas import Directory, Replica

OWNERSHIP_POLL = 0.02  # seconds between an open stream's looks at whether it still owns


@dataclass
class MatchCourse:
    """Each match's open decision (1, 2, ...), shared by every replica."""

    decisions: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def open_decision(self, match_id: str) -> int:
        with self.lock:
            return self.decisions.setdefault(match_id, 1)

    def answer(self, match_id: str, decision_id: int) -> int:
        """Answer ``decision_id`` (a stale one changes nothing); the open decision after it."""
        with self.lock:
            current = self.decisions.setdefault(match_id, 1)
            if decision_id == current:
                current = self.decisions[match_id] = current + 1
            return current


def observation(seat: int, decision_id: int) -> table_pb2.PlayResponse:
    return table_pb2.PlayResponse(observation=pb.Observation(seat=seat, decision_id=decision_id))


class MovingPlayReplica(table_pb2_grpc.TableServiceServicer):
    """A replica's Play: see the module docstring."""

    def __init__(self, replica: Replica, course: MatchCourse) -> None:
        self.replica = replica
        self.course = course

    async def _refuse_unless_owned(self, match_id: str, context) -> None:
        if match_id not in self.replica.owned:
            await abort_not_owner_async(context, match_id, self.replica.directory(match_id))

    async def Play(self, request_iterator, context) -> AsyncIterator[table_pb2.PlayResponse]:
        self.replica.called()
        incoming = aiter(request_iterator)
        join = (await anext(incoming)).join
        await self._refuse_unless_owned(join.match_id, context)
        yield observation(join.seat, self.course.open_decision(join.match_id))
        pending = asyncio.ensure_future(anext(incoming))
        try:
            while True:
                done, _ = await asyncio.wait({pending}, timeout=OWNERSHIP_POLL)
                await self._refuse_unless_owned(join.match_id, context)
                if not done:
                    continue
                try:
                    message = pending.result()
                except StopAsyncIteration:
                    return
                pending = asyncio.ensure_future(anext(incoming))
                decision = self.course.answer(join.match_id, message.action.decision_id)
                yield observation(join.seat, decision)
        finally:
            pending.cancel()


def moving_servicer(course: MatchCourse) -> Callable[[Replica], MovingPlayReplica]:
    """``start_replica(..., asyncio=True, servicer=moving_servicer(course))``."""
    return lambda replica: MovingPlayReplica(replica, course)


def move(match_id: str, source: Replica, target: Replica, directory: Directory) -> None:
    """A takeover: ``target`` owns the match now, ``source`` no longer."""
    target.owned.add(match_id)
    directory.set(match_id, target.owner())
    source.owned.discard(match_id)
