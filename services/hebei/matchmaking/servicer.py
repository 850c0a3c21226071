"""The thin gRPC layer of matchmaking: messages in, :class:`Tournaments` calls, messages out.

Operator-only methods are checked by the bootstrap's AuthInterceptor (``METHOD_ROLES``); a
public method that does more for the operator (hidden standings, Unregister of anyone) asks
:meth:`MatchmakingServicer._operator`. Who acted is the ``hebei-actor`` metadata, else
``operator``.

The public reads that cost real work are bounded for anonymous callers: GetStandings (the
tournament's rows here, then the ledger's standings with matchmaking's service token, which
the ledger does not count: about 0.65 s for a tournament of 10,000 entries in a journal of
200,000) and GetRatings (a sort of the whole ratings table, 20-50 ms for 100,000 ratings). At
most ``max_reads`` run at once, ``max_reads_per_peer`` from one client address, more are
RESOURCE_EXHAUSTED before any work: without the bound 32 anonymous GetStandings held the
ledger's pool and its PostSettlement took 2.7 s (6 ms idle). GetTournament and GetSeating read
a few rows by key (2-3 ms) and are not bounded; calls with a token are not counted.
"""

from __future__ import annotations

import contextlib
from typing import Any

from hebei.common.auth import (
    Role,
    TokenAuthority,
    actor_from_metadata,
    calling_client,
    has_token,
    token_from_metadata,
)
from hebei.common.quota import CallQuota, FailureLimit, RecentResults, StreamQuota, peer_host
from hebei.common.validation import MAX_NAME_LENGTH, check_text
from hebei.matchmaking import corrections, metrics, round_seating
from hebei.matchmaking.quickplay import QuickPlay
from hebei.matchmaking.registration import RegistrationGate
from hebei.matchmaking.tournaments import Tournaments, WrongRegistrationCode
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import matchmaking_pb2_grpc

__all__ = ["SERVICE_NAME", "MatchmakingServicer"]

SERVICE_NAME = mm.DESCRIPTOR.services_by_name["MatchmakingService"].full_name
# Anonymous GetStandings and GetRatings at once, in all and from one client address (the web
# gateway is one address for all its users); see service.py.
MAX_READS = 4
MAX_READS_PER_PEER = 4
# Wrong registration codes one client address may try in CODE_FAILURE_SECONDS.
MAX_CODE_FAILURES = 10
CODE_FAILURE_SECONDS = 60.0
# Anonymous GetStandings of a tournament are answered from one read for this long.
STANDINGS_CACHE_SECONDS = 2.0


