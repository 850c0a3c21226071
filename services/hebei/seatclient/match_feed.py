"""Read a finished match from the table engine (for the bot service's reviews, the web's
replayer and ``hebei review``): its public state (GetMatch) and its public events (Spectate
from the first), as :class:`~hebei.seatclient.hand_rebuild.PublicEvent`, at the match's owner
among the engine's replicas (one routed call, :class:`~hebei.common.routing.MatchRouter`).

Both RPCs are public on the engine, so the bot service needs no token for them. With its
service token it reads the events through the engine's service pool (a crowd of spectators
cannot starve reviews), and only after an anonymous GetMatch showed the match's results are
not hidden: the token never shows a review more than anyone may see.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import grpc

from hebei.common import convert
from hebei.common.auth import bearer_metadata
from hebei.common.errors import FailedPrecondition, InvalidArgument, NotFound, Unavailable
from hebei.common.routing import DEFAULT_DEADLINE_SECONDS, MatchRouter
from hebei.rules.errors import NotationError
from hebei.rules.profile import get_profile
from hebei.seatclient.hand_rebuild import PublicEvent, rebuild_hands
from hebei.v1 import table_pb2, table_pb2_grpc
from hebei.v1 import types_pb2 as pb

MAX_MATCH_ID = 128
MAX_EVENTS = 20_000  # a finished match's events read back for a review, at the most
_KONGS = {
    pb.MELD_KIND_EXPOSED_KONG: "exposed_kong",
    pb.MELD_KIND_CONCEALED_KONG: "concealed_kong",
    pb.MELD_KIND_ADDED_KONG: "added_kong",
}
_TYPES = {
    pb.EVENT_TYPE_HAND_START: "hand_start",
    pb.EVENT_TYPE_DISCARD: "discard",
    pb.EVENT_TYPE_PONG: "pong",
    pb.EVENT_TYPE_WIN: "win",
    pb.EVENT_TYPE_HAND_END: "hand_end",
    pb.EVENT_TYPE_MATCH_END: "match_end",
}
ENDED = (pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_DISSOLVED)


def public_event(message: pb.Event) -> PublicEvent | None:
    """The rules view of one public event; None for events the rebuild does not need."""
    if message.type == pb.EVENT_TYPE_KONG:
        kind = _KONGS.get(message.meld.kind)
        if kind is None:
            raise InvalidArgument(f"event {message.seq}: a kong of meld kind {message.meld.kind}")
    else:
        kind = _TYPES.get(message.type)
        if kind is None:
            return None
    seat = message.seat if message.HasField("seat") else None
    totals = None
    if kind == "hand_end" and message.HasField("settlement"):
        by_seat = {r.seat: r.total_delta for r in message.settlement.results}
        if sorted(by_seat) == [0, 1, 2, 3]:
            totals = tuple(by_seat[s] for s in range(4))
    try:
        tile = convert.tile_from_proto(message.tile)
    except NotationError as exc:
        raise InvalidArgument(f"event {message.seq}: {exc}") from None
    return PublicEvent(kind, seat, tile, message.auto_played, totals)


def _domain_error(error: grpc.RpcError, where: str, match_id: str) -> Exception:
    code = error.code()
    if code == grpc.StatusCode.NOT_FOUND:
        return NotFound(f"no match {match_id!r} on the table engine at {where}")
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        return InvalidArgument(error.details() or "the table engine refused the match id")
    return Unavailable(f"the table engine at {where} did not answer: {code.name}")


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """A finished match as the table engine shows it to anyone."""

    info: table_pb2.MatchInfo
    events: list[PublicEvent]

    def hand_logs(self) -> list[list[dict]]:
        """Every complete hand's full log, rebuilt with the published seed."""
        info = self.info
        try:
            length = convert.length_from_proto(info.length)
            profile = get_profile(info.rule_profile.name or "main")
        except (NotationError, ValueError) as exc:
            raise InvalidArgument(f"match {info.match_id}: {exc}") from None
        return rebuild_hands(info.seed, length, profile, self.events)


class TableFeed:
    """The table engine's replicas, through ``router`` (a
    :class:`~hebei.common.routing.MatchRouter` over their entry addresses, anonymous):
    ``timeout`` bounds each read of one match, which follows the match's owner as a whole."""

    def __init__(
        self,
        router: MatchRouter,
        timeout: float = 10.0,
        *,
        service_token: str | None = None,
    ) -> None:
        self.router = router
        self.address = ",".join(router.entries)
        self.timeout = timeout
        self.service_token = service_token

    def finished_match(self, match_id: str) -> FinishedMatch:
        """The public state and events of ``match_id``; FailedPrecondition if it has not
        ended (its seed is not published yet), NotFound, Unavailable. The whole read (GetMatch,
        then Spectate to the end) is one routed call: at another replica than the owner, or
        cut by a takeover, it starts again at the owner."""
        if not match_id or len(match_id) > MAX_MATCH_ID or not match_id.isprintable():
            raise InvalidArgument(f"match_id must be 1-{MAX_MATCH_ID} printable characters")
        try:
            return self.router.call(
                match_id,
                lambda channel, timeout: self._read_at(channel, match_id, timeout),
                deadline=max(self.timeout, DEFAULT_DEADLINE_SECONDS),
                attempt_timeout=self.timeout,
            )
        except grpc.RpcError as error:
            where = self.router.owner(match_id) or self.address
            raise _domain_error(error, where, match_id) from None

    def _read_at(self, channel: grpc.Channel, match_id: str, timeout: float) -> FinishedMatch:
        """One attempt at one replica (its failures go back to the router)."""
        stub = table_pb2_grpc.TableServiceStub(channel)
        info = stub.GetMatch(table_pb2.GetMatchRequest(match_id=match_id), timeout=timeout).match
        if info.status not in ENDED or not info.seed:
            raise FailedPrecondition(
                f"match {match_id} has not ended: its seed, which gives the seat's tiles, "
                "is published when it ends; review it then, or give the hand log"
            )
        token = self.service_token
        if getattr(info, "results_hidden", False):
            token = None  # anonymous: the engine decides what anyone may see of it
        stream = stub.Spectate(
            table_pb2.SpectateRequest(match_id=match_id, from_seq=1),
            timeout=timeout,
            metadata=bearer_metadata(token) if token else None,
        )
        return FinishedMatch(info, _read(stream))


def _read(stream: Iterable[table_pb2.SpectateResponse]) -> list[PublicEvent]:
    events = []
    for count, response in enumerate(stream, start=1):
        if count > MAX_EVENTS:
            raise InvalidArgument(f"the match has more than {MAX_EVENTS:,} events to review")
        event = public_event(response.event)
        if event is not None:
            events.append(event)
    return events
