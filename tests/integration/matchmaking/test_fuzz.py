"""Fuzzing the matchmaking service: a few thousand seeded messages to every RPC, the
WatchTournament and QuickPlay streams included (random bytes, truncated and oversized
messages, boundary values, NUL and non-ASCII digits in strings, unknown enum values), with the
operator's, the service's, a wrong or no token, against matchmaking run as a real process
(``python -m hebei.matchmaking``) beside the real ledger and table engine. The machinery is
:mod:`tests.fuzz`, shared with the table engine's and the ledger's fuzz tests.

The valid requests name tournaments that exist in every state (registration, running with an
open match, cancelled), their players, a person's secret, a penalty and a match, so the fuzzed
ones reach deep: seating, opening matches, queueing bots, booking penalties.

Never INTERNAL nor UNKNOWN, never a stack trace in a reply, health SERVING afterwards and the
service's memory flat: after a warm-up its resident size grows by less than
:data:`RSS_GROWTH_KIB`."""

from __future__ import annotations

import os
import random

import grpc
import pytest
from google.protobuf.message import Message

from hebei.common.auth import bearer_metadata
from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import matchmaking_pb2_grpc
from hebei.v1 import types_pb2 as pb
from tests.fuzz import Fuzzer, assert_serving, big_channel, fuzz_service, rpcs, rss_kib
from tests.integration.faults.harness import ServiceProcess, wait_for
from tests.integration.table.conftest import OPERATOR_TOKEN, SERVICE_TOKEN

SEED = 20261202
WARM_UP = 400  # calls before the first memory reading
CALLS = 2800  # calls after it
RSS_GROWTH_KIB = 16 * 1024  # more state than the others: every valid create is a tournament
SIZE_LIMIT = 1024 * 1024
RPCS = rpcs(mm.DESCRIPTOR.services_by_name["MatchmakingService"])
OPERATOR, SERVICE = bearer_metadata(OPERATOR_TOKEN), bearer_metadata(SERVICE_TOKEN)
BAD_TOKENS = (bearer_metadata("not-a-token"), (("authorization", "Bearer"),), None)


def credentials(rng: random.Random):
    """Mostly good tokens (so that the requests reach the decoding), some bad or none."""
    roll = rng.random()
    if roll < 0.7:
        return OPERATOR
    if roll < 0.85:
        return SERVICE
    return rng.choice(BAD_TOKENS)