class MatchmakingServicer(matchmaking_pb2_grpc.MatchmakingServiceServicer):
    """MatchmakingService over :class:`Tournaments` and :class:`QuickPlay`. Streams (watchers
    and quick-play requests together) beyond ``max_streams`` in all, or ``max_streams_per_peer``
    from one client address, are RESOURCE_EXHAUSTED: one address never holds every slot; so are
    anonymous GetStandings and GetRatings beyond ``max_reads`` or ``max_reads_per_peer``. A
    client address that sent ``max_code_failures`` wrong registration codes in the last
    ``code_failure_seconds`` has its Register calls refused (RESOURCE_EXHAUSTED) until the
    oldest leaves the window (and every address together only so many per tournament: see
    :mod:`hebei.matchmaking.registration`, with the other bounds of Register without the
    operator token: calls per address, bots, rating identities). Everyone but
    the operator sees the same standings of a tournament, read at most once per
    ``standings_cache_seconds`` and per change of the tournament (a read kept is answered
    within its quota slot in a millisecond: the change number is one small query)."""

    def __init__(
        self,
        tournaments: Tournaments,
        quick_play: QuickPlay,
        authority: TokenAuthority,
        *,
        max_streams: int = 256,
        max_streams_per_peer: int = 128,
        max_reads: int = MAX_READS,
        max_reads_per_peer: int = MAX_READS_PER_PEER,
        max_code_failures: int = MAX_CODE_FAILURES,
        code_failure_seconds: float = CODE_FAILURE_SECONDS,
        standings_cache_seconds: float = STANDINGS_CACHE_SECONDS,
        registrations: RegistrationGate | None = None,
    ) -> None:
        self.ts = tournaments
        self.quick = quick_play
        self.authority = authority
        self.streams = StreamQuota("matchmaking", max_streams, max_streams_per_peer)
        self.reads = CallQuota("GetStandings and GetRatings", max_reads, max_reads_per_peer)
        self.code_failures = FailureLimit(
            "wrong registration codes", max_code_failures, code_failure_seconds
        )
        self.public_standings = RecentResults(standings_cache_seconds)
        self.registrations = registrations or RegistrationGate()

    # -- helpers ----------------------------------------------------------------------------

    def _operator(self, context: Any) -> bool:
        token = token_from_metadata(context.invocation_metadata())
        return token is not None and self.authority.role_of(token) is Role.OPERATOR

    @staticmethod
    def _actor(context: Any) -> str:
        text = actor_from_metadata(context.invocation_metadata())
        if text is None:
            return "operator"
        return check_text("hebei-actor", text, max_length=MAX_NAME_LENGTH) or "operator"

    def _stream_slot(self, context: Any) -> contextlib.AbstractContextManager[None]:
        return self.streams.slot(peer_host(context.peer()))

    def _public_read(self, context: Any) -> contextlib.AbstractContextManager[None]:
        """A slot of the anonymous reads' quota for the call (none for a call with a token)."""
        if has_token(context):
            return contextlib.nullcontext()
        return self.reads.slot(peer_host(context.peer()))

    # -- tournaments ------------------------------------------------------------------------

    def CreateTournament(self, request: mm.CreateTournamentRequest, context: Any) -> Any:
        return mm.CreateTournamentResponse(
            tournament=self.ts.create(request.config, request.request_id)
        )

    def Register(self, request: mm.RegisterRequest, context: Any) -> Any:
        peer, operator = calling_client(context, self.authority), self._operator(context)
        if not operator:
            self.code_failures.check(peer)
            self.registrations.admit(peer, request.tournament_id)
        try:
            player, secret = self.ts.register(request, operator=operator, client=peer)
        except WrongRegistrationCode:
            self.code_failures.failed(peer)
            raise
        return mm.RegisterResponse(player=player, player_secret=secret)

    def Unregister(self, request: mm.UnregisterRequest, context: Any) -> Any:
        tournament = self.ts.unregister(
            request.tournament_id,
            request.player_id,
            request.player_secret,
            operator=self._operator(context),
            actor=self._actor(context),
        )
        return mm.UnregisterResponse(tournament=tournament)

    def CheckIn(self, request: mm.CheckInRequest, context: Any) -> Any:
        player = self.ts.check_in(
            request.tournament_id,
            request.player_id,
            request.player_secret,
            operator=self._operator(context),
        )
        return mm.CheckInResponse(player=player)

    def StartTournament(self, request: mm.StartTournamentRequest, context: Any) -> Any:
        return mm.StartTournamentResponse(
            tournament=round_seating.start(self.ts, request.tournament_id, self._actor(context))
        )

    def GetTournament(self, request: mm.GetTournamentRequest, context: Any) -> Any:
        return mm.GetTournamentResponse(tournament=self.ts.get(request.tournament_id))

    def GetStandings(self, request: mm.GetStandingsRequest, context: Any) -> Any:
        if self._operator(context):  # its own view (hidden round results shown), always fresh
            return self.ts.standings(request.tournament_id, operator=True)

        with self._public_read(context):  # a kept read too: its key is one small query
            # Kept per change of the tournament: a change (a round seated or finished, a
            # result) is never answered from a read made before it.
            key = (request.tournament_id, self.ts.last_change(request.tournament_id))
            return self.public_standings.get(
                key, lambda: self.ts.standings(request.tournament_id, operator=False)
            )

    def WatchTournament(self, request: mm.WatchTournamentRequest, context: Any) -> Any:
        with self._stream_slot(context):
            metrics.WATCH_STREAMS.labels("watch").inc()
            try:
                yield from self.ts.watch(
                    request, context.is_active, operator=self._operator(context)
                )
            finally:
                metrics.WATCH_STREAMS.labels("watch").dec()

    def Pause(self, request: mm.PauseRequest, context: Any) -> Any:
        return mm.PauseResponse(
            tournament=self.ts.pause(request.tournament_id, request.reason, self._actor(context))
        )

    def Resume(self, request: mm.ResumeRequest, context: Any) -> Any:
        return mm.ResumeResponse(
            tournament=self.ts.resume(request.tournament_id, self._actor(context))
        )

    def CancelTournament(self, request: mm.CancelTournamentRequest, context: Any) -> Any:
        return mm.CancelTournamentResponse(
            tournament=self.ts.cancel(request.tournament_id, request.reason, self._actor(context))
        )

    def RemovePlayer(self, request: mm.RemovePlayerRequest, context: Any) -> Any:
        tournament = self.ts.remove_player(
            request.tournament_id, request.player_id, request.reason, self._actor(context)
        )
        return mm.RemovePlayerResponse(tournament=tournament)

    def ReportMatchResult(self, request: mm.ReportMatchResultRequest, context: Any) -> Any:
        return mm.ReportMatchResultResponse(duplicate=self.ts.report(request))

    # -- seating ----------------------------------------------------------------------------

    def PreviewRound(self, request: mm.PreviewRoundRequest, context: Any) -> Any:
        return mm.PreviewRoundResponse(round=round_seating.preview(self.ts, request.tournament_id))

    def SwapSeats(self, request: mm.SwapSeatsRequest, context: Any) -> Any:
        seating = round_seating.swap(
            self.ts,
            request.tournament_id,
            request.player_a,
            request.player_b,
            request.reason,
            self._actor(context),
        )
        return mm.SwapSeatsResponse(round=seating)

    def GetSeating(self, request: mm.GetSeatingRequest, context: Any) -> Any:
        rounds, next_round = self.ts.seating(
            request.tournament_id, request.round_no, request.from_round
        )
        return mm.GetSeatingResponse(rounds=rounds, next_round=next_round)

    # -- penalties, tables, the record ----------------------------------------------------------

    def AssignPenalty(self, request: mm.AssignPenaltyRequest, context: Any) -> Any:
        return mm.AssignPenaltyResponse(
            penalty=self.ts.assign_penalty(request, self._actor(context))
        )

    def CancelPenalty(self, request: mm.CancelPenaltyRequest, context: Any) -> Any:
        return mm.CancelPenaltyResponse(
            penalty=self.ts.cancel_penalty(request, self._actor(context))
        )

    def DissolveTable(self, request: mm.DissolveTableRequest, context: Any) -> Any:
        table = self.ts.dissolve_table(
            request.tournament_id, request.match_id, request.reason, self._actor(context)
        )
        return mm.DissolveTableResponse(table=table)

    def ListOperatorActions(self, request: mm.ListOperatorActionsRequest, context: Any) -> Any:
        return self.ts.actions(request.tournament_id)

    def CorrectMatchResult(self, request: mm.CorrectMatchResultRequest, context: Any) -> Any:
        correction = corrections.correct_match_result(self.ts, request, self._actor(context))
        return mm.CorrectMatchResultResponse(correction=correction)

    def UndoCorrection(self, request: mm.UndoCorrectionRequest, context: Any) -> Any:
        return corrections.undo_correction(
            self.ts, request.tournament_id, request.reason, self._actor(context)
        )

    def RepairRound(self, request: mm.RepairRoundRequest, context: Any) -> Any:
        tournament = corrections.repair_round(
            self.ts, request.tournament_id, request.reason, self._actor(context)
        )
        return mm.RepairRoundResponse(tournament=tournament)

    def RevealResults(self, request: mm.RevealResultsRequest, context: Any) -> Any:
        tournament = self.ts.reveal(request.tournament_id, request.reason, self._actor(context))
        return mm.RevealResultsResponse(tournament=tournament)

    def GetRatings(self, request: mm.GetRatingsRequest, context: Any) -> Any:
        with self._public_read(context):
            return self.ts.ratings(request)

    def RequestBots(self, request: mm.RequestBotsRequest, context: Any) -> Any:
        return mm.RequestBotsResponse(queued=self.ts.request_bots(request))

    # -- quick play -------------------------------------------------------------------------

    def QuickPlay(self, request: mm.QuickPlayRequest, context: Any) -> Any:
        with self._stream_slot(context):
            yield from self.quick.play(request, context.is_active)
