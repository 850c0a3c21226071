"""Small TableService replicas for the routing tests, on real servers on port 0 (the standard
interceptors included): each owns a set of matches, answers those (``MatchInfo.table_id`` names
the replica that answered) and refuses the rest with the redirect convention, naming the owner
its directory gives. Synchronous replicas serve GetMatch and Dissolve; asyncio ones GetMatch,
Spectate and Play."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field

from hebei.common.config import ServerConfig
from hebei.common.routing import Owner, abort_not_owner, abort_not_owner_async
from hebei.common.server import Server, ServiceSpec, create_server
from hebei.v1 import table_pb2, table_pb2_grpc, types_pb2
from tests.integration.common.conftest import OPERATOR_TOKEN, SERVICE_TOKEN

TABLE = "hebei.v1.TableService"
SPECTATE_EVENTS = 3  # events a Spectate stream of an owned match sends before it ends


@dataclass
class Directory:
    """Who owns each match, as the replicas read it (a takeover sets None, then the new owner)."""

    owners: dict[str, Owner | None] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def set(self, match_id: str, owner: Owner | None) -> None:
        with self.lock:
            self.owners[match_id] = owner

    def get(self, match_id: str) -> Owner | None:
        with self.lock:
            return self.owners.get(match_id)


@dataclass
class Replica:
    """One replica: what it owns, whom it names for the rest, how many calls it got and when
    (``time.monotonic()``)."""

    replica_id: str
    directory: Callable[[str], Owner | None]
    owned: set[str] = field(default_factory=set)
    calls: int = 0
    call_times: list[float] = field(default_factory=list)
    server: Server | None = None

    def called(self) -> None:
        """Count a call (as it arrives)."""
        self.calls += 1
        self.call_times.append(time.monotonic())

    @property
    def address(self) -> str:
        assert self.server is not None
        return f"127.0.0.1:{self.server.port}"

    def owner(self) -> Owner:
        return Owner(self.replica_id, self.address)

    def info(self, match_id: str) -> table_pb2.MatchInfo:
        return table_pb2.MatchInfo(match_id=match_id, table_id=self.replica_id)

    def stop(self) -> None:
        assert self.server is not None
        self.server.stop(grace=0)


class SyncReplica(table_pb2_grpc.TableServiceServicer):
    def __init__(self, replica: Replica) -> None:
        self.replica = replica

    def _serve(self, match_id: str, context) -> table_pb2.MatchInfo:
        self.replica.called()
        if match_id not in self.replica.owned:
            abort_not_owner(context, match_id, self.replica.directory(match_id))
        return self.replica.info(match_id)

    def GetMatch(self, request, context):
        return table_pb2.GetMatchResponse(match=self._serve(request.match_id, context))

    def Dissolve(self, request, context):
        return table_pb2.DissolveResponse(match=self._serve(request.match_id, context))


class AsyncReplica(table_pb2_grpc.TableServiceServicer):
    def __init__(self, replica: Replica) -> None:
        self.replica = replica

    async def _serve(self, match_id: str, context) -> table_pb2.MatchInfo:
        self.replica.called()
        if match_id not in self.replica.owned:
            await abort_not_owner_async(context, match_id, self.replica.directory(match_id))
        return self.replica.info(match_id)

    async def GetMatch(self, request, context):
        return table_pb2.GetMatchResponse(match=await self._serve(request.match_id, context))

    async def Spectate(self, request, context) -> AsyncIterator[table_pb2.SpectateResponse]:
        info = await self._serve(request.match_id, context)
        for seq in range(1, SPECTATE_EVENTS + 1):
            event = types_pb2.Event(seq=seq, match_id=info.match_id)
            yield table_pb2.SpectateResponse(event=event)

    async def Play(self, request_iterator, context) -> AsyncIterator[table_pb2.PlayResponse]:
        incoming = aiter(request_iterator)
        join = (await anext(incoming)).join
        await self._serve(join.match_id, context)
        yield table_pb2.PlayResponse(observation=types_pb2.Observation(seat=join.seat))
        async for message in incoming:
            decision = message.action.decision_id + 1
            observation = types_pb2.Observation(seat=join.seat, decision_id=decision)
            yield table_pb2.PlayResponse(observation=observation)


def start_replica(
    replica_id: str,
    directory: Callable[[str], Owner | None],
    owned: set[str] | None = None,
    *,
    asyncio: bool = False,
    servicer: Callable[[Replica], table_pb2_grpc.TableServiceServicer] | None = None,
) -> Replica:
    """A replica on a free port, started; ``servicer(replica)``: a servicer of one's own (an
    asyncio one when ``asyncio``)."""
    replica = Replica(replica_id, directory, set(owned or ()))
    make = servicer or (AsyncReplica if asyncio else SyncReplica)
    replica.server = serve_table(f"routed-{replica_id}", make(replica), asyncio=asyncio)
    return replica


def serve_table(
    name: str, servicer: table_pb2_grpc.TableServiceServicer, *, asyncio: bool = False
) -> Server:
    """``servicer`` on a TableService server on a free port (the standard interceptors, the
    tests' tokens), started."""
    config = ServerConfig(
        service=name,
        host="127.0.0.1",
        port=0,
        metrics_port=None,
        operator_token=OPERATOR_TOKEN,
        service_token=SERVICE_TOKEN,
        grace_seconds=0.5,
    )
    add = table_pb2_grpc.add_TableServiceServicer_to_server
    server = create_server(ServiceSpec(TABLE, add, servicer, asyncio=asyncio), config)
    server.start()
    return server


def joins_until_served(
    times: Iterable[float], since: float, served_at: float
) -> tuple[list[float], list[float]]:
    """The joins (stream opens) after ``since`` up to the first one after ``served_at`` (the one
    that could find the new owner), in order, and the gaps between them: the schedule a client
    kept while its match was being taken over."""
    joins = sorted(t for t in times if t > since)
    during = [t for t in joins if t <= served_at] + [t for t in joins if t > served_at][:1]
    return during, [later - earlier for earlier, later in itertools.pairwise(during)]