class MatchmakingRequests:
    """Valid requests of every RPC about the tournaments, players and match that exist."""

    def __init__(self, rng: random.Random, known: dict[str, list[str]]) -> None:
        self.rng = rng
        self.known = known

    def pick(self, kind: str) -> str:
        return self.rng.choice(self.known[kind])

    def config(self) -> mm.TournamentConfig:
        rng = self.rng
        config = mm.TournamentConfig(
            name=f"fuzz cup {rng.randrange(1000)}", rounds=rng.randint(1, 4), seed=rng.randrange(99),
            seating=rng.choice([1, 2, 3, 4]), filler_bot_policy=rng.choice(["", "random", "expert"]),
            max_players=rng.choice([0, 4, 64]), placement_points=rng.choice([[], [15, 5, -5, -15]]),
        )  # fmt: skip
        config.length.hands = rng.randint(1, 8)
        config.time_control.per_decision.FromSeconds(rng.randint(1, 30))
        if rng.random() < 0.3:
            config.check_in_window.FromSeconds(rng.choice([60, 3600]))
        if rng.random() < 0.3:
            config.round_break.FromSeconds(rng.choice([0, 5]))
        if rng.random() < 0.3:
            config.round_time_limit.FromSeconds(rng.choice([60, 600]))
        config.no_show_limit = rng.choice([0, 1, 64])
        config.hide_last_rounds = rng.choice([0, 0, 1])
        config.inactive_players = rng.choice([0, 1, 2])
        return config

    def valid(self, method: str) -> Message:
        rng, pick = self.rng, self.pick
        tid = pick("tournaments")
        if method == "CreateTournament":
            return mm.CreateTournamentRequest(
                config=self.config(), request_id=f"r{rng.randrange(50)}"
            )
        if method == "Register":
            if rng.random() < 0.5:
                return mm.RegisterRequest(tournament_id=tid, person=mm.PersonEntrant(name="Mei"))
            bot = mm.BotEntrant(policy=rng.choice(["random", "expert"]), level=rng.randint(0, 3))
            return mm.RegisterRequest(tournament_id=tid, bot=bot)
        if method == "CheckIn":
            return mm.CheckInRequest(
                tournament_id=tid, player_id=pick("players"), player_secret=pick("secrets")
            )
        if method == "Unregister":
            return mm.UnregisterRequest(
                tournament_id=tid, player_id=pick("players"), player_secret=pick("secrets")
            )
        if method == "WatchTournament":
            return mm.WatchTournamentRequest(
                tournament_id=tid, player_id=pick("players"), player_secret=pick("secrets"),
                from_seq=rng.choice([0, 1, 5]),
            )  # fmt: skip
        if method == "QuickPlay":
            return mm.QuickPlayRequest(
                name="Mei", length=pb.MatchLength(hands=rng.randint(1, 4)),
                bot_policy=rng.choice(["", "efficiency"]), bot_level=rng.randint(0, 3),
            )  # fmt: skip
        if method == "Pause":
            return mm.PauseRequest(tournament_id=tid, reason="fuzz")
        if method in ("StartTournament", "GetTournament", "GetStandings", "Resume"):
            return getattr(mm, f"{method}Request")(tournament_id=tid)
        if method in ("PreviewRound", "ListOperatorActions"):
            return getattr(mm, f"{method}Request")(tournament_id=tid)
        if method == "RemovePlayer":
            return mm.RemovePlayerRequest(tournament_id=tid, player_id=pick("players"), reason="x")
        if method == "ReportMatchResult":
            match_id = pick("matches")
            return mm.ReportMatchResultRequest(
                match_id=match_id, tournament_id=tid, round_no=1, table_id=f"{tid}-t1",
                status=rng.choice([pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_DISSOLVED]),
                hands_played=rng.randint(0, 4),
                seats=[mm.MatchSeatResult(seat=s, player_id=pick("players"), score=rng.randint(-9, 9))
                       for s in range(4)],
            )  # fmt: skip
        if method == "CancelTournament":
            return mm.CancelTournamentRequest(tournament_id=tid, reason="fuzz")
        if method == "SwapSeats":
            return mm.SwapSeatsRequest(
                tournament_id=tid, player_a=pick("players"), player_b=pick("players"), reason="x"
            )
        if method == "GetSeating":
            return mm.GetSeatingRequest(tournament_id=tid, round_no=rng.randint(0, 2))
        if method == "AssignPenalty":
            return mm.AssignPenaltyRequest(
                tournament_id=tid, player_id=pick("players"), points=rng.randint(1, 30),
                reason="late", assigned_by="referee", request_id=f"p{rng.randrange(20)}",
            )  # fmt: skip
        if method == "CancelPenalty":
            return mm.CancelPenaltyRequest(
                tournament_id=tid, penalty_id=pick("penalties"), reason="appeal", cancelled_by="x"
            )
        if method == "DissolveTable":
            return mm.DissolveTableRequest(tournament_id=tid, match_id=pick("matches"), reason="x")
        if method == "GetRatings":
            return mm.GetRatingsRequest(
                rating_ids=rng.choice([[], ["bot:expert:3"]]), page_size=rng.randint(0, 500)
            )
        if method == "CorrectMatchResult":
            delta = rng.randint(-30, 30)
            return mm.CorrectMatchResultRequest(
                tournament_id=tid, match_id=pick("matches"), seat_deltas=[delta, -delta, 0, 0],
                reason="ruling", ruled_by="referee", request_id=f"c{rng.randrange(20)}",
            )  # fmt: skip
        if method == "UndoCorrection":
            return mm.UndoCorrectionRequest(tournament_id=tid, reason="appeal")
        if method == "RevealResults":
            return mm.RevealResultsRequest(tournament_id=tid, reason="prizes")
        if method == "RepairRound":
            return mm.RepairRoundRequest(tournament_id=tid, reason="wrong table")
        assert method == "RequestBots", method
        return mm.RequestBotsRequest(
            match_id=pick("matches"),
            seats=[mm.BotSeat(seat=rng.randrange(4), seat_token="tok", policy="random")],
        )


def _known(stub: matchmaking_pb2_grpc.MatchmakingServiceStub, create) -> dict[str, list[str]]:
    """Tournaments in every state, with players, a person's secret, a penalty and a match."""
    known: dict[str, list[str]] = {k: [] for k in ("tournaments", "players", "secrets")}
    known.update(penalties=[], matches=[])
    for state in ("registration", "running", "cancelled"):
        tid = create(rounds=2, hands=2, hide_last_rounds=1).tournament_id  # RevealResults
        known["tournaments"].append(tid)
        for n in range(4):
            if n == 0:
                entrant = {"person": mm.PersonEntrant(name=f"Mei {state}")}
            else:
                entrant = {"bot": mm.BotEntrant(policy="random")}
            reply = stub.Register(mm.RegisterRequest(tournament_id=tid, **entrant), timeout=30)
            known["players"].append(reply.player.player_id)
            if reply.player_secret:
                known["secrets"].append(reply.player_secret)
        if state == "registration":
            continue
        started = stub.StartTournament(mm.StartTournamentRequest(tournament_id=tid), timeout=30)
        known["matches"] += [t.match_id for t in started.tournament.tables]
        penalty = stub.AssignPenalty(
            mm.AssignPenaltyRequest(
                tournament_id=tid,
                player_id=known["players"][-1],
                points=3,
                reason="late",
                assigned_by="referee",
            ),
            timeout=30,
        ).penalty
        known["penalties"].append(penalty.penalty_id)
        if state == "cancelled":
            stub.CancelTournament(
                mm.CancelTournamentRequest(tournament_id=tid, reason="fuzz"), timeout=30
            )
    assert all(known.values()), known
    return known


