"""A small routed table engine for the gateways' tests (matchmaking's TableGateway, the web's
backend and spectators, the finished-match reader): one shared :class:`Engine` (the store: the
matches, their events, who owns each) and synchronous TableService replicas on real servers on
port 0 that serve the matches they own and refuse the rest with the redirect convention
(:mod:`hebei.common.routing`).

Like the real engine, every replica answers ListTables for every match from the store, with
the live event count only for the matches it owns (a stored row's count, 0 here, for the
others); RevealMatchResults reveals the matches the replica owns. A Spectate stream follows its
match's events until the match ends, and ends with the refusal when the match moves away.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from hebei.common.routing import Owner, abort_not_owner
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.integration.common.routed_replicas import Replica, serve_table


@dataclass
class StoredMatch:
    info: table_pb2.MatchInfo
    events: list[pb.Event] = field(default_factory=list)
    owner: str | None = None  # a replica id; None while it is taken over


@dataclass
class Engine:
    """The replicas' shared store and their directory."""

    matches: dict[str, StoredMatch] = field(default_factory=dict)
    replicas: dict[str, EngineReplica] = field(default_factory=dict)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def owner(self, match_id: str) -> Owner | None:
        with self.changed:
            stored = self.matches.get(match_id)
            replica = self.replicas.get(stored.owner) if stored and stored.owner else None
        return replica.owner() if replica is not None else None

    def placement(self, match_id: str) -> str:
        """The replica a new match opens on (the last one: never the first entry)."""
        return sorted(self.replicas)[-1]

    def add(
        self, match_id: str, owner: str, *, tournament_id: str = "", hidden: bool = False
    ) -> None:
        info = table_pb2.MatchInfo(
            match_id=match_id,
            table_id=f"t-{match_id}",
            tournament_id=tournament_id,
            status=pb.MATCH_STATUS_PLAYING,
            results_hidden=hidden,
            length=pb.MatchLength(hands=1),
            seats=[table_pb2.SeatInfo(seat=s, player_id=f"p{s}") for s in range(4)],
        )
        with self.changed:
            self.matches[match_id] = StoredMatch(info, owner=owner)
            self.changed.notify_all()

    def move(self, match_id: str, owner: str | None) -> None:
        """The match's owner changes (None: being taken over)."""
        with self.changed:
            self.matches[match_id].owner = owner
            self.changed.notify_all()

    def append(self, match_id: str, count: int = 1, *, end: bool = False) -> None:
        """``count`` draws, then (``end``) the match's end."""
        with self.changed:
            stored = self.matches[match_id]
            for _ in range(count):
                seq = len(stored.events) + 1
                stored.events.append(pb.Event(seq=seq, type=pb.EVENT_TYPE_DRAW, seat=seq % 4))
            if end:
                seq = len(stored.events) + 1
                stored.events.append(pb.Event(seq=seq, type=pb.EVENT_TYPE_MATCH_END))
                stored.info.status = pb.MATCH_STATUS_FINISHED
                stored.info.seed = 7
            stored.info.event_count = len(stored.events)
            self.changed.notify_all()

    def stop(self) -> None:
        for replica in self.replicas.values():
            replica.stop()


@dataclass
class EngineReplica(Replica):
    """A replica of :class:`Engine` (its directory the engine's; ``by_method``: the calls it
    got, refused ones too)."""

    engine: Engine = field(default_factory=Engine)
    by_method: Counter[str] = field(default_factory=Counter)


