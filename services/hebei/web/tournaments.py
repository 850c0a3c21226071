"""A tournament in the browser: one WatchTournament stream (anonymous, so hidden round results
stay hidden), with the seating of every round and the standings read again when they change.

The state is ``{"tournament", "rounds", "standings"}`` (see :mod:`hebei.web.views`); its seq is
the tournament's change number. Matchmaking bounds anonymous GetStandings from one address
(``HEBEI_MATCHMAKING_MAX_READS_PER_PEER``, 4) and the gateway follows up to
``HEBEI_WEB_MAX_TABLES`` (12) tournaments, each reading once per change: a read refused
RESOURCE_EXHAUSTED is tried again for about 12 s, so a moment of contention does not leave
a tournament's standings stale (its last change has no next one to read them again).
"""

from __future__ import annotations

import threading
from typing import Any

import grpc

from hebei.common.seating import every_round
from hebei.seatclient.stream import describe_rpc_error
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import matchmaking_pb2_grpc
from hebei.web.feeds import Feed, Producer
from hebei.web.tournament_views import round_json, standings_json, tournament_json

EVENT = mm.TournamentEventType
# Changes after which the seating of the rounds is read again.
SEATING_CHANGES = frozenset(
    {
        EVENT.TOURNAMENT_EVENT_TYPE_SNAPSHOT,
        EVENT.TOURNAMENT_EVENT_TYPE_ROUND_SEATED,
        EVENT.TOURNAMENT_EVENT_TYPE_ROUND_FINISHED,
        EVENT.TOURNAMENT_EVENT_TYPE_FINISHED,
        EVENT.TOURNAMENT_EVENT_TYPE_OPERATOR_ACTION,
        EVENT.TOURNAMENT_EVENT_TYPE_MATCH_FINISHED,
    }
)
# ... and the standings.
STANDINGS_CHANGES = SEATING_CHANGES | {EVENT.TOURNAMENT_EVENT_TYPE_PLAYERS_CHANGED}
ENDED = frozenset({mm.TOURNAMENT_STATUS_FINISHED, mm.TOURNAMENT_STATUS_CANCELLED})
STREAM_ENDED = "the tournament stream ended"
# Waits before trying a read refused RESOURCE_EXHAUSTED again (about 12 s in all).
BUSY_RETRIES = (0.1, 0.2, 0.4, 0.8, 1.0, 1.5, 2.0, 2.0, 2.0, 2.0)


class TournamentProducer(Producer):
    """Follows one tournament until it ends (or the gateway lets the feed go)."""

    def __init__(
        self, feed: Feed, channel: grpc.Channel, tournament_id: str, timeout: float
    ) -> None:
        super().__init__(feed, f"tournament-{tournament_id}")
        self.stub = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
        self.tournament_id = tournament_id
        self.timeout = timeout
        self.state: dict[str, Any] = {"tournament": None, "rounds": [], "standings": None}
        self._call: Any = None
        self._lock = threading.Lock()

    def cancel(self) -> None:
        with self._lock:
            if self._call is not None:
                self._call.cancel()

    def run(self) -> str | None:
        try:
            return self.watch_once()
        except grpc.RpcError as error:
            return "stopped" if self.stopped.is_set() else describe_rpc_error(error)

    def watch_request(self) -> mm.WatchTournamentRequest:
        """What to watch (anonymous here: hidden round results stay hidden)."""
        return mm.WatchTournamentRequest(tournament_id=self.tournament_id)

    def watch_once(self) -> str:
        """One WatchTournament stream, applied until it ends (gRPC errors raise)."""
        with self._lock:
            if self.stopped.is_set():
                return "stopped"
            self._call = self.stub.WatchTournament(self.watch_request())
        for event in self._call:
            self._apply(event)
            if event.tournament.status in ENDED:
                return "the tournament is over"
        return STREAM_ENDED

    def _apply(self, event: mm.WatchTournamentResponse) -> None:
        tournament = tournament_json(event.tournament)
        self.state["tournament"] = tournament
        if event.type in SEATING_CHANGES or not self.state["rounds"]:
            self.state["rounds"] = self._rounds()
        else:  # progress: the current round's tables as the event has them
            current = {t["match_id"]: t for t in tournament["tables"]}
            for seating in self.state["rounds"]:
                seating["tables"] = [current.get(t["match_id"], t) for t in seating["tables"]]
        if event.type in STANDINGS_CHANGES or self.state["standings"] is None:
            self.state["standings"] = self._standings()
        self.post_change(event)

    def post_change(self, event: mm.WatchTournamentResponse) -> None:
        """Publish the state after ``event`` (its seq: the tournament's change number)."""
        self.publish(
            event.seq,
            self.state,
            reset=event.type == EVENT.TOURNAMENT_EVENT_TYPE_SNAPSHOT,
            event=change_json(event),
        )

    def _read(self, method: Any, request: Any) -> Any:
        """``method(request)``, tried again while matchmaking is busy (RESOURCE_EXHAUSTED)."""
        for delay in BUSY_RETRIES:
            try:
                return method(request, timeout=self.timeout)
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
            if self.stopped.wait(delay):
                break
        return method(request, timeout=self.timeout)

    def _rounds(self) -> list[dict[str, Any]]:
        try:
            rounds = every_round(
                lambda request: self._read(self.stub.GetSeating, request), self.tournament_id
            )
        except grpc.RpcError:
            return self.state["rounds"]  # keep what is shown; the next change reads again
        return [round_json(r) for r in rounds]

    def _standings(self) -> dict[str, Any] | None:
        try:
            reply = self._read(
                self.stub.GetStandings, mm.GetStandingsRequest(tournament_id=self.tournament_id)
            )
        except grpc.RpcError:
            return self.state["standings"]
        return standings_json(reply)


def change_json(event: mm.WatchTournamentResponse) -> dict[str, Any]:
    """What changed, for the page: ``{"type", "round_no", "seq"}``."""
    kind = EVENT.Name(event.type).removeprefix("TOURNAMENT_EVENT_TYPE_").lower()
    return {"type": kind, "round_no": event.round_no, "seq": event.seq}