@pytest.mark.slow
def test_fuzzing_every_rpc(stack, bots_env, tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEBEI_")}
    env.update(
        bots_env,
        HEBEI_OPERATOR_TOKEN=OPERATOR_TOKEN,
        HEBEI_SERVICE_TOKEN=SERVICE_TOKEN,
        HEBEI_HOST="127.0.0.1",
        HEBEI_MATCHMAKING_PORT=str(stack.matchmaking_port),
        HEBEI_MATCHMAKING_METRICS_PORT="-1",
        HEBEI_MATCHMAKING_TABLE_ADDRESS=stack.table_address,
        HEBEI_MATCHMAKING_LEDGER_ADDRESS=stack.ledger_address,
        HEBEI_DATABASE_URL=stack.database_url,
        HEBEI_MATCHMAKING_SCHEMA=stack.schemas["matchmaking"],
        HEBEI_MAX_MESSAGE_BYTES=str(SIZE_LIMIT),
        HEBEI_LOG_LEVEL="WARNING",
        HEBEI_AUTH_MAX_FAILURES="1000000",  # the fuzz sends thousands of wrong tokens
        HEBEI_AUTH_MAX_FAILURES_TOTAL="1000000",
    )
    service = ServiceProcess("matchmaking", stack.matchmaking_port, env, tmp_path / "mm.log")
    service.spawn()
    channel = big_channel(service.address)
    try:
        service.wait_serving()
        stub = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
        known = _known(stack.mm(), stack.create)
        rng = random.Random(SEED)
        ids = [v for values in known.values() for v in values]
        fuzz = Fuzzer(rng, MatchmakingRequests(rng, known).valid, strings=ids)
        report = fuzz_service(
            channel,
            fuzz,
            RPCS.values(),
            warm_up=WARM_UP,
            calls=CALLS,
            rss=lambda: rss_kib(service.pid),
            metadata=credentials,
            size_limit=SIZE_LIMIT,
        )
        assert_serving(channel)
        assert service.running()
        assert report.sent >= 3000, report.sent
        assert set(report.by_rpc) == set(RPCS)
        assert report.seen["INVALID_ARGUMENT"] > CALLS // 4, report.seen  # mostly refused
        assert report.seen["OK"] > CALLS // 40, report.seen  # and some of it taken
        report.check_memory("matchmaking", RSS_GROWTH_KIB, SIZE_LIMIT)
        # the service still does its work: a fresh tournament is created and read back
        tid = stack.create(rounds=1, hands=1).tournament_id
        wait_for(
            lambda: (
                stub.GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament.status
                == mm.TOURNAMENT_STATUS_REGISTRATION
            ),
            30,
            "a tournament after the fuzzing",
        )
        print(report.line("matchmaking"))
    finally:
        channel.close()
        service.stop()
    assert "Traceback" not in service.log()


def test_what_the_fuzzing_found_is_invalid_argument(stack) -> None:
    """Requests the fuzzing turned up, once INTERNAL (a ValueError of protobuf's timestamp
    conversion; PostgreSQL's bigint overflowing), now refused as bad input."""
    stack.start_matchmaking()
    tid = stack.create(rounds=1, hands=1).tournament_id
    players = [p.player_id for p in stack.register_bots(tid, 4, "random")]
    started = stack.mm().StartTournament(mm.StartTournamentRequest(tournament_id=tid))
    match_id = started.tournament.tables[0].match_id
    seats = [mm.MatchSeatResult(seat=s, player_id=players[s]) for s in range(4)]
    stamps = [{"seconds": 1, "nanos": -(2**31)}, {"seconds": 2**62}, {"seconds": -(2**40)}]
    requests = [
        ("ReportMatchResult", mm.ReportMatchResultRequest(
            match_id=match_id, status=pb.MATCH_STATUS_FINISHED, seats=seats, ended_at=stamp,
        ))
        for stamp in stamps
    ] + [
        ("GetRatings", mm.GetRatingsRequest(page_token="9" * 30)),
        ("GetRatings", mm.GetRatingsRequest(page_token="9" * 19)),
    ]  # fmt: skip
    for method, request in requests:
        with pytest.raises(grpc.RpcError) as refused:
            getattr(stack.mm(), method)(request, timeout=10)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (method, refused.value)
    assert not stack.mm().GetRatings(mm.GetRatingsRequest(page_token="9" * 18)).ratings
    playing = stack.mm().GetTournament(mm.GetTournamentRequest(tournament_id=tid)).tournament
    assert playing.status == mm.TOURNAMENT_STATUS_RUNNING  # nothing was recorded