class EngineServicer(table_pb2_grpc.TableServiceServicer):
    def __init__(self, replica: EngineReplica) -> None:
        self.replica = replica
        self.engine = replica.engine

    def _owns(self, match_id: str) -> bool:
        with self.engine.changed:
            stored = self.engine.matches.get(match_id)
            return stored is not None and stored.owner == self.replica.replica_id

    def _own(self, method: str, match_id: str, context) -> table_pb2.MatchInfo:
        self.replica.by_method[method] += 1
        if not self._owns(match_id):
            abort_not_owner(context, match_id, self.engine.owner(match_id))
        with self.engine.changed:
            info = table_pb2.MatchInfo()
            info.CopyFrom(self.engine.matches[match_id].info)
            return info

    def OpenMatch(self, request, context):
        self.replica.by_method["OpenMatch"] += 1
        placed = self.engine.placement(request.match_id)
        if placed != self.replica.replica_id:
            abort_not_owner(context, request.match_id, self.engine.replicas[placed].owner())
        if request.match_id not in self.engine.matches:
            self.engine.add(request.match_id, placed, tournament_id=request.tournament_id)
        return table_pb2.OpenMatchResponse(match=self._own("open", request.match_id, context))

    def GetMatch(self, request, context):
        return table_pb2.GetMatchResponse(match=self._own("GetMatch", request.match_id, context))

    def Dissolve(self, request, context):
        info = self._own("Dissolve", request.match_id, context)
        return table_pb2.DissolveResponse(match=info)

    def ReplaceSeat(self, request, context):
        info = self._own("ReplaceSeat", request.match_id, context)
        return table_pb2.ReplaceSeatResponse(match=info)

    def ConcludeMatch(self, request, context):
        info = self._own("ConcludeMatch", request.match_id, context)
        info.concluding = True
        return table_pb2.ConcludeMatchResponse(match=info)

    def ListTables(self, request, context):
        self.replica.by_method["ListTables"] += 1
        out = []
        with self.engine.changed:
            for match_id in sorted(self.engine.matches):
                stored = self.engine.matches[match_id]
                if request.tournament_id and stored.info.tournament_id != request.tournament_id:
                    continue
                info = table_pb2.MatchInfo()
                info.CopyFrom(stored.info)
                if stored.owner != self.replica.replica_id:
                    info.event_count = 0  # a stored row, behind the owner's live state
                out.append(info)
        return table_pb2.ListTablesResponse(matches=out)

    def RevealMatchResults(self, request, context):
        self.replica.by_method["RevealMatchResults"] += 1
        revealed = 0
        with self.engine.changed:
            for stored in self.engine.matches.values():
                if (
                    stored.owner == self.replica.replica_id
                    and stored.info.tournament_id == request.tournament_id
                    and stored.info.results_hidden
                ):
                    stored.info.results_hidden = False
                    revealed += 1
        return table_pb2.RevealMatchResultsResponse(revealed=revealed)

    def Spectate(self, request, context) -> Iterator[table_pb2.SpectateResponse]:
        match_id = request.match_id
        self._own("Spectate", match_id, context)
        seq = max(request.from_seq, 1)
        while context.is_active():
            with self.engine.changed:
                stored = self.engine.matches[match_id]
                ready = stored.events[seq - 1 :]
                owned = stored.owner == self.replica.replica_id
                over = stored.info.status == pb.MATCH_STATUS_FINISHED
                if owned and not ready and not over:
                    self.engine.changed.wait(0.2)
                    continue
            if not owned:
                abort_not_owner(context, match_id, self.engine.owner(match_id))
            for event in ready:
                yield table_pb2.SpectateResponse(event=event)
                seq = event.seq + 1
            if over and not ready:
                return


def start_engine(*replica_ids: str) -> Engine:
    """An engine of these replicas, each on a free port, started."""
    engine = Engine()
    for replica_id in replica_ids:
        replica = EngineReplica(replica_id, engine.owner, engine=engine)
        replica.server = serve_table(f"engine-{replica_id}", EngineServicer(replica))
        engine.replicas[replica_id] = replica
    return engine


@contextlib.contextmanager
def running_engine(*replica_ids: str) -> Iterator[Engine]:
    """:func:`start_engine`, its replicas stopped at the end."""
    engine = start_engine(*replica_ids)
    try:
        yield engine
    finally:
        engine.stop()


def entries(engine: Engine) -> str:
    """Every replica's address, comma-separated (the setting's form)."""
    return ",".join(engine.replicas[r].address for r in sorted(engine.replicas))


def wait_until(predicate, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.02)
