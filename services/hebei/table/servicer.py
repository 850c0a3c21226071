"""The thin gRPC layer of the table engine: requests checked, TableHost calls, messages out.

Every request goes through :mod:`hebei.table.requests` before any work. Streams have quotas
of their own kind, each per client address (the peer's host) and in total:

- spectators (``Spectate``, anonymous): ``max_spectators`` / ``max_spectators_per_peer``;
  a Spectate carrying a valid service or operator token (the web gateway's feeds, the bot
  service's reviews) takes the services' own pool instead, ``max_service_spectators`` (one
  peer up to all of it): a crowd of anonymous spectators never starves the services;
- Play streams *before* their Join is accepted: ``max_joining`` / ``max_joining_per_peer``,
  and a Join must come within ``join_seconds``. A joined seat holds no quota (a seat has at
  most one stream: a new Join replaces the old one), so watchers and stray streams can never
  keep a seat from joining its own match.

While the engine drains (SIGTERM) it hands its matches over when another replica is live
(:meth:`TableEngine.drain <hebei.table.service.TableEngine.drain>`): their streams end with the
refusal naming the new owner, and so does every match-scoped call and stream that comes during
the rest of the drain (this replica serves no shard any more). While it still serves shards
(alone, it keeps them through the drain, its tables suspended) new streams are refused with
UNAVAILABLE ("reconnect").

Replicas (issue 46): a match-scoped call (OpenMatch, GetMatch, Play, Spectate, Dissolve,
ReplaceSeat, ConcludeMatch) on a match this replica does not serve ends before any work with
:func:`hebei.common.routing.abort_not_owner_async` naming its owner, and so does a stream whose
match this replica stops serving (its table raises :class:`~hebei.table.ownership.NotServed`).
ListTables lists every replica's matches (from the store; this replica's own with their live
state). RevealMatchResults reveals the stored rows of every replica and this replica's tables,
then asks every other live replica to reveal its tables (:mod:`hebei.table.peers`).

The servicer runs on an asyncio gRPC server (``grpc.aio``) with one event loop: a Play
stream is two tasks on it, one reading the seat's messages and applying each to its table
(``Table.act``, plain synchronous code, called on the loop), one sending what the table
queued for the seat once it is durable. No thread hands a decision on. The unary calls,
which read or write the database, run on the loop's thread pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

import grpc

from hebei.common.auth import has_token
from hebei.common.errors import DomainError, InvalidArgument, PermissionDenied, Unavailable
from hebei.common.quota import StreamQuota, peer_host
from hebei.common.routing import abort_not_owner_async
from hebei.table import metrics, requests
from hebei.table.host import TableHost
from hebei.table.ownership import MatchOwnership, NotServed
from hebei.table.peers import Peers, is_local_reveal
from hebei.table.seatactions import rejection
from hebei.table.sessions import Outbound
from hebei.table.streams import STOPPING
from hebei.table.table import Table
from hebei.v1 import table_pb2, table_pb2_grpc

log = logging.getLogger(__name__)
T = TypeVar("T")


class TokenBucket:
    """At most ``rate`` messages a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


HIDDEN = "the results of this match are hidden until the organiser reveals them"


def shown_to(info: table_pb2.MatchInfo, token_holder: bool) -> table_pb2.MatchInfo:
    """A match's state as the caller may see it: without a token, a match whose results are
    hidden shows no score and no seed (the operator and the services see everything)."""
    if info.results_hidden and not token_holder:
        for seat in info.seats:
            seat.score = 0
        info.seed = 0
    return info


def _refused(rpc: str) -> Callable[[str], None]:
    """Counts the ``rpc`` streams a quota refuses, by reason."""
    return lambda reason: metrics.STREAMS_REFUSED.labels(rpc, reason).inc()


async def _read_actions(
    requests_iter: AsyncIterator[Any], table: Table, session: Outbound, rate: float, burst: int
) -> None:
    """A joined seat's messages after its Join, each applied to its table as it comes (see
    :class:`TableServicer` for the rate limit); an undecodable one ends the stream with its
    status."""
    bucket = TokenBucket(rate, burst)
    dropped = 0
    try:
        async for request in requests_iter:
            if session.closed:
                return
            kind = request.WhichOneof("request")
            asked = kind == "action" and table.answers_open_decision(
                session, request.action.decision_id
            )
            if not asked and not bucket.take():
                dropped += 1
                if dropped % burst == 1:
                    message = f"more than {rate:g} messages a second: messages dropped"
                    session.push(0, rejection(0, "RESOURCE_EXHAUSTED", message), keep=True)
                continue
            if kind == "action":
                table.act(session, request.action)
            else:
                message = "already joined: send actions, not a Join"
                session.push(0, rejection(0, "INVALID_ARGUMENT", message), keep=True)
    except DomainError as exc:  # an undecodable message: the stream ends with its status
        session.fail(exc)
    except (grpc.RpcError, grpc.aio.AbortError):
        pass  # the stream ended under us (cancelled, or refused: the call ending ends this task)
    except Exception:
        log.exception("Play reader failed")


class TableServicer(table_pb2_grpc.TableServiceServicer):
    """TableService over a :class:`TableHost` (see the module docstring for the quotas); a
    seat sending more than ``rate`` messages a second has the excess dropped (and is told),
    except its answers to its open decision, which never count: a seat can play as fast as
    the table asks it."""

    def __init__(
        self,
        host: TableHost,
        *,
        max_joining: int = 256,
        max_joining_per_peer: int = 32,
        max_spectators: int = 256,
        max_spectators_per_peer: int = 16,
        max_service_spectators: int = 256,
        join_seconds: float = 10.0,
        rate: float = 50.0,
        burst: int = 100,
        ownership: MatchOwnership | None = None,
        peers: Peers | None = None,
    ) -> None:
        self.host = host
        self.ownership = ownership  # None: a lone host serving what it holds
        self.peers = peers  # the other replicas (RevealMatchResults)
        self.joining = StreamQuota("play", max_joining, max_joining_per_peer, _refused("play"))
        self.spectators = StreamQuota(
            "spectate", max_spectators, max_spectators_per_peer, _refused("spectate")
        )
        self.service_spectators = StreamQuota(
            "spectate (services)",
            max_service_spectators,
            max_service_spectators,
            _refused("spectate"),
        )
        self.join_seconds = join_seconds
        self.rate = rate
        self.burst = burst
        self.draining = False

    def drain(self) -> None:
        """The engine is stopping (its drain suspends or hands over the tables): new streams
        are refused (see :meth:`_refuse_while_draining`)."""
        self.draining = True

    def _refuse_while_draining(self, rpc: str) -> None:
        """While draining, a new stream is refused with UNAVAILABLE ("reconnect") as long as
        this replica serves shards; once it handed them over, it goes on to the owner check and
        its refusal names the match's new owner."""
        if self.draining and (self.ownership is None or self.host.shards):
            metrics.STREAMS_REFUSED.labels(rpc, "draining").inc()
            raise Unavailable(STOPPING)

    @contextlib.contextmanager
    def _open_stream(self, rpc: str) -> Iterator[None]:
        metrics.PLAY_STREAMS.labels(rpc).inc()
        try:
            yield
        finally:
            metrics.PLAY_STREAMS.labels(rpc).dec()

    # ------------------------------------------------------------------ ownership

    def _serves(self, match_id: str) -> bool:
        owns = self.ownership is None or self.ownership.owns(match_id)
        return owns and self.host.serves(match_id)

    async def _refuse(self, rpc: str, context: Any, match_id: str) -> None:
        """End the call with the refusal naming ``match_id``'s owner (raises)."""
        metrics.OWNER_REFUSALS.labels(rpc).inc()
        ownership = self.ownership
        owner = (
            None if ownership is None else await self._off_loop(lambda: ownership.owner(match_id))
        )
        await abort_not_owner_async(context, match_id, owner)

    async def _owned(self, rpc: str, context: Any, match_id: str, work: Callable[[], T]) -> T:
        """``work`` on the loop's thread pool, for a match this replica serves; else (before
        it, or when it turns out not to be served any more) the refusal."""
        if not self._serves(match_id):
            await self._refuse(rpc, context, match_id)
        try:
            return await self._off_loop(work)
        except NotServed:
            await self._refuse(rpc, context, match_id)
            raise  # pragma: no cover - the refusal raises

    # ------------------------------------------------------------------ unary

    @staticmethod
    async def _off_loop(work: Callable[[], T]) -> T:
        """Run ``work`` (database reads and writes) on the loop's thread pool."""
        return await asyncio.get_running_loop().run_in_executor(None, work)

    async def OpenMatch(self, request: table_pb2.OpenMatchRequest, context: Any) -> Any:
        def work() -> Any:
            spec = requests.open_match(request, draw_seed=self.host.fresh_seed)
            return table_pb2.OpenMatchResponse(match=self.host.open_match(spec).info())

        match_id = requests.match_id(request.match_id)  # its shard decides the owner
        return await self._owned("OpenMatch", context, match_id, work)

    async def GetMatch(self, request: table_pb2.GetMatchRequest, context: Any) -> Any:
        match_id = requests.match_id(request.match_id)
        info = await self._owned("GetMatch", context, match_id, lambda: self.host.info(match_id))
        return table_pb2.GetMatchResponse(match=shown_to(info, has_token(context)))

    async def ListTables(self, request: table_pb2.ListTablesRequest, context: Any) -> Any:
        query = requests.list_tables(request)
        matches, token = await self._off_loop(lambda: self.host.list(query))
        token_holder = has_token(context)
        return table_pb2.ListTablesResponse(
            matches=[shown_to(m, token_holder) for m in matches], next_page_token=token
        )

    async def RevealMatchResults(
        self, request: table_pb2.RevealMatchResultsRequest, context: Any
    ) -> Any:
        tournament_id, round_no = requests.reveal_match_results(request)
        if is_local_reveal(context):  # another replica revealed the rows: our tables follow
            count = await self._off_loop(
                lambda: self.host.reveal_in_memory(tournament_id, round_no)
            )
            return table_pb2.RevealMatchResultsResponse(revealed=count)
        count = await self._off_loop(lambda: self.host.reveal_results(tournament_id, round_no))
        if self.peers is not None:
            peers = self.peers
            await self._off_loop(lambda: peers.reveal(request))
        return table_pb2.RevealMatchResultsResponse(revealed=count)

    async def Dissolve(self, request: table_pb2.DissolveRequest, context: Any) -> Any:
        match_id, reason, unjoined = requests.dissolve(request)
        info = await self._owned(
            "Dissolve",
            context,
            match_id,
            lambda: self.host.dissolve(match_id, reason, only_if_no_person_joined=unjoined).info(),
        )
        return table_pb2.DissolveResponse(match=info)

    async def ReplaceSeat(self, request: table_pb2.ReplaceSeatRequest, context: Any) -> Any:
        change = requests.replace_seat(request)
        info = await self._owned(
            "ReplaceSeat", context, change.match_id, lambda: self.host.replace_seat(change)
        )
        return table_pb2.ReplaceSeatResponse(match=info)

    async def ConcludeMatch(self, request: table_pb2.ConcludeMatchRequest, context: Any) -> Any:
        match_id, reason = requests.conclude_match(request)
        info = await self._owned(
            "ConcludeMatch", context, match_id, lambda: self.host.conclude(match_id, reason)
        )
        return table_pb2.ConcludeMatchResponse(match=info)

    # ------------------------------------------------------------------ streams

    async def Play(self, request_iterator: Any, context: Any) -> AsyncIterator[Any]:
        self._refuse_while_draining("play")
        with self._open_stream("play"):
            incoming = aiter(request_iterator)
            with self.joining.slot(peer_host(context.peer())):
                join = requests.join(await self._first(incoming))
                table = await self._owned(
                    "Play", context, join.match_id, lambda: self.host.get(join.match_id)
                )
                try:
                    session = table.join(
                        join.seat, join.token, decisions_only=join.decisions_only, bot=join.bot
                    )
                except Unavailable:
                    if self._serves(join.match_id):
                        raise
                    await self._refuse("Play", context, join.match_id)
            log.info(
                "seat joined",
                extra={
                    "match_id": join.match_id,
                    "seat": join.seat,
                    "client": join.client_name,
                    "bot": join.bot,
                },
            )
            reader = asyncio.create_task(
                _read_actions(incoming, table, session, self.rate, self.burst),
                name=f"play-reader {join.match_id}/{join.seat}",
            )
            try:
                async for message in session.messages():
                    yield message
            except NotServed:  # this replica stopped serving the match: its owner is named
                await self._refuse("Play", context, join.match_id)
            finally:
                table.leave(session)
                # The reader ends before the call does: no read of a finished call is left.
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)

    async def _first(self, incoming: AsyncIterator[Any]) -> table_pb2.PlayRequest | None:
        """The stream's first message (None: it ended first), within ``join_seconds``."""
        try:
            return await asyncio.wait_for(anext(incoming, None), self.join_seconds)
        except TimeoutError:
            raise InvalidArgument(
                f"the first message of a Play stream must be a Join, sent within"
                f" {self.join_seconds:g} s"
            ) from None

    async def Spectate(self, request: table_pb2.SpectateRequest, context: Any) -> Any:
        match_id, from_seq = requests.spectate(request)
        self._refuse_while_draining("spectate")
        quota = self.service_spectators if has_token(context) else self.spectators
        with quota.slot(peer_host(context.peer())), self._open_stream("spectate"):
            table = await self._owned(
                "Spectate", context, match_id, lambda: self.host.get(match_id)
            )
            if table.spec.results_hidden and table.over and not has_token(context):
                raise PermissionDenied(HIDDEN)
            try:
                step = table.backlog(from_seq) if from_seq else table.subscribe(0)
                while not isinstance(step, Outbound):  # the backlog, a chunk at a time
                    messages, from_seq = step
                    for message in messages:
                        yield message
                    step = table.backlog(from_seq)
            except Unavailable:
                if self._serves(match_id):
                    raise
                await self._refuse("Spectate", context, match_id)
            subscription = step
            try:
                async for message in subscription.messages():
                    yield message
            except NotServed:  # this replica stopped serving the match: its owner is named
                await self._refuse("Spectate", context, match_id)
            finally:
                table.unsubscribe(subscription)
